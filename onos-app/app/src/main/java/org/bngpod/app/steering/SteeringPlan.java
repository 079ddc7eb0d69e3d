package org.bngpod.app.steering;

import org.bngpod.api.Pod;
import org.bngpod.app.placement.Placement;

import java.util.HashSet;
import java.util.Set;

/**
 * Placeholder for the steering helper's SteeringPlan (Contract D); dropped at merge.
 */
public final class SteeringPlan {

    private SteeringPlan() {
    }

    /**
     * Every steer the pod needs for this placement (placeholder: one per placed group).
     *
     * @param pod       pod
     * @param placement placement
     * @return steers
     */
    public static Set<Steer> compute(Pod pod, Placement placement) {
        Set<Steer> steers = new HashSet<>();
        placement.instances().forEach((group, id) -> steers.add(new Steer(id, group)));
        return steers;
    }
}
