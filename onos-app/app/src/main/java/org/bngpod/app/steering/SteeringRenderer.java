package org.bngpod.app.steering;

import com.google.common.collect.Lists;
import org.bngpod.api.Pod;
import org.bngpod.app.placement.Placement;
import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.driver.Behaviour;
import org.onosproject.net.driver.Driver;

/**
 * Renders the fold as the flow objectives one switch's pipeliner takes.
 *
 * <p>Which renderer a switch gets is decided here alone, from the pipeliner
 * its ONOS driver declares (the behaviour that consumes the objectives), not
 * from the driver's name: docs/onos/steering.md says why this is not a driver
 * behaviour of the application's own.</p>
 */
public interface SteeringRenderer {

    /** ONOS's OF-DPA 2.0 pipeliner, which the OF-DPA 3 and vendor variants extend. */
    String OFDPA_PIPELINER = "org.onosproject.driver.pipeline.ofdpa.Ofdpa2Pipeline";

    /**
     * Returns the pipeline this renderer renders for.
     *
     * @return pipeline
     */
    Pipeline pipeline();

    /**
     * Returns the steering the pod needs for a placement.
     *
     * @param pod       the pod
     * @param placement where each line group is served
     * @return the steering
     * @throws UnsupportedPodException if the pipeline cannot express the pod's fold
     */
    Steering render(Pod pod, Placement placement);

    /**
     * Returns the renderer for a switch's driver: {@link Pipeline#OFDPA} when
     * the driver's pipeliner is ONOS's {@code Ofdpa2Pipeline} or extends it
     * (the ofdpa, ofdpa3, qmx-ofdpa3, ofdpa-ovs, ... drivers), else
     * {@link Pipeline#SINGLE_TABLE} (the default driver's
     * {@code DefaultSingleTablePipeline}, and a driver ONOS does not know).
     *
     * @param driver the switch's driver; null when unknown
     * @return the renderer
     */
    static SteeringRenderer forDriver(Driver driver) {
        // by name: the drivers' classes belong to ONOS's drivers bundle, which the app does not import
        for (Class<?> c = pipeliner(driver); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(OFDPA_PIPELINER)) {
                return Pipeline.OFDPA;
            }
        }
        return Pipeline.SINGLE_TABLE;
    }

    /**
     * Returns the pipeliner class ONOS instantiates for a driver: its own, else
     * the first its parents give, the last-named parent first (as
     * {@code DefaultDriver.createBehaviour} looks; {@code implementation}
     * alone sees only the driver's own behaviours).
     *
     * @param driver a driver; null when unknown
     * @return the pipeliner class, or null if the driver has none
     */
    static Class<? extends Behaviour> pipeliner(Driver driver) {
        if (driver == null) {
            return null;
        }
        Class<? extends Behaviour> own = driver.implementation(Pipeliner.class);
        if (own != null || driver.parents() == null) {
            return own;
        }
        for (Driver parent : Lists.reverse(driver.parents())) {
            Class<? extends Behaviour> inherited = pipeliner(parent);
            if (inherited != null) {
                return inherited;
            }
        }
        return null;
    }
}
