package org.bngpod.app.placement;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedMap;
import com.google.common.collect.ImmutableSortedSet;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * An immutable placement: for every line group, the id of the instance that
 * serves it (or none) and the reason. Maps are sorted by line group name, so
 * equal placements print alike.
 */
public final class Placement {

    private final SortedMap<String, Integer> instances;
    private final SortedMap<String, Reason> reasons;

    private Placement(Map<String, Integer> instances, Map<String, Reason> reasons) {
        this.instances = ImmutableSortedMap.copyOf(checkNotNull(instances, "instances is null"));
        this.reasons = ImmutableSortedMap.copyOf(checkNotNull(reasons, "reasons is null"));
        checkArgument(this.reasons.keySet().containsAll(this.instances.keySet()),
                      "every placed line group needs a reason");
    }

    /**
     * Returns a placement.
     *
     * @param instances line group name to instance id, for the placed groups
     * @param reasons   line group name to reason, for every group (placed or not)
     * @return the placement
     * @throws IllegalArgumentException if a placed group has no reason
     */
    public static Placement of(Map<String, Integer> instances, Map<String, Reason> reasons) {
        return new Placement(instances, reasons);
    }

    /**
     * Returns the placed line groups and their instance ids.
     *
     * @return line group name to instance id, sorted by name
     */
    public SortedMap<String, Integer> instances() {
        return instances;
    }

    /**
     * Returns the reasons of every line group.
     *
     * @return line group name to reason, sorted by name
     */
    public SortedMap<String, Reason> reasons() {
        return reasons;
    }

    /**
     * Returns the instance of a line group.
     *
     * @param lineGroup line group name
     * @return instance id, or empty if the group is unplaced or unknown
     */
    public Optional<Integer> instanceOf(String lineGroup) {
        return Optional.ofNullable(instances.get(lineGroup));
    }

    /**
     * Returns the reason of a line group.
     *
     * @param lineGroup line group name
     * @return reason, or empty if the group is unknown
     */
    public Optional<Reason> reason(String lineGroup) {
        return Optional.ofNullable(reasons.get(lineGroup));
    }

    /**
     * Returns the line groups an instance serves.
     *
     * @param instanceId instance id
     * @return line group names, sorted
     */
    public Set<String> groupsOn(int instanceId) {
        return instances.entrySet().stream().filter(e -> e.getValue() == instanceId)
                .map(Map.Entry::getKey).collect(ImmutableSortedSet.toImmutableSortedSet(String::compareTo));
    }

    /**
     * Returns the line groups that are on no instance.
     *
     * @return line group names, sorted
     */
    public Set<String> unplaced() {
        return reasons.keySet().stream().filter(g -> !instances.containsKey(g))
                .collect(ImmutableSortedSet.toImmutableSortedSet(String::compareTo));
    }

    /**
     * Returns the line groups placed on an instance that is over capacity
     * (only the pod file's own placement can have them).
     *
     * @return line group names, sorted
     */
    public Set<String> overCapacity() {
        return reasons.entrySet().stream().filter(e -> e.getValue().kind() == Reason.Kind.OVER_CAPACITY)
                .map(Map.Entry::getKey).collect(ImmutableSortedSet.toImmutableSortedSet(String::compareTo));
    }

    /**
     * Returns the line groups whose instance differs from another placement's
     * (moved, newly placed, or newly unplaced).
     *
     * @param before the other placement
     * @return line group names, sorted
     */
    public Set<String> changedFrom(Placement before) {
        checkNotNull(before, "before is null");
        ImmutableSortedSet.Builder<String> changed = ImmutableSortedSet.naturalOrder();
        for (String group : reasons.keySet()) {
            if (!Objects.equals(instances.get(group), before.instances.get(group))) {
                changed.add(group);
            }
        }
        return changed.build();
    }

    /**
     * Returns the reasons' texts, one line per group, sorted by group name:
     * what a CLI prints.
     *
     * @return lines
     */
    public List<String> describe() {
        return reasons.values().stream().map(Reason::text)
                .collect(ImmutableList.toImmutableList());
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Placement)) {
            return false;
        }
        Placement that = (Placement) obj;
        return instances.equals(that.instances) && reasons.equals(that.reasons);
    }

    @Override
    public int hashCode() {
        return Objects.hash(instances, reasons);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("instances", instances).add("reasons", reasons).toString();
    }
}
