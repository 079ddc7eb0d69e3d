package org.bngpod.api;

import org.onosproject.event.AbstractEvent;

/**
 * A change of the pod the application controls (from the network configuration).
 */
public final class PodEvent extends AbstractEvent<PodEvent.Type, Pod> {

    /** What happened. */
    public enum Type {
        /** A pod was configured where there was none. */
        POD_ADDED,
        /** The pod's configuration changed. */
        POD_UPDATED,
        /** The pod's configuration was removed; the subject is the pod that was. */
        POD_REMOVED,
        /** A new configuration was rejected; the running pod (the subject, if any) is kept. */
        CONFIG_REJECTED
    }

    /**
     * Creates an event.
     *
     * @param type    what happened
     * @param subject the pod (for CONFIG_REJECTED the running pod, possibly null)
     */
    public PodEvent(Type type, Pod subject) {
        super(type, subject);
    }
}
