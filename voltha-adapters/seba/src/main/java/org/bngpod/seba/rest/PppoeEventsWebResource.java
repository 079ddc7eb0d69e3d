package org.bngpod.seba.rest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.seba.api.CpPppoeEventService;
import org.onlab.osgi.DefaultServiceDirectory;
import org.onlab.packet.MacAddress;
import org.opencord.bng.PppoeEvent;

import javax.ws.rs.Consumes;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * PPPoE steps bng-cp reports (SESSION_INIT, AUTH_SUCCESS, AUTH_FAILURE), posted as
 * SEBA PPPoE events ({@link CpPppoeEventService}). Roles {@code bngpod-cp} and
 * {@code admin}; a viewer is refused (403).
 *
 * <pre>
 * POST /pppoe-events  {"events": [{"type", "accessPort", "stag", "ctag", "mac", "pppoeId"}, ...]}
 *   200 {"posted": N, "unmapped": M, "refused": ["event I: why", ...]}
 * </pre>
 *
 * <p>At most {@value #MAX_EVENTS} events and {@value #MAX_BODY} bytes a request; a body that
 * is not such an object is answered 400 and posts nothing; an event that is not valid
 * (unknown type or field, a tag outside 1..4094, a bad MAC, a session id outside
 * 0..65535) is refused with its reason and the others are posted.</p>
 */
@Path("pppoe-events")
public class PppoeEventsWebResource {

    static final int MAX_EVENTS = 1000;
    static final int MAX_BODY = 1 << 20;
    private static final int MAX_PORT_NAME = 64;
    private static final Set<String> FIELDS = Set.of("type", "accessPort", "stag", "ctag", "mac", "pppoeId");
    private static final Pattern MAC = Pattern.compile("[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}");
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /**
     * Returns the service events go to (OSGi's; tests override).
     *
     * @return the event service
     */
    protected CpPppoeEventService service() {
        return DefaultServiceDirectory.getService(CpPppoeEventService.class);
    }

    /**
     * Posts the reported events.
     *
     * @param body     the JSON body
     * @param security the caller's roles
     * @return 200 with the counts, 400 for a bad body, 403 for a role that may not report
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response post(InputStream body, @Context SecurityContext security) {
        if (security == null || !(security.isUserInRole("bngpod-cp") || security.isUserInRole("admin"))) {
            return error(Response.Status.FORBIDDEN, "POST /pppoe-events: roles bngpod-cp or admin only");
        }
        JsonNode root;
        try {
            byte[] b = body.readNBytes(MAX_BODY + 1);
            if (b.length > MAX_BODY) {
                return error(Response.Status.BAD_REQUEST, "body larger than " + MAX_BODY + " bytes");
            }
            root = MAPPER.readTree(b);
        } catch (JsonProcessingException e) {
            return error(Response.Status.BAD_REQUEST, "body is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            return error(Response.Status.BAD_REQUEST, "body not read: " + e.getMessage());
        }
        if (root == null || !root.isObject() || root.size() != 1 || !root.path("events").isArray()) {
            return error(Response.Status.BAD_REQUEST, "body must be {\"events\": [...]}");
        }
        JsonNode events = root.get("events");
        if (events.size() > MAX_EVENTS) {
            return error(Response.Status.BAD_REQUEST, events.size() + " events, at most " + MAX_EVENTS);
        }
        CpPppoeEventService service = service();
        int posted = 0;
        int unmapped = 0;
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        ArrayNode refused = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            String why = check(e);
            if (why != null) {
                refused.add("event " + i + ": " + why);
                continue;
            }
            if (service.report(PppoeEvent.EventType.valueOf(e.get("type").asText()), e.get("accessPort").asText(),
                               e.get("stag").intValue(), e.get("ctag").intValue(),
                               MacAddress.valueOf(e.get("mac").asText()), e.get("pppoeId").intValue())) {
                posted++;
            } else {
                unmapped++;
            }
        }
        answer.put("posted", posted);
        answer.put("unmapped", unmapped);
        answer.set("refused", refused);
        return Response.ok(answer.toString(), MediaType.APPLICATION_JSON_TYPE).build();
    }

    /** Returns why an event is not valid, or null. */
    private static String check(JsonNode e) {
        if (!e.isObject()) {
            return "not an object";
        }
        for (Iterator<String> it = e.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                return "unknown field " + quote(f);
            }
        }
        for (String f : FIELDS) {
            if (!e.has(f)) {
                return "no " + f;
            }
        }
        JsonNode type = e.get("type");
        boolean known = type.isTextual() && CpPppoeEventService.REPORTED.stream()
                .anyMatch(t -> t.name().equals(type.asText()));
        if (!known) {
            return "type " + quote(type.isTextual() ? type.asText() : type.toString()) + " is not one of " + CpPppoeEventService.REPORTED;
        }
        JsonNode port = e.get("accessPort");
        if (!port.isTextual() || port.asText().isEmpty() || port.asText().length() > MAX_PORT_NAME) {
            return "accessPort must be a name of 1 to " + MAX_PORT_NAME + " characters";
        }
        for (String f : new String[] {"stag", "ctag"}) {
            JsonNode v = e.get(f);
            if (!v.isInt() || v.intValue() < 1 || v.intValue() > 4094) {
                return f + " must be a whole number 1..4094";
            }
        }
        JsonNode mac = e.get("mac");
        if (!mac.isTextual() || !MAC.matcher(mac.asText()).matches()) {
            return "mac must be six hex octets separated by ':'";
        }
        JsonNode sid = e.get("pppoeId");
        if (!sid.isInt() || sid.intValue() < 0 || sid.intValue() > 0xffff) {
            return "pppoeId must be a whole number 0..65535";
        }
        return null;
    }

    private static String quote(String s) {
        String t = s.length() > 40 ? s.substring(0, 37) + "..." : s;
        return "\"" + t.replace("\"", "\\\"") + "\"";
    }

    private static Response error(Response.Status status, String message) {
        ObjectNode e = JsonNodeFactory.instance.objectNode().put("error", message);
        return Response.status(status).entity(e.toString()).type(MediaType.APPLICATION_JSON_TYPE).build();
    }
}
