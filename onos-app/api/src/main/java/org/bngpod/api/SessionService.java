package org.bngpod.api;

import org.onosproject.event.ListenerService;

import java.time.Duration;
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

    /** Most sessions in one page of a paged resync (and in a one-request resync). */
    int MAX_PAGE = 10_000;
    /** Most sessions one paged resync may stage (a CP with 16 full DP instances). */
    int MAX_RESYNC = 1_048_576;
    /** Most sessions staged on one node for all control planes together. */
    int MAX_STAGED = 1_048_576;
    /** An unfinished paged resync without a page for this long is discarded. */
    Duration STAGED_EXPIRY = Duration.ofSeconds(60);

    /**
     * One page of a paged full resync. Pages are staged on this node per
     * control plane and resync id; nothing in the session table changes
     * until the last page arrives, which replaces every session the control
     * plane reported before by the union of the pages. Page 0 of a new
     * resync id discards the control plane's unfinished one.
     *
     * @param cp       control plane name
     * @param resyncId the resync's id, chosen by the control plane
     * @param page     page number, 0, 1, ... in order
     * @param last     whether this is the last page
     * @param sessions this page's sessions (at most {@link #MAX_PAGE}); each session's cp must be cp
     * @return true if this page completed the resync (the table was replaced), false if it was staged
     * @throws IllegalArgumentException if a session names another control plane, an id repeats in
     *                                  the resync, or the page or the resync holds too many sessions
     * @throws IllegalStateException    if the page is not the one expected next (no such resync in
     *                                  progress, out of order, repeated), or staging is full
     */
    boolean resyncPage(String cp, String resyncId, int page, boolean last, List<Session> sessions);

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
