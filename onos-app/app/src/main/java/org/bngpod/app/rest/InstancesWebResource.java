package org.bngpod.app.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.DpInstance;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.InstanceStatus;
import org.bngpod.api.PlacementState;
import org.bngpod.api.PlacementService;
import org.bngpod.api.Pod;
import org.bngpod.api.PodService;
import org.bngpod.api.Session;
import org.bngpod.app.impl.PlacementManager;
import org.onosproject.rest.AbstractWebResource;

import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;
import java.io.InputStream;

import static org.bngpod.app.codec.JsonFields.bool;
import static org.bngpod.app.codec.JsonFields.optText;

/**
 * GET /instances, and POST /instances/{id}/health: a control plane (or an
 * operator) declares an instance dead or alive.
 */
@Path("instances")
public class InstancesWebResource extends AbstractWebResource {

    static final int MAX_BODY = 64 * 1024;
    static final int MAX_REASON = 1000;
    /** The 503 answer's error text while ONOS has no pod configuration. */
    static final String NO_POD = "no pod is configured";

    /**
     * The DP instances with their availability and the groups each serves now.
     *
     * @return 200 {"instances": [...]}
     */
    @Allowed({Roles.ADMIN, Roles.VIEWER})
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response instances() {
        PlacementState state = get(PlacementService.class).placement();
        ObjectNode root = mapper().createObjectNode();
        ArrayNode list = root.putArray("instances");
        for (DpInstance i : get(PodService.class).instances()) {
            ObjectNode n = codec(DpInstance.class).encode(i, this);
            InstanceStatus status = state.instance(i.id()).orElse(InstanceStatus.available(i.id(), i.name()));
            n.put("available", status.available());
            status.declaredBy().ifPresent(d -> n.put("declaredBy", d));
            status.reason().ifPresent(r -> n.put("reason", r));
            ArrayNode serving = n.putArray("lineGroups");
            state.groups().stream().filter(g -> g.instance().equals(java.util.Optional.of(i.id())))
                    .map(GroupPlacement::lineGroup).forEach(serving::add);
            list.add(n);
        }
        return ok(root).build();
    }

    /**
     * Declares an instance dead (its line groups fail over) or alive (it may
     * take groups again; nothing moves back). Body {"cp": NAME, "alive": bool,
     * "reason": text}; without "cp" the declarer is "operator", whose alive
     * clears every declarer's word. A control plane's report needs the role
     * {@value Roles#CP}, the operator's declaration {@value Roles#ADMIN}.
     *
     * @param idText   instance id
     * @param body     request body
     * @param security the caller's roles
     * @return 204; 400 bad body or id; 403 the role the body needs is missing; 404 unknown
     *         instance; 503 no pod configured yet
     */
    @Allowed({Roles.ADMIN, Roles.CP})
    @POST
    @Path("{id}/health")
    public Response health(@PathParam("id") String idText, InputStream body, @Context SecurityContext security) {
        int id = RestSupport.instanceId(idText);
        JsonNode json = RestSupport.readObject(body, MAX_BODY);
        String cp = optText(json, "cp", "", Session.MAX_CP_LENGTH);
        if (cp != null && cp.isEmpty()) {
            throw RestSupport.fail(Response.Status.BAD_REQUEST, "cp: empty");
        }
        boolean alive = bool(json, "alive", "");
        String reason = optText(json, "reason", "", MAX_REASON);
        // one URL, two callers: the body says which, and each has its own role
        if (cp == null) {
            Roles.require(security, Roles.ADMIN, "declaring an instance dead or alive as the operator (no \"cp\")");
        } else {
            Roles.require(security, Roles.CP, "a control plane's health report (\"cp\")");
        }
        // Not yet configured is temporary (503: the control plane keeps the report and
        // retries); an instance the configured pod does not have is a refusal (404).
        Pod pod = get(PodService.class).pod()
                .orElseThrow(() -> RestSupport.fail(Response.Status.SERVICE_UNAVAILABLE, NO_POD));
        if (pod.instance(id).isEmpty()) {
            throw RestSupport.fail(Response.Status.NOT_FOUND, "unknown instance " + id);
        }
        String by = cp == null ? PlacementManager.OPERATOR : cp;
        if (alive) {
            get(PlacementService.class).declareAlive(id, by);
        } else {
            get(PlacementService.class).declareDead(id, by, reason == null || reason.isEmpty()
                    ? "declared dead by " + by : reason);
        }
        return Response.noContent().build();
    }
}
