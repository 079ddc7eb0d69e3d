package org.bngpod.app.impl;

import org.onosproject.event.AbstractEvent;

/**
 * A change of {@link PlacementStore}, made on this node or another.
 */
public final class PlacementStoreEvent extends AbstractEvent<PlacementStoreEvent.Type, PlacementRecord> {

    /** What changed. */
    public enum Type {
        /**
         * A placement was stored: the subject is the new record,
         * {@link #previous()} the one it replaced.
         */
        PLACEMENT_UPDATED,
        /**
         * Declarations about an instance changed: {@link #instance()} names
         * it; there is no subject (null).
         */
        HEALTH_UPDATED
    }

    private final PlacementRecord previous;
    private final int instance;

    private PlacementStoreEvent(Type type, PlacementRecord subject, PlacementRecord previous, int instance) {
        super(type, subject);
        this.previous = previous;
        this.instance = instance;
    }

    /**
     * Returns the event of a stored placement.
     *
     * @param stored   the new record
     * @param previous the record it replaced, or null
     * @return the event
     */
    static PlacementStoreEvent placementUpdated(PlacementRecord stored, PlacementRecord previous) {
        return new PlacementStoreEvent(Type.PLACEMENT_UPDATED, stored, previous, 0);
    }

    /**
     * Returns the event of changed declarations.
     *
     * @param instance the instance they are about
     * @return the event
     */
    static PlacementStoreEvent healthUpdated(int instance) {
        return new PlacementStoreEvent(Type.HEALTH_UPDATED, null, null, instance);
    }

    /**
     * Returns the placement the stored one replaced.
     *
     * @return the record before; null for the first one, and for HEALTH_UPDATED
     */
    public PlacementRecord previous() {
        return previous;
    }

    /**
     * Returns the instance whose declarations changed.
     *
     * @return instance id; 0 for PLACEMENT_UPDATED
     */
    public int instance() {
        return instance;
    }
}
