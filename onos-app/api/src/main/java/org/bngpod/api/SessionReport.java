package org.bngpod.api;

import com.google.common.base.MoreObjects;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One event a control plane reports about a session (POST /sessions/events).
 */
public final class SessionReport {

    /** What happened to the session. */
    public enum Kind {
        /** The session came up. */
        UP,
        /** New usage (interim accounting) or other values. */
        UPDATE,
        /** The session went down; the session carries the terminate cause. */
        DOWN
    }

    private final Kind kind;
    private final Session session;

    private SessionReport(Kind kind, Session session) {
        this.kind = checkNotNull(kind, "kind is null");
        this.session = checkNotNull(session, "session is null");
    }

    /**
     * Returns a report.
     *
     * @param kind    what happened
     * @param session the session as the control plane sees it now
     * @return the report
     */
    public static SessionReport of(Kind kind, Session session) {
        return new SessionReport(kind, session);
    }

    /**
     * Returns what happened.
     *
     * @return kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * Returns the session.
     *
     * @return session
     */
    public Session session() {
        return session;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof SessionReport)) {
            return false;
        }
        SessionReport that = (SessionReport) obj;
        return kind == that.kind && session.equals(that.session);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, session);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("kind", kind).add("session", session).toString();
    }
}
