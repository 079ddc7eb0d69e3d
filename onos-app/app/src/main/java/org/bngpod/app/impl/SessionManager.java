package org.bngpod.app.impl;

import org.bngpod.api.Session;
import org.bngpod.api.SessionEvent;
import org.bngpod.api.SessionListener;
import org.bngpod.api.SessionReport;
import org.bngpod.api.SessionService;
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

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The session table: every session the control planes report, in a
 * distributed consistent map ({@value #SESSION_MAP}) keyed by session id.
 */
@Component(immediate = true, service = SessionService.class)
public class SessionManager extends AbstractListenerManager<SessionEvent, SessionListener>
        implements SessionService {

    static final String SESSION_MAP = "bngpod-sessions";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    private ConsistentMap<String, Session> sessions;

    @Activate
    protected void activate() {
        ApplicationId appId = coreService.registerApplication(BngPodConfig.APP_NAME);
        sessions = storageService.<String, Session>consistentMapBuilder()
                .withName(SESSION_MAP).withSerializer(StoreSerializers.SERIALIZER)
                .withApplicationId(appId).build();
        eventDispatcher.addSink(SessionEvent.class, listenerRegistry);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        eventDispatcher.removeSink(SessionEvent.class);
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
                    Versioned<Session> before = sessions.put(s.id(), s);
                    post(new SessionEvent(before == null ? SessionEvent.Type.SESSION_UP
                                                  : SessionEvent.Type.SESSION_UPDATED, s));
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
        Set<String> ids = new HashSet<>();
        for (Session s : list) {
            checkArgument(s.cp().equals(cp), "session %s is %s's, not %s's", s.id(), s.cp(), cp);
            checkArgument(ids.add(s.id()), "session id %s repeats", s.id());
        }
        int gone = 0;
        for (Session old : sessions.asJavaMap().values()) {
            if (old.cp().equals(cp) && !ids.contains(old.id()) && sessions.remove(old.id(), old)) {
                gone++;
                post(new SessionEvent(SessionEvent.Type.SESSION_DOWN, old));
            }
        }
        for (Session s : list) {
            Versioned<Session> before = sessions.put(s.id(), s);
            if (before == null) {
                post(new SessionEvent(SessionEvent.Type.SESSION_UP, s));
            } else if (!before.value().equals(s)) {
                post(new SessionEvent(SessionEvent.Type.SESSION_UPDATED, s));
            }
        }
        log.info("bngpod: control plane {} resynced {} sessions ({} gone)", cp, list.size(), gone);
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
