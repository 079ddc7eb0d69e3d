package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The pod's placement as the control plane polls it (GET /placement): a
 * version that grows with every change, each line group's instance and reason,
 * each instance's availability, and failover history in brief.
 */
public final class PlacementState {

    /** No pod configured: version 0, nothing placed. */
    public static final PlacementState EMPTY = new PlacementState(0, List.of(), List.of(), 0, null);

    private final long version;
    private final List<GroupPlacement> groups;
    private final List<InstanceStatus> instances;
    private final long moves;
    private final Failover lastFailover;

    private PlacementState(long version, List<GroupPlacement> groups, List<InstanceStatus> instances, long moves,
                           Failover lastFailover) {
        checkArgument(version >= 0, "version %s is negative", version);
        checkArgument(moves >= 0, "moves %s is negative", moves);
        this.version = version;
        this.groups = ImmutableList.copyOf(checkNotNull(groups, "groups is null"));
        this.instances = ImmutableList.copyOf(checkNotNull(instances, "instances is null"));
        Checks.unique(this.groups, GroupPlacement::lineGroup, "line group");
        Checks.unique(this.instances, InstanceStatus::id, "instance id");
        this.moves = moves;
        this.lastFailover = lastFailover;
    }

    /**
     * Returns a placement state.
     *
     * @param version      version, grows with every change
     * @param groups       each line group's placement, by group name
     * @param instances    each instance's status, by id
     * @param moves        line group moves since the application started placing this pod
     * @param lastFailover the last failover, or null
     * @return the state
     */
    public static PlacementState of(long version, List<GroupPlacement> groups, List<InstanceStatus> instances,
                                    long moves, Failover lastFailover) {
        return new PlacementState(version, groups, instances, moves, lastFailover);
    }

    /**
     * Returns the version.
     *
     * @return version
     */
    public long version() {
        return version;
    }

    /**
     * Returns every line group's placement.
     *
     * @return placements, by group name
     */
    public List<GroupPlacement> groups() {
        return groups;
    }

    /**
     * Returns one line group's placement.
     *
     * @param lineGroup group name
     * @return its placement, or empty if the pod has no such group
     */
    public Optional<GroupPlacement> group(String lineGroup) {
        return groups.stream().filter(g -> g.lineGroup().equals(lineGroup)).findFirst();
    }

    /**
     * Returns every instance's status.
     *
     * @return statuses, by id
     */
    public List<InstanceStatus> instances() {
        return instances;
    }

    /**
     * Returns one instance's status.
     *
     * @param id instance id
     * @return its status, or empty if the pod has no such instance
     */
    public Optional<InstanceStatus> instance(int id) {
        return instances.stream().filter(i -> i.id() == id).findFirst();
    }

    /**
     * Returns how many line-group moves happened.
     *
     * @return moves
     */
    public long moves() {
        return moves;
    }

    /**
     * Returns the last failover.
     *
     * @return last failover, or empty
     */
    public Optional<Failover> lastFailover() {
        return Optional.ofNullable(lastFailover);
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof PlacementState)) {
            return false;
        }
        PlacementState that = (PlacementState) obj;
        return version == that.version && moves == that.moves && groups.equals(that.groups)
                && instances.equals(that.instances) && Objects.equals(lastFailover, that.lastFailover);
    }

    @Override
    public int hashCode() {
        return Objects.hash(version, groups, instances, moves, lastFailover);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("version", version).add("groups", groups)
                .add("instances", instances).add("moves", moves).add("lastFailover", lastFailover).toString();
    }
}
