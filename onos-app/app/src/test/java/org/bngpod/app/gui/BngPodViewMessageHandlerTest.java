package org.bngpod.app.gui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.InstanceStatus;
import org.bngpod.api.PlacementState;
import org.bngpod.app.impl.PlacementManager;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.bngpod.app.gui.BngPodViewMessageHandler.ACTION_REQUEST;
import static org.bngpod.app.gui.GuiFixture.ADMIN;
import static org.bngpod.app.gui.GuiFixture.CP;
import static org.bngpod.app.gui.GuiFixture.MAPPER;
import static org.bngpod.app.gui.GuiFixture.NOBODY;
import static org.bngpod.app.gui.GuiFixture.VIEWER;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * The view's message handler as ONOS runs it: created per connection,
 * initialised with a connection (one that captures what is sent) and
 * ONOS's test service directory holding the app's real managers on the lab
 * pod. Tables, search, actions, and the roles: what a viewer, an admin, a
 * control plane and a user without a role of the app get.
 */
public class BngPodViewMessageHandlerTest {

    private GuiFixture fx;

    @Before
    public void setUp() throws IOException {
        fx = new GuiFixture();
    }

    @After
    public void tearDown() {
        fx.close();
    }

    private static ObjectNode payload(String... kv) {
        ObjectNode p = MAPPER.createObjectNode();
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static ObjectNode table(GuiFixture.Connected c, String tag, ObjectNode payload) {
        ObjectNode answer = c.request(tag + "DataRequest", payload);
        assertTrue(answer.toString(), answer.path(tag + "s").isArray());
        return answer;
    }

    /** Rows by their "id" cell. */
    private static Map<String, JsonNode> rows(ObjectNode answer, String tag) {
        Map<String, JsonNode> out = new HashMap<>();
        answer.path(tag + "s").forEach(r -> out.put(r.path("id").asText(), r));
        return out;
    }

    private static ObjectNode act(GuiFixture.Connected c, String action, Integer id) {
        ObjectNode p = MAPPER.createObjectNode().put("action", action);
        if (id != null) {
            p.put("id", id);
        }
        return c.request(ACTION_REQUEST, p);
    }

    @Test
    public void messageTypesAreTheViewsRequests() {
        assertEquals(Set.of("bngpodInstanceDataRequest", "bngpodGroupDataRequest", "bngpodSessionDataRequest",
                            ACTION_REQUEST),
                     fx.connect(VIEWER).handler.messageTypes());
    }

    @Test
    public void instancesShowHealthGroupsSessionsRatesAndPort() {
        fx.sessions(8);
        ObjectNode answer = table(fx.connect(VIEWER), "bngpodInstance", MAPPER.createObjectNode());
        Map<String, JsonNode> rows = rows(answer, "bngpodInstance");
        assertEquals(Set.of("1", "2", "3", "4"), rows.keySet());
        JsonNode dp1 = rows.get("1");
        assertEquals("dp1", dp1.path("name").asText());
        assertEquals("up", dp1.path("health").asText());
        assertEquals("", dp1.path("why").asText());
        assertEquals("lg1", dp1.path("groups").asText());
        // sessions 0 and 4 are lg1's: 2 sessions, 1 MB + 5 MB down and 100 kB + 500 kB up in 300 s
        assertEquals("2", dp1.path("sessions").asText());
        assertEquals("12.5 Gbit/s", dp1.path("capacity").asText());
        assertEquals("160 kbit/s", dp1.path("down").asText());
        assertEquals("16.0 kbit/s", dp1.path("up").asText());
        assertEquals("srv1 (49)", dp1.path("port").asText());
        assertEquals("srv2 (50)", rows.get("4").path("port").asText());
        // rows in the order of the default column, the id
        List<String> order = new ArrayList<>();
        answer.path("bngpodInstances").forEach(r -> order.add(r.path("name").asText()));
        assertEquals(List.of("dp1", "dp2", "dp3", "dp4"), order);

        JsonNode annots = answer.path("annots");
        assertEquals("lab", annots.path("pod").asText());
        assertEquals(VIEWER, annots.path("user").asText());
        // ONOS writes annotations as strings: the view compares with 'true'
        assertEquals("false", annots.path("canAct").textValue());
        assertEquals(fx.bed.placement.placement().version(), annots.path("version").asLong());
        assertEquals("true", table(fx.connect(ADMIN), "bngpodInstance", MAPPER.createObjectNode())
                .path("annots").path("canAct").textValue());
    }

    @Test
    public void groupsShowPlacementAndReason() {
        fx.sessions(8);
        ObjectNode answer = table(fx.connect(VIEWER), "bngpodGroup", MAPPER.createObjectNode());
        Map<String, JsonNode> rows = rows(answer, "bngpodGroup");
        assertEquals(Set.of("lg1", "lg2", "lg3", "lg4"), rows.keySet());
        PlacementState state = fx.bed.placement.placement();
        for (GroupPlacement g : state.groups()) {
            JsonNode row = rows.get(g.lineGroup());
            assertEquals(g.reasonKind(), row.path("reasonKind").asText());
            assertEquals(g.reason(), row.path("reason").asText());
            assertEquals(g.placed() ? "placed" : "unplaced", row.path("state").asText());
            assertEquals(g.instance().map(i -> "dp" + i + " (" + i + ")").orElse("-"),
                         row.path("instance").asText());
        }
        assertEquals("dp1 (1)", rows.get("lg1").path("instance").asText());
        assertEquals("access2 S200-249, access1 S150-159", rows.get("lg2").path("lines").asText());
        assertEquals("access3 S300 C1-1999", rows.get("lg3").path("lines").asText());
        assertEquals("gold", rows.get("lg2").path("profile").asText());
        assertEquals("2", rows.get("lg2").path("sessions").asText());
    }

    @Test
    public void sessionsShowRatesUsageAndTraffic() {
        fx.sessions(8);
        ObjectNode answer = table(fx.connect(VIEWER), "bngpodSession", MAPPER.createObjectNode());
        Map<String, JsonNode> rows = rows(answer, "bngpodSession");
        assertEquals(8, rows.size());
        JsonNode s0 = rows.get("cp1-00000001");
        assertEquals("user0", s0.path("user").asText());
        assertEquals("100.80.0.2", s0.path("ipv4").asText());
        assertEquals("access1:100.1", s0.path("line").asText());
        assertEquals("lg1", s0.path("group").asText());
        assertEquals("dp1", s0.path("instance").asText());
        assertEquals("02:10:00:00:00:00", s0.path("mac").asText());
        assertEquals("silver", s0.path("profile").asText());
        // its own rates, not the profile's (20/10 Mbit/s)
        assertEquals("40.0 Mbit/s", s0.path("rateDown").asText());
        assertEquals("8.00 Mbit/s", s0.path("rateUp").asText());
        assertEquals("true", s0.path("rateOwn").asText());
        assertEquals("26.7 kbit/s", s0.path("down").asText());
        assertEquals("2.67 kbit/s", s0.path("up").asText());
        assertEquals("1.00 MB", s0.path("usageDown").asText());
        assertEquals("100 kB", s0.path("usageUp").asText());
        assertEquals("2026-01-02T03:05:00Z", s0.path("since").asText());
        JsonNode s1 = rows.get("cp1-00000002");
        assertEquals("100 Mbit/s", s1.path("rateDown").asText()); // gold
        assertEquals("50.0 Mbit/s", s1.path("rateUp").asText());
        assertEquals("false", s1.path("rateOwn").asText());
        JsonNode annots = answer.path("annots");
        assertEquals(8, annots.path("total").asInt());
        assertEquals(8, annots.path("matched").asInt());
        assertEquals(8, annots.path("shown").asInt());
    }

    @Test
    public void sessionSearchByUserAddressOrLine() {
        fx.sessions(12);
        GuiFixture.Connected noc = fx.connect(VIEWER);
        Object[][] cases = {
            {"user7", Set.of("cp1-00000008")},
            {"USER1", Set.of("cp1-00000002", "cp1-00000011", "cp1-00000012")},
            {"100.80.4.3", Set.of("cp1-00000002")},
            {"100.80.0.", Set.of("cp1-00000001", "cp1-00000005", "cp1-00000009")},
            {"access1:100.5", Set.of("cp1-00000005")},
            {"access3:300", Set.of("cp1-00000003", "cp1-00000004", "cp1-00000007", "cp1-00000008",
                                   "cp1-00000011", "cp1-00000012")},
            {" cp1-00000010 ", Set.of("cp1-00000010")},
            {"cp1-0000001", Set.of()},
            {"nobody", Set.of()},
        };
        for (Object[] c : cases) {
            ObjectNode answer = table(noc, "bngpodSession", payload("search", (String) c[0]));
            assertEquals((String) c[0], c[1], rows(answer, "bngpodSession").keySet());
            assertEquals(((Set<?>) c[1]).size(), answer.path("annots").path("matched").asInt());
            assertEquals(12, answer.path("annots").path("total").asInt());
        }
        assertEquals("No session matches \"nobody\"", table(noc, "bngpodSession", payload("search", "nobody"))
                .path("annots").path("no_rows_msg").asText());
    }

    @Test
    public void atMostAPageOfSessionsByIdSaysHowManyMatched() {
        fx.sessions(BngPodViewMessageHandler.MAX_SESSION_ROWS + 20);
        ObjectNode answer = table(fx.connect(VIEWER), "bngpodSession", MAPPER.createObjectNode());
        assertEquals(BngPodViewMessageHandler.MAX_SESSION_ROWS, answer.path("bngpodSessions").size());
        assertEquals(BngPodViewMessageHandler.MAX_SESSION_ROWS + 20, answer.path("annots").path("matched").asInt());
        assertEquals(BngPodViewMessageHandler.MAX_SESSION_ROWS, answer.path("annots").path("shown").asInt());
        assertEquals("cp1-00000001", answer.path("bngpodSessions").get(0).path("id").asText());
    }

    @Test
    public void adminDeclaresAnInstanceDeadAndAliveAndReBalances() {
        GuiFixture.Connected ops = fx.connect(ADMIN);
        long version = fx.bed.placement.placement().version();
        ObjectNode answer = act(ops, "instanceDown", 2);
        assertTrue(answer.toString(), answer.path("ok").asBoolean());
        assertEquals("dp2 declared dead: its line groups fail over", answer.path("message").asText());
        InstanceStatus dp2 = fx.bed.placement.placement().instance(2).orElseThrow();
        assertFalse(dp2.available());
        assertEquals(PlacementManager.OPERATOR, dp2.declaredBy().orElseThrow());
        assertEquals("declared dead from the GUI by ops", dp2.reason().orElseThrow());
        assertTrue(fx.bed.placement.placement().version() > version);
        assertFalse(Integer.valueOf(2).equals(fx.bed.instanceOf("lg2")));
        JsonNode row = rows(table(ops, "bngpodInstance", MAPPER.createObjectNode()), "bngpodInstance").get("2");
        assertEquals("down", row.path("health").asText());
        assertEquals("operator: declared dead from the GUI by ops", row.path("why").asText());
        assertEquals("", row.path("groups").asText());

        answer = act(ops, "instanceUp", 2);
        assertTrue(answer.toString(), answer.path("ok").asBoolean());
        assertTrue(fx.bed.placement.placement().instance(2).orElseThrow().available());

        answer = act(ops, "rebalance", null);
        assertTrue(answer.toString(), answer.path("ok").asBoolean());
        assertEquals("rebalance", answer.path("action").asText());
        assertTrue(answer.path("message").asText().startsWith("re-balanced: placement version "));

        ObjectNode reason = MAPPER.createObjectNode().put("action", "instanceDown").put("id", 3)
                .put("reason", "maintenance window 42");
        assertTrue(ops.request(ACTION_REQUEST, reason).path("ok").asBoolean());
        assertEquals("maintenance window 42",
                     fx.bed.placement.placement().instance(3).orElseThrow().reason().orElseThrow());
    }

    /** A viewer's action reaches the handler (the view hides the buttons) and is refused there. */
    @Test
    public void viewerIsRefusedEveryAction() {
        GuiFixture.Connected noc = fx.connect(VIEWER);
        PlacementState before = fx.bed.placement.placement();
        String[][] cases = {
            {"instanceDown", "declaring an instance dead needs the role admin (user noc has viewer)"},
            {"instanceUp", "declaring an instance alive needs the role admin (user noc has viewer)"},
            {"rebalance", "re-balancing needs the role admin (user noc has viewer)"},
        };
        for (String[] c : cases) {
            ObjectNode answer = act(noc, c[0], 1);
            assertFalse(answer.path("ok").asBoolean());
            assertEquals(c[0], answer.path("action").asText());
            assertEquals(c[1], answer.path("message").asText());
        }
        assertEquals(before, fx.bed.placement.placement());
    }

    /** A control plane's user, and a user with no role of the app, see nothing and do nothing. */
    @Test
    public void othersSeeNothingAndDoNothing() {
        fx.sessions(4);
        PlacementState before = fx.bed.placement.placement();
        for (String user : List.of(CP, NOBODY, "unknown")) {
            GuiFixture.Connected c = fx.connect(user);
            for (String tag : List.of("bngpodInstance", "bngpodGroup", "bngpodSession")) {
                ObjectNode answer = table(c, tag, MAPPER.createObjectNode());
                assertEquals(user + " " + tag, 0, answer.path(tag + "s").size());
                assertTrue(answer.path("annots").path("refused").asBoolean());
                assertTrue(answer.path("annots").path("no_rows_msg").asText(),
                           answer.path("annots").path("no_rows_msg").asText()
                                   .startsWith("seeing the BNG pod view needs the role admin or viewer (user "
                                                       + user + " has "));
            }
            ObjectNode answer = act(c, "instanceDown", 1);
            assertFalse(answer.path("ok").asBoolean());
        }
        assertEquals("seeing the BNG pod view needs the role admin or viewer (user bngcp has bngpod-cp)",
                     table(fx.connect(CP), "bngpodGroup", MAPPER.createObjectNode())
                             .path("annots").path("no_rows_msg").asText());
        assertEquals(before, fx.bed.placement.placement());
    }

    /** What a GUI client may send wrong is answered, never thrown, and changes nothing. */
    @Test
    public void hostileRequestsAreAnsweredAndChangeNothing() {
        GuiFixture.Connected ops = fx.connect(ADMIN);
        PlacementState before = fx.bed.placement.placement();
        Object[][] cases = {
            {MAPPER.createObjectNode().put("action", "shutdown"),
                "unknown action \"shutdown\" (instanceDown, instanceUp or rebalance)"},
            {MAPPER.createObjectNode(), "unknown action \"\" (instanceDown, instanceUp or rebalance)"},
            {MAPPER.createObjectNode().put("action", "instanceDown"), "id: expected an instance id"},
            {MAPPER.createObjectNode().put("action", "instanceDown").put("id", "2"), "id: expected an instance id"},
            {MAPPER.createObjectNode().put("action", "instanceDown").put("id", 2.5), "id: expected an instance id"},
            {MAPPER.createObjectNode().put("action", "instanceDown").put("id", 9), "unknown instance 9"},
            {MAPPER.createObjectNode().put("action", "instanceUp").put("id", 1L << 40), "id: expected an instance id"},
            {MAPPER.createObjectNode().put("action", "instanceDown").put("id", 1).put("reason", "x".repeat(1001)),
                "reason: longer than 1000 characters"},
        };
        for (Object[] c : cases) {
            ObjectNode answer = ops.request(ACTION_REQUEST, (ObjectNode) c[0]);
            assertFalse(c[0].toString(), answer.path("ok").asBoolean());
            assertEquals(c[1], answer.path("message").asText());
        }
        assertEquals(before, fx.bed.placement.placement());

        // unknown sort columns and directions are dropped (ONOS's TableModel would throw)
        ObjectNode sort = payload("firstCol", "nosuch", "firstDir", "sideways", "secondCol", "name");
        sort.putArray("search");
        assertEquals(4, table(ops, "bngpodInstance", sort).path("bngpodInstances").size());
        fx.sessions(3);
        assertEquals(3, table(ops, "bngpodSession", sort).path("bngpodSessions").size());
        ObjectNode answer = table(ops, "bngpodSession", payload("search", "u".repeat(254)));
        assertEquals(0, answer.path("bngpodSessions").size());
        assertEquals("Search text longer than 253 characters", answer.path("annots").path("no_rows_msg").asText());
        // sorted as asked, by a column's value (numbers as numbers)
        ObjectNode bySessions = table(ops, "bngpodGroup", payload("firstCol", "sessions", "firstDir", "desc",
                                                                  "secondCol", "id", "secondDir", "asc"));
        List<String> order = new ArrayList<>();
        bySessions.path("bngpodGroups").forEach(r -> order.add(r.path("id").asText()));
        assertEquals(List.of("lg1", "lg2", "lg3", "lg4"), order);
    }

    @Test
    public void withoutAPodTheTablesSaySo() {
        fx.close();
        fx = GuiFixture.withoutPod();
        GuiFixture.Connected noc = fx.connect(VIEWER);
        assertEquals("No pod is configured (push the pod's network configuration)",
                     table(noc, "bngpodInstance", MAPPER.createObjectNode()).path("annots")
                             .path("no_rows_msg").asText());
        assertEquals("No pod is configured", table(noc, "bngpodGroup", MAPPER.createObjectNode())
                .path("annots").path("no_rows_msg").asText());
        ObjectNode answer = act(fx.connect(ADMIN), "instanceDown", 1);
        assertFalse(answer.path("ok").asBoolean());
        assertEquals("no pod is configured", answer.path("message").asText());
    }
}
