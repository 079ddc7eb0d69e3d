package org.bngpod.api;

import org.onosproject.event.EventListener;

/**
 * Receives {@link PlacementEvent}s.
 */
public interface PlacementListener extends EventListener<PlacementEvent> {
}
