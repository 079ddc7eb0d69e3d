package org.bngpod.app.gui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.WebSocketListener;
import org.eclipse.jetty.websocket.servlet.WebSocketServlet;
import org.eclipse.jetty.websocket.servlet.WebSocketServletFactory;
import org.onlab.osgi.ServiceDirectory;
import org.onosproject.ui.UiExtension;
import org.onosproject.ui.UiMessageHandler;
import org.onosproject.ui.UiView;

import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * What ONOS's legacy GUI serves a browser, for one application's extension,
 * on 127.0.0.1: the index page (gui-harness/index.html with the extension's
 * css.html and js.html, a route per view and the session's token), the
 * views' resources through {@link UiExtension#resource} as ONOS serves them,
 * ONOS's AngularJS (npm, the folder given), and the websocket
 * /onos/ui/websock/core on which the extension's real message handlers
 * answer (created per connection by its factory and initialised with the
 * connection and the service directory, as ONOS's UiWebSocket does).
 *
 * <p>As strict as ONOS, and louder: a message before authentication, a bad
 * token, an event no handler takes, two handlers for one event, a handler
 * that throws, a resource the page asks for that is not there: ONOS logs a
 * warning and the view silently misses an answer; here each is a
 * {@link #failures() failure} the test reports.</p>
 */
final class GuiHarness implements AutoCloseable {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final UiExtension extension;
    private final ServiceDirectory directory;
    private final Path angular;
    private final Server server;
    private final Map<String, String> tokens = new ConcurrentHashMap<>();
    private final List<String> failures = new ArrayList<>();
    private final List<String> events = new ArrayList<>();

    /**
     * Starts serving.
     *
     * @param extension the application's GUI extension
     * @param directory the services its handlers look up
     * @param angular   npm's node_modules holding angular and angular-route
     * @throws Exception if Jetty does not start
     */
    GuiHarness(UiExtension extension, ServiceDirectory directory, Path angular) throws Exception {
        this.extension = extension;
        this.directory = directory;
        this.angular = angular;
        server = new Server();
        ServerConnector http = new ServerConnector(server);
        http.setHost("127.0.0.1");
        http.setPort(0);
        server.addConnector(http);
        ServletContextHandler ui = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        ui.setContextPath("/onos/ui");
        ui.addServlet(new ServletHolder(new Pages()), "/*");
        ui.addServlet(new ServletHolder(new Sockets()), "/websock/*");
        server.setHandler(ui);
        server.start();
    }

    /**
     * Logs a user in, as ONOS's login would: the returned page carries the
     * token its websocket authenticates with.
     *
     * @param user user name
     * @return the view's URL for that user
     */
    String login(String user) {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        String token = String.format("%032x", new BigInteger(1, b));
        tokens.put(token, user);
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        return "http://127.0.0.1:" + port + "/onos/ui/index.html?session=" + token + "#/"
                + extension.views().get(0).id();
    }

    /**
     * Returns what went wrong on the server's side so far.
     *
     * @return failures, in order
     */
    synchronized List<String> failures() {
        return List.copyOf(failures);
    }

    /** Forgets the failures so far (after a check that provokes one). */
    synchronized void clearFailures() {
        failures.clear();
    }

    /**
     * Returns the events the pages sent, in order, as "user event".
     *
     * @return events
     */
    synchronized List<String> events() {
        return List.copyOf(events);
    }

    private synchronized void fail(String what) {
        failures.add(what);
    }

    private synchronized void received(String user, String event) {
        events.add(user + " " + event);
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not stop", e);
        }
    }

    private static String text(InputStream in) throws IOException {
        if (in == null) {
            return null;
        }
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String html(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
                .replace("\"", "&quot;");
    }

    private static String capitalized(String id) {
        return id.substring(0, 1).toUpperCase(Locale.ROOT) + id.substring(1);
    }

    /** The page, the views' resources, AngularJS and the harness's own scripts. */
    private final class Pages extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
            String body = null;
            if ("/index.html".equals(path)) {
                body = index(req.getParameter("session"));
                if (body == null) {
                    resp.sendError(HttpServletResponse.SC_UNAUTHORIZED);
                    return;
                }
            } else if (path.startsWith("/app/view/")) {
                String[] parts = path.substring("/app/view/".length()).split("/", 2);
                if (parts.length == 2 && extension.views().stream().anyMatch(v -> v.id().equals(parts[0]))) {
                    body = text(extension.resource(parts[0], parts[1]));
                }
            } else if (path.equals("/tp/angular.js") || path.equals("/tp/angular-route.js")) {
                String name = path.substring("/tp/".length(), path.length() - ".js".length());
                body = Files.readString(angular.resolve(name).resolve(name + ".js"));
            } else if (path.equals("/harness/onos-fw.js") || path.equals("/harness/harness.css")) {
                body = text(GuiHarness.class.getResourceAsStream("/gui-harness" + path.substring("/harness".length())));
            } else if (path.equals("/favicon.ico")) {
                resp.sendError(HttpServletResponse.SC_NOT_FOUND);
                return;
            }
            if (body == null) {
                fail("the page asked for " + path + ", which ONOS would not serve");
                resp.sendError(HttpServletResponse.SC_NOT_FOUND);
                return;
            }
            resp.setCharacterEncoding("UTF-8");
            resp.setContentType(path.endsWith(".js") ? "application/javascript"
                                        : path.endsWith(".css") ? "text/css" : "text/html");
            resp.setHeader("Cache-Control", "no-store");
            resp.getWriter().write(body);
        }

        private String index(String token) throws IOException {
            String user = token == null ? null : tokens.get(token);
            if (user == null) {
                return null;
            }
            StringBuilder routes = new StringBuilder();
            List<String> modules = new ArrayList<>();
            for (UiView v : extension.views()) {
                String ctrl = "Ov" + capitalized(v.id()) + "Ctrl";
                modules.add("'ov" + capitalized(v.id()) + "'");
                routes.append(String.format("$routeProvider.when('/%s', {controller: '%s', controllerAs: 'ctrl',"
                                                    + " templateUrl: 'app/view/%s/%s.html'});\n",
                                            v.id(), ctrl, v.id(), v.id()));
            }
            routes.append("$routeProvider.otherwise({redirectTo: '/").append(extension.views().get(0).id())
                    .append("'});");
            return text(GuiHarness.class.getResourceAsStream("/gui-harness/index.html"))
                    .replace("${token}", token)
                    .replace("${user}", html(user))
                    .replace("${css}", text(extension.css()))
                    .replace("${js}", text(extension.js()))
                    .replace("${modules}", String.join(", ", modules))
                    .replace("${routes}", routes);
        }
    }

    /** /onos/ui/websock/core: one {@link Connection} per websocket. */
    private final class Sockets extends WebSocketServlet {
        private static final long serialVersionUID = 1L;

        @Override
        public void configure(WebSocketServletFactory factory) {
            factory.getPolicy().setMaxTextMessageSize(1 << 20);
            factory.setCreator((req, resp) -> {
                String path = req.getRequestURI().getPath();
                if (!"/onos/ui/websock/core".equals(path)) {
                    fail("websocket to " + path);
                    return null;
                }
                return new Connection();
            });
        }
    }

    /** A GUI connection: authentication, then the extension's handlers. */
    private final class Connection extends TestUiConnection implements WebSocketListener {
        private Session session;
        private String user;
        private final Map<String, UiMessageHandler> handlers = new HashMap<>();

        @Override
        public void onWebSocketConnect(Session s) {
            session = s;
        }

        @Override
        public void onWebSocketText(String data) {
            JsonNode message;
            try {
                message = MAPPER.readTree(data);
            } catch (IOException e) {
                fail("a message that is not JSON: " + data);
                return;
            }
            if (!message.isObject()) {
                fail("a message that is not an object: " + data);
                return;
            }
            String type = message.path("event").asText("unknown");
            received(user == null ? "-" : user, type);
            if (user == null) {
                authenticate(type, message);
                return;
            }
            UiMessageHandler handler = handlers.get(type);
            if (handler == null) {
                fail("No GUI message handler for type " + type);
                return;
            }
            try {
                handler.process((ObjectNode) message);
            } catch (RuntimeException e) {
                fail("the handler of " + type + " threw " + e);
            }
        }

        private void authenticate(String type, JsonNode message) {
            if (!"authentication".equals(type)) {
                fail("Non-Authenticated Web Socket: " + message);
                return;
            }
            String who = tokens.get(message.path("payload").path("token").asText(""));
            if (who == null) {
                fail("Invalid Authentication Token: " + message);
                sendMessage("error", MAPPER.createObjectNode().put("message", "invalid authentication token"));
                return;
            }
            user = who;
            for (UiMessageHandler h : extension.messageHandlerFactory().newHandlers()) {
                h.init(this, directory);
                for (String t : h.messageTypes()) {
                    if (handlers.put(t, h) != null) {
                        fail("two handlers for " + t);
                    }
                }
            }
            ObjectNode boot = MAPPER.createObjectNode().put("user", user);
            boot.putArray("clusterNodes").addObject().put("id", "harness").put("ip", "127.0.0.1")
                    .put("uiAttached", true);
            sendMessage("bootstrap", boot);
        }

        @Override
        public void onWebSocketBinary(byte[] payload, int offset, int len) {
            fail("a binary websocket message");
        }

        @Override
        public void onWebSocketClose(int statusCode, String reason) {
            handlers.values().stream().distinct().collect(Collectors.toList()).forEach(UiMessageHandler::destroy);
            handlers.clear();
        }

        @Override
        public void onWebSocketError(Throwable cause) {
            fail("websocket error: " + cause);
        }

        @Override
        public String userName() {
            return user;
        }

        @Override
        public synchronized void sendMessage(ObjectNode message) {
            try {
                if (session != null && session.isOpen()) {
                    session.getRemote().sendString(message.toString());
                }
            } catch (IOException e) {
                fail("cannot send " + message.path("event") + ": " + e);
            }
        }
    }
}
