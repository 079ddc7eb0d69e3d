package org.bngpod.app.rest;

import javax.ws.rs.WebApplicationException;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;

/**
 * The Karaf (JAAS) roles of the REST API: ONOS's own {@value #ADMIN} and
 * {@value #VIEWER}, and {@value #CP} for the control planes. web.xml lets
 * users with any of them through ONOS's HTTP Basic login; {@link RoleFilter}
 * and the resources decide what each may do (docs/onos/operations.md, "Roles").
 * The GUI view checks the same roles (org.bngpod.app.gui).
 */
public final class Roles {

    /** ONOS's administrators: every read, and the operator's actions. */
    public static final String ADMIN = "admin";
    /** ONOS's read-only users: every read, nothing else. */
    public static final String VIEWER = "viewer";
    /** A control plane (bng-cp): its reports and the placement it follows, nothing else. */
    public static final String CP = "bngpod-cp";

    private Roles() {
    }

    /**
     * Refuses the request unless the user has the role.
     *
     * @param security the request's security context
     * @param role     the role needed
     * @param action   what the request does, for the answer
     * @throws WebApplicationException 403 {"error": ...} if the user lacks the role
     */
    static void require(SecurityContext security, String role, String action) {
        if (security == null || !security.isUserInRole(role)) {
            throw RestSupport.fail(Response.Status.FORBIDDEN, forbidden(action, role));
        }
    }

    /** The text of a 403: what was refused and which role it needs. */
    static String forbidden(String action, String... roles) {
        return action + " needs the role " + String.join(" or ", roles);
    }
}
