package org.bngpod.seba.impl;

import org.onosproject.app.ApplicationListener;
import org.onosproject.app.ApplicationService;
import org.onosproject.app.ApplicationState;
import org.onosproject.core.Application;
import org.onosproject.core.ApplicationId;
import org.onosproject.security.Permission;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * ONOS's ApplicationService as the emulated pod's controller has it: the given
 * applications are installed with their state, every other name is unknown (as
 * in ONOS, whose application store knows no id for a name never registered:
 * {@code getId} gives null, {@code getState} of an unknown id null), nothing
 * changes, so no event is posted. Null arguments are refused as ONOS's
 * ApplicationManager refuses them (NullPointerException); what the controller's
 * components do not call (the application set, archives, permissions, hooks)
 * throws, so a component that starts calling it fails here first.
 */
final class ApplicationsStandIn implements ApplicationService {

    private static final Logger LOG = LoggerFactory.getLogger(ApplicationsStandIn.class);

    private final Map<String, ApplicationId> ids;
    private final Map<ApplicationId, ApplicationState> states;
    private final List<ApplicationListener> listeners = new CopyOnWriteArrayList<>();

    /**
     * Makes the stand-in.
     *
     * @param installed the installed applications and their state
     */
    ApplicationsStandIn(Map<ApplicationId, ApplicationState> installed) {
        states = Map.copyOf(installed);
        ids = Map.copyOf(installed.keySet().stream().collect(Collectors.toMap(ApplicationId::name, id -> id)));
    }

    @Override
    public ApplicationId getId(String name) {
        Objects.requireNonNull(name, "Name cannot be null");
        return ids.get(name);
    }

    @Override
    public ApplicationState getState(ApplicationId appId) {
        Objects.requireNonNull(appId, "Application ID cannot be null");
        return states.get(appId);
    }

    @Override
    public void addListener(ApplicationListener listener) {
        listeners.add(Objects.requireNonNull(listener, "Listener cannot be null"));
    }

    @Override
    public void removeListener(ApplicationListener listener) {
        Objects.requireNonNull(listener, "Listener cannot be null");
        if (!listeners.remove(listener)) {
            LOG.warn("Listener {} not registered", listener);
        }
    }

    /**
     * Returns the listeners added and not removed (tests).
     *
     * @return the listeners
     */
    List<ApplicationListener> listeners() {
        return List.copyOf(listeners);
    }

    private static UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException("the emulated pod's ApplicationService has no " + what);
    }

    @Override
    public Set<Application> getApplications() {
        throw unsupported("application set");
    }

    @Override
    public Application getApplication(ApplicationId appId) {
        throw unsupported("application descriptions");
    }

    @Override
    public Set<Permission> getPermissions(ApplicationId appId) {
        throw unsupported("permissions");
    }

    @Override
    public void registerDeactivateHook(ApplicationId appId, Runnable hook) {
        throw unsupported("deactivate hooks");
    }

    @Override
    public InputStream getApplicationArchive(ApplicationId appId) {
        throw unsupported("application archives");
    }

    @Override
    public Set<Application> getRegisteredApplications() {
        throw unsupported("registered applications");
    }
}
