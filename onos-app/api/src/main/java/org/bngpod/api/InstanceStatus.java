package org.bngpod.api;

import com.google.common.base.MoreObjects;

import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Whether a DP instance may serve line groups, and if not, who said so and why.
 */
public final class InstanceStatus {

    private final int id;
    private final String name;
    private final boolean available;
    private final String declaredBy;
    private final String reason;

    private InstanceStatus(int id, String name, boolean available, String declaredBy, String reason) {
        this.id = Checks.inRange(id, 1, DpInstance.MAX_ID, "instance id");
        this.name = Checks.name(name, "instance");
        this.available = available;
        checkArgument(available || declaredBy != null, "an unavailable instance needs declaredBy");
        this.declaredBy = declaredBy;
        this.reason = available ? null : checkNotNull(reason, "reason is null");
    }

    /**
     * Returns an available instance's status.
     *
     * @param id   instance id
     * @param name instance name
     * @return the status
     */
    public static InstanceStatus available(int id, String name) {
        return new InstanceStatus(id, name, true, null, null);
    }

    /**
     * Returns an unavailable instance's status.
     *
     * @param id         instance id
     * @param name       instance name
     * @param declaredBy who declared it dead (a control plane's name, "switch", "operator")
     * @param reason     why
     * @return the status
     */
    public static InstanceStatus unavailable(int id, String name, String declaredBy, String reason) {
        return new InstanceStatus(id, name, false, checkNotNull(declaredBy, "declaredBy is null"), reason);
    }

    /**
     * Returns the instance id.
     *
     * @return id
     */
    public int id() {
        return id;
    }

    /**
     * Returns the instance name.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Tells whether the instance may serve line groups.
     *
     * @return true if available
     */
    public boolean available() {
        return available;
    }

    /**
     * Returns who declared the instance dead.
     *
     * @return declarer, or empty when available
     */
    public Optional<String> declaredBy() {
        return Optional.ofNullable(declaredBy);
    }

    /**
     * Returns why the instance was declared dead.
     *
     * @return reason, or empty when available
     */
    public Optional<String> reason() {
        return Optional.ofNullable(reason);
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof InstanceStatus)) {
            return false;
        }
        InstanceStatus that = (InstanceStatus) obj;
        return id == that.id && available == that.available && name.equals(that.name)
                && Objects.equals(declaredBy, that.declaredBy) && Objects.equals(reason, that.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, name, available, declaredBy, reason);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).omitNullValues().add("id", id).add("name", name)
                .add("available", available).add("declaredBy", declaredBy).add("reason", reason).toString();
    }
}
