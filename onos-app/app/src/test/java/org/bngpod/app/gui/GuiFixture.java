package org.bngpod.app.gui;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.LineGroup;
import org.bngpod.api.PlacementService;
import org.bngpod.api.PodService;
import org.bngpod.api.Session;
import org.bngpod.api.SessionReport;
import org.bngpod.api.SessionService;
import org.bngpod.api.Usage;
import org.bngpod.app.impl.Testbed;
import org.bngpod.app.rest.Roles;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.MacAddress;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.Assert.assertEquals;

/**
 * The application's managers on the lab pod (Testbed, golden netcfg) with
 * users of each role, sessions with two usage readings each, and the GUI's
 * message handler connected as one of the users.
 */
final class GuiFixture implements AutoCloseable {

    static final ObjectMapper MAPPER = new ObjectMapper();
    /** Users: an admin, a viewer, a control plane, one with no role of the app. */
    static final String ADMIN = "ops";
    static final String VIEWER = "noc";
    static final String CP = "bngcp";
    static final String NOBODY = "guest";
    /** When the sessions' first reading was taken; the second is 300 s later. */
    static final Instant T0 = Instant.parse("2026-01-02T03:05:00Z");

    final Testbed bed;
    final Map<String, Set<String>> roles = Map.of(
            ADMIN, Set.of(Roles.ADMIN, "manager", "viewer"),
            VIEWER, Set.of(Roles.VIEWER),
            CP, Set.of(Roles.CP),
            NOBODY, Set.of("group"));

    GuiFixture() throws IOException {
        this(new Testbed(Testbed.goldenLabPod()));
    }

    private GuiFixture(Testbed bed) {
        this.bed = bed;
    }

    /** The same, before any pod was configured. */
    static GuiFixture withoutPod() {
        return new GuiFixture(new Testbed(null));
    }

    /** The services the handlers look up, as ONOS's service directory gives them. */
    ServiceDirectory directory() {
        UserRoleService users = user -> roles.getOrDefault(user, Set.of());
        return new TestServiceDirectory()
                .add(PodService.class, bed.pods)
                .add(PlacementService.class, bed.placement)
                .add(SessionService.class, bed.sessions)
                .add(UserRoleService.class, users);
    }

    /** A handler as ONOS's websocket makes one per connection, for a user. */
    Connected connect(String user) {
        CapturingConnection connection = new CapturingConnection(user);
        BngPodViewMessageHandler handler = new BngPodViewMessageHandler();
        handler.init(connection, directory());
        return new Connected(handler, connection);
    }

    /**
     * Reports n sessions of control plane cp1, spread over the line groups,
     * each on its group's instance now: "user{i}", address {pool}.{i+2}, a
     * line of its group; an up at {@link #T0} with zero totals, an update
     * 300 s later with (i + 1) * 1 MB down and (i + 1) * 100 kB up, so each
     * has a rate; session 0 has rates of its own (40/8 Mbit/s).
     *
     * @param n how many
     * @return the sessions as reported last
     */
    List<Session> sessions(int n) {
        List<LineGroup> groups = bed.pods.pod().orElseThrow().lineGroups();
        List<SessionReport> reports = new ArrayList<>();
        List<Session> last = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            LineGroup g = groups.get(i % groups.size());
            int instance = bed.placement.placementOf(g.name()).flatMap(GroupPlacement::instance).orElseThrow();
            var line = g.lines().get(0);
            int prefix = Ip4Address.valueOf(bed.pods.pod().orElseThrow().pool(g.pools().get(0)).orElseThrow()
                                                    .prefix().address().toString()).toInt();
            Session up = Session.builder().id(String.format("cp1-%08d", i + 1)).cp("cp1").lineGroup(g.name())
                    .instance(instance).accessPort(line.port()).stag(line.stag().min())
                    .ctag(line.ctag().map(c -> c.min()).orElse(1) + i).pppoeId(i + 1)
                    .mac(MacAddress.valueOf(0x021000000000L + i)).ipv4(Ip4Address.valueOf(prefix + i + 2))
                    .username("user" + i).qosProfile(g.qosProfile())
                    .downRate(i == 0 ? 40_000_000 : 0).upRate(i == 0 ? 8_000_000 : 0)
                    .since(T0).usage(Usage.of(0, 0, 0, 0, T0)).build();
            Session update = up.toBuilder().usage(Usage.of((i + 1) * 100_000L, (i + 1) * 1_000_000L,
                                                           (i + 1) * 100L, (i + 1) * 1000L,
                                                           T0.plusSeconds(300))).build();
            reports.add(SessionReport.of(SessionReport.Kind.UP, up));
            reports.add(SessionReport.of(SessionReport.Kind.UPDATE, update));
            last.add(update);
        }
        bed.sessions.report("cp1", reports);
        return last;
    }

    @Override
    public void close() {
        bed.close();
    }

    /** One user's handler and what it sent. */
    static final class Connected {
        final BngPodViewMessageHandler handler;
        final CapturingConnection connection;

        Connected(BngPodViewMessageHandler handler, CapturingConnection connection) {
            this.handler = handler;
            this.connection = connection;
        }

        /**
         * Sends one request as the GUI would and returns the one answer.
         *
         * @param event   request event
         * @param payload its payload
         * @return the answer's payload
         */
        ObjectNode request(String event, ObjectNode payload) {
            connection.take();
            ObjectNode message = MAPPER.createObjectNode().put("event", event);
            message.set("payload", payload);
            handler.process(message);
            List<ObjectNode> sent = connection.take();
            assertEquals("one answer to " + event + ": " + sent, 1, sent.size());
            String expected = event.equals(BngPodViewMessageHandler.ACTION_REQUEST)
                    ? BngPodViewMessageHandler.ACTION_RESPONSE : event.replace("DataRequest", "DataResponse");
            assertEquals(expected, sent.get(0).path("event").asText());
            return (ObjectNode) sent.get(0).get("payload");
        }
    }
}
