package org.bngpod.seba.impl;

import org.bngpod.seba.api.Rates;
import org.opencord.sadis.BandwidthProfileInformation;

/**
 * SADIS bandwidth profiles as rates. SADIS rates are kbit/s, bursts kbit.
 * Peak: {@code pir} when set (MEF style carries cir/eir/gir/air; IETF style
 * pir/gir), else {@code cir + eir + gir + air} (air, deprecated since sadis
 * 5.4, still read), as SEBA's olt app computes its meters. Guaranteed:
 * {@code cir + gir}.
 */
final class BandwidthProfiles {

    private BandwidthProfiles() {
    }

    /**
     * Returns a profile's rates.
     *
     * @param bp the profile, as SADIS gives it
     * @return rates in bit/s and bytes
     * @throws IllegalArgumentException when the profile has a negative value, no
     *                                  positive peak, or a guaranteed rate above its peak
     */
    static Rates rates(BandwidthProfileInformation bp) {
        String id = bp.id() == null ? "(no id)" : bp.id();
        long cir = nonNegative(id, "cir", bp.committedInformationRate());
        long eir = nonNegative(id, "eir", bp.exceededInformationRate());
        long gir = nonNegative(id, "gir", bp.guaranteedInformationRate());
        long air = nonNegative(id, "air", bp.assuredInformationRate());
        long pir = nonNegative(id, "pir", bp.peakInformationRate());
        long peakKbps = pir > 0 ? pir : Math.addExact(Math.addExact(cir, eir), Math.addExact(gir, air));
        long guaranteedKbps = Math.addExact(cir, gir);
        if (peakKbps <= 0) {
            throw new IllegalArgumentException("bandwidth profile " + id + " has no rate (pir and cir+eir+gir+air are 0)");
        }
        if (guaranteedKbps > peakKbps) {
            throw new IllegalArgumentException("bandwidth profile " + id + ": cir+gir " + guaranteedKbps
                                                       + " kbit/s above the peak " + peakKbps + " kbit/s");
        }
        long pbs = burst(id, "pbs", bp.peakBurstSize());
        long cbs = burst(id, "cbs", bp.committedBurstSize());
        long ebs = burst(id, "ebs", bp.exceededBurstSize());
        // Without pbs the peak bucket is cbs + ebs, as the olt app's meter bands take them.
        long peakBurst = pbs > 0 ? pbs : cbs + ebs;
        return new Rates(id, Math.multiplyExact(peakKbps, 1000L), Math.multiplyExact(guaranteedKbps, 1000L),
                         kbitToBytes(peakBurst), kbitToBytes(cbs));
    }

    private static long nonNegative(String id, String field, long value) {
        if (value < 0) {
            throw new IllegalArgumentException("bandwidth profile " + id + ": " + field + " " + value + " is negative");
        }
        return value;
    }

    private static long burst(String id, String field, Long value) {
        return value == null ? 0 : nonNegative(id, field, value);
    }

    private static long kbitToBytes(long kbit) {
        return Math.multiplyExact(kbit, 1000L) / 8;
    }
}
