package org.bngpod.api;

import org.onosproject.event.ListenerService;

import java.util.Optional;

/**
 * Which DP instance serves each line group, why, and failover: instances
 * declared dead lose their groups to the instances with the most headroom.
 */
public interface PlacementService extends ListenerService<PlacementEvent, PlacementListener> {

    /**
     * Returns the current placement.
     *
     * @return placement; {@link PlacementState#EMPTY} without a pod
     */
    PlacementState placement();

    /**
     * Returns the placement once its version differs from a version the
     * caller has seen, waiting at most a while for that (a long poll: a
     * control plane learns a failover as soon as it is placed, without
     * polling). Blocks the calling thread, which must not be an event or a
     * store thread; a node lets a bounded number of callers wait at once and
     * answers the others at once.
     *
     * @param version     the version the caller has seen
     * @param maxWaitMillis how long to wait at most; 0: do not wait
     * @return the placement: a newer one, or the current one when the wait ends
     * @throws InterruptedException if the calling thread is interrupted while waiting
     */
    PlacementState placementAfter(long version, long maxWaitMillis) throws InterruptedException;

    /**
     * Returns one line group's placement and reason.
     *
     * @param lineGroup group name
     * @return its placement, or empty if the pod has no such group
     */
    Optional<GroupPlacement> placementOf(String lineGroup);

    /**
     * Declares an instance dead: its line groups move to other instances.
     * Idempotent.
     *
     * @param instance   instance id
     * @param declaredBy who says so: a control plane's name, "operator", "switch"
     * @param reason     why, in words
     * @throws IllegalArgumentException if the pod has no such instance (or there is no pod)
     */
    void declareDead(int instance, String declaredBy, String reason);

    /**
     * Declares an instance available again: it can take line groups in later
     * placements; nothing moves back to it. Idempotent.
     *
     * @param instance   instance id
     * @param declaredBy who says so
     * @throws IllegalArgumentException if the pod has no such instance (or there is no pod)
     */
    void declareAlive(int instance, String declaredBy);

    /**
     * Re-balances: groups over capacity, unplaced or on unavailable instances
     * move; others stay.
     *
     * @throws IllegalStateException if there is no pod
     */
    void rebalance();
}
