package org.bngpod.seba.impl;

import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.Rates;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.opencord.sadis.SubscriberAndDeviceInformation;

import java.util.List;
import java.util.stream.Collectors;

import static org.bngpod.seba.impl.TestPod.OLT1;
import static org.bngpod.seba.impl.TestPod.OLT2;
import static org.bngpod.seba.impl.TestPod.OLT3;
import static org.bngpod.seba.impl.TestPod.uni;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * BBSim-format SADIS documents, served over HTTP as SADIS's remote mode reads
 * them and parsed by sadis-api's own classes, mapped onto the test pod.
 */
public class SubscriberMapperTest {

    private SadisStandIn server;
    private RemoteSadis sadis;

    @Before
    public void setUp() throws Exception {
        server = new SadisStandIn();
        sadis = new RemoteSadis(server.subscriberUrl(), server.profileUrl());
        for (int i = 1; i <= 8; i++) {
            server.load("subscribers", "BBSM0000000" + i + "-1");
        }
    }

    @After
    public void tearDown() {
        server.close();
    }

    private void profiles(String format) throws Exception {
        for (String id : List.of("User_Bandwidth1", "User_Bandwidth2", "Default")) {
            server.load(format, id);
        }
    }

    private SubscriberMapper.Mapping map(UniIndex.Uni... unis) {
        return SubscriberMapper.map(TestPod.pod(), TestPod.OLTS, List.of(unis),
                                    id -> sadis.getSubscriberInfoService().get(id),
                                    id -> sadis.getBandwidthProfileService().get(id));
    }

    private static UniIndex.Uni u(org.onosproject.net.DeviceId olt, long port, String name) {
        return new UniIndex.Uni(uni(olt, port), name);
    }

    /** The stand-in serves what BBSim serves, and sadis-api's classes read it. */
    @Test
    public void bbsimDocumentsParseWithSadisApiClasses() throws Exception {
        SubscriberAndDeviceInformation info = sadis.getSubscriberInfoService().get("BBSM00000002-1");
        assertNotNull(info);
        assertEquals("olt1 eth 0/1:2.1", info.circuitId());
        assertEquals(2, info.uniTagList().size());
        assertEquals(300, info.uniTagList().get(0).getPonSTag().toShort());
        assertEquals(2001, info.uniTagList().get(0).getPonCTag().toShort());
        assertTrue(info.uniTagList().get(0).getIsPppoeRequired());
        assertEquals(3, info.uniTagList().get(1).getUsPonCTagPriority());
        assertNull("404 for an unknown id", sadis.getSubscriberInfoService().get("BBSM00000099-1"));
    }

    /** Each line's identity and rates, MEF-style profiles (BBSim's bp_format mef). */
    @Test
    public void subscribersMapOntoLinesWithIdentityAndMefRates() throws Exception {
        profiles("bp-mef");
        SubscriberMapper.Mapping m = map(u(OLT1, 256, "BBSM00000001-1"), u(OLT2, 512, "BBSM00000002-1"));

        LineSubscriber s1 = m.byLine.get("access1/100/900");
        assertEquals(new LineSubscriber("access1", 100, 900, "lg1", uni(OLT1, 256), "BBSM00000001-1", "hsia",
                                        "BBSM00000001-1", "BBSM00000001", "BBSM00000001-1",
                                        new Rates("User_Bandwidth2", 300_000_000L, 100_000_000L, 1_250_000L, 625_000L),
                                        new Rates("User_Bandwidth1", 230_000_000L, 30_000_000L, 1_375_000L,
                                                  1_250_000L)),
                     s1);
        assertEquals("BBSM00000001", s1.onuSerial());

        LineSubscriber s2 = m.byLine.get("access3/300/2001");
        assertEquals("lg2", s2.lineGroup());
        assertEquals("olt1 eth 0/1:2.1", s2.circuitId());
        assertEquals("cpe-2", s2.remoteId());
        assertEquals("olt1 pon0 onu2 uni1", s2.nasPortId());
        assertEquals(101_000_000L, s2.down().get().peak());
        assertEquals(600_000L, s2.up().get().guaranteed());
        assertEquals(2, m.byLine.size());
        // the video service (S999) is outside every line: reported, not invented
        assertEquals(List.of("UNI BBSM00000002-1@of:00000000000000a2/512 service video: S999 C77 on access port "
                                     + "access3 is in no access line of the pod"), m.problems);
    }

    /** IETF-style profiles (bp_format ietf): pir is the peak; BBSim's inconsistent ones reported. */
    @Test
    public void ietfProfilesAndTheirProblems() throws Exception {
        profiles("bp-ietf");
        SubscriberMapper.Mapping m = map(u(OLT1, 256, "BBSM00000001-1"), u(OLT2, 512, "BBSM00000002-1"));
        LineSubscriber s2 = m.byLine.get("access3/300/2001");
        assertEquals(new Rates("Default", 32_000_000L, 600_000L, 3_750L, 3_750L), s2.down().get());
        LineSubscriber s1 = m.byLine.get("access1/100/900");
        assertFalse("cir+gir above pir: no rates", s1.up().isPresent());
        assertFalse(s1.down().isPresent());
        assertTrue(m.problems.toString(), m.problems.contains(
                "UNI BBSM00000001-1@of:00000000000000a1/256 service hsia: upstreamBandwidthProfile: bandwidth "
                        + "profile User_Bandwidth1: cir+gir 130000 kbit/s above the peak 20000 kbit/s"));
    }

