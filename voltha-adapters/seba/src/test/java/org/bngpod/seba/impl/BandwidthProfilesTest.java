package org.bngpod.seba.impl;

import org.bngpod.seba.api.Rates;
import org.junit.Test;
import org.opencord.sadis.BandwidthProfileInformation;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/**
 * SADIS bandwidth profiles (kbit/s, kbit) as rates (bit/s, bytes), on
 * sadis-api's own class.
 */
public class BandwidthProfilesTest {

    private static BandwidthProfileInformation bp(String id, long cir, Long cbs, long eir, Long ebs, long air,
                                                  long pir, Long pbs, long gir) {
        BandwidthProfileInformation bp = new BandwidthProfileInformation();
        bp.setId(id);
        bp.setCommittedInformationRate(cir);
        bp.setCommittedBurstSize(cbs);
        bp.setExceededInformationRate(eir);
        bp.setExceededBurstSize(ebs);
        bp.setAssuredInformationRate(air);
        bp.setPeakInformationRate(pir);
        bp.setPeakBurstSize(pbs);
        bp.setGuaranteedInformationRate(gir);
        return bp;
    }

    /** MEF style (BBSim's User_Bandwidth1): peak cir+eir+air, guaranteed cir, peak burst cbs+ebs. */
    @Test
    public void mefProfilePeakIsTheSumAndTheBurstsAreBytes() {
        Rates r = BandwidthProfiles.rates(bp("User_Bandwidth1", 30_000, 10_000L, 100_000, 1_000L, 100_000, 0, null, 0));
        assertEquals(new Rates("User_Bandwidth1", 230_000_000L, 30_000_000L, 1_375_000L, 1_250_000L), r);
    }

    /** IETF style (BBSim's Default): pir wins, guaranteed cir+gir, pbs is the peak burst. */
    @Test
    public void ietfProfilePeakIsPir() {
        Rates r = BandwidthProfiles.rates(bp("Default", 600, 30L, 0, null, 0, 32_000, 30L, 0));
        assertEquals(new Rates("Default", 32_000_000L, 600_000L, 3_750L, 3_750L), r);
        Rates g = BandwidthProfiles.rates(bp("g", 1_000, null, 0, null, 0, 50_000, null, 4_000));
        assertEquals(5_000_000L, g.guaranteed());
        assertEquals(0L, g.peakBurst());
        assertEquals(0L, g.committedBurst());
    }

    /** air alone (deprecated since sadis 5.4) is still read. */
    @Test
    public void airAloneIsARate() {
        Rates r = BandwidthProfiles.rates(bp("air", 0, null, 0, null, 2_000, 0, null, 0));
        assertEquals(2_000_000L, r.peak());
        assertEquals(0L, r.guaranteed());
    }

    /** gir counts in the peak when there is no pir, as the olt app's meter does. */
    @Test
    public void girCountsInThePeakWithoutPir() {
        Rates r = BandwidthProfiles.rates(bp("gir", 1_000, null, 2_000, null, 0, 0, null, 3_000));
        assertEquals(6_000_000L, r.peak());
        assertEquals(4_000_000L, r.guaranteed());
    }

    /** Profiles that cannot be rates are refused with their id named. */
    @Test
    public void badProfilesAreRefusedByName() {
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> BandwidthProfiles.rates(bp("empty", 0, null, 0, null, 0, 0, null, 0)));
        assertTrue(none.getMessage(), none.getMessage().contains("empty") && none.getMessage().contains("no rate"));
        IllegalArgumentException neg = assertThrows(IllegalArgumentException.class,
                () -> BandwidthProfiles.rates(bp("neg", -5, null, 10, null, 0, 0, null, 0)));
        assertTrue(neg.getMessage(), neg.getMessage().contains("cir -5"));
        // BBSim's IETF User_Bandwidth1: cir 30000 + gir 100000 above pir 20000
        IllegalArgumentException above = assertThrows(IllegalArgumentException.class,
                () -> BandwidthProfiles.rates(bp("User_Bandwidth1", 30_000, 10_000L, 0, null, 0, 20_000, 1_000L,
                                                 100_000)));
        assertTrue(above.getMessage(), above.getMessage().contains("above the peak 20000"));
        assertThrows(IllegalArgumentException.class,
                () -> BandwidthProfiles.rates(bp("negburst", 10, -1L, 0, null, 0, 0, null, 0)));
        assertThrows(ArithmeticException.class,
                () -> BandwidthProfiles.rates(bp("huge", Long.MAX_VALUE / 2, null, Long.MAX_VALUE / 2, null,
                                                 Long.MAX_VALUE / 2, 0, null, 0)));
    }
}
