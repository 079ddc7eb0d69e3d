package org.bngpod.api;

import org.onosproject.event.AbstractEvent;

/**
 * A change of the placement of line groups on DP instances.
 */
public final class PlacementEvent extends AbstractEvent<PlacementEvent.Type, PlacementState> {

    /** What happened. */
    public enum Type {
        /** Line groups moved, appeared or disappeared. */
        PLACEMENT_CHANGED,
        /** An instance was declared dead. */
        INSTANCE_DOWN,
        /** An instance is available again (nothing moves back). */
        INSTANCE_UP
    }

    /**
     * Creates an event.
     *
     * @param type    what happened
     * @param subject the placement after the change
     */
    public PlacementEvent(Type type, PlacementState subject) {
        super(type, subject);
    }
}
