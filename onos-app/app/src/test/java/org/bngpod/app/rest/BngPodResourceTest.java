package org.bngpod.app.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.base.Splitter;
import org.bngpod.api.SessionService;
import org.bngpod.app.impl.Testbed;
import org.junit.Test;

import javax.ws.rs.client.Entity;
import javax.ws.rs.client.WebTarget;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.IOException;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The REST API in Jersey (onos-rest's ResourceTest) over the real managers:
 * Contract B for the control plane, the northbound GETs, and hostile input
 * answered with 4xx {"error": ...} without touching the state.
 */
public class BngPodResourceTest extends TestbedResourceTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String SESSION = "{\"id\":\"s1\",\"lineGroup\":\"lg2\",\"instance\":2,"
            + "\"accessPort\":\"access1\",\"stag\":150,\"ctag\":7,\"pppoeId\":17,\"mac\":\"02:10:00:00:00:07\","
            + "\"ipv4\":\"100.80.4.9\",\"username\":\"u1\",\"qosProfile\":\"gold\",\"since\":\"2026-01-02T03:04:05Z\","
            + "\"usage\":{\"upBytes\":1,\"downBytes\":2,\"upPackets\":3,\"downPackets\":4},\"extra\":[1,2]}";

    /** Every request as a user with all three roles (RestRolesTest checks each role alone). */
    public BngPodResourceTest() {
        super("lab");
    }

    /** A target for "path?name=value&...", query parameters passed as such. */
    private WebTarget at(String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        WebTarget t = target(q < 0 ? pathAndQuery : pathAndQuery.substring(0, q));
        if (q >= 0) {
            for (String kv : Splitter.on('&').split(pathAndQuery.substring(q + 1))) {
                int eq = kv.indexOf('=');
                t = t.queryParam(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return t;
    }

    private JsonNode getJson(String path) throws IOException {
        Response r = at(path).request().get();
        assertEquals(path, 200, r.getStatus());
        return MAPPER.readTree(r.readEntity(String.class));
    }

    private Response send(String method, String path, String body) {
        return at(path).request().method(method, Entity.entity(body, MediaType.APPLICATION_JSON_TYPE));
    }

    private void assertError(Response r, int status, String text) throws IOException {
        String body = r.readEntity(String.class);
        assertEquals(body, status, r.getStatus());
        JsonNode json = MAPPER.readTree(body);
        assertThat(json.path("error").asText(), containsString(text));
    }

    @Test
    public void placementAsTheControlPlanePollsIt() throws IOException {
        JsonNode p = getJson("placement");
        assertEquals(1, p.path("version").asLong());
        assertEquals("lg1", p.path("groups").get(0).path("lineGroup").asText());
        assertEquals(1, p.path("groups").get(0).path("instance").asInt());
        assertEquals("placed", p.path("groups").get(0).path("state").asText());
        assertThat(p.path("groups").get(0).path("reason").asText(), containsString("as the pod file states"));
        assertEquals("dp2", p.path("instances").get(1).path("name").asText());
        assertTrue(p.path("instances").get(1).path("available").asBoolean());
    }

    @Test
    public void healthReportFailsOverAndComesBack() throws IOException {
        Response r = send("POST", "instances/2/health",
                          "{\"cp\":\"cp1\",\"alive\":false,\"reason\":\"PFCP heartbeat lost\"}");
        assertEquals(204, r.getStatus());
        JsonNode p = getJson("placement");
        assertEquals(2, p.path("version").asLong());
        assertEquals(1, p.path("groups").get(1).path("instance").asInt());
        assertEquals("MOVED", p.path("groups").get(1).path("reasonKind").asText());
        assertEquals(false, p.path("instances").get(1).path("available").asBoolean());
        assertEquals("cp1", p.path("instances").get(1).path("declaredBy").asText());
        JsonNode stats = getJson("stats");
        assertEquals(1, stats.path("moves").asLong());
        assertEquals(2, stats.path("lastFailover").path("instance").asInt());
        assertEquals("lg2", stats.path("lastFailover").path("moved").get(0).asText());

        assertEquals(204, send("POST", "instances/2/health", "{\"cp\":\"cp1\",\"alive\":true}").getStatus());
        p = getJson("placement");
        assertTrue(p.path("instances").get(1).path("available").asBoolean());
        assertEquals(1, p.path("groups").get(1).path("instance").asInt());

        JsonNode instances = getJson("instances");
        assertEquals("lg1", instances.path("instances").get(0).path("lineGroups").get(0).asText());
        assertEquals("lg2", instances.path("instances").get(0).path("lineGroups").get(1).asText());
        assertEquals(0, instances.path("instances").get(1).path("lineGroups").size());
    }

    @Test
    public void sessionsReportedResyncedAndShown() throws IOException {
        assertEquals(204, send("POST", "sessions/events",
                               "{\"cp\":\"cp1\",\"events\":[{\"event\":\"up\",\"session\":" + SESSION + "}]}")
                .getStatus());
        JsonNode s = getJson("sessions/s1");
        assertEquals("cp1", s.path("cp").asText());
        assertEquals("100.80.4.9", s.path("ipv4").asText());
        assertEquals("2026-01-02T03:04:05Z", s.path("since").asText());
        assertEquals(4, s.path("usage").path("downPackets").asLong());
        assertEquals(1, getJson("sessions").path("total").asInt());
        assertEquals(0, getJson("sessions?instance=1").path("total").asInt());
        JsonNode stats = getJson("stats");
        assertEquals(1, stats.path("sessionsPerInstance").path("2").asLong());
        assertEquals(1, stats.path("sessionsPerGroup").path("lg2").asLong());

        String other = SESSION.replace("\"s1\"", "\"s2\"");
        assertEquals(204, send("PUT", "sessions?cp=cp1", "{\"sessions\":[" + other + "]}").getStatus());
        assertEquals(404, target("sessions/s1").request().get().getStatus());
        assertEquals("s2", getJson("sessions").path("sessions").get(0).path("id").asText());

        assertEquals(204, send("POST", "sessions/events", "{\"cp\":\"cp1\",\"events\":[{\"event\":\"down\","
                + "\"session\":" + other.replace("}", ",\"cause\":\"User-Request\"}") + "}]}").getStatus());
        assertEquals(0, getJson("sessions").path("total").asInt());
    }

    @Test
    public void hostileInputIsRefusedAndChangesNothing() throws IOException {
        assertError(send("POST", "sessions/events", "{not json"), 400, "body: not JSON");
        assertError(send("POST", "sessions/events", "[1]"), 400, "expected a JSON object");
        assertError(send("POST", "sessions/events", "{\"cp\":\"cp1\",\"events\":{}}"), 400,
                    "events: expected an array");
        assertError(send("POST", "sessions/events", "{\"cp\":\"cp1\",\"events\":[{\"event\":\"up\",\"session\":"
                + SESSION.replace("\"stag\":150", "\"stag\":\"150\"") + "}]}"), 400,
                    "events[0].session.stag: expected an integer, got string");
        assertError(send("POST", "sessions/events", "{\"cp\":\"cp1\",\"events\":[{\"event\":\"up\",\"session\":"
                + SESSION + "},{\"event\":\"sideways\",\"session\":" + SESSION + "}]}"), 400,
                    "events[1].event: \"sideways\" is not up, update or down");
        assertError(send("POST", "sessions/events", "{\"cp\":\"cp1\",\"events\":[{\"event\":\"up\",\"session\":"
                + SESSION.replace("\"instance\":2", "\"instance\":9") + "}]}"), 400,
                    "events[0].session.instance: unknown instance 9");
        assertError(send("POST", "sessions/events", "{\"cp\":\"cp1\",\"events\":[{\"event\":\"up\",\"session\":"
                + SESSION.replace("02:10:00:00:00:07", "zz") + "}]}"), 400,
                    "events[0].session.mac: \"zz\" is not a MAC address");
        StringBuilder many = new StringBuilder("{\"cp\":\"cp1\",\"events\":[");
        for (int i = 0; i < 1001; i++) {
            many.append(i == 0 ? "" : ",").append("{}");
        }
        assertError(send("POST", "sessions/events", many + "]}"), 400, "events: 1001 items, at most 1000");
        assertError(send("POST", "sessions/events", "[".repeat(100_000)), 400, "nested deeper");
        assertError(send("POST", "sessions/events", "{\"cp\":\"" + "x".repeat(5_000_000) + "\"}"), 413,
                    "larger than");
        assertError(send("PUT", "sessions", "{\"sessions\":[]}"), 400, "cp (query parameter): missing");
        assertError(send("PUT", "sessions?cp=cp1", "{\"sessions\":[" + SESSION + "," + SESSION + "]}"), 400,
                    "session id s1 repeats");
        assertEquals(0, getJson("sessions").path("total").asInt());

        assertError(send("POST", "instances/9/health", "{\"cp\":\"cp1\",\"alive\":false}"), 404,
                    "unknown instance 9");
        assertError(send("POST", "instances/x/health", "{\"alive\":false}"), 400, "\"x\" is not a number");
        assertError(send("POST", "instances/2/health", "{\"cp\":\"cp1\",\"alive\":\"no\"}"), 400,
                    "alive: expected true or false");
        assertError(send("POST", "instances/2/health", "{\"cp\":\"cp1\"}"), 400, "alive: missing");
        assertError(target("sessions/nope").request().get(), 404, "unknown session nope");
        assertError(target("nowhere").request().get(), 404, "not found");
        assertEquals(1, getJson("placement").path("version").asLong());
    }

    /** A resync page body of sessions prefix0..prefix(n-1). */
    private static String page(String prefix, int from, int n) {
        StringBuilder b = new StringBuilder("{\"sessions\":[");
        for (int i = from; i < from + n; i++) {
            b.append(i == from ? "" : ",").append(SESSION.replace("\"s1\"", "\"" + prefix + i + "\""));
        }
        return b.append("]}").toString();
    }

    private java.util.Set<String> ids() throws IOException {
        java.util.Set<String> ids = new java.util.TreeSet<>();
        getJson("sessions").path("sessions").forEach(s -> ids.add(s.path("cp").asText() + "/"
                + s.path("id").asText()));
        return ids;
    }

    @Test
    public void pagedResyncReplacesExactlyWhenTheLastPageArrives() throws IOException {
        assertEquals(204, send("PUT", "sessions?cp=cp1", page("old", 0, 3)).getStatus());
        assertEquals(204, send("PUT", "sessions?cp=cp2", page("other", 0, 2)).getStatus());
        java.util.Set<String> before = ids();
        assertEquals(5, before.size());

        assertEquals(204, send("PUT", "sessions?cp=cp1&resync=r1&page=0&last=false", page("new", 0, 4)).getStatus());
        assertEquals(204, send("PUT", "sessions?cp=cp1&resync=r1&page=1&last=false", page("new", 4, 4)).getStatus());
        assertEquals("nothing changes before the last page", before, ids());
        assertEquals(8, bed.sessions.stagedSessions());
        // old1 is sent again: kept; old0 and old2 are not: gone
        assertEquals(204, send("PUT", "sessions?cp=cp1&resync=r1&page=2&last=true",
                               "{\"sessions\":[" + SESSION.replace("\"s1\"", "\"old1\"") + "]}").getStatus());
        java.util.Set<String> want = new java.util.TreeSet<>(List.of("cp2/other0", "cp2/other1", "cp1/old1"));
        for (int i = 0; i < 8; i++) {
            want.add("cp1/new" + i);
        }
        assertEquals(want, ids());
        assertEquals(0, bed.sessions.stagedSessions());
        // The finished resync is gone: a late page of it is refused.
        assertError(send("PUT", "sessions?cp=cp1&resync=r1&page=3&last=true", page("x", 0, 1)), 409,
                    "not in progress");
        // A resync of no sessions in one page empties the control plane's table.
        assertEquals(204, send("PUT", "sessions?cp=cp1&resync=r2&page=0&last=true", "{\"sessions\":[]}")
                .getStatus());
        assertEquals(java.util.Set.of("cp2/other0", "cp2/other1"), ids());
    }

    @Test
    public void abandonedResyncChangesNothingAndExpires() throws IOException {
        assertEquals(204, send("PUT", "sessions?cp=cp1", page("old", 0, 2)).getStatus());
        java.util.Set<String> before = ids();
        assertEquals(204, send("PUT", "sessions?cp=cp1&resync=a&page=0&last=false", page("a", 0, 3)).getStatus());
        // a new resync id discards the unfinished one
        assertEquals(204, send("PUT", "sessions?cp=cp1&resync=b&page=0&last=false", page("b", 0, 2)).getStatus());
        assertEquals(2, bed.sessions.stagedSessions());
        assertError(send("PUT", "sessions?cp=cp1&resync=a&page=1&last=true", page("a", 3, 1)), 409,
                    "resync a of cp1: page 1 of a resync not in progress");
        assertEquals(before, ids());
        // the control plane dies: the staged pages expire
        bed.advanceSessionClock(SessionService.STAGED_EXPIRY.plusSeconds(1));
        bed.sessions.expire();
        assertEquals(0, bed.sessions.stagedSessions());
        assertError(send("PUT", "sessions?cp=cp1&resync=b&page=1&last=true", page("b", 2, 1)), 409,
                    "not in progress");
        assertEquals(before, ids());
    }

    @Test
    public void pagesOutOfOrderRepeatedOrOversizedAreRefused() throws IOException {
        assertEquals(204, send("PUT", "sessions?cp=cp1", page("old", 0, 1)).getStatus());
        java.util.Set<String> before = ids();
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=1&last=false", page("p", 0, 1)), 409,
                    "not in progress");
        assertEquals(204, send("PUT", "sessions?cp=cp1&resync=r&page=0&last=false", page("p", 0, 2)).getStatus());
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=0&last=false", page("p", 0, 2)), 409,
                    "page 0 again (expected page 1)");
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=2&last=false", page("p", 2, 2)), 409,
                    "page 2 out of order, expected page 1");
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=1&last=false", page("p", 1, 2)), 400,
                    "session id p1 repeats");
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=1&last=false", page("p", 2, 10_001)), 400,
                    "sessions: 10001 items, at most 10000");
        assertError(send("PUT", "sessions?cp=cp1", page("p", 2, 10_001)), 400, "at most 10000");
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=1", page("p", 2, 1)), 400,
                    "last (query parameter): missing");
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=1&last=maybe", page("p", 2, 1)), 400,
                    "\"maybe\" is not true or false");
        assertError(send("PUT", "sessions?cp=cp1&resync=r&last=true", page("p", 2, 1)), 400,
                    "page (query parameter): missing");
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=-1&last=true", page("p", 2, 1)), 400,
                    "page (query parameter)");
        assertError(send("PUT", "sessions?cp=cp1&page=1&last=true", page("p", 2, 1)), 400,
                    "resync (query parameter): missing");
        assertError(send("PUT", "sessions?cp=cp1&resync=a%2Fb&page=0&last=true", page("p", 2, 1)), 400,
                    "resync (query parameter)");
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=1&last=true", page("p", 2, 1)
                .replace("\"stag\":150", "\"stag\":\"150\"")), 400, "sessions[0].stag");
        assertEquals(before, ids());
        // refusals left the staged resync as it was: its page 1 still completes it
        assertEquals(204, send("PUT", "sessions?cp=cp1&resync=r&page=1&last=true", page("p", 2, 1)).getStatus());
        assertEquals(java.util.Set.of("cp1/p0", "cp1/p1", "cp1/p2"), ids());
    }

    @Test
    public void stagingIsBounded() throws IOException {
        bed.limitStaging(5, 8);
        assertEquals(204, send("PUT", "sessions?cp=cp1&resync=r&page=0&last=false", page("a", 0, 4)).getStatus());
        assertError(send("PUT", "sessions?cp=cp1&resync=r&page=1&last=true", page("a", 4, 2)), 400,
                    "resync r of cp1: more than 5 sessions");
        assertEquals(204, send("PUT", "sessions?cp=cp2&resync=q&page=0&last=false", page("b", 0, 4)).getStatus());
        assertError(send("PUT", "sessions?cp=cp3&resync=z&page=0&last=false", page("c", 0, 1)), 409,
                    "this node already stages 8 sessions of other control planes (at most 8 in all)");
        assertEquals(8, bed.sessions.stagedSessions());
        // a control plane's new resync replaces its own staged one within the bound
        assertEquals(204, send("PUT", "sessions?cp=cp2&resync=q2&page=0&last=true", page("b", 0, 4)).getStatus());
        assertEquals(4, bed.sessions.stagedSessions());
        assertEquals(4, getJson("sessions").path("total").asInt());
    }

    @Test
    public void healthBeforeAnyPodIsAnsweredTemporarilyUnavailable() throws IOException {
        bed.netcfg.push(null);
        assertError(send("POST", "instances/2/health", "{\"cp\":\"cp1\",\"alive\":false}"), 503,
                    "no pod is configured");
        bed.netcfg.push(Testbed.fixturePod());
        assertEquals(204, send("POST", "instances/2/health", "{\"cp\":\"cp1\",\"alive\":false}").getStatus());
        assertError(send("POST", "instances/9/health", "{\"cp\":\"cp1\",\"alive\":false}"), 404,
                    "unknown instance 9");
    }

    @Test
    public void northbound() throws IOException {
        JsonNode pod = getJson("pod");
        assertEquals("of:0000000000000001", pod.path("deviceId").asText());
        assertEquals("lg1", pod.path("lineGroups").get(0).asText());
        JsonNode lines = getJson("lines");
        JsonNode lg2 = lines.path("lineGroups").get(1);
        assertEquals("lg2", lg2.path("lineGroup").asText());
        assertEquals("300-300", lg2.path("lines").get(0).path("stag").asText());
        assertEquals("2000-4094", lg2.path("lines").get(0).path("ctag").asText());
        assertEquals("dp2", lg2.path("instanceName").asText());
        assertEquals("STATED", lg2.path("reasonKind").asText());
        assertEquals(200, send("POST", "placement/rebalance", "").getStatus());
    }
}
