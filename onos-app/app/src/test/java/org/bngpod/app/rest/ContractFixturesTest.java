package org.bngpod.app.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Splitter;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.InstanceStatus;
import org.bngpod.api.Session;
import org.bngpod.api.Throughput;
import org.bngpod.api.Usage;
import org.bngpod.api.SessionEvent;
import org.bngpod.app.impl.Testbed;
import org.junit.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.ws.rs.client.Entity;
import javax.ws.rs.client.WebTarget;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * Contract B's shared fixtures (tests/contract/onos/README.md), checked
 * through the real resources over the golden lab pod: the control plane's
 * requests as bng-cp's client wrote them (resync-0.json and resync-1.json:
 * a paged resync; events.json,
 * health.json) are replayed and must be stored exactly; the placement the
 * resource answers after cp1 declared dp2 dead must equal placement.json,
 * which bng-cp's client test decodes. {@code -Dbngpod.contract.update=true}
 * rewrites placement.json from this resource's answer.
 */
public class ContractFixturesTest extends TestbedResourceTest {

    static final String DIR_PROPERTY = "bngpod.contract.dir";
    static final String UPDATE_PROPERTY = "bngpod.contract.update";
    static final String NETCFG_PROPERTY = "bngpod.golden.netcfg";
    private static final String DEFAULT_DIR = "../../tests/contract/onos";
    private static final String DEFAULT_NETCFG = "../../topology/tests/golden/lab/onos-netcfg.json";
    /** The failover's time in placement.json ("lastFailover.at"). */
    static final Instant FAILOVER_AT = Instant.parse("2026-01-02T03:04:05Z");

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final List<SessionEvent> sessionEvents = new ArrayList<>();

    /** Every request as bng-cp would send it: a user with the control plane's role alone. */
    public ContractFixturesTest() {
        super("cp1");
    }

    /** The golden lab pod's netcfg, the clock at the failover of placement.json. */
    @Override
    protected Testbed newTestbed() throws IOException {
        JsonNode netcfg = MAPPER.readTree(Paths.get(System.getProperty(NETCFG_PROPERTY, DEFAULT_NETCFG)).toFile());
        Testbed testbed = new Testbed(netcfg.path("apps").path("org.bngpod.app").path("pod"));
        testbed.fixClock(FAILOVER_AT);
        testbed.sessions.addListener(sessionEvents::add);
        return testbed;
    }

    private static Path fixture(String name) {
        return Paths.get(System.getProperty(DIR_PROPERTY, DEFAULT_DIR), name);
    }

    private static JsonNode readFixture(String name) throws IOException {
        return MAPPER.readTree(fixture(name).toFile());
    }

    /** A query parameter of a fixture's path. */
    private static String query(JsonNode ex, String name) {
        String p = ex.path("path").asText();
        for (String kv : Splitter.on('&').split(p.substring(p.indexOf('?') + 1))) {
            if (kv.startsWith(name + "=")) {
                return kv.substring(name.length() + 1);
            }
        }
        throw new AssertionError(p + ": no " + name);
    }

