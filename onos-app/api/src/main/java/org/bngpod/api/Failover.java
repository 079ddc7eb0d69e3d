package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One failover: an instance declared dead and the line groups that moved away.
 */
public final class Failover {

    private final int instance;
    private final String declaredBy;
    private final String reason;
    private final long atMillis;
    private final List<String> moved;

    private Failover(int instance, String declaredBy, String reason, Instant at, List<String> moved) {
        this.instance = Checks.inRange(instance, 1, DpInstance.MAX_ID, "instance");
        this.declaredBy = checkNotNull(declaredBy, "declaredBy is null");
        this.reason = checkNotNull(reason, "reason is null");
        this.atMillis = checkNotNull(at, "at is null").toEpochMilli();
        this.moved = ImmutableList.copyOf(checkNotNull(moved, "moved is null"));
    }

    /**
     * Returns a failover record.
     *
     * @param instance   id of the instance declared dead
     * @param declaredBy who declared it
     * @param reason     why
     * @param at         when (kept to the millisecond)
     * @param moved      line groups moved away from it, by name
     * @return the record
     */
    public static Failover of(int instance, String declaredBy, String reason, Instant at, List<String> moved) {
        return new Failover(instance, declaredBy, reason, at, moved);
    }

    /**
     * Returns the id of the instance declared dead.
     *
     * @return instance id
     */
    public int instance() {
        return instance;
    }

    /**
     * Returns who declared the instance dead.
     *
     * @return declarer
     */
    public String declaredBy() {
        return declaredBy;
    }

    /**
     * Returns why.
     *
     * @return reason
     */
    public String reason() {
        return reason;
    }

    /**
     * Returns when.
     *
     * @return time
     */
    public Instant at() {
        return Instant.ofEpochMilli(atMillis);
    }

    /**
     * Returns the line groups moved away.
     *
     * @return group names
     */
    public List<String> moved() {
        return moved;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Failover)) {
            return false;
        }
        Failover that = (Failover) obj;
        return instance == that.instance && atMillis == that.atMillis && declaredBy.equals(that.declaredBy)
                && reason.equals(that.reason) && moved.equals(that.moved);
    }

    @Override
    public int hashCode() {
        return Objects.hash(instance, declaredBy, reason, atMillis, moved);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("instance", instance).add("declaredBy", declaredBy)
                .add("reason", reason).add("at", at()).add("moved", moved).toString();
    }
}
