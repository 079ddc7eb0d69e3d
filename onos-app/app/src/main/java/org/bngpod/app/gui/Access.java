package org.bngpod.app.gui;

import org.bngpod.app.rest.Roles;

import java.util.Set;
import java.util.TreeSet;

/**
 * What a GUI user may do, by the REST API's roles: {@value Roles#ADMIN}
 * and {@value Roles#VIEWER} see the view, only {@value Roles#ADMIN} acts.
 */
final class Access {

    private final String user;
    private final Set<String> roles;

    Access(String user, Set<String> roles) {
        this.user = user == null ? "" : user;
        this.roles = Set.copyOf(roles);
    }

    String user() {
        return user;
    }

    boolean canSee() {
        return roles.contains(Roles.ADMIN) || roles.contains(Roles.VIEWER);
    }

    boolean canAct() {
        return roles.contains(Roles.ADMIN);
    }

    /** The refusal of what, for lack of the roles named, with the roles the user has. */
    String refusal(String what, String... needed) {
        return String.format("%s needs the role %s (user %s has %s)", what, String.join(" or ", needed),
                             user.isEmpty() ? "(none)" : user,
                             roles.isEmpty() ? "no role" : String.join(", ", new TreeSet<>(roles)));
    }
}