    /** A target for "/path?name=value&...", relative to /onos/bngpod. */
    private WebTarget at(String pathAndQuery) {
        String p = pathAndQuery.startsWith("/") ? pathAndQuery.substring(1) : pathAndQuery;
        int q = p.indexOf('?');
        WebTarget t = target(q < 0 ? p : p.substring(0, q));
        if (q >= 0) {
            for (String kv : Splitter.on('&').split(p.substring(q + 1))) {
                int eq = kv.indexOf('=');
                t = t.queryParam(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return t;
    }

    /** Sends a fixture's request as bng-cp sent it; the answer must have the fixture's status. */
    private JsonNode replay(String name) throws IOException {
        JsonNode ex = readFixture(name);
        String method = ex.path("method").asText();
        String path = ex.path("path").asText();
        Response r = at(path).request()
                .method(method, Entity.entity(MAPPER.writeValueAsString(ex.path("body")),
                                              MediaType.APPLICATION_JSON_TYPE));
        String answer = r.hasEntity() ? r.readEntity(String.class) : "";
        assertEquals(name + ": " + method + " " + path + " answered " + answer, ex.path("status").asInt(),
                     r.getStatus());
        return ex.path("body");
    }

    @Test
    public void placementAnswerEqualsTheFixture() throws IOException {
        Response h = target("instances/2/health").request().post(Entity.entity(
                "{\"cp\":\"cp1\",\"alive\":false,\"reason\":\"PFCP heartbeat lost\"}",
                MediaType.APPLICATION_JSON_TYPE));
        assertEquals(204, h.getStatus());
        Response r = target("placement").request().get();
        assertEquals(200, r.getStatus());
        ObjectNode ex = MAPPER.createObjectNode().put("method", "GET").put("path", "/placement").put("status", 200);
        ex.set("body", MAPPER.readTree(r.readEntity(String.class)));

        JsonNode body = ex.path("body");
        assertEquals(2, body.path("version").asLong());
        assertEquals("lg2", body.path("groups").get(1).path("lineGroup").asText());
        // to dp3, which serves nothing: lg3 is with lg4 on dp4 (they split S-tag 300)
        assertEquals(3, body.path("groups").get(1).path("instance").asInt());
        assertEquals("MOVED", body.path("groups").get(1).path("reasonKind").asText());
        assertFalse(body.path("instances").get(1).path("available").asBoolean());

        Path file = fixture("placement.json");
        String text = MAPPER.writer(SerializationFeature.INDENT_OUTPUT).writeValueAsString(ex) + "\n";
        if (Boolean.getBoolean(UPDATE_PROPERTY)) {
            Files.writeString(file, text, StandardCharsets.UTF_8);
            return;
        }
        // Compared as trees of the same parser: key order and white space aside.
        JsonNode want = MAPPER.readTree(file.toFile());
        JsonNode got = MAPPER.readTree(text);
        assertEquals("GET /placement differs from " + file + " (bng-cp's client test decodes that file; if the "
                             + "change is meant, rerun with -D" + UPDATE_PROPERTY + "=true and run go test "
                             + "./internal/onos)", want, got);
    }

    /**
     * bng-cp's long poll after it read placement.json (version 2): the app
     * holds it until the placement moves on, then answers with the new one.
     */
    @Test
    public void theControlPlanesLongPollIsAnsweredWhenThePlacementMovesOn() throws Exception {
        JsonNode ex = readFixture("placement-wait.json");
        assertEquals("GET", ex.path("method").asText());
        assertEquals("2", query(ex, "after"));
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        assertEquals(2, bed.placement.placement().version());
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<Response> poll = client.submit(() -> at(ex.path("path").asText()).request().get());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (bed.placement.placementAfterWaiting() == 0) {
                assertTrue("the long poll never waited", System.nanoTime() < deadline);
                Thread.sleep(10);
            }
            assertFalse(poll.isDone());
            bed.placement.declareDead(3, "cp1", "PFCP heartbeat lost");
            Response r = poll.get(10, TimeUnit.SECONDS);
            assertEquals(ex.path("status").asInt(), r.getStatus());
            JsonNode body = MAPPER.readTree(r.readEntity(String.class));
            assertEquals(3, body.path("version").asLong());
        } finally {
            client.shutdownNow();
        }
    }

    @Test
    public void healthFromTheControlPlaneDeclaresTheInstanceDead() throws IOException {
        JsonNode ex = readFixture("health.json");
        assertEquals("/instances/2/health", ex.path("path").asText());
        JsonNode body = replay("health.json");
        InstanceStatus dp2 = bed.placement.placement().instance(2).orElseThrow();
        assertFalse(dp2.available());
        assertEquals(body.path("cp").asText(), dp2.declaredBy().orElseThrow());
        assertEquals(body.path("reason").asText(), dp2.reason().orElseThrow());
        GroupPlacement lg2 = bed.placement.placement().group("lg2").orElseThrow();
        assertEquals(3, (int) lg2.instance().orElseThrow());
        assertEquals(2, bed.placement.placement().version());
    }

    @Test
    public void sessionsFromTheControlPlaneAreStoredAsSent() throws IOException {
        String cp = query(readFixture("resync-0.json"), "cp");
        assertEquals("cp1", cp);
        assertEquals("false", query(readFixture("resync-0.json"), "last"));
        assertEquals("true", query(readFixture("resync-1.json"), "last"));
        Map<String, JsonNode> expected = new TreeMap<>();
        replay("resync-0.json").path("sessions").forEach(s -> expected.put(s.path("id").asText(), s));
        // Staged, not stored, until the last page.
        assertEquals(0, bed.sessions.count());
        assertEquals(expected.size(), bed.sessions.stagedSessions());
        replay("resync-1.json").path("sessions").forEach(s -> expected.put(s.path("id").asText(), s));
        assertEquals(2, expected.size());
        assertStore(expected, cp);
        assertEquals(0, bed.sessions.stagedSessions());

        sessionEvents.clear();
        JsonNode events = replay("events.json");
        assertEquals(cp, events.path("cp").asText());
        Map<String, JsonNode> downs = new LinkedHashMap<>();
        List<String> kinds = new ArrayList<>();
        for (JsonNode e : events.path("events")) {
            JsonNode s = e.path("session");
            kinds.add(e.path("event").asText());
            if (e.path("event").asText().equals("down")) {
                expected.remove(s.path("id").asText());
                downs.put(s.path("id").asText(), s);
            } else {
                expected.put(s.path("id").asText(), s);
            }
        }
        assertEquals(List.of("up", "update", "down"), kinds);
        assertEquals(List.of("cp1-00000001", "cp1-00000003"), new ArrayList<>(expected.keySet()));
        assertStore(expected, cp);
        // bng-cp's update carries the DP's drops and the session's control frames
        Usage updated = bed.sessions.session("cp1-00000003").orElseThrow().usage();
        assertEquals(List.of(4L, 7L, 23L),
                     List.of(updated.upDropPackets(), updated.downDropPackets(), updated.controlPackets()));
        assertEquals(List.of(400L, 10_500L), List.of(updated.upDropBytes(), updated.downDropBytes()));
        // cp1-00000003's up and update are two readings 300 s apart: ONOS measured its rate
        assertEquals(Throughput.of(15_000 * 8 / 300, Math.round(250_000 * 8 / 300.0), 300_000),
                     bed.sessions.session("cp1-00000003").orElseThrow().throughput().orElseThrow());

        // The store forgets a session that went down; its final report (usage, cause) is the event.
        List<Session> gone = new ArrayList<>();
        sessionEvents.stream().filter(e -> e.type() == SessionEvent.Type.SESSION_DOWN)
                .forEach(e -> gone.add(e.subject()));
        assertEquals(1, gone.size());
        JsonNode down = downs.get(gone.get(0).id());
        assertSession(down, gone.get(0), cp);
        assertEquals("User-Request", gone.get(0).cause().orElseThrow());
    }

    /**
     * bng-cp leaves "ipv4" and "qosProfile" out when it has no value (its
     * zero address would print "invalid IP"): absent is accepted, a
     * non-address refuses the whole batch.
     */
    @Test
    public void optionalFieldsLeftOutAreAccepted() throws IOException {
        ObjectNode body = (ObjectNode) readFixture("events.json").path("body").deepCopy();
        ObjectNode s = (ObjectNode) body.path("events").get(0).path("session");
        s.remove("ipv4");
        s.remove("qosProfile");
        ObjectNode one = MAPPER.createObjectNode().put("cp", body.path("cp").asText());
        one.putArray("events").add(body.path("events").get(0));
        Response r = target("sessions/events").request()
                .post(Entity.entity(MAPPER.writeValueAsString(one), MediaType.APPLICATION_JSON_TYPE));
        assertEquals(204, r.getStatus());
        Session got = bed.sessions.session(s.path("id").asText()).orElseThrow();
        assertFalse(got.ipv4().isPresent());
        assertFalse(got.qosProfile().isPresent());

        s.put("ipv4", "invalid IP");
        r = target("sessions/events").request()
                .post(Entity.entity(MAPPER.writeValueAsString(one), MediaType.APPLICATION_JSON_TYPE));
        assertEquals(400, r.getStatus());
    }

    /** The store holds exactly these sessions, each field as the control plane sent it. */
    private void assertStore(Map<String, JsonNode> expected, String cp) {
        Map<String, Session> stored = new TreeMap<>();
        bed.sessions.sessions().forEach(s -> stored.put(s.id(), s));
        assertEquals(expected.keySet(), stored.keySet());
        expected.forEach((id, json) -> assertSession(json, stored.get(id), cp));
    }

    private static void assertSession(JsonNode want, Session got, String cp) {
        String id = want.path("id").asText();
        assertEquals(id, got.id());
        assertEquals(id, cp, got.cp());
        assertEquals(id, want.path("lineGroup").asText(), got.lineGroup());
        assertEquals(id, want.path("instance").asInt(), got.instance());
        assertEquals(id, want.path("accessPort").asText(), got.accessPort());
        assertEquals(id, want.path("stag").asInt(), got.stag());
        assertEquals(id, want.path("ctag").asInt(), got.ctag());
        assertEquals(id, want.path("pppoeId").asInt(), got.pppoeId());
        assertEquals(id, want.path("mac").asText().toLowerCase(Locale.ROOT),
                     got.mac().toString().toLowerCase(Locale.ROOT));
        assertEquals(id, want.path("ipv4").asText(), got.ipv4().orElseThrow().toString());
        assertEquals(id, want.path("username").asText(), got.username());
        assertEquals(id, want.path("qosProfile").asText(), got.qosProfile().orElseThrow());
        assertEquals(id, OffsetDateTime.parse(want.path("since").asText()).toInstant(), got.since());
        assertEquals(id, want.path("downRate").asLong(0), got.downRate());
        assertEquals(id, want.path("upRate").asLong(0), got.upRate());
        JsonNode u = want.path("usage");
        assertEquals(id, u.has("at") ? OffsetDateTime.parse(u.path("at").asText()).toInstant() : null,
                     got.usage().at().orElse(null));
        assertEquals(id, u.path("upBytes").asLong(), got.usage().upBytes());
        assertEquals(id, u.path("downBytes").asLong(), got.usage().downBytes());
        assertEquals(id, u.path("upPackets").asLong(), got.usage().upPackets());
        assertEquals(id, u.path("downPackets").asLong(), got.usage().downPackets());
        assertEquals(id, u.path("upDropPackets").asLong(), got.usage().upDropPackets());
        assertEquals(id, u.path("downDropPackets").asLong(), got.usage().downDropPackets());
        assertEquals(id, u.path("upDropBytes").asLong(), got.usage().upDropBytes());
        assertEquals(id, u.path("downDropBytes").asLong(), got.usage().downDropBytes());
        assertEquals(id, u.path("controlPackets").asLong(), got.usage().controlPackets());
        assertTrue(id, want.has("usage"));
        assertEquals(id, want.has("cause") ? want.path("cause").asText() : null, got.cause().orElse(null));
    }
}
