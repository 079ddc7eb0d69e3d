package org.bngpod.api;

import org.onosproject.event.EventListener;

/**
 * Receives {@link SessionEvent}s.
 */
public interface SessionListener extends EventListener<SessionEvent> {
}
