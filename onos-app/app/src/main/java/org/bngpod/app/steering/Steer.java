package org.bngpod.app.steering;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.flowobjective.DefaultForwardingObjective;
import org.onosproject.net.flowobjective.ForwardingObjective;

import java.util.Objects;

/**
 * Placeholder for the steering helper's Steer (Contract D); dropped at merge.
 */
public final class Steer {

    private final int instance;
    private final String lineGroup;

    /**
     * Placeholder constructor.
     *
     * @param instance  instance id
     * @param lineGroup line group name
     */
    public Steer(int instance, String lineGroup) {
        this.instance = instance;
        this.lineGroup = lineGroup;
    }

    /**
     * Returns the instance id.
     *
     * @return instance id
     */
    public int instance() {
        return instance;
    }

    /**
     * Returns the line group.
     *
     * @return line group name
     */
    public String lineGroup() {
        return lineGroup;
    }

    /**
     * Returns the objective.
     *
     * @param appId application id
     * @return objective builder
     */
    public ForwardingObjective.Builder objective(ApplicationId appId) {
        return DefaultForwardingObjective.builder().fromApp(appId);
    }

    @Override
    public boolean equals(Object obj) {
        if (!(obj instanceof Steer)) {
            return false;
        }
        Steer that = (Steer) obj;
        return instance == that.instance && lineGroup.equals(that.lineGroup);
    }

    @Override
    public int hashCode() {
        return Objects.hash(instance, lineGroup);
    }
}
