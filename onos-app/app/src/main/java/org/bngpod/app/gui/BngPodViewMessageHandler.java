package org.bngpod.app.gui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableSet;
import org.bngpod.api.AccessLine;
import org.bngpod.api.DpInstance;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.InstanceStatus;
import org.bngpod.api.LineGroup;
import org.bngpod.api.PlacementService;
import org.bngpod.api.PlacementState;
import org.bngpod.api.Pod;
import org.bngpod.api.PodService;
import org.bngpod.api.QosProfile;
import org.bngpod.api.Session;
import org.bngpod.api.SessionService;
import org.bngpod.app.impl.PlacementManager;
import org.bngpod.app.rest.Roles;
import org.bngpod.app.steering.SteeringPlan;
import org.onosproject.net.PortNumber;
import org.onosproject.ui.RequestHandler;
import org.onosproject.ui.UiMessageHandler;
import org.onosproject.ui.table.CellFormatter;
import org.onosproject.ui.table.TableModel;
import org.onosproject.ui.table.TableRequestHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The "BNG pod" view's side in ONOS: three tables (instances, line groups,
 * sessions, as ONOS's table views ask for them: {@code <tag>DataRequest}
 * answered by {@code <tag>DataResponse}) and the operator's actions (instance
 * down or up, re-balance). Reading needs the role {@value Roles#ADMIN} or
 * {@value Roles#VIEWER}, acting {@value Roles#ADMIN}, as in the REST API;
 * the user's roles come from {@link UserRoleService} by the name the
 * websocket's user logged in with, checked on every request, so a view
 * that shows no buttons is not what keeps a viewer from acting.
 */
public class BngPodViewMessageHandler extends UiMessageHandler {

    /** Table tags: the view's {@code buildTable} tags, and the rows' JSON node with "s" added. */
    static final String INSTANCES = "bngpodInstance";
    static final String GROUPS = "bngpodGroup";
    static final String SESSIONS = "bngpodSession";
    /** The operator's actions. */
    static final String ACTION_REQUEST = "bngpodActionRequest";
    static final String ACTION_RESPONSE = "bngpodActionResponse";

    /** Actions ({@value #ACTION_REQUEST}'s "action"). */
    static final String INSTANCE_DOWN = "instanceDown";
    static final String INSTANCE_UP = "instanceUp";
    static final String REBALANCE = "rebalance";

    /** Most session rows in one answer (the view refreshes every 2 s: a search narrows it). */
    static final int MAX_SESSION_ROWS = 500;
    /** Longest reason an operator may give for declaring an instance dead. */
    static final int MAX_REASON = 1000;

    // column ids, shared with bngpod.html
    static final String ID = "id";
    static final String NAME = "name";
    static final String HEALTH = "health";
    static final String WHY = "why";
    static final String GROUPS_COL = "groups";
    static final String SESSION_COUNT = "sessions";
    static final String CAPACITY = "capacity";
    static final String DOWN = "down";
    static final String UP = "up";
    static final String PORT = "port";
    static final String INSTANCE = "instance";
    static final String STATE = "state";
    static final String REASON_KIND = "reasonKind";
    static final String REASON = "reason";
    static final String LINES = "lines";
    static final String PROFILE = "profile";
    static final String USER = "user";
    static final String IPV4 = "ipv4";
    static final String LINE = "line";
    static final String GROUP = "group";
    static final String MAC = "mac";
    static final String PPPOE = "pppoe";
    static final String RATE_DOWN = "rateDown";
    static final String RATE_UP = "rateUp";
    static final String RATE_OWN = "rateOwn";
    static final String USAGE_DOWN = "usageDown";
    static final String USAGE_UP = "usageUp";
    static final String SINCE = "since";

    private static final String ANNOTS = "annots";
    private static final String NO_ROWS = "no_rows_msg";
    private static final String SEE = "seeing the BNG pod view";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Override
    protected Collection<RequestHandler> createRequestHandlers() {
        return ImmutableSet.of(new InstanceTable(), new GroupTable(), new SessionTable(), new Actions());
    }

    /** The connection's user and what its roles allow, looked up now. */
    Access access() {
        String user = connection().userName();
        return new Access(user, get(UserRoleService.class).roles(user));
    }

    /** Sessions, traffic and rates summed per instance and per line group, in one pass. */
    private static final class Totals {
        final Map<Integer, long[]> byInstance = new HashMap<>();
        final Map<String, long[]> byGroup = new HashMap<>();

        Totals(Collection<Session> sessions) {
            for (Session s : sessions) {
                add(byInstance.computeIfAbsent(s.instance(), k -> new long[3]), s);
                add(byGroup.computeIfAbsent(s.lineGroup(), k -> new long[3]), s);
            }
        }

        private static void add(long[] t, Session s) {
            t[0]++;
            s.throughput().ifPresent(r -> {
                t[1] += r.downBitsPerSecond();
                t[2] += r.upBitsPerSecond();
            });
        }

        static long sessions(long[] t) {
            return t == null ? 0 : t[0];
        }

        static long down(long[] t) {
            return t == null ? 0 : t[1];
        }

        static long up(long[] t) {
            return t == null ? 0 : t[2];
        }
    }

    /**
     * A table only users who may see the view get rows from; its sort
     * columns are checked first (ONOS's TableModel throws on an unknown one).
     * Its columns keep numbers (so they sort as numbers) and are written by
     * the formatters given.
     */
    private abstract class ViewTable extends TableRequestHandler {
        private final String tag;
        private final String[] columns;
        private final Map<String, CellFormatter> formats;

        ViewTable(String tag, String[] columns, Map<String, CellFormatter> formats) {
            super(tag + "DataRequest", tag + "DataResponse", tag + "s");
            this.tag = tag;
            this.columns = columns.clone();
            this.formats = formats;
        }

        @Override
        protected String[] getColumnIds() {
            return columns.clone();
        }

        @Override
        protected TableModel createTableModel() {
            TableModel tm = super.createTableModel();
            formats.forEach(tm::setFormatter);
            return tm;
        }

        @Override
        public void process(ObjectNode payload) {
            Access access = access();
            if (!access.canSee()) {
                ObjectNode root = objectNode();
                root.set(tag + "s", arrayNode());
                root.set(ANNOTS, objectNode().put(NO_ROWS, access.refusal(SEE, Roles.ADMIN, Roles.VIEWER))
                        .put("refused", "true"));
                sendMessage(tag + "DataResponse", root);
                return;
            }
            ObjectNode p = payload == null ? objectNode() : payload.deepCopy();
            Set<String> columns = Set.of(getColumnIds());
            for (String col : List.of("firstCol", "secondCol")) {
                JsonNode c = p.get(col);
                if (c != null && !(c.isTextual() && columns.contains(c.asText()))) {
                    p.remove(col);
                }
            }
            for (String dir : List.of("firstDir", "secondDir")) {
                JsonNode d = p.get(dir);
                if (d != null && !(d.isTextual() && (d.asText().equals("asc") || d.asText().equals("desc")))) {
                    p.remove(dir);
                }
            }
            super.process(p);
        }

        /** ONOS sends annotations as strings: the view compares canAct with 'true'. */
        @Override
        protected void addTableConfigAnnotations(TableModel tm, ObjectNode payload) {
            super.addTableConfigAnnotations(tm, payload);
            Access access = access();
            tm.addAnnotation("user", access.user());
            tm.addAnnotation("canAct", access.canAct());
        }
    }

    /** A table of the pod: no rows without one. */
    private abstract class PodTable extends ViewTable {

        PodTable(String tag, String[] columns, Map<String, CellFormatter> formats) {
            super(tag, columns, formats);
        }

        @Override
        protected final void populateTable(TableModel tm, ObjectNode payload) {
            Pod pod = get(PodService.class).pod().orElse(null);
            if (pod != null) {
                populate(tm, pod, get(PlacementService.class).placement(),
                         new Totals(get(SessionService.class).sessions()));
            }
        }

        /** Adds the rows of the pod, by its placement and its sessions' totals. */
        abstract void populate(TableModel tm, Pod pod, PlacementState state, Totals totals);
    }

    /** The DP instances: health, groups, sessions, capacity and traffic, switch port. */
    private final class InstanceTable extends PodTable {

        InstanceTable() {
            super(INSTANCES, new String[]{ID, NAME, HEALTH, WHY, GROUPS_COL, SESSION_COUNT, CAPACITY, DOWN, UP, PORT},
                  Map.of(CAPACITY, Units.BIT_RATE, DOWN, Units.BIT_RATE, UP, Units.BIT_RATE));
        }

        @Override
        protected String noRowsMessage(ObjectNode payload) {
            return get(PodService.class).pod().isPresent() ? "The pod has no DP instances"
                    : "No pod is configured (push the pod's network configuration)";
        }

        @Override
        void populate(TableModel tm, Pod pod, PlacementState state, Totals totals) {
            for (DpInstance i : pod.instances()) {
                InstanceStatus status = state.instance(i.id()).orElse(InstanceStatus.available(i.id(), i.name()));
                String groups = state.groups().stream()
                        .filter(g -> g.instance().equals(Optional.of(i.id())))
                        .map(GroupPlacement::lineGroup).sorted().collect(Collectors.joining(", "));
                long[] t = totals.byInstance.get(i.id());
                PortNumber port = SteeringPlan.instancePort(pod, i);
                String portName = pod.port(port).map(p -> p.name() + " (" + port + ")").orElse(port.toString());
                tm.addRow()
                        .cell(ID, i.id())
                        .cell(NAME, i.name())
                        .cell(HEALTH, status.available() ? "up" : "down")
                        .cell(WHY, status.available() ? ""
                                : status.declaredBy().orElse("?") + ": " + status.reason().orElse(""))
                        .cell(GROUPS_COL, groups)
                        .cell(SESSION_COUNT, Totals.sessions(t))
                        .cell(CAPACITY, pod.vfOf(i).rate())
                        .cell(DOWN, Totals.down(t))
                        .cell(UP, Totals.up(t))
                        .cell(PORT, portName);
            }
        }

        @Override
        protected void addTableConfigAnnotations(TableModel tm, ObjectNode payload) {
            super.addTableConfigAnnotations(tm, payload);
            get(PodService.class).pod().ifPresent(p -> tm.addAnnotation("pod", p.name()));
            PlacementState state = get(PlacementService.class).placement();
            tm.addAnnotation("version", state.version());
            tm.addAnnotation("moves", state.moves());
        }
    }

    /** The line groups: where each is placed and why, its lines, sessions and traffic. */
    private final class GroupTable extends PodTable {

        GroupTable() {
            super(GROUPS, new String[]{ID, INSTANCE, STATE, REASON_KIND, REASON, LINES, PROFILE, SESSION_COUNT, DOWN,
                UP}, Map.of(DOWN, Units.BIT_RATE, UP, Units.BIT_RATE));
        }

        @Override
        protected String noRowsMessage(ObjectNode payload) {
            return get(PodService.class).pod().isPresent() ? "The pod has no line groups" : "No pod is configured";
        }

        @Override
        void populate(TableModel tm, Pod pod, PlacementState state, Totals totals) {
            for (LineGroup g : pod.lineGroups()) {
                GroupPlacement p = state.group(g.name()).orElse(null);
                Integer id = p == null ? null : p.instance().orElse(null);
                String where = id == null ? "-"
                        : pod.instance(id).map(i -> i.name() + " (" + i.id() + ")").orElse(String.valueOf(id));
                long[] t = totals.byGroup.get(g.name());
                tm.addRow()
                        .cell(ID, g.name())
                        .cell(INSTANCE, where)
                        .cell(STATE, id == null ? "unplaced" : "placed")
                        .cell(REASON_KIND, p == null ? "UNPLACED" : p.reasonKind())
                        .cell(REASON, p == null ? "not placed yet" : p.reason())
                        .cell(LINES, g.lines().stream().map(BngPodViewMessageHandler::line)
                                .collect(Collectors.joining(", ")))
                        .cell(PROFILE, g.qosProfile())
                        .cell(SESSION_COUNT, Totals.sessions(t))
                        .cell(DOWN, Totals.down(t))
                        .cell(UP, Totals.up(t));
            }
        }
    }

    /** A line as the view writes it: "access1 S100-149" or "access1 S300 C100-199". */
    static String line(AccessLine l) {
        return l.port() + " S" + range(l.stag().min(), l.stag().max())
                + l.ctag().map(c -> " C" + range(c.min(), c.max())).orElse("");
    }

    private static String range(int min, int max) {
        return min == max ? String.valueOf(min) : min + "-" + max;
    }

    /**
     * The sessions that match the search ("search" in the request, {@link
     * SessionSearch}), at most {@value #MAX_SESSION_ROWS} by session id; the
     * annotations say how many matched and how many there are.
     */
    private final class SessionTable extends ViewTable {

        SessionTable() {
            super(SESSIONS, new String[]{ID, USER, IPV4, LINE, GROUP, INSTANCE, MAC, PPPOE, PROFILE, RATE_DOWN,
                RATE_UP, RATE_OWN, DOWN, UP, USAGE_DOWN, USAGE_UP, SINCE},
                  Map.of(RATE_DOWN, Units.BIT_RATE, RATE_UP, Units.BIT_RATE, DOWN, Units.BIT_RATE, UP, Units.BIT_RATE,
                         USAGE_DOWN, Units.BYTES, USAGE_UP, Units.BYTES));
        }

        private SessionSearch search(ObjectNode payload) {
            JsonNode t = payload == null ? null : payload.get("search");
            try {
                return SessionSearch.of(t == null || !t.isTextual() ? null : t.asText());
            } catch (IllegalArgumentException e) {
                return null;
            }
        }

        @Override
        protected String noRowsMessage(ObjectNode payload) {
            SessionSearch s = search(payload);
            if (s == null) {
                return "Search text longer than " + SessionSearch.MAX_LENGTH + " characters";
            }
            return s.isEmpty() ? "No sessions" : "No session matches \"" + s.text() + "\"";
        }

        @Override
        protected void populateTable(TableModel tm, ObjectNode payload) {
            SessionSearch search = search(payload);
            Collection<Session> all = get(SessionService.class).sessions();
            List<Session> matched = search == null ? new ArrayList<>()
                    : all.stream().filter(search).collect(Collectors.toCollection(ArrayList::new));
            matched.sort(Comparator.comparing(Session::id));
            Pod pod = get(PodService.class).pod().orElse(null);
            for (Session s : matched.subList(0, Math.min(matched.size(), MAX_SESSION_ROWS))) {
                QosProfile profile = pod == null ? null
                        : s.qosProfile().flatMap(pod::qosProfile).orElse(null);
                tm.addRow()
                        .cell(ID, s.id())
                        .cell(USER, s.username())
                        .cell(IPV4, s.ipv4().map(Object::toString).orElse(""))
                        .cell(LINE, SessionSearch.line(s))
                        .cell(GROUP, s.lineGroup())
                        .cell(INSTANCE, pod == null ? String.valueOf(s.instance())
                                : pod.instance(s.instance()).map(DpInstance::name)
                                        .orElse(String.valueOf(s.instance())))
                        .cell(MAC, s.mac().toString().toLowerCase(Locale.ROOT))
                        .cell(PPPOE, s.pppoeId())
                        .cell(PROFILE, s.qosProfile().orElse(""))
                        .cell(RATE_DOWN, s.downRate() != 0 ? Long.valueOf(s.downRate())
                                : profile == null ? null : Long.valueOf(profile.downRate()))
                        .cell(RATE_UP, s.upRate() != 0 ? Long.valueOf(s.upRate())
                                : profile == null ? null : Long.valueOf(profile.upPir()))
                        .cell(RATE_OWN, s.downRate() != 0 || s.upRate() != 0)
                        .cell(DOWN, s.throughput().map(t -> t.downBitsPerSecond()).orElse(null))
                        .cell(UP, s.throughput().map(t -> t.upBitsPerSecond()).orElse(null))
                        .cell(USAGE_DOWN, s.usage().downBytes())
                        .cell(USAGE_UP, s.usage().upBytes())
                        .cell(SINCE, s.since().toString());
            }
            tm.addAnnotation("total", all.size());
            tm.addAnnotation("matched", matched.size());
            tm.addAnnotation("shown", Math.min(matched.size(), MAX_SESSION_ROWS));
        }
    }

    /**
     * The operator's actions, {"action": "instanceDown"|"instanceUp", "id":
     * N, "reason": text} or {"action": "rebalance"}: done as REST does them
     * (the declarer is "operator"), each answered with {"ok", "action",
     * "message"}; refused without the role admin, and for a bad request.
     */
    private final class Actions extends RequestHandler {

        Actions() {
            super(ACTION_REQUEST);
        }

        @Override
        public void process(ObjectNode payload) {
            ObjectNode p = payload == null ? objectNode() : payload;
            String action = p.path("action").isTextual() ? p.path("action").asText() : "";
            String text;
            boolean ok = false;
            Access access = access();
            try {
                if (!List.of(INSTANCE_DOWN, INSTANCE_UP, REBALANCE).contains(action)) {
                    text = "unknown action \"" + shorten(action) + "\" (instanceDown, instanceUp or rebalance)";
                } else if (!access.canAct()) {
                    text = access.refusal(describe(action), Roles.ADMIN);
                    log.warn("bngpod: GUI {} refused: {}", action, text);
                } else {
                    text = act(action, p, access.user());
                    ok = true;
                }
            } catch (IllegalArgumentException | IllegalStateException e) {
                text = e.getMessage();
            }
            ObjectNode answer = objectNode().put("ok", ok).put("action", action).put("message", text);
            sendMessage(ACTION_RESPONSE, answer);
        }

        private String act(String action, ObjectNode p, String user) {
            PlacementService placement = get(PlacementService.class);
            if (REBALANCE.equals(action)) {
                placement.rebalance();
                log.info("bngpod: GUI user {} re-balanced the placement", user);
                return "re-balanced: placement version " + placement.placement().version();
            }
            JsonNode idNode = p.get("id");
            if (idNode == null || !idNode.isIntegralNumber() || !idNode.canConvertToInt()) {
                throw new IllegalArgumentException("id: expected an instance id");
            }
            int id = idNode.asInt();
            Pod pod = get(PodService.class).pod()
                    .orElseThrow(() -> new IllegalStateException("no pod is configured"));
            DpInstance instance = pod.instance(id)
                    .orElseThrow(() -> new IllegalArgumentException("unknown instance " + id));
            if (INSTANCE_UP.equals(action)) {
                placement.declareAlive(id, PlacementManager.OPERATOR);
                log.info("bngpod: GUI user {} declared {} alive", user, instance.name());
                return instance.name() + " declared alive: it may take line groups again (nothing moves back)";
            }
            JsonNode r = p.get("reason");
            String reason = r != null && r.isTextual() ? r.asText().trim() : "";
            if (reason.length() > MAX_REASON) {
                throw new IllegalArgumentException("reason: longer than " + MAX_REASON + " characters");
            }
            placement.declareDead(id, PlacementManager.OPERATOR,
                                  reason.isEmpty() ? "declared dead from the GUI by " + user : reason);
            log.info("bngpod: GUI user {} declared {} dead", user, instance.name());
            return instance.name() + " declared dead: its line groups fail over";
        }

        private String describe(String action) {
            return INSTANCE_DOWN.equals(action) ? "declaring an instance dead"
                    : INSTANCE_UP.equals(action) ? "declaring an instance alive" : "re-balancing";
        }

        private String shorten(String s) {
            return s.length() <= 40 ? s : s.substring(0, 40) + "...";
        }
    }
}
