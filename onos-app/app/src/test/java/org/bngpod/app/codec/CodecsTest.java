package org.bngpod.app.codec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.Failover;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.InstanceStatus;
import org.bngpod.api.PlacementState;
import org.bngpod.api.PodStats;
import org.bngpod.api.Session;
import org.bngpod.api.Throughput;
import org.bngpod.api.Usage;
import org.junit.Test;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.MacAddress;
import org.onosproject.codec.impl.MockCodecContext;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/**
 * Round trips of the codecs that read as well as write, and the session
 * codec's messages for bad values.
 */
public class CodecsTest {

    private final MockCodecContext context = new MockCodecContext();
    private final ObjectMapper mapper = new ObjectMapper();

    private static Session session() {
        return Session.builder().id("acct-1").cp("cp1").lineGroup("lg2").instance(2).accessPort("access1")
                .stag(150).ctag(7).pppoeId(17).mac(MacAddress.valueOf("02:10:00:00:00:07"))
                .ipv4(Ip4Address.valueOf("100.80.4.9")).username("u1").qosProfile("gold")
                .since(Instant.parse("2026-01-02T03:04:05.5Z")).usage(Usage.of(1, 2, 3, 4))
                .cause("User-Request").build();
    }

    @Test
    public void sessionRoundTrip() throws IOException {
        SessionCodec codec = new SessionCodec();
        Session s = session();
        ObjectNode json = codec.encode(s, context);
        assertEquals("02:10:00:00:00:07", json.path("mac").asText());
        assertEquals("2026-01-02T03:04:05.500Z", json.path("since").asText());
        // through text, as on the wire
        ObjectNode back = (ObjectNode) mapper.readTree(json.toString());
        assertEquals(s, codec.decode(back, context));

        Session bare = Session.builder().id("x").cp("cp1").lineGroup("lg1").instance(1).accessPort("access1")
                .stag(100).ctag(1).pppoeId(0).mac(MacAddress.valueOf("02:00:00:00:00:01"))
                .since(Instant.ofEpochSecond(0)).build();
        assertEquals(bare, codec.decode(codec.encode(bare, context), context));
    }

    /**
     * The session's own rates and its reading's time go both ways; the
     * throughput ONOS measured is written, and a control plane's is not read
     * (ONOS measures it itself).
     */
    @Test
    public void ratesReadingAndThroughput() throws IOException {
        SessionCodec codec = new SessionCodec();
        Session s = session().toBuilder().downRate(40_000_000).upRate(8_000_000)
                .usage(Usage.of(1, 2, 3, 4, Instant.parse("2026-01-02T03:10:00.25Z"))).build();
        ObjectNode json = codec.encode(s, context);
        assertEquals(40_000_000, json.path("downRate").asLong());
        assertEquals(8_000_000, json.path("upRate").asLong());
        assertEquals("2026-01-02T03:10:00.250Z", json.path("usage").path("at").asText());
        assertFalse(json.has("throughput"));
        assertEquals(s, codec.decode((ObjectNode) mapper.readTree(json.toString()), context));

        // none of its own: no rates, no reading; the profile's and unknown
        ObjectNode plain = codec.encode(session(), context);
        assertFalse(plain.has("downRate") || plain.has("upRate") || plain.path("usage").has("at"));

        Session measured = s.toBuilder().throughput(Throughput.of(400, 6667, 300_000)).build();
        json = codec.encode(measured, context);
        assertEquals(400, json.path("throughput").path("upBitsPerSecond").asLong());
        assertEquals(6667, json.path("throughput").path("downBitsPerSecond").asLong());
        assertEquals(300_000, json.path("throughput").path("periodMillis").asLong());
        assertEquals(s, codec.decode(json, context));
    }

    /**
     * The session's drops and control frames (issue 16) go both ways; a
     * control plane that leaves them out gives 0.
     */
    @Test
    public void dropsAndControlPackets() throws IOException {
        SessionCodec codec = new SessionCodec();
        Session s = session().toBuilder()
                .usage(Usage.of(1, 2, 3, 4).withDropsAndControl(5, 6, 7).withDropBytes(500, 6000)).build();
        ObjectNode json = codec.encode(s, context);
        assertEquals(5, json.path("usage").path("upDropPackets").asLong());
        assertEquals(6, json.path("usage").path("downDropPackets").asLong());
        assertEquals(500, json.path("usage").path("upDropBytes").asLong());
        assertEquals(6000, json.path("usage").path("downDropBytes").asLong());
        assertEquals(7, json.path("usage").path("controlPackets").asLong());
        assertEquals(s, codec.decode((ObjectNode) mapper.readTree(json.toString()), context));
        // a control plane before dropped octets: packets, octets 0
        ObjectNode pkts = json.deepCopy();
        ((ObjectNode) pkts.path("usage")).remove(List.of("upDropBytes", "downDropBytes"));
        assertEquals(Usage.of(1, 2, 3, 4).withDropsAndControl(5, 6, 7), codec.decode(pkts, context).usage());
        ObjectNode old = json.deepCopy();
        ((ObjectNode) old.path("usage")).remove(List.of("upDropPackets", "downDropPackets", "upDropBytes",
                                                         "downDropBytes", "controlPackets"));
        assertEquals(Usage.of(1, 2, 3, 4), codec.decode(old, context).usage());
        ((ObjectNode) old.path("usage")).put("downDropBytes", -1);
        assertEquals("s.usage.downDropBytes: -1 is out of range (0..9223372036854775807)",
                     assertThrows(IllegalArgumentException.class,
                                  () -> SessionCodec.decode(old, "cp1", "s")).getMessage());
        ((ObjectNode) old.path("usage")).remove("downDropBytes");
        ((ObjectNode) old.path("usage")).put("controlPackets", -1);
        assertEquals("s.usage.controlPackets: -1 is out of range (0..9223372036854775807)",
                     assertThrows(IllegalArgumentException.class,
                                  () -> SessionCodec.decode(old, "cp1", "s")).getMessage());
    }

