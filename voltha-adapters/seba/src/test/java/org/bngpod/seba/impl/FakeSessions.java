package org.bngpod.seba.impl;

import org.bngpod.api.Session;
import org.bngpod.api.SessionEvent;
import org.bngpod.api.SessionListener;
import org.bngpod.api.SessionReport;
import org.bngpod.api.SessionService;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * bngpod's session table as the SEBA adapter reads it: sessions by id, and
 * SessionEvents posted to the listeners on the caller's thread, as ONOS's
 * dispatcher delivers them one at a time.
 */
final class FakeSessions implements SessionService {

    final Map<String, Session> sessions = new ConcurrentHashMap<>();
    final List<SessionListener> listeners = new CopyOnWriteArrayList<>();

    void post(SessionEvent.Type type, Session s) {
        if (type == SessionEvent.Type.SESSION_DOWN) {
            sessions.remove(s.id());
        } else {
            sessions.put(s.id(), s);
        }
        SessionEvent e = new SessionEvent(type, s);
        listeners.forEach(l -> l.event(e));
    }

    @Override
    public void addListener(SessionListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(SessionListener listener) {
        listeners.remove(listener);
    }

    @Override
    public void report(String cp, List<SessionReport> reports) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void resync(String cp, List<Session> sessions) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean resyncPage(String cp, String resyncId, int page, boolean last, List<Session> sessions) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Collection<Session> sessions() {
        return List.copyOf(sessions.values());
    }

    @Override
    public Optional<Session> session(String id) {
        return Optional.ofNullable(sessions.get(id));
    }

    @Override
    public int count() {
        return sessions.size();
    }

    @Override
    public Map<Integer, Long> countsByInstance() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Map<String, Long> countsByGroup() {
        throw new UnsupportedOperationException();
    }
}
