package org.bngpod.seba.rest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.Rates;
import org.bngpod.seba.api.SebaSubscriberService;
import org.onlab.osgi.DefaultServiceDirectory;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.util.Optional;

/**
 * The SADIS subscribers on the pod's lines, for bng-cp to pull (it puts the
 * identity into its RADIUS requests and takes the rates unless RADIUS or a
 * CoA says otherwise) and for operators. Read-only; JSON.
 *
 * <pre>
 * GET /subscribers                         {"subscribers": [LINE...], "problems": ["...", ...]}
 * GET /subscribers/{accessPort}/{stag}/{ctag}   LINE, or 404 {"error": ...}; 400 for a bad tag
 * </pre>
 *
 * <p>LINE: {@code accessPort}, {@code stag}, {@code ctag}, {@code lineGroup}, {@code uni}
 * ({@code deviceId}, {@code port}, {@code name}), {@code onuSerial}, {@code serviceName},
 * {@code circuitId}, {@code remoteId}, {@code nasPortId} ("" when SADIS has none), and per
 * direction with a known bandwidth profile {@code down}/{@code up}: {@code profile},
 * {@code rate} (peak, bit/s), {@code guaranteed} (bit/s), {@code peakBurst},
 * {@code committedBurst} (bytes, 0 when unset).</p>
 */
@Path("subscribers")
public class SubscribersWebResource {

    /**
     * Returns the service the resource reads (OSGi's; tests override).
     *
     * @return the subscriber service
     */
    protected SebaSubscriberService service() {
        return DefaultServiceDirectory.getService(SebaSubscriberService.class);
    }

    /**
     * Every mapped subscriber service and what could not be mapped.
     *
     * @return 200 with the list
     */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response all() {
        SebaSubscriberService s = service();
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode list = root.putArray("subscribers");
        s.subscribers().forEach(l -> list.add(json(l)));
        ArrayNode problems = root.putArray("problems");
        s.problems().forEach(problems::add);
        return Response.ok(root.toString(), MediaType.APPLICATION_JSON_TYPE).build();
    }

    /**
     * The subscriber service on one line.
     *
     * @param accessPort access port of the switch
     * @param stag       S-tag
     * @param ctag       C-tag
     * @return 200 with the line, 404 without one, 400 for a bad tag
     */
    @GET
    @Path("{accessPort}/{stag}/{ctag}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response one(@PathParam("accessPort") String accessPort, @PathParam("stag") String stag,
                        @PathParam("ctag") String ctag) {
        int s = tag(stag);
        int c = tag(ctag);
        if (s < 0 || c < 0) {
            return error(Response.Status.BAD_REQUEST, "S-tag and C-tag must be VLAN ids (1..4094)");
        }
        Optional<LineSubscriber> line = service().subscriber(accessPort, s, c);
        if (line.isEmpty()) {
            return error(Response.Status.NOT_FOUND, "no SADIS subscriber on line "
                    + LineSubscriber.key(accessPort, s, c));
        }
        return Response.ok(json(line.get()).toString(), MediaType.APPLICATION_JSON_TYPE).build();
    }

    private static int tag(String text) {
        if (text == null || text.isEmpty() || text.length() > 4 || !text.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            return -1;
        }
        int v = Integer.parseInt(text);
        return v >= 1 && v <= 4094 ? v : -1;
    }

    private static Response error(Response.Status status, String message) {
        ObjectNode e = JsonNodeFactory.instance.objectNode().put("error", message);
        return Response.status(status).entity(e.toString()).type(MediaType.APPLICATION_JSON_TYPE).build();
    }

    static ObjectNode json(LineSubscriber l) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("accessPort", l.accessPort());
        n.put("stag", l.stag());
        n.put("ctag", l.ctag());
        n.put("lineGroup", l.lineGroup());
        ObjectNode uni = n.putObject("uni");
        uni.put("deviceId", l.uni().deviceId().toString());
        uni.put("port", l.uni().port().toString());
        uni.put("name", l.uniName());
        n.put("onuSerial", l.onuSerial());
        n.put("serviceName", l.serviceName());
        n.put("circuitId", l.circuitId());
        n.put("remoteId", l.remoteId());
        n.put("nasPortId", l.nasPortId());
        l.down().ifPresent(r -> rates(n.putObject("down"), r));
        l.up().ifPresent(r -> rates(n.putObject("up"), r));
        return n;
    }

    private static void rates(ObjectNode n, Rates r) {
        n.put("profile", r.profile());
        n.put("rate", r.peak());
        n.put("guaranteed", r.guaranteed());
        n.put("peakBurst", r.peakBurst());
        n.put("committedBurst", r.committedBurst());
    }
}
