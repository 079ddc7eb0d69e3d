package org.bngpod.app.rest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.LineGroup;
import org.bngpod.api.PlacementService;
import org.bngpod.api.PlacementState;
import org.bngpod.api.Pod;
import org.bngpod.api.PodService;
import org.bngpod.api.PodStats;
import org.bngpod.api.SessionService;
import org.onosproject.rest.AbstractWebResource;

import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.concurrent.TimeUnit;

/**
 * The operator's northbound: GET /pod, /lines, /placement,
 * /stats and POST /placement/rebalance. Sessions and instance health are in
 * {@link SessionsWebResource}, instances in {@link InstancesWebResource}.
 */
@Path("")
public class NorthboundWebResource extends AbstractWebResource {

    /**
     * The pod in brief.
     *
     * @return 200 pod; 404 without a pod
     */
    @Allowed({Roles.ADMIN, Roles.VIEWER})
    @GET
    @Path("pod")
    @Produces(MediaType.APPLICATION_JSON)
    public Response pod() {
        Pod pod = get(PodService.class).pod()
                .orElseThrow(() -> RestSupport.fail(Response.Status.NOT_FOUND, "no pod is configured"));
        ObjectNode n = codec(Pod.class).encode(pod, this);
        get(PodService.class).lastRejection().ifPresent(r -> n.put("lastRejectedConfig", r));
        return ok(n).build();
    }

    /**
     * The line groups with their lines, where each is placed and why.
     *
     * @return 200 {"lineGroups": [...]}
     */
    @Allowed({Roles.ADMIN, Roles.VIEWER})
    @GET
    @Path("lines")
    @Produces(MediaType.APPLICATION_JSON)
    public Response lines() {
        PlacementState state = get(PlacementService.class).placement();
        Pod pod = get(PodService.class).pod().orElse(null);
        ObjectNode root = mapper().createObjectNode();
        ArrayNode list = root.putArray("lineGroups");
        for (LineGroup g : get(PodService.class).lineGroups()) {
            ObjectNode n = codec(LineGroup.class).encode(g, this);
            GroupPlacement p = state.group(g.name()).orElse(null);
            Integer id = p == null ? null : p.instance().orElse(null);
            if (id == null) {
                n.putNull("instance");
            } else {
                n.put("instance", id);
                pod.instance(id).ifPresent(i -> n.put("instanceName", i.name()));
            }
            n.put("state", id == null ? "unplaced" : "placed");
            n.put("reasonKind", p == null ? "UNPLACED" : p.reasonKind());
            n.put("reason", p == null ? "not placed yet" : p.reason());
            list.add(n);
        }
        return ok(root).build();
    }

    /** The longest a GET /placement may wait for a newer version, in seconds. */
    static final int MAX_WAIT_SECONDS = 60;

    /**
     * The placement (Contract B). With {@code after=V} and {@code wait=S} it is
     * a long poll: the answer comes as soon as the version differs from V, or
     * after S seconds (at most {@value #MAX_WAIT_SECONDS}) with the current
     * placement; the control plane follows failovers that way.
     *
     * @param after the version the caller has seen (optional)
     * @param wait  seconds to wait for a newer one (optional, with after; default 0)
     * @return 200 placement; 400 for a bad after or wait
     */
    @Allowed({Roles.ADMIN, Roles.VIEWER, Roles.CP})
    @GET
    @Path("placement")
    @Produces(MediaType.APPLICATION_JSON)
    public Response placement(@QueryParam("after") String after, @QueryParam("wait") String wait) {
        PlacementService service = get(PlacementService.class);
        PlacementState state;
        if (after == null) {
            if (wait != null) {
                throw RestSupport.fail(Response.Status.BAD_REQUEST, "wait: only with after");
            }
            state = service.placement();
        } else {
            long seen = number("after", after, Long.MAX_VALUE);
            long seconds = wait == null ? 0 : number("wait", wait, MAX_WAIT_SECONDS);
            try {
                state = service.placementAfter(seen, TimeUnit.SECONDS.toMillis(seconds));
            } catch (InterruptedException e) {
                // the container is stopping: answer with what there is
                Thread.currentThread().interrupt();
                state = service.placement();
            }
        }
        return ok(codec(PlacementState.class).encode(state, this)).build();
    }

    /** A query parameter that must be an integer 0..max, written in decimal digits. */
    private static long number(String name, String text, long max) {
        if (text.isEmpty() || text.length() > 32 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            String shown = text.length() > 32 ? text.substring(0, 32) + "..." : text;
            throw RestSupport.fail(Response.Status.BAD_REQUEST,
                                   name + ": expected an integer 0.." + max + ", got \"" + shown + "\"");
        }
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            v = -1;
        }
        if (v < 0 || v > max) {
            throw RestSupport.fail(Response.Status.BAD_REQUEST, name + ": " + text + " is out of range 0.." + max);
        }
        return v;
    }

    /**
     * Re-balances: moves groups that are over capacity, unplaced or on
     * unavailable instances.
     *
     * @return 200 the new placement; 409 without a pod or on a node that is not the leader
     */
    @Allowed({Roles.ADMIN})
    @POST
    @Path("placement/rebalance")
    @Produces(MediaType.APPLICATION_JSON)
    public Response rebalance() {
        get(PlacementService.class).rebalance();
        return placement(null, null);
    }

    /**
     * Sessions per instance and group, moves, the last failover.
     *
     * @return 200 stats
     */
    @Allowed({Roles.ADMIN, Roles.VIEWER})
    @GET
    @Path("stats")
    @Produces(MediaType.APPLICATION_JSON)
    public Response stats() {
        SessionService sessions = get(SessionService.class);
        PlacementState state = get(PlacementService.class).placement();
        PodStats stats = PodStats.of(sessions.count(), sessions.countsByInstance(), sessions.countsByGroup(),
                                     state.version(), state.moves(), state.lastFailover().orElse(null));
        return ok(codec(PodStats.class).encode(stats, this)).build();
    }
}
