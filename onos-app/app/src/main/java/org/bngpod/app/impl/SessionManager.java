package org.bngpod.app.impl;

import org.bngpod.api.Session;
import org.bngpod.api.SessionEvent;
import org.bngpod.api.SessionListener;
import org.bngpod.api.SessionReport;
import org.bngpod.api.SessionService;
import org.bngpod.api.Throughput;
import org.bngpod.app.config.BngPodConfig;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static org.onlab.util.Tools.groupedThreads;

/**
 * The session table: every session the control planes report, in a
 * distributed consistent map ({@value #SESSION_MAP}) keyed by session id.
 * Paged resyncs are staged in this node's memory until their last page
 * (bounded: {@link SessionService#MAX_STAGED} sessions, expiring after
 * {@link SessionService#STAGED_EXPIRY} without a page). A session stored
 * again with a newer usage reading gets its traffic rate since the one
 * before ({@link #measured}).
 */
@Component(immediate = true, service = SessionService.class)
public class SessionManager extends AbstractListenerManager<SessionEvent, SessionListener>
        implements SessionService {

    static final String SESSION_MAP = "bngpod-sessions";
    private static final long SWEEP_SECONDS = 10;

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    private ConsistentMap<String, Session> sessions;

    /** Unfinished paged resyncs on this node, by control plane (guarded by this). */
    private final Map<String, Staged> staged = new HashMap<>();
    private int stagedCount;
    private ScheduledExecutorService sweeper;
    private ScheduledFuture<?> sweep;
    /** The staging's clock and bounds (tests change them). */
    Clock clock = Clock.systemUTC();
    int maxResync = MAX_RESYNC;
    int maxStaged = MAX_STAGED;

    @Activate
    protected void activate() {
        ApplicationId appId = coreService.registerApplication(BngPodConfig.APP_NAME);
        sessions = StoreSerializers.consistentMap(storageService, SESSION_MAP, appId);
        eventDispatcher.addSink(SessionEvent.class, listenerRegistry);
        sweeper = Executors.newSingleThreadScheduledExecutor(groupedThreads("bngpod/sessions", "sweeper", log));
        sweep = sweeper.scheduleWithFixedDelay(this::expire, SWEEP_SECONDS, SWEEP_SECONDS, TimeUnit.SECONDS);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        eventDispatcher.removeSink(SessionEvent.class);
        sweep.cancel(false);
        sweeper.shutdownNow();
        synchronized (this) {
            staged.clear();
            stagedCount = 0;
        }
        log.info("Stopped");
    }

    @Override
    public void report(String cp, List<SessionReport> reports) {
        checkNotNull(cp, "cp is null");
        checkNotNull(reports, "reports is null");
        for (SessionReport r : reports) {
            checkArgument(r.session().cp().equals(cp), "session %s is %s's, not %s's", r.session().id(),
                          r.session().cp(), cp);
        }
        for (SessionReport r : reports) {
            Session s = r.session();
            switch (r.kind()) {
                case UP:
                case UPDATE:
                    Versioned<Session> had = sessions.get(s.id());
                    Session stored = measured(s, had == null ? null : had.value());
                    Versioned<Session> before = sessions.put(s.id(), stored);
                    post(new SessionEvent(before == null ? SessionEvent.Type.SESSION_UP
                                                  : SessionEvent.Type.SESSION_UPDATED, stored));
                    break;
                case DOWN:
                    if (sessions.remove(s.id()) != null) {
                        post(new SessionEvent(SessionEvent.Type.SESSION_DOWN, s));
                    }
                    break;
                default:
                    throw new IllegalArgumentException("unknown report kind " + r.kind());
            }
        }
    }

    @Override
    public void resync(String cp, List<Session> list) {
        checkNotNull(cp, "cp is null");
        checkNotNull(list, "sessions is null");
        Map<String, Session> next = new HashMap<>();
        for (Session s : list) {
            checkArgument(s.cp().equals(cp), "session %s is %s's, not %s's", s.id(), s.cp(), cp);
            checkArgument(next.put(s.id(), s) == null, "session id %s repeats", s.id());
        }
        synchronized (this) {
            discard(cp, "replaced by a one-request resync");
        }
        replace(cp, next);
    }

    @Override
    public boolean resyncPage(String cp, String resyncId, int page, boolean last, List<Session> list) {
        checkNotNull(cp, "cp is null");
        checkNotNull(resyncId, "resync id is null");
        checkNotNull(list, "sessions is null");
        checkArgument(page >= 0, "page: %s is negative", page);
        checkArgument(list.size() <= MAX_PAGE, "sessions: %s in one page, at most %s", list.size(), MAX_PAGE);
        for (Session s : list) {
            checkArgument(s.cp().equals(cp), "session %s is %s's, not %s's", s.id(), s.cp(), cp);
        }
        Staged done;
        synchronized (this) {
            expire();
            Staged had = staged.get(cp);
            Staged st;
            if (page == 0) {
                if (had != null && had.id.equals(resyncId)) {
                    throw new IllegalStateException(String.format(
                            Locale.ROOT, "resync %s of %s: page 0 again (expected page %d)", resyncId, cp, had.next));
                }
                st = new Staged(resyncId);
            } else if (had == null || !had.id.equals(resyncId)) {
                throw new IllegalStateException(String.format(
                        Locale.ROOT, "resync %s of %s: page %d of a resync not in progress on this node "
                                + "(never begun, replaced, expired or finished); start again at page 0",
                        resyncId, cp, page));
            } else if (page != had.next) {
                throw new IllegalStateException(String.format(
                        Locale.ROOT, "resync %s of %s: page %d out of order, expected page %d",
                        resyncId, cp, page, had.next));
            } else {
                st = had;
            }
            Set<String> ids = new HashSet<>();
            for (Session s : list) {
                checkArgument(ids.add(s.id()) && !st.sessions.containsKey(s.id()),
                              "session id %s repeats", s.id());
            }
            int total = st.sessions.size() + list.size();
            if (total > maxResync) {
                throw new IllegalArgumentException(String.format(
                        Locale.ROOT, "resync %s of %s: more than %,d sessions", resyncId, cp, maxResync));
            }
            int others = stagedCount - (had == null ? 0 : had.sessions.size());
            if (others + total > maxStaged) {
                throw new IllegalStateException(String.format(
                        Locale.ROOT, "resync %s of %s: this node already stages %,d sessions of other control "
                                + "planes (at most %,d in all); try again later", resyncId, cp, others, maxStaged));
            }
            // Accepted: a new resync id replaces the unfinished one.
            if (st != had) {
                discard(cp, "resync " + resyncId + " began");
            }
            list.forEach(s -> st.sessions.put(s.id(), s));
            stagedCount += list.size();
            st.next = page + 1;
            st.touched = clock.instant();
            if (!last) {
                staged.put(cp, st);
                return false;
            }
            staged.remove(cp);
            stagedCount -= st.sessions.size();
            done = st;
        }
        replace(cp, done.sessions);
        return true;
    }

    /**
     * Number of sessions staged on this node by unfinished paged resyncs.
     *
     * @return sessions staged
     */
    public synchronized int stagedSessions() {
        return stagedCount;
    }

    /** Discards every unfinished resync without a page for {@link #STAGED_EXPIRY}. */
    public synchronized void expire() {
        Instant oldest = clock.instant().minus(STAGED_EXPIRY);
        for (Map.Entry<String, Staged> e : List.copyOf(staged.entrySet())) {
            if (e.getValue().touched.isBefore(oldest)) {
                discard(e.getKey(), "no page for " + STAGED_EXPIRY.toSeconds() + " s");
            }
        }
    }

    /** Forgets cp's unfinished resync, if any (caller holds the lock). */
    private void discard(String cp, String why) {
        Staged st = staged.remove(cp);
        if (st != null) {
            stagedCount -= st.sessions.size();
            log.info("bngpod: unfinished resync {} of control plane {} discarded ({} sessions staged, {} pages): {}",
                     st.id, cp, st.sessions.size(), st.next, why);
        }
    }

    /**
     * Makes cp's sessions in the table exactly next: a diff written key by
     * key (sessions that did not change are not written). Not one
     * transaction: a million-session table would be one Raft entry far over
     * the store's limits; a reader may see the table half replaced while
     * this runs, never a partial resync.
     */
    private void replace(String cp, Map<String, Session> next) {
        int gone = 0;
        int written = 0;
        for (Session old : sessions.asJavaMap().values()) {
            if (old.cp().equals(cp) && !next.containsKey(old.id()) && sessions.remove(old.id(), old)) {
                gone++;
                post(new SessionEvent(SessionEvent.Type.SESSION_DOWN, old));
            }
        }
        for (Session reported : next.values()) {
            Versioned<Session> cur = sessions.get(reported.id());
            Session s = measured(reported, cur == null ? null : cur.value());
            if (cur != null && cur.value().equals(s)) {
                continue;
            }
            Versioned<Session> before = sessions.put(s.id(), s);
            written++;
            if (before == null) {
                post(new SessionEvent(SessionEvent.Type.SESSION_UP, s));
            } else if (!before.value().equals(s)) {
                post(new SessionEvent(SessionEvent.Type.SESSION_UPDATED, s));
            }
        }
        log.info("bngpod: control plane {} resynced {} sessions ({} written, {} gone)", cp, next.size(), written,
                 gone);
    }

    /**
     * Returns the session as it is stored: with the traffic rate between the
     * stored session's usage reading and the new one, or the stored rate
     * when the report brings the same reading again (a move, a resync), or
     * none when the two readings say nothing together (either untimed, not
     * later, a counter gone back).
     *
     * @param s      the session as reported
     * @param before the session stored so far, or null
     * @return the session to store
     */
    static Session measured(Session s, Session before) {
        Throughput rate = null;
        if (before != null) {
            rate = before.usage().at().isPresent() && before.usage().at().equals(s.usage().at())
                    ? before.throughput().orElse(null)
                    : Throughput.between(before.usage(), s.usage()).orElse(null);
        }
        return s.throughput().equals(Optional.ofNullable(rate)) ? s : s.toBuilder().throughput(rate).build();
    }

    /** An unfinished paged resync of one control plane. */
    private static final class Staged {
        final String id;
        final Map<String, Session> sessions = new HashMap<>();
        int next;
        Instant touched;

        Staged(String id) {
            this.id = id;
        }
    }

    @Override
    public Collection<Session> sessions() {
        return List.copyOf(sessions.asJavaMap().values());
    }

    @Override
    public Optional<Session> session(String id) {
        Versioned<Session> v = id == null ? null : sessions.get(id);
        return v == null ? Optional.empty() : Optional.of(v.value());
    }

    @Override
    public int count() {
        return sessions.size();
    }

    @Override
    public Map<Integer, Long> countsByInstance() {
        return countBy(Session::instance);
    }

    @Override
    public Map<String, Long> countsByGroup() {
        return countBy(Session::lineGroup);
    }

    private <K> Map<K, Long> countBy(Function<Session, K> key) {
        return sessions.asJavaMap().values().stream()
                .collect(Collectors.groupingBy(key, TreeMap::new, Collectors.counting()));
    }
}
