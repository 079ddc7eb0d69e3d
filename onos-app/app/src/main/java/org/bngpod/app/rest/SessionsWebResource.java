package org.bngpod.app.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.Pod;
import org.bngpod.api.PodService;
import org.bngpod.api.Session;
import org.bngpod.api.SessionReport;
import org.bngpod.api.SessionService;
import org.bngpod.app.codec.SessionCodec;
import org.onosproject.rest.AbstractWebResource;

import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.PUT;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import static org.bngpod.app.codec.JsonFields.array;
import static org.bngpod.app.codec.JsonFields.object;
import static org.bngpod.app.codec.JsonFields.text;

/**
 * Sessions: the control plane's reports (PUT /sessions?cp=, POST
 * /sessions/events; Contract B) and the operator's view (GET /sessions,
 * /sessions/{id}). A request is checked whole before anything is stored: a
 * bad event leaves the table as it was.
 */
@Path("sessions")
public class SessionsWebResource extends AbstractWebResource {

    /** Most events in one POST /sessions/events (Contract B). */
    static final int MAX_EVENTS = 1000;
    /** Largest POST /sessions/events body. */
    static final int MAX_EVENTS_BODY = 4 * 1024 * 1024;
    /** Largest PUT /sessions body (one page of at most 10,000 sessions). */
    static final int MAX_PAGE_BODY = 16 * 1024 * 1024;
    /** Longest resync id. */
    static final int MAX_RESYNC_ID = 64;
    /** Highest page number: MAX_RESYNC sessions in full pages. */
    static final int MAX_PAGE_NUMBER = SessionService.MAX_RESYNC / SessionService.MAX_PAGE;
    /** Most sessions one GET /sessions returns. */
    static final int MAX_LIST = 10_000;

    /**
     * Lists sessions, by id, optionally of one instance or line group.
     *
     * @param instance  only this instance's, if given
     * @param lineGroup only this group's, if given
     * @param limit     at most this many (default and maximum 10,000)
     * @return 200 {"total": n, "sessions": [...]}
     */
    @Allowed({Roles.ADMIN, Roles.VIEWER})
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response list(@QueryParam("instance") String instance, @QueryParam("lineGroup") String lineGroup,
                         @QueryParam("limit") String limit) {
        int max = limit == null ? MAX_LIST : parse(limit, "limit", 1, MAX_LIST);
        Integer id = instance == null ? null : parse(instance, "instance", 1, Integer.MAX_VALUE);
        Stream<Session> s = get(SessionService.class).sessions().stream();
        if (id != null) {
            s = s.filter(x -> x.instance() == id);
        }
        if (lineGroup != null) {
            s = s.filter(x -> x.lineGroup().equals(lineGroup));
        }
        List<Session> all = new ArrayList<>();
        s.forEach(all::add);
        all.sort(Comparator.comparing(Session::id));
        ObjectNode root = mapper().createObjectNode().put("total", all.size());
        ArrayNode list = root.putArray("sessions");
        all.stream().limit(max).forEach(x -> list.add(codec(Session.class).encode(x, this)));
        return ok(root).build();
    }

    /**
     * One session.
     *
     * @param id session id
     * @return 200 session; 404 unknown
     */
    @Allowed({Roles.ADMIN, Roles.VIEWER})
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response session(@PathParam("id") String id) {
        Session s = get(SessionService.class).session(id)
                .orElseThrow(() -> RestSupport.fail(Response.Status.NOT_FOUND, "unknown session " + id));
        return ok(codec(Session.class).encode(s, this)).build();
    }

