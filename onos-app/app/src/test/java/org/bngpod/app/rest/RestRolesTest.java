package org.bngpod.app.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.base.Splitter;
import org.bngpod.api.InstanceStatus;
import org.bngpod.app.impl.Testbed;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.rest.resources.ResourceTest;

import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.HEAD;
import javax.ws.rs.OPTIONS;
import javax.ws.rs.POST;
import javax.ws.rs.PUT;
import javax.ws.rs.Path;
import javax.ws.rs.client.Entity;
import javax.ws.rs.client.Invocation;
import javax.ws.rs.client.WebTarget;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * Who may do what over REST: every endpoint tried by every kind of user, the
 * login of ONOS's web container played by {@link ContainerLogin} from the
 * application's own web.xml, the decisions by the application's
 * {@link RoleFilter} and resources. Viewers read; admins read and act as the
 * operator; a control plane (role bngpod-cp) sends its reports and reads the
 * placement, nothing else. A refused request changes nothing.
 */
public class RestRolesTest extends ResourceTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String SESSION = "{\"id\":\"s1\",\"lineGroup\":\"lg2\",\"instance\":2,"
            + "\"accessPort\":\"access1\",\"stag\":150,\"ctag\":7,\"pppoeId\":17,\"mac\":\"02:10:00:00:00:07\"}";
    private static final String ADMIN = "onos";
    private static final String VIEWER = "guest";
    private static final String CP = "cp1";
    private static final List<String> USERS = List.of(ADMIN, VIEWER, CP);

    private Testbed bed;

    public RestRolesTest() {
        super(ResourceConfig.forApplicationClass(BngPodWebApplication.class)
                      .register(ContainerLogin.class).register(Unannotated.class));
    }

    /** A resource method nobody annotated: refused to everyone. */
    @Path("unannotated")
    public static class Unannotated {
        /**
         * Answers if reached.
         *
         * @return 200
         */
        @GET
        public Response get() {
            return Response.ok("reached").build();
        }
    }

    @Before
    public void setUpServices() {
        bed = new Testbed(Testbed.fixturePod());
        setServiceDirectory(bed.webServices());
        // one session, so that GET /sessions/s1 has something to show
        assertEquals(204, call(CP, "POST", "sessions/events",
                               "{\"cp\":\"cp1\",\"events\":[{\"event\":\"up\",\"session\":" + SESSION + "}]}")
                .getStatus());
    }

    @After
    public void tearDownServices() {
        bed.close();
    }

    private Response call(String user, String method, String path, String body) {
        return send(ContainerLogin.basic(user), method, path, body);
    }

    private Response send(String authorization, String method, String pathAndQuery, String body) {
        int q = pathAndQuery.indexOf('?');
        WebTarget t = target(q < 0 ? pathAndQuery : pathAndQuery.substring(0, q));
        if (q >= 0) {
            for (String kv : Splitter.on('&').split(pathAndQuery.substring(q + 1))) {
                t = t.queryParam(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
        }
        Invocation.Builder b = t.request();
        if (authorization != null) {
            b = b.header(HttpHeaders.AUTHORIZATION, authorization);
        }
        return body == null ? b.method(method) : b.method(method, Entity.entity(body, MediaType.APPLICATION_JSON_TYPE));
    }

    /** What a refused request must not change: the placement with health, and the sessions. */
    private String state() {
        return bed.placement.placement() + " " + bed.sessions.sessions();
    }

    /**
     * Sends a request as every user: those not allowed first (each refused,
     * nothing changed), then each allowed user (the given status).
     */
    private void endpoint(String method, String path, String body, int status, String... allowed) {
        Set<String> ok = Set.of(allowed);
        String request = method + " /" + path + (body == null ? "" : " " + body);
        // no credentials, a wrong password, a user with no role of the REST API: the container's answers
        Map<String, Integer> container = new LinkedHashMap<>();
        container.put(null, 401);
        container.put(ContainerLogin.basic(ADMIN, "wrong"), 401);
        container.put(ContainerLogin.basic("karaf-only"), 403);
        for (Map.Entry<String, Integer> c : container.entrySet()) {
            String before = state();
            Response r = send(c.getKey(), method, path, body);
            assertEquals(request + " by " + c.getKey(), (int) c.getValue(), r.getStatus());
            assertEquals(request + " refused by the container changed the state", before, state());
        }
        for (String user : USERS) {
            if (ok.contains(user)) {
                continue;
            }
            String before = state();
            Response r = call(user, method, path, body);
            String answer = r.readEntity(String.class);
            assertEquals(request + " by " + user + ": " + answer, 403, r.getStatus());
            assertThat(request + " by " + user, json(answer).path("error").asText(), containsString("needs the role"));
            assertEquals(request + " refused to " + user + " changed the state", before, state());
        }
        for (String user : allowed) {
            Response r = call(user, method, path, body);
            String answer = r.hasEntity() ? r.readEntity(String.class) : "";
            assertEquals(request + " by " + user + ": " + answer, status, r.getStatus());
        }
    }

    private static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    private InstanceStatus instance(int id) {
        return bed.placement.placement().instance(id).orElseThrow();
    }

    @Test
    public void viewersAndAdminsRead() {
        for (String path : List.of("pod", "lines", "instances", "stats", "sessions", "sessions/s1",
                                   "sessions?instance=2")) {
            endpoint("GET", path, null, 200, ADMIN, VIEWER);
        }
    }

    @Test
    public void everyoneOfTheApiReadsThePlacement() {
        endpoint("GET", "placement", null, 200, ADMIN, VIEWER, CP);
    }

    @Test
    public void onlyAdminsActAsTheOperator() {
        endpoint("POST", "instances/2/health", "{\"alive\":false,\"reason\":\"maintenance\"}", 204, ADMIN);
        assertFalse(instance(2).available());
        assertEquals("operator", instance(2).declaredBy().orElseThrow());
        endpoint("POST", "instances/2/health", "{\"alive\":true}", 204, ADMIN);
        assertTrue(instance(2).available());
        endpoint("POST", "placement/rebalance", "", 200, ADMIN);
    }

    @Test
    public void onlyControlPlanesReport() {
        endpoint("POST", "instances/2/health", "{\"cp\":\"cp1\",\"alive\":false,\"reason\":\"PFCP heartbeat lost\"}",
                 204, CP);
        assertEquals("cp1", instance(2).declaredBy().orElseThrow());
        endpoint("POST", "instances/2/health", "{\"cp\":\"cp1\",\"alive\":true}", 204, CP);
        assertTrue(instance(2).available());

        String other = SESSION.replace("\"s1\"", "\"s2\"");
        endpoint("POST", "sessions/events",
                 "{\"cp\":\"cp1\",\"events\":[{\"event\":\"up\",\"session\":" + other + "}]}", 204, CP);
        assertTrue(bed.sessions.session("s2").isPresent());
        endpoint("PUT", "sessions?cp=cp1", "{\"sessions\":[" + SESSION + "]}", 204, CP);
        endpoint("PUT", "sessions?cp=cp1&resync=r1&page=0&last=true", "{\"sessions\":[" + other + "]}", 204, CP);
        assertTrue(bed.sessions.session("s2").isPresent());
        assertFalse(bed.sessions.session("s1").isPresent());
    }

    @Test
    public void aMethodNobodyAllowedIsRefusedToEveryone() {
        for (String user : List.of(ADMIN, VIEWER, CP, "lab")) {
            Response r = call(user, "GET", "unannotated", null);
            assertEquals(user, 403, r.getStatus());
            assertThat(r.readEntity(String.class), containsString("is allowed to no role"));
        }
    }

    @Test
    public void everyResourceMethodNamesItsRolesAndTheContainerLetsThemIn() {
        Set<String> granted = new HashSet<>();
        List<String> unannotated = new ArrayList<>();
        List<Class<? extends Annotation>> verbs = List.of(GET.class, POST.class, PUT.class, DELETE.class,
                                                          HEAD.class, OPTIONS.class);
        for (Class<?> c : new BngPodWebApplication().getClasses()) {
            if (c.getAnnotation(Path.class) == null) {
                continue;
            }
            for (Method m : c.getMethods()) {
                if (verbs.stream().noneMatch(v -> m.getAnnotation(v) != null)) {
                    continue;
                }
                Allowed allowed = m.getAnnotation(Allowed.class);
                if (allowed == null) {
                    unannotated.add(c.getSimpleName() + "." + m.getName());
                } else {
                    granted.addAll(Arrays.asList(allowed.value()));
                }
            }
        }
        assertEquals("resource methods without @Allowed", List.of(), unannotated);
        assertEquals(Set.of(Roles.ADMIN, Roles.VIEWER, Roles.CP), granted);
        // web.xml: HTTP Basic against Karaf's realm, letting in exactly the roles the resources grant
        assertEquals(List.of("BASIC"), ContainerLogin.webXmlTexts("auth-method"));
        assertEquals(List.of("karaf"), ContainerLogin.webXmlTexts("realm-name"));
        assertEquals(List.of("/*"), ContainerLogin.webXmlTexts("url-pattern").subList(0, 1));
        assertEquals(granted, ContainerLogin.webXmlRoles("security-constraint"));
        assertEquals(granted, ContainerLogin.webXmlRoles("security-role"));
    }
}
