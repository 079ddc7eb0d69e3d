package org.bngpod.app.placement;

import com.google.common.base.MoreObjects;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What one DP instance can take, and what a session contracts, beyond what
 * the pod model states.
 *
 * <p>The pod model gives each instance a rate (its VF's share of the port
 * rate, the HQoS port rate), the engine's capacity of contracted rate, but no
 * session count: the session capacity of every instance is bng-dp's
 * {@code --sessions} (its default is 65,536, the emulated pod runs 4,096).
 * A QoS profile may state the downstream rate it guarantees a session
 * ({@code downGuaranteed}); for a profile that does not, a session contracts
 * its downstream rate divided by the oversubscription ratio (the profile rate
 * a BNG sells per bit/s it guarantees), a planning assumption.</p>
 */
public final class Capacity {

    /** bng-dp's default session capacity ({@code --sessions}). */
    public static final long DEFAULT_SESSIONS = 65_536;

    /** Default oversubscription ratio of profiles without downGuaranteed: a planning assumption. */
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
     * @param oversubscription profile downstream rate per contracted bit/s, for profiles without
     *                         downGuaranteed; 1 for none
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
     * Returns the oversubscription ratio of profiles that state no guaranteed
     * downstream rate.
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
