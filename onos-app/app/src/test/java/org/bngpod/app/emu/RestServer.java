package org.bngpod.app.emu;

import org.bngpod.app.rest.BngPodWebApplication;
import org.bngpod.app.rest.ContainerLogin;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.HandlerCollection;
import org.glassfish.jersey.jetty.JettyHttpContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.onlab.junit.TestUtils;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.rest.BaseResource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import javax.ws.rs.core.Response;

/**
 * The app's REST API served as ONOS serves it, on Jetty with Jersey: the
 * resources of {@link BngPodWebApplication} under {@value #WEB_CONTEXT} (its
 * WAB's Web-ContextPath), and those of other apps' web applications under
 * theirs ({@link PodController.Extension}), HTTP Basic against a realm of users and web.xml's
 * auth-constraint ({@link ContainerLogin}), then the app's own
 * {@code RoleFilter}. The resources find their services where onos-rest's
 * ResourceTest puts them.
 */
final class RestServer {

    static final String WEB_CONTEXT = "/onos/bngpod";

    private RestServer() {
    }

    /**
     * Starts the server with the app's resources only.
     *
     * @param listen          address:port
     * @param services        what the resources look up
     * @param users           the realm
     * @param constraintRoles the roles web.xml lets in
     * @param requests        told of every request under the context (method, path)
     * @return the running server
     * @throws IOException if it cannot listen
     */
    static Server start(String listen, ServiceDirectory services, Map<String, ContainerLogin.User> users,
                        Set<String> constraintRoles, BiConsumer<String, String> requests) throws IOException {
        return start(listen, services, users,
                     List.of(new PodController.WebContext(WEB_CONTEXT, BngPodWebApplication.class, constraintRoles)),
                     requests);
    }

    /**
     * Starts the server with several web applications, each under its own
     * context path (as ONOS serves each app's WAB), all behind the same realm;
     * a path outside every context: 404.
     *
     * @param listen   address:port
     * @param services what the resources of every context look up
     * @param users    the realm
     * @param contexts the web applications and the roles their web.xml lets in
     * @param requests told of every request under a context (method, path)
     * @return the running server
     * @throws IOException if it cannot listen
     */
    static Server start(String listen, ServiceDirectory services, Map<String, ContainerLogin.User> users,
                        List<PodController.WebContext> contexts, BiConsumer<String, String> requests)
            throws IOException {
        try {
            TestUtils.setField(BaseResource.class, "services", services);
        } catch (TestUtils.TestUtilsException e) {
            throw new IllegalStateException("cannot give the REST resources their services", e);
        }
        Map<String, Handler> handlers = new LinkedHashMap<>();
        for (PodController.WebContext c : contexts) {
            ResourceConfig config = ResourceConfig.forApplicationClass(c.application)
                    .register(new Context(c.path, requests)).register(new ContainerLogin(users, c.roles));
            handlers.put(c.path, ContainerFactory.createContainer(JettyHttpContainer.class, config));
        }
        URI uri = URI.create("http://" + listen);
        Server server = new Server(new InetSocketAddress(uri.getHost(), uri.getPort()));
        server.setHandler(new Contexts(handlers));
        try {
            server.start();
        } catch (Exception e) {
            throw new IOException("REST server on " + listen + ": " + e, e);
        }
        return server;
    }

    /** Each request to the web application whose context path it is under; else 404. */
    private static final class Contexts extends HandlerCollection {
        private final Map<String, Handler> byPath;

        Contexts(Map<String, Handler> byPath) {
            super(byPath.values().toArray(new Handler[0]));
            this.byPath = byPath;
        }

        @Override
        public void handle(String target, Request base, HttpServletRequest request, HttpServletResponse response)
                throws IOException, ServletException {
            String path = base.getRequestURI();
            for (Map.Entry<String, Handler> e : byPath.entrySet()) {
                if (path.equals(e.getKey()) || path.startsWith(e.getKey() + "/")) {
                    e.getValue().handle(target, base, request, response);
                    return;
                }
            }
            response.setStatus(HttpServletResponse.SC_NOT_FOUND);
            base.setHandled(true);
        }
    }

    /**
     * The context path: Jersey's Jetty container takes the server's root as
     * the base; ONOS's servlet container takes the app's context path. Outside
     * it: 404, as the container answers.
     */
    @PreMatching
    private static final class Context implements ContainerRequestFilter {
        private final String context;
        private final BiConsumer<String, String> requests;

        Context(String context, BiConsumer<String, String> requests) {
            this.context = context;
            this.requests = requests;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            URI uri = request.getUriInfo().getRequestUri();
            String path = uri.getRawPath();
            if (!path.equals(context) && !path.startsWith(context + "/")) {
                request.abortWith(Response.status(Response.Status.NOT_FOUND).build());
                return;
            }
            request.setRequestUri(request.getUriInfo().getBaseUri().resolve(context + "/"), uri);
            requests.accept(request.getMethod(), path);
        }
    }
}
