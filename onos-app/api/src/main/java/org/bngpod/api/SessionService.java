package org.bngpod.api;

import org.onosproject.event.ListenerService;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every subscriber session the control planes report, kept in a distributed
 * store so that every cluster node sees them.
 */
public interface SessionService extends ListenerService<SessionEvent, SessionListener> {

    /**
     * Applies a control plane's batch of session events, in order.
     *
     * @param cp      control plane name
     * @param reports events; each session's cp must be cp
     * @throws IllegalArgumentException if a report names another control plane
     */
    void report(String cp, List<SessionReport> reports);

    /**
     * Replaces every session a control plane reported before by this full list
     * (full resync after a CP start or an outage).
     *
     * @param cp       control plane name
     * @param sessions every session the control plane has; each session's cp must be cp
     * @throws IllegalArgumentException if a session names another control plane or an id repeats
     */
    void resync(String cp, List<Session> sessions);

    /**
     * Returns every session.
     *
     * @return sessions, in no particular order
     */
    Collection<Session> sessions();

    /**
     * Returns a session by id.
     *
     * @param id session id
     * @return the session, or empty
     */
    Optional<Session> session(String id);

    /**
     * Returns the number of sessions.
     *
     * @return sessions
     */
    int count();

    /**
     * Returns the number of sessions per DP instance.
     *
     * @return instance id to count (instances without sessions absent)
     */
    Map<Integer, Long> countsByInstance();

    /**
     * Returns the number of sessions per line group.
     *
     * @return group name to count (groups without sessions absent)
     */
    Map<String, Long> countsByGroup();
}
