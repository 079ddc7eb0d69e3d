package org.bngpod.api;

import com.google.common.base.MoreObjects;

import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Where one line group is placed and why (a row of GET /placement).
 */
public final class GroupPlacement {

    private final String lineGroup;
    private final Integer instance;
    private final String reasonKind;
    private final String reason;

    private GroupPlacement(String lineGroup, Integer instance, String reasonKind, String reason) {
        this.lineGroup = Checks.name(lineGroup, "line group");
        if (instance != null) {
            Checks.inRange(instance, 1, DpInstance.MAX_ID, "instance");
        }
        this.instance = instance;
        this.reasonKind = checkNotNull(reasonKind, "reasonKind is null");
        this.reason = checkNotNull(reason, "reason is null");
    }

    /**
     * Returns a group's placement.
     *
     * @param lineGroup  line group name
     * @param instance   id of the instance serving it, or null if unplaced
     * @param reasonKind kind of the reason (STATED, OVER_CAPACITY, KEPT, MOVED, UNPLACED, SHARED_STAG)
     * @param reason     why the group is where it is
     * @return the placement
     */
    public static GroupPlacement of(String lineGroup, Integer instance, String reasonKind, String reason) {
        return new GroupPlacement(lineGroup, instance, reasonKind, reason);
    }

    /**
     * Returns the line group's name.
     *
     * @return name
     */
    public String lineGroup() {
        return lineGroup;
    }

    /**
     * Returns the instance serving the group.
     *
     * @return instance id, or empty if unplaced
     */
    public Optional<Integer> instance() {
        return Optional.ofNullable(instance);
    }

    /**
     * Tells whether an instance serves the group.
     *
     * @return true if placed
     */
    public boolean placed() {
        return instance != null;
    }

    /**
     * Returns the kind of reason.
     *
     * @return reason kind
     */
    public String reasonKind() {
        return reasonKind;
    }

    /**
     * Returns why the group is where it is.
     *
     * @return reason text
     */
    public String reason() {
        return reason;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof GroupPlacement)) {
            return false;
        }
        GroupPlacement that = (GroupPlacement) obj;
        return lineGroup.equals(that.lineGroup) && Objects.equals(instance, that.instance)
                && reasonKind.equals(that.reasonKind) && reason.equals(that.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(lineGroup, instance, reasonKind, reason);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("lineGroup", lineGroup).add("instance", instance)
                .add("reasonKind", reasonKind).add("reason", reason).toString();
    }
}
