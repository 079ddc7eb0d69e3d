package org.bngpod.app.impl;

import org.bngpod.api.Failover;
import org.bngpod.api.Session;
import org.bngpod.api.SessionEvent;
import org.bngpod.api.SessionReport;
import org.bngpod.api.Throughput;
import org.bngpod.api.Usage;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.Reason;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.MacAddress;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/**
 * The session table: events, full resync per control plane, counts, the
 * store's serializer.
 */
public class SessionManagerTest {

    private Testbed bed;
    private final List<SessionEvent> events = new ArrayList<>();

    static Session session(String id, String cp, String group, int instance) {
        return Session.builder().id(id).cp(cp).lineGroup(group).instance(instance).accessPort("access1")
                .stag(150).ctag(7).pppoeId(17).mac(MacAddress.valueOf("02:10:00:00:00:07"))
                .ipv4(Ip4Address.valueOf("100.80.4.9")).username("u1").qosProfile("gold")
                .since(Instant.parse("2026-01-02T03:04:05.123456789Z")).usage(Usage.of(1, 2, 3, 4)).build();
    }

    @Before
    public void setUp() {
        bed = new Testbed(Testbed.fixturePod());
        bed.sessions.addListener(events::add);
    }

    @After
    public void tearDown() {
        bed.close();
    }

    private List<SessionEvent.Type> types() {
        return events.stream().map(SessionEvent::type).collect(Collectors.toList());
    }

    /**
     * A report with a newer reading gets the rate since the stored one: bits
     * over the time between the two readings. The same reading again (a
     * move, a resync) keeps it; readings that do not make a series (untimed,
     * counters gone back) give none rather than a wrong one.
     */
    @Test
    public void newerReadingMeasuresTheRate() {
        Instant t0 = Instant.parse("2026-01-02T03:05:00Z");
        Session a = session("a", "cp1", "lg2", 2).toBuilder().usage(Usage.of(0, 0, 0, 0, t0)).build();
        bed.sessions.report("cp1", List.of(SessionReport.of(SessionReport.Kind.UP, a)));
        assertTrue(bed.sessions.session("a").orElseThrow().throughput().isEmpty());

        Session a2 = a.toBuilder().usage(Usage.of(15_000, 250_000, 120, 300, t0.plusSeconds(300))).build();
        bed.sessions.report("cp1", List.of(SessionReport.of(SessionReport.Kind.UPDATE, a2)));
        Throughput rate = Throughput.of(400, 6667, 300_000);
        assertEquals(rate, bed.sessions.session("a").orElseThrow().throughput().orElseThrow());
        assertEquals(rate, events.get(events.size() - 1).subject().throughput().orElseThrow());

        // moved to dp1: same reading, same rate
        bed.sessions.report("cp1", List.of(SessionReport.of(SessionReport.Kind.UPDATE,
                                                            a2.toBuilder().instance(1).build())));
        assertEquals(rate, bed.sessions.session("a").orElseThrow().throughput().orElseThrow());
        // a resync bringing that reading again writes nothing
        events.clear();
        bed.sessions.resync("cp1", List.of(a2.toBuilder().instance(1).build()));
        assertEquals(List.of(), types());
        assertEquals(rate, bed.sessions.session("a").orElseThrow().throughput().orElseThrow());

        // a resync with a newer reading measures too: 1 s, 1,000 bytes down
        Session a3 = a2.toBuilder().instance(1).usage(Usage.of(15_000, 251_000, 121, 301, t0.plusSeconds(301)))
                .build();
        bed.sessions.resync("cp1", List.of(a3));
        assertEquals(Throughput.of(0, 8000, 1000), bed.sessions.session("a").orElseThrow().throughput().orElseThrow());

        // counters gone back (not one series), then an untimed report: no rate
        bed.sessions.report("cp1", List.of(SessionReport.of(SessionReport.Kind.UPDATE, a3.toBuilder()
                .usage(Usage.of(1, 1, 1, 1, t0.plusSeconds(400))).build())));
        assertTrue(bed.sessions.session("a").orElseThrow().throughput().isEmpty());
        bed.sessions.report("cp1", List.of(SessionReport.of(SessionReport.Kind.UPDATE, a3.toBuilder()
                .usage(Usage.of(5, 5, 5, 5)).build())));
        assertTrue(bed.sessions.session("a").orElseThrow().throughput().isEmpty());
        // a rate a control plane put in a report is not kept: ONOS measures its own
        bed.sessions.report("cp1", List.of(SessionReport.of(SessionReport.Kind.UP, session("b", "cp1", "lg1", 1)
                .toBuilder().throughput(Throughput.of(1, 1, 1)).build())));
        assertTrue(bed.sessions.session("b").orElseThrow().throughput().isEmpty());
    }

