package org.bngpod.api;

import org.onosproject.event.EventListener;

/**
 * Receives {@link PodEvent}s.
 */
public interface PodListener extends EventListener<PodEvent> {
}