    /**
     * Full resync of one control plane: body {"sessions": [Session...]},
     * at most 10,000 per request. Without "resync" the request is the whole
     * resync; with "resync", "page" and "last" it is one page of a paged
     * resync, staged until its last page (docs/onos/operations.md).
     *
     * @param cp       control plane name
     * @param resyncId the paged resync's id, or null for a one-request resync
     * @param page     page number (0, 1, ...), with resync
     * @param last     "true" on the last page, else "false", with resync
     * @param body     request body
     * @return 204; 400 naming the field; 409 page not expected (start again at page 0); 413 too large
     */
    @Allowed({Roles.CP})
    @PUT
    public Response resync(@QueryParam("cp") String cp, @QueryParam("resync") String resyncId,
                           @QueryParam("page") String page, @QueryParam("last") String last, InputStream body) {
        String name = cpName(cp, "cp (query parameter)");
        int pageNo = 0;
        boolean lastPage = true;
        if (resyncId != null) {
            if (resyncId.isEmpty() || resyncId.length() > MAX_RESYNC_ID
                    || !resyncId.matches("[A-Za-z0-9._-]+")) {
                throw RestSupport.fail(Response.Status.BAD_REQUEST, "resync (query parameter): \"" + resyncId
                        + "\" is not 1.." + MAX_RESYNC_ID + " of A-Z a-z 0-9 . _ -");
            }
            if (page == null) {
                throw RestSupport.fail(Response.Status.BAD_REQUEST, "page (query parameter): missing");
            }
            pageNo = parse(page, "page (query parameter)", 0, MAX_PAGE_NUMBER);
            if (!"true".equals(last) && !"false".equals(last)) {
                throw RestSupport.fail(Response.Status.BAD_REQUEST, "last (query parameter): "
                        + (last == null ? "missing" : "\"" + last + "\" is not true or false"));
            }
            lastPage = "true".equals(last);
        } else if (page != null || last != null) {
            throw RestSupport.fail(Response.Status.BAD_REQUEST,
                                   "resync (query parameter): missing (page and last need a resync id)");
        }
        JsonNode json = RestSupport.readObject(body, MAX_PAGE_BODY);
        JsonNode list = array(json, "sessions", "", SessionService.MAX_PAGE);
        Pod pod = get(PodService.class).pod().orElse(null);
        List<Session> sessions = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String path = "sessions[" + i + "]";
            sessions.add(check(pod, SessionCodec.decode(list.get(i), name, path), path));
        }
        if (resyncId == null) {
            get(SessionService.class).resync(name, sessions);
        } else {
            get(SessionService.class).resyncPage(name, resyncId, pageNo, lastPage, sessions);
        }
        return Response.noContent().build();
    }

    /**
     * A batch of session events: body {"cp": NAME, "events": [{"event":
     * "up"|"update"|"down", "session": Session}]}, at most 1000.
     *
     * @param body request body
     * @return 204; 400 naming the field; 413 too large
     */
    @Allowed({Roles.CP})
    @POST
    @Path("events")
    public Response events(InputStream body) {
        JsonNode json = RestSupport.readObject(body, MAX_EVENTS_BODY);
        String name = cpName(text(json, "cp", "", Session.MAX_CP_LENGTH), "cp");
        JsonNode list = array(json, "events", "", MAX_EVENTS);
        Pod pod = get(PodService.class).pod().orElse(null);
        List<SessionReport> reports = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String path = "events[" + i + "]";
            JsonNode e = object(list.get(i), path);
            String kind = text(e, "event", path, 16);
            SessionReport.Kind k;
            switch (kind) {
                case "up":
                    k = SessionReport.Kind.UP;
                    break;
                case "update":
                    k = SessionReport.Kind.UPDATE;
                    break;
                case "down":
                    k = SessionReport.Kind.DOWN;
                    break;
                default:
                    throw RestSupport.fail(Response.Status.BAD_REQUEST,
                                           path + ".event: \"" + kind + "\" is not up, update or down");
            }
            String sp = path + ".session";
            reports.add(SessionReport.of(k, check(pod, SessionCodec.decode(e.get("session") == null
                    ? null : e.get("session"), name, sp), sp)));
        }
        get(SessionService.class).report(name, reports);
        return Response.noContent().build();
    }

    private static String cpName(String cp, String what) {
        if (cp == null || cp.isEmpty()) {
            throw RestSupport.fail(Response.Status.BAD_REQUEST, what + ": missing");
        }
        if (cp.length() > Session.MAX_CP_LENGTH) {
            throw RestSupport.fail(Response.Status.BAD_REQUEST,
                                   what + ": longer than " + Session.MAX_CP_LENGTH + " characters");
        }
        return cp;
    }

    /** A session must name the pod's line group, instance and access port. */
    private static Session check(Pod pod, Session s, String path) {
        if (pod == null) {
            return s;
        }
        if (pod.lineGroup(s.lineGroup()).isEmpty()) {
            throw RestSupport.fail(Response.Status.BAD_REQUEST,
                                   path + ".lineGroup: unknown line group \"" + s.lineGroup() + "\"");
        }
        if (pod.instance(s.instance()).isEmpty()) {
            throw RestSupport.fail(Response.Status.BAD_REQUEST, path + ".instance: unknown instance " + s.instance());
        }
        if (pod.port(s.accessPort()).isEmpty()) {
            throw RestSupport.fail(Response.Status.BAD_REQUEST,
                                   path + ".accessPort: unknown port \"" + s.accessPort() + "\"");
        }
        return s;
    }

    private static int parse(String text, String what, int min, int max) {
        try {
            int n = Integer.parseInt(text);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw RestSupport.fail(Response.Status.BAD_REQUEST,
                               String.format(Locale.ROOT, "%s: \"%s\" is not a number in %d..%d", what, text, min, max));
    }
}
