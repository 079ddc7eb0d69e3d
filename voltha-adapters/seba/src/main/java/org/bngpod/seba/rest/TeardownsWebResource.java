package org.bngpod.seba.rest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.seba.api.SebaSubscriberService;
import org.bngpod.seba.api.TeardownRequest;
import org.onlab.osgi.DefaultServiceDirectory;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/**
 * Teardown requests for bng-cp, which polls them: the sessions of a line whose
 * UNI was removed for longer than the hold-down end with Lost-Carrier, those
 * of a subscriber removed from provisioning with Admin-Reset.
 *
 * <pre>
 * GET /teardowns?after=N   {"version": V, "teardowns": [{"version", "accessPort", "stag", "ctag",
 *                           "uni", "cause", "at"}, ...]}   (requests above N, oldest first)
 * </pre>
 *
 * <p>{@code after} defaults to 0 (every request kept); {@code at} is ISO-8601 UTC: a control
 * plane ends only sessions that started before it. 400 for an {@code after} that is not a
 * whole number 0 or above.</p>
 */
@Path("teardowns")
public class TeardownsWebResource {

    /**
     * Returns the service the resource reads (OSGi's; tests override).
     *
     * @return the subscriber service
     */
    protected SebaSubscriberService service() {
        return DefaultServiceDirectory.getService(SebaSubscriberService.class);
    }

    /**
     * The requests after a version.
     *
     * @param after the last version the caller has seen
     * @return 200 with the requests, 400 for a bad {@code after}
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response after(@QueryParam("after") String after) {
        long from = 0;
        if (after != null) {
            if (after.isEmpty() || after.length() > 18 || !after.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
                ObjectNode e = JsonNodeFactory.instance.objectNode().put("error", "after: " + after
                        + " is not a whole number 0 or above");
                return Response.status(Response.Status.BAD_REQUEST).entity(e.toString())
                        .type(MediaType.APPLICATION_JSON_TYPE).build();
            }
            from = Long.parseLong(after);
        }
        SebaSubscriberService s = service();
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        long version = s.teardownVersion();
        root.put("version", version);
        ArrayNode list = root.putArray("teardowns");
        for (TeardownRequest r : s.teardownsAfter(from)) {
            if (r.version() > version) {
                break; // added meanwhile: the next poll reads it with its version
            }
            ObjectNode n = list.addObject();
            n.put("version", r.version());
            n.put("accessPort", r.accessPort());
            n.put("stag", r.stag());
            n.put("ctag", r.ctag());
            n.put("uni", r.uni());
            n.put("cause", r.cause());
            n.put("at", r.at().toString());
        }
        return Response.ok(root.toString(), MediaType.APPLICATION_JSON_TYPE).build();
    }
}
