package org.bngpod.app.emu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.bngpod.app.impl.Testbed;
import org.bngpod.app.rest.ContainerLogin;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.core.Application;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The emulated pod's controller serves the app's REST API as ONOS does: under
 * /onos/bngpod, HTTP Basic against a Karaf users file, web.xml's constraint,
 * the app's roles; bng-cp's requests reach the app's managers.
 */
public class RestServerTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Testbed bed;
    private Server server;
    private String base;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @Before
    public void setUp() throws IOException {
        bed = new Testbed(Testbed.fixturePod());
        java.nio.file.Path users = Files.createTempFile("users", ".properties");
        Files.writeString(users, "bngcp = cp-secret,_g_:bngpodcpgroup\nviewer = v,_g_:guestgroup\n"
                + "nobody = n,manager\n_g_\\:bngpodcpgroup = group,bngpod-cp\n_g_\\:guestgroup = group,viewer\n");
        try {
            server = RestServer.start("127.0.0.1:0", bed.webServices(), KarafUsers.read(users),
                                      ContainerLogin.webXmlRoles(Paths.get("src/main/webapp/WEB-INF/web.xml"),
                                                                 "security-constraint"),
                                      (method, path) -> requests.add(method + " " + path));
        } finally {
            Files.delete(users);
        }
        base = "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    @After
    public void tearDown() throws Exception {
        server.stop();
        bed.close();
    }

    private HttpResponse<String> send(String method, String path, String user, String password, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (user != null) {
            r.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    public void theControlPlaneReadsThePlacementAndReports() throws Exception {
        HttpResponse<String> r = send("GET", "/onos/bngpod/placement", "bngcp", "cp-secret", null);
        assertEquals(r.body(), 200, r.statusCode());
        JsonNode p = MAPPER.readTree(r.body());
        assertEquals(1, p.path("version").asLong());
        r = send("POST", "/onos/bngpod/instances/2/health", "bngcp", "cp-secret",
                 "{\"cp\":\"cp1\",\"alive\":false,\"reason\":\"PFCP heartbeat lost\"}");
        assertEquals(r.body(), 204, r.statusCode());
        assertEquals(2, bed.placement.placement().version());
        assertTrue(requests.toString(), requests.contains("POST /onos/bngpod/instances/2/health"));
    }

    @Test
    public void loginAndRolesAreOnos() throws Exception {
        assertEquals(401, send("GET", "/onos/bngpod/placement", null, null, null).statusCode());
        assertEquals(401, send("GET", "/onos/bngpod/placement", "bngcp", "wrong", null).statusCode());
        // a user with no role web.xml admits
        assertEquals(403, send("GET", "/onos/bngpod/placement", "nobody", "n", null).statusCode());
        HttpResponse<String> r = send("GET", "/onos/bngpod/pod", "bngcp", "cp-secret", null);
        assertEquals(403, r.statusCode());
        assertTrue(r.body(), r.body().contains("needs the role admin or viewer"));
        assertEquals(200, send("GET", "/onos/bngpod/pod", "viewer", "v", null).statusCode());
        assertEquals(403, send("POST", "/onos/bngpod/instances/2/health", "viewer", "v",
                               "{\"alive\":false}").statusCode());
        assertEquals(1, bed.placement.placement().version());
    }

    @Test
    public void onlyTheAppsContextIsServed() throws Exception {
        assertEquals(404, send("GET", "/placement", "viewer", "v", null).statusCode());
        assertEquals(404, send("GET", "/onos/bngpodx/placement", "viewer", "v", null).statusCode());
    }

    /** A second web application (another app's WAB) under its own context, behind the same realm. */
    @Test
    public void anotherAppsContextIsServedBeside() throws Exception {
        server.stop();
        java.nio.file.Path users = Files.createTempFile("users", ".properties");
        Files.writeString(users, "viewer = v,_g_:guestgroup\n_g_\\:guestgroup = group,viewer\n");
        try {
            server = RestServer.start("127.0.0.1:0", bed.webServices(), KarafUsers.read(users), List.of(
                    new PodController.WebContext(RestServer.WEB_CONTEXT, org.bngpod.app.rest.BngPodWebApplication.class,
                                                 Set.of("viewer")),
                    new PodController.WebContext("/onos/other", OtherApp.class, Set.of("admin"))),
                                      (method, path) -> requests.add(method + " " + path));
        } finally {
            Files.delete(users);
        }
        base = "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        assertEquals(200, send("GET", "/onos/bngpod/pod", "viewer", "v", null).statusCode());
        // the other context's web.xml lets in admin only
        assertEquals(403, send("GET", "/onos/other/hello", "viewer", "v", null).statusCode());
        assertEquals(401, send("GET", "/onos/other/hello", null, null, null).statusCode());
        assertEquals(404, send("GET", "/onos/otherx/hello", "viewer", "v", null).statusCode());
        assertEquals(404, send("GET", "/hello", "viewer", "v", null).statusCode());
    }

    /** The other app's resources. */
    public static class OtherApp extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Hello.class);
        }
    }

    /** Its one resource. */
    @Path("hello")
    public static class Hello {
        @GET
        public String hello() {
            return "hello";
        }
    }
}