    /** Every kind of unmappable input is one clear sentence, and nothing else changes. */
    @Test
    public void whatCannotBeMappedIsReported() throws Exception {
        profiles("bp-mef");
        SubscriberMapper.Mapping m = map(
                u(OLT1, 256, "BBSM00000001-1"),
                u(OLT1, 257, "BBSM00000003-1"),   // unknown downstream profile, no circuit/remote id
                u(OLT1, 258, "BBSM00000004-1"),   // unknown field: SADIS refuses the document
                u(OLT1, 259, "BBSM00000005-1"),   // C-tag 5000: SADIS refuses the document
                u(OLT1, 260, "BBSM00000006-1"),   // cut short
                u(OLT1, 261, "BBSM00000007-1"),   // one service on UNI 1's line
                u(OLT1, 262, "BBSM00000008-1"),   // no services
                u(OLT1, 263, "BBSM00000009-1"),   // 404
                u(OLT3, 100, "BBSM0000000A-1"));  // OLT cabled nowhere
        assertEquals(List.of("access1/100/900", "access1/101/901", "access1/120/120"),
                     m.byLine.keySet().stream().sorted().collect(Collectors.toList()));
        LineSubscriber s3 = m.byLine.get("access1/120/120");
        assertEquals("", s3.circuitId());
        assertEquals("", s3.remoteId());
        assertFalse(s3.down().isPresent());
        assertFalse(s3.up().isPresent());
        assertEquals("BBSM00000001-1", m.byLine.get("access1/100/900").uniName());
        assertEquals(List.of(
                "UNI BBSM00000003-1@of:00000000000000a1/257 service hsia: downstreamBandwidthProfile "
                        + "No_Such_Profile is unknown to SADIS",
                "UNI BBSM00000004-1@of:00000000000000a1/258: unknown to SADIS",
                "UNI BBSM00000005-1@of:00000000000000a1/259: unknown to SADIS",
                "UNI BBSM00000006-1@of:00000000000000a1/260: unknown to SADIS",
                "UNI BBSM00000007-1@of:00000000000000a1/261 service hsia-dup: line access1/100/900 is already "
                        + "UNI BBSM00000001-1 service hsia; not mapped",
                "UNI BBSM00000008-1@of:00000000000000a1/262: SADIS entry has no uniTagList",
                "UNI BBSM00000009-1@of:00000000000000a1/263: unknown to SADIS",
                "UNI BBSM0000000A-1@of:00000000000000a3/100: OLT of:00000000000000a3 is cabled to no access port "
                        + "(seba netcfg olts)"),
                     m.problems);
    }

    /** Identities that cannot go into a PPPoE tag or RADIUS are left out and reported. */
    @Test
    public void oversizedOrControlCharacterIdentitiesAreLeftOut() throws Exception {
        String longId = "c".repeat(64);
        server.subscriber("BBSM00000010-1", "{\"id\":\"BBSM00000010-1\",\"circuitId\":\"" + longId
                + "\",\"remoteId\":\"a\\u0001b\",\"nasPortId\":\"ok\",\"uniTagList\":[{\"ponSTag\":110,\"ponCTag\":7}]}");
        SubscriberMapper.Mapping m = map(u(OLT1, 300, "BBSM00000010-1"));
        LineSubscriber s = m.byLine.get("access1/110/7");
        assertEquals("", s.circuitId());
        assertEquals("", s.remoteId());
        assertEquals("ok", s.nasPortId());
        assertEquals(List.of("UNI BBSM00000010-1@of:00000000000000a1/300: circuitId is longer than 63 octets; left out",
                             "UNI BBSM00000010-1@of:00000000000000a1/300: remoteId holds a control character; left out"),
                     m.problems);
    }

    /** The netcfg's port for an OLT must be an access port of the pod. */
    @Test
    public void anOltOnANonAccessPortIsReported() {
        SubscriberMapper.Mapping m = SubscriberMapper.map(
                TestPod.pod(), java.util.Map.of(OLT1, "uplink1", OLT2, "nosuch"),
                List.of(u(OLT1, 256, "BBSM00000001-1"), u(OLT2, 512, "BBSM00000002-1")),
                id -> sadis.getSubscriberInfoService().get(id), id -> sadis.getBandwidthProfileService().get(id));
        assertTrue(m.byLine.isEmpty());
        assertEquals(List.of("UNI BBSM00000001-1@of:00000000000000a1/256: uplink1 is not an access port of the pod",
                             "UNI BBSM00000002-1@of:00000000000000a2/512: nosuch is not an access port of the pod"),
                     m.problems);
    }

    /** A SADIS service that throws is a problem, not an exception. */
    @Test
    public void aThrowingLookupIsAProblem() {
        SubscriberMapper.Mapping m = SubscriberMapper.map(TestPod.pod(), TestPod.OLTS,
                List.of(u(OLT1, 256, "BBSM00000001-1")),
                id -> {
                    throw new IllegalStateException("SADIS down");
                },
                id -> null);
        assertTrue(m.byLine.isEmpty());
        assertEquals(List.of("UNI BBSM00000001-1@of:00000000000000a1/256: SADIS look-up failed: SADIS down"),
                     m.problems);
    }
}
