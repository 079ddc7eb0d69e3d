package org.bngpod.app.emu;

import org.bngpod.app.rest.BngPodWebApplication;
import org.bngpod.app.rest.ContainerLogin;
import org.eclipse.jetty.server.Server;
import org.glassfish.jersey.jetty.JettyHttpContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.onlab.junit.TestUtils;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.rest.BaseResource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import javax.ws.rs.core.Response;

/**
 * The app's REST API served as ONOS serves it, on Jetty with Jersey: the
 * resources of {@link BngPodWebApplication} under {@value #WEB_CONTEXT} (its
 * WAB's Web-ContextPath), HTTP Basic against a realm of users and web.xml's
 * auth-constraint ({@link ContainerLogin}), then the app's own
 * {@code RoleFilter}. The resources find their services where onos-rest's
 * ResourceTest puts them.
 */
final class RestServer {

    static final String WEB_CONTEXT = "/onos/bngpod";

    private RestServer() {
    }

    /**
     * Starts the server.
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
        try {
            TestUtils.setField(BaseResource.class, "services", services);
        } catch (TestUtils.TestUtilsException e) {
            throw new IllegalStateException("cannot give the REST resources their services", e);
        }
        ResourceConfig config = ResourceConfig.forApplicationClass(BngPodWebApplication.class)
                .register(new Context(requests)).register(new ContainerLogin(users, constraintRoles));
        URI uri = URI.create("http://" + listen);
        Server server = new Server(new InetSocketAddress(uri.getHost(), uri.getPort()));
        server.setHandler(ContainerFactory.createContainer(JettyHttpContainer.class, config));
        try {
            server.start();
        } catch (Exception e) {
            throw new IOException("REST server on " + listen + ": " + e, e);
        }
        return server;
    }

    /**
     * The context path: Jersey's Jetty container takes the server's root as
     * the base; ONOS's servlet container takes the app's context path. Outside
     * it: 404, as the container answers.
     */
    @PreMatching
    private static final class Context implements ContainerRequestFilter {
        private final BiConsumer<String, String> requests;

        Context(BiConsumer<String, String> requests) {
            this.requests = requests;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            URI uri = request.getUriInfo().getRequestUri();
            String path = uri.getRawPath();
            if (!path.equals(WEB_CONTEXT) && !path.startsWith(WEB_CONTEXT + "/")) {
                request.abortWith(Response.status(Response.Status.NOT_FOUND).build());
                return;
            }
            request.setRequestUri(request.getUriInfo().getBaseUri().resolve(WEB_CONTEXT + "/"), uri);
            requests.accept(request.getMethod(), path);
        }
    }
}
