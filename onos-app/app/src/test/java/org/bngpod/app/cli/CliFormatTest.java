package org.bngpod.app.cli;

import org.bngpod.api.Failover;
import org.bngpod.api.PodStats;
import org.bngpod.api.Session;
import org.bngpod.api.Usage;
import org.bngpod.app.impl.Testbed;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.MacAddress;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The CLI's text over the fixture pod, before and after a failover.
 */
public class CliFormatTest {

    private Testbed bed;

    @Before
    public void setUp() {
        bed = new Testbed(Testbed.fixturePod());
    }

    @After
    public void tearDown() {
        bed.close();
    }

    @Test
    public void instancesAndLinesTellWhyAfterAFailover() {
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        assertEquals(List.of(
                "id=1 name=dp1 server=server1/p1 vf=1 port=srv1 available groups=lg1,lg2",
                "id=2 name=dp2 server=server1/p1 vf=2 port=srv1 DEAD (cp1: PFCP heartbeat lost) groups=-"),
                     CliFormat.instances(bed.pods.pod().orElseThrow(), bed.placement.placement()));
        List<String> lines = CliFormat.lines(bed.pods.pod().orElseThrow(), bed.placement.placement());
        assertEquals("lg1 on dp1 (id 1): profile silver, AC MAC 02:BB:00:00:00:01, core 100.64.0.11 "
                             + "(02:CC:00:00:00:01)", lines.get(0));
        assertEquals("  line access1 S-tag 100-149 C-tag any", lines.get(1));
        assertEquals("lg2 on dp1 (id 1): profile gold, AC MAC 02:BB:00:00:00:02, core 100.64.0.12 "
                             + "(02:CC:00:00:00:02)", lines.get(3));
        assertEquals("  line access3 S-tag 300-300 C-tag 2000-4094", lines.get(4));
        assertEquals(bed.placement.placementOf("lg2").orElseThrow().reason(), lines.get(6).substring(7));
        assertTrue(lines.get(6), lines.get(6).startsWith(
                "  why: lg2: instance dp2 (id 2) unavailable; moved to dp1 (id 1) (most headroom"));
        List<String> placement = CliFormat.placement(bed.placement.placement());
        assertEquals("placement version 2, 1 moves", placement.get(0));
        assertEquals("lg2 -> 1 [MOVED] ", placement.get(2).substring(0, 17));
    }

    @Test
    public void podStatsAndSessions() {
        assertEquals("pod lab, switch of:0000000000000001",
                     CliFormat.pod(bed.pods.pod().orElseThrow(), null).get(0));
        assertEquals(List.of("no pod configured (netcfg apps/org.bngpod.app/pod)", "last config rejected "
                + "(running pod kept): x"), CliFormat.pod(null, "x"));
        Failover f = Failover.of(2, "cp1", "PFCP heartbeat lost", Instant.parse("2026-01-02T03:04:05Z"),
                                 List.of("lg2"));
        assertEquals(List.of("sessions: 1,500", "  instance 1: 1,000", "  instance 2: 500",
                             "  line group lg1: 1,500", "placement version 3, line-group moves 1",
                             "last failover: instance 2 at 2026-01-02T03:04:05Z by cp1 (PFCP heartbeat lost), "
                                     + "moved lg2"),
                     CliFormat.stats(PodStats.of(1500, Map.of(1, 1000L, 2, 500L), Map.of("lg1", 1500L), 3, 1, f)));
        assertEquals("last failover: none", CliFormat.stats(PodStats.of(0, Map.of(), Map.of(), 1, 0, null)).get(2));
        Session s = Session.builder().id("acct-1").cp("cp1").lineGroup("lg2").instance(2).accessPort("access1")
                .stag(150).ctag(7).pppoeId(17).mac(MacAddress.valueOf("02:10:00:00:00:07"))
                .ipv4(Ip4Address.valueOf("100.80.4.9")).username("u1").qosProfile("gold")
                .since(Instant.parse("2026-01-02T03:04:05Z")).usage(Usage.of(1000, 2000, 10, 20)).build();
        assertEquals(List.of("id=acct-1 cp=cp1 group=lg2 instance=2 line=access1/150/7 pppoe=17 "
                                     + "mac=02:10:00:00:00:07 ip=100.80.4.9 user=u1 profile=gold "
                                     + "since=2026-01-02T03:04:05Z up=1000/10 down=2000/20"),
                     CliFormat.sessions(List.of(s)));
    }
}
