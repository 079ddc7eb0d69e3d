package org.bngpod.app.placement;

import com.google.common.base.MoreObjects;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What one DP instance can take, beyond what the pod model states.
 *
 * <p>The pod model gives each instance a bandwidth (its VF's share of the
 * port rate, the HQoS port rate) but no session count, and line groups'
 * bandwidth is the sum of their subscribers' profile rates, which a BNG
 * oversubscribes. So the engine needs two numbers the pod file does not hold:
 * the session capacity of every instance (bng-dp's {@code --sessions}; its
 * default is 65,536, the emulated pod runs 4,096) and the oversubscription
 * ratio (the sum of the profile rates an instance may carry per bit/s of its
 * port rate).</p>
 */
public final class Capacity {

    /** bng-dp's default session capacity ({@code --sessions}). */
    public static final long DEFAULT_SESSIONS = 65_536;

    /** Default oversubscription ratio: a planning assumption, not a measured figure. */
    public static final long DEFAULT_OVERSUBSCRIPTION = 20;

    /** Default capacity: 65,536 sessions, 20:1 oversubscription. */
    public static final Capacity DEFAULT = of(DEFAULT_SESSIONS, DEFAULT_OVERSUBSCRIPTION);

    private final long sessions;
    private final long oversubscription;

    private Capacity(long sessions, long oversubscription) {
        checkArgument(sessions > 0, "session capacity %s is not positive", sessions);
        checkArgument(oversubscription > 0, "oversubscription %s is not positive", oversubscription);
        this.sessions = sessions;
        this.oversubscription = oversubscription;
    }

    /**
     * Returns a capacity.
     *
     * @param sessions         sessions each instance can hold
     * @param oversubscription bit/s of profile rates per bit/s of port rate, 1 for none
     * @return the capacity
     */
    public static Capacity of(long sessions, long oversubscription) {
        return new Capacity(sessions, oversubscription);
    }

    /**
     * Returns the session capacity of each instance.
     *
     * @return sessions
     */
    public long sessions() {
        return sessions;
    }

    /**
     * Returns the oversubscription ratio.
     *
     * @return ratio, at least 1
     */
    public long oversubscription() {
        return oversubscription;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Capacity)) {
            return false;
        }
        Capacity that = (Capacity) obj;
        return sessions == that.sessions && oversubscription == that.oversubscription;
    }

    @Override
    public int hashCode() {
        return Objects.hash(sessions, oversubscription);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("sessions", sessions).add("oversubscription", oversubscription).toString();
    }
}