    @Test
    public void sessionInputRfc3339OffsetsAndUnknownFields() throws IOException {
        ObjectNode json = new SessionCodec().encode(session(), context);
        json.put("since", "2026-01-02T05:04:05.5+02:00").put("future", "ignored");
        assertEquals(session(), SessionCodec.decode(json, "cp1", ""));
    }

    @Test
    public void badSessionValuesNameTheField() {
        ObjectNode good = new SessionCodec().encode(session(), context);
        Object[][] cases = {
            {"stag", 0, "s.stag: 0 is out of range (1..4094)"},
            {"ctag", "7", "s.ctag: expected an integer, got string"},
            {"instance", 1.5, "s.instance: expected an integer, got number"},
            {"pppoeId", 70000, "s.pppoeId: 70000 is out of range (0..65535)"},
            {"ipv4", "1.2.3", "s.ipv4: \"1.2.3\" is not an IPv4 address"},
            {"since", "yesterday", "s.since: \"yesterday\" is not an RFC 3339 time"},
            {"downRate", -1, "s.downRate: -1 is out of range (0..1000000000000)"},
            {"upRate", 1_000_000_000_001L, "s.upRate: 1000000000001 is out of range (0..1000000000000)"},
            {"upRate", "8M", "s.upRate: expected an integer, got string"},
            {"lineGroup", "bad name!", "s: line group"},
            {"id", "", "s: id must have 1..253 characters"},
        };
        for (Object[] c : cases) {
            ObjectNode bad = good.deepCopy();
            if (c[1] instanceof Integer) {
                bad.put((String) c[0], (Integer) c[1]);
            } else if (c[1] instanceof Long) {
                bad.put((String) c[0], (Long) c[1]);
            } else if (c[1] instanceof Double) {
                bad.put((String) c[0], (Double) c[1]);
            } else {
                bad.put((String) c[0], (String) c[1]);
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                      () -> SessionCodec.decode(bad, "cp1", "s"));
            assertTrue(e.getMessage(), e.getMessage().startsWith((String) c[2]));
        }
        ObjectNode noMac = good.deepCopy();
        noMac.remove("mac");
        assertEquals("s.mac: missing", assertThrows(IllegalArgumentException.class,
                                                    () -> SessionCodec.decode(noMac, "cp1", "s")).getMessage());
        ObjectNode usage = good.deepCopy();
        ((ObjectNode) usage.path("usage")).put("upBytes", -1);
        assertEquals("s.usage.upBytes: -1 is out of range (0..9223372036854775807)",
                     assertThrows(IllegalArgumentException.class,
                                  () -> SessionCodec.decode(usage, "cp1", "s")).getMessage());
        ObjectNode reading = good.deepCopy();
        ((ObjectNode) reading.path("usage")).put("at", "03:10");
        assertEquals("s.usage.at: \"03:10\" is not an RFC 3339 time",
                     assertThrows(IllegalArgumentException.class,
                                  () -> SessionCodec.decode(reading, "cp1", "s")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> SessionCodec.decode(good, "cp2", "s"));
    }

    @Test
    public void placementRoundTrip() throws IOException {
        PlacementCodec codec = new PlacementCodec();
        PlacementState p = PlacementState.of(
                5,
                List.of(GroupPlacement.of("lg1", 1, "STATED", "lg1: on dp1 as the pod file states"),
                        GroupPlacement.of("lg2", null, "UNPLACED", "lg2: nowhere")),
                List.of(InstanceStatus.available(1, "dp1"),
                        InstanceStatus.unavailable(2, "dp2", "cp1", "PFCP heartbeat lost")),
                3, Failover.of(2, "cp1", "PFCP heartbeat lost", Instant.ofEpochMilli(1_700_000_000_123L),
                               List.of("lg2")));
        ObjectNode json = codec.encode(p, context);
        assertEquals("unplaced", json.path("groups").get(1).path("state").asText());
        assertTrue(json.path("groups").get(1).path("instance").isNull());
        assertEquals(p, codec.decode((ObjectNode) mapper.readTree(json.toString()), context));
        assertEquals(PlacementState.EMPTY, codec.decode(codec.encode(PlacementState.EMPTY, context), context));
    }

    @Test
    public void statsRoundTrip() throws IOException {
        StatsCodec codec = new StatsCodec();
        PodStats s = PodStats.of(3, Map.of(1, 2L, 2, 1L), Map.of("lg1", 2L, "lg2", 1L), 4, 1,
                                 Failover.of(2, "switch", "switch port 49 down", Instant.ofEpochMilli(5),
                                             List.of("lg2")));
        ObjectNode json = codec.encode(s, context);
        assertEquals(2, json.path("sessionsPerInstance").path("1").asLong());
        assertEquals(s, codec.decode((ObjectNode) mapper.readTree(json.toString()), context));
        PodStats none = PodStats.of(0, Map.of(), Map.of(), 0, 0, null);
        assertEquals(none, codec.decode(codec.encode(none, context), context));
    }
}
