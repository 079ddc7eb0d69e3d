package org.bngpod.seba.api;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The rates of one direction of a subscriber's service, from its SADIS
 * bandwidth profile, in bit/s and bytes (SADIS gives kbit/s and kbit).
 * The peak rate is the profile's {@code pir} when set, else
 * {@code cir + eir + gir + air}, as SEBA's olt app computes it; the guaranteed
 * rate is {@code cir + gir}.
 */
public final class Rates {

    private final String profile;
    private final long peak;
    private final long guaranteed;
    private final long peakBurst;
    private final long committedBurst;

    /**
     * Creates rates.
     *
     * @param profile        the bandwidth profile's id
     * @param peak           peak rate, bit/s (positive)
     * @param guaranteed     guaranteed rate, bit/s (0..peak)
     * @param peakBurst      peak burst, bytes (0: unset)
     * @param committedBurst committed burst, bytes (0: unset)
     */
    public Rates(String profile, long peak, long guaranteed, long peakBurst, long committedBurst) {
        checkArgument(peak > 0, "profile %s: peak rate %s is not positive", profile, peak);
        checkArgument(guaranteed >= 0 && guaranteed <= peak,
                      "profile %s: guaranteed rate %s outside 0..%s", profile, guaranteed, peak);
        checkArgument(peakBurst >= 0 && committedBurst >= 0, "profile %s: negative burst", profile);
        this.profile = Objects.requireNonNull(profile);
        this.peak = peak;
        this.guaranteed = guaranteed;
        this.peakBurst = peakBurst;
        this.committedBurst = committedBurst;
    }

    /**
     * Returns the bandwidth profile's id.
     *
     * @return SADIS id
     */
    public String profile() {
        return profile;
    }

    /**
     * Returns the peak rate.
     *
     * @return bit/s
     */
    public long peak() {
        return peak;
    }

    /**
     * Returns the guaranteed rate.
     *
     * @return bit/s
     */
    public long guaranteed() {
        return guaranteed;
    }

    /**
     * Returns the peak burst.
     *
     * @return bytes, 0 when the profile has none
     */
    public long peakBurst() {
        return peakBurst;
    }

    /**
     * Returns the committed burst.
     *
     * @return bytes, 0 when the profile has none
     */
    public long committedBurst() {
        return committedBurst;
    }

    @Override
    public boolean equals(Object obj) {
        if (!(obj instanceof Rates)) {
            return false;
        }
        Rates o = (Rates) obj;
        return profile.equals(o.profile) && peak == o.peak && guaranteed == o.guaranteed
                && peakBurst == o.peakBurst && committedBurst == o.committedBurst;
    }

    @Override
    public int hashCode() {
        return Objects.hash(profile, peak, guaranteed, peakBurst, committedBurst);
    }

    @Override
    public String toString() {
        return profile + "{peak=" + peak + ", guaranteed=" + guaranteed + ", pbs=" + peakBurst
                + ", cbs=" + committedBurst + "}";
    }
}
