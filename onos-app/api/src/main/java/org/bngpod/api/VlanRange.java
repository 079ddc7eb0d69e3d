package org.bngpod.api;

import org.onlab.packet.VlanId;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * An inclusive range of VLAN ids, min..max within 1..4094.
 */
public final class VlanRange {

    /** Lowest VLAN id a range may hold. */
    public static final int MIN_VLAN = 1;
    /** Highest VLAN id a range may hold. */
    public static final int MAX_VLAN = 4094;

    /** Every VLAN id, 1..4094. */
    public static final VlanRange ALL = new VlanRange(MIN_VLAN, MAX_VLAN);

    private final int min;
    private final int max;

    private VlanRange(int min, int max) {
        this.min = min;
        this.max = max;
    }

    /**
     * Returns the range min..max.
     *
     * @param min lowest VLAN id of the range, 1..4094
     * @param max highest VLAN id of the range, min..4094
     * @return the range
     * @throws IllegalArgumentException if a bound is not a VLAN id or min &gt; max
     */
    public static VlanRange of(int min, int max) {
        checkArgument(isVlanId(min), "%s is not a VLAN id (%s..%s)", min, MIN_VLAN, MAX_VLAN);
        checkArgument(isVlanId(max), "%s is not a VLAN id (%s..%s)", max, MIN_VLAN, MAX_VLAN);
        checkArgument(min <= max, "min %s > max %s", min, max);
        return new VlanRange(min, max);
    }

    /**
     * Returns the range that holds one VLAN id.
     *
     * @param vlan VLAN id, 1..4094
     * @return the range vlan..vlan
     */
    public static VlanRange single(int vlan) {
        return of(vlan, vlan);
    }

    /**
     * Parses the text form of a range, "min-max" or a single VLAN id, as
     * {@link #toString()} writes it.
     *
     * @param text range text
     * @return the range
     * @throws IllegalArgumentException if the text is not a valid range
     */
    public static VlanRange valueOf(String text) {
        checkNotNull(text, "text is null");
        int dash = text.indexOf('-');
        try {
            if (dash < 0) {
                return single(Integer.parseInt(text));
            }
            return of(Integer.parseInt(text.substring(0, dash)),
                      Integer.parseInt(text.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not a VLAN range (min-max)", e);
        }
    }

    /**
     * Tells whether a number is a usable VLAN id, 1..4094.
     *
     * @param vlan number
     * @return true if it is
     */
    public static boolean isVlanId(long vlan) {
        return vlan >= MIN_VLAN && vlan <= MAX_VLAN;
    }

    /**
     * Returns the lowest VLAN id of the range.
     *
     * @return min
     */
    public int min() {
        return min;
    }

    /**
     * Returns the highest VLAN id of the range.
     *
     * @return max
     */
    public int max() {
        return max;
    }

    /**
     * Returns how many VLAN ids the range holds.
     *
     * @return max - min + 1
     */
    public int size() {
        return max - min + 1;
    }

    /**
     * Tells whether the range holds a VLAN id.
     *
     * @param vlan VLAN id
     * @return true if min &lt;= vlan &lt;= max
     */
    public boolean contains(int vlan) {
        return vlan >= min && vlan <= max;
    }

    /**
     * Tells whether the range holds a VLAN id; {@link VlanId#NONE} and
     * {@link VlanId#ANY} are in no range.
     *
     * @param vlanId VLAN id
     * @return true if the range holds it
     */
    public boolean contains(VlanId vlanId) {
        checkNotNull(vlanId, "vlanId is null");
        return contains(vlanId.toShort());
    }

    /**
     * Tells whether the range holds every VLAN id of another.
     *
     * @param other other range
     * @return true if other is a sub-range of this one
     */
    public boolean contains(VlanRange other) {
        checkNotNull(other, "other is null");
        return other.min >= min && other.max <= max;
    }

    /**
     * Tells whether the range shares at least one VLAN id with another.
     *
     * @param other other range
     * @return true if the ranges overlap
     */
    public boolean overlaps(VlanRange other) {
        checkNotNull(other, "other is null");
        return other.min <= max && min <= other.max;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof VlanRange)) {
            return false;
        }
        VlanRange that = (VlanRange) obj;
        return min == that.min && max == that.max;
    }

    @Override
    public int hashCode() {
        return 31 * min + max;
    }

    /**
     * Returns "min-max", as the pod file and the DP configuration write ranges.
     *
     * @return text form
     */
    @Override
    public String toString() {
        return min + "-" + max;
    }
}
