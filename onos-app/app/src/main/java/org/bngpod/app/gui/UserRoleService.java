package org.bngpod.app.gui;

import java.util.Set;

/**
 * The roles a user of ONOS's web realm holds. The GUI's websocket knows only
 * the name its user logged in with ({@code UiConnection.userName()}); its
 * message handlers ask this service what that user may do, with the same
 * roles the REST API checks (docs/onos/operations.md, "Roles").
 */
public interface UserRoleService {

    /**
     * Returns the roles of a user.
     *
     * @param user the name the user logged in with
     * @return role names; empty for an unknown user (or no realm to ask)
     */
    Set<String> roles(String user);
}
