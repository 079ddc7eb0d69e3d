package org.bngpod.app.rest;

import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.ResourceInfo;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;
import java.lang.reflect.Method;

/**
 * Lets a request reach its resource method only if the user has one of the
 * roles the method's {@link Allowed} names; a method without it is refused.
 * It takes the place of ONOS's {@code AuthorizationFilter} (admin for every
 * write, viewer for reads), which has no room for a role that may write
 * reports but read nothing else. The user and roles come from the web
 * container's login (web.xml: HTTP Basic against Karaf's JAAS realm).
 */
public class RoleFilter implements ContainerRequestFilter {

    @Context
    private ResourceInfo resource;

    @Override
    public void filter(ContainerRequestContext request) {
        Method method = resource == null ? null : resource.getResourceMethod();
        Allowed allowed = method == null ? null : method.getAnnotation(Allowed.class);
        if (allowed == null) {
            request.abortWith(RestSupport.error(Response.Status.FORBIDDEN,
                                                request.getMethod() + " /" + request.getUriInfo().getPath()
                                                        + " is allowed to no role"));
            return;
        }
        SecurityContext security = request.getSecurityContext();
        for (String role : allowed.value()) {
            if (security != null && security.isUserInRole(role)) {
                return;
            }
        }
        request.abortWith(RestSupport.error(
                Response.Status.FORBIDDEN,
                Roles.forbidden(request.getMethod() + " /" + request.getUriInfo().getPath(), allowed.value())));
    }
}
