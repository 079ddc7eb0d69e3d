package org.bngpod.app.impl;

import org.onosproject.store.Store;

/**
 * Where the placement and the instances' health live, shared by every node
 * of the cluster: the placement record of the pod and, per instance, who
 * declared it dead and why.
 *
 * <p>Changes made on any node reach the delegate as {@link PlacementStoreEvent}s,
 * on the store's own threads: the delegate must hand any work that reads or
 * writes the store to a thread of its own (a read on the store's thread waits
 * for a reply only that thread can deliver).</p>
 */
public interface PlacementStore extends Store<PlacementStoreEvent, PlacementStoreDelegate> {

    /**
     * Returns the stored placement.
     *
     * @return the record; null if none was stored
     */
    PlacementRecord placement();

    /**
     * Stores the placement, replacing the one before.
     *
     * @param record the new record
     */
    void setPlacement(PlacementRecord record);

    /**
     * Returns who declared an instance dead.
     *
     * @param instance instance id
     * @return the declarations; null if nobody did (the instance is available)
     */
    HealthRecord health(int instance);

    /**
     * Records that a declarer says an instance is dead.
     *
     * @param instance   instance id
     * @param declaredBy who says so
     * @param reason     why
     * @return false if the declarer had said so already, for the same reason
     */
    boolean declareDead(int instance, String declaredBy, String reason);

    /**
     * Takes a declarer's word that an instance is dead back.
     *
     * @param instance   instance id
     * @param declaredBy who takes it back
     * @return false if the declarer had not declared the instance dead
     */
    boolean declareAlive(int instance, String declaredBy);

    /**
     * Takes every declarer's word that an instance is dead back.
     *
     * @param instance instance id
     * @return false if nobody had declared it dead
     */
    boolean clearDeclarations(int instance);
}