    @Test
    public void upUpdateDown() {
        Session a = session("a", "cp1", "lg2", 2);
        Session a2 = a.toBuilder().usage(Usage.of(10, 20, 30, 40)).build();
        bed.sessions.report("cp1", List.of(SessionReport.of(SessionReport.Kind.UP, a),
                                           SessionReport.of(SessionReport.Kind.UPDATE, a2),
                                           SessionReport.of(SessionReport.Kind.UP, session("b", "cp1", "lg1", 1))));
        assertEquals(2, bed.sessions.count());
        assertEquals(a2, bed.sessions.session("a").orElseThrow());
        assertEquals(Map.of(1, 1L, 2, 1L), bed.sessions.countsByInstance());
        assertEquals(Map.of("lg1", 1L, "lg2", 1L), bed.sessions.countsByGroup());
        bed.sessions.report("cp1", List.of(SessionReport.of(SessionReport.Kind.DOWN,
                                                            a2.toBuilder().cause("User-Request").build())));
        assertTrue(bed.sessions.session("a").isEmpty());
        // a down for a session never seen is no event
        bed.sessions.report("cp1", List.of(SessionReport.of(SessionReport.Kind.DOWN, session("zz", "cp1", "lg1", 1))));
        assertEquals(List.of(SessionEvent.Type.SESSION_UP, SessionEvent.Type.SESSION_UPDATED,
                             SessionEvent.Type.SESSION_UP, SessionEvent.Type.SESSION_DOWN), types());
        assertEquals("User-Request", events.get(3).subject().cause().orElseThrow());
    }

    @Test
    public void resyncReplacesOnlyThatControlPlanesSessions() {
        bed.sessions.resync("cp1", List.of(session("a", "cp1", "lg1", 1), session("b", "cp1", "lg1", 1)));
        bed.sessions.resync("cp2", List.of(session("c", "cp2", "lg2", 2)));
        bed.sessions.resync("cp1", List.of(session("b", "cp1", "lg1", 1), session("d", "cp1", "lg2", 1)));
        assertEquals(Set.of("b", "c", "d"),
                     bed.sessions.sessions().stream().map(Session::id).collect(Collectors.toSet()));
        bed.sessions.resync("cp1", List.of());
        assertEquals(Set.of("c"), bed.sessions.sessions().stream().map(Session::id).collect(Collectors.toSet()));
    }

    @Test
    public void anotherControlPlanesSessionOrARepeatedIdIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> bed.sessions.resync(
                "cp1", List.of(session("a", "cp2", "lg1", 1))));
        assertThrows(IllegalArgumentException.class, () -> bed.sessions.resync(
                "cp1", List.of(session("a", "cp1", "lg1", 1), session("a", "cp1", "lg1", 1))));
        assertThrows(IllegalArgumentException.class, () -> bed.sessions.report(
                "cp1", List.of(SessionReport.of(SessionReport.Kind.UP, session("a", "cp2", "lg1", 1)))));
        assertEquals(0, bed.sessions.count());
    }

    @Test
    public void storeSerializerRoundTrips() {
        Session s = session("a", "cp1", "lg2", 2);
        assertEquals(s, StoreSerializers.SERIALIZER.decode(StoreSerializers.SERIALIZER.encode(s)));
        Session full = s.toBuilder().downRate(40_000_000).upRate(8_000_000)
                .usage(Usage.of(1, 2, 3, 4, Instant.parse("2026-01-02T03:10:00.123456789Z")))
                .throughput(Throughput.of(400, 6667, 300_000)).build();
        assertEquals(full, StoreSerializers.SERIALIZER.decode(StoreSerializers.SERIALIZER.encode(full)));
        Placement p = Placement.of(Map.of("lg1", 1), Map.of("lg1", Reason.of(Reason.Kind.MOVED, "why"),
                                                            "lg2", Reason.of(Reason.Kind.UNPLACED, "none")));
        PlacementRecord rec = new PlacementRecord("lab", 7, p, Set.of(1, 3), 4,
                Failover.of(2, "cp1", "PFCP heartbeat lost", Instant.ofEpochMilli(1234), List.of("lg1")));
        PlacementRecord back = StoreSerializers.SERIALIZER.decode(StoreSerializers.SERIALIZER.encode(rec));
        assertEquals(p, back.placement());
        assertEquals(7, back.version);
        assertEquals(Set.of(1, 3), back.available);
        assertEquals(rec.lastFailover, back.lastFailover);
        HealthRecord h = new HealthRecord(Map.of()).with("cp1", "x").with("switch", "y");
        HealthRecord hb = StoreSerializers.SERIALIZER.decode(StoreSerializers.SERIALIZER.encode(h));
        assertEquals(h.deadBy, hb.deadBy);
    }
}
