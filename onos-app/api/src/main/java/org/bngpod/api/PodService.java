package org.bngpod.api;

import org.onosproject.event.ListenerService;

import java.util.List;
import java.util.Optional;

/**
 * The pod the application controls, from ONOS's network configuration
 * (apps/org.bngpod.app/pod).
 */
public interface PodService extends ListenerService<PodEvent, PodListener> {

    /**
     * Returns the running pod.
     *
     * @return the pod, or empty while none is configured
     */
    Optional<Pod> pod();

    /**
     * Returns why the last configuration was rejected, if it was.
     *
     * @return the reader's message naming the field, or empty if the last configuration was accepted
     */
    Optional<String> lastRejection();

    /**
     * Returns the running pod's DP instances.
     *
     * @return instances, in configuration order; empty without a pod
     */
    List<DpInstance> instances();

    /**
     * Returns the running pod's line groups (with their access lines).
     *
     * @return line groups, in configuration order; empty without a pod
     */
    List<LineGroup> lineGroups();
}
