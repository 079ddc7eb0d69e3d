package org.bngpod.api;

import org.onosproject.event.AbstractEvent;

/**
 * A session reported by a control plane.
 */
public final class SessionEvent extends AbstractEvent<SessionEvent.Type, Session> {

    /** What happened. */
    public enum Type {
        /** A session came up (or was first seen in a resync). */
        SESSION_UP,
        /** A session's usage or values changed. */
        SESSION_UPDATED,
        /** A session went down (or was missing from its control plane's resync). */
        SESSION_DOWN
    }

    /**
     * Creates an event.
     *
     * @param type    what happened
     * @param subject the session
     */
    public SessionEvent(Type type, Session subject) {
        super(type, subject);
    }
}
