package org.bngpod.app.steering;

import org.bngpod.api.Pod;
import org.bngpod.app.placement.Placement;

/**
 * The switch pipelines the fold is rendered for: which flow objectives the
 * device's ONOS pipeliner takes. Each is a {@link SteeringRenderer};
 * {@link SteeringRenderer#forDriver} says which one a switch gets.
 */
public enum Pipeline implements SteeringRenderer {
    /**
     * One table that takes any match and an output (ONOS's
     * {@code DefaultSingleTablePipeline}, Open vSwitch with the default
     * driver): one VERSATILE forwarding objective per steer.
     */
    SINGLE_TABLE {
        @Override
        public Steering render(Pod pod, Placement placement) {
            return Steering.singleTable(SteeringPlan.compute(pod, placement));
        }
    },
    /**
     * Broadcom OF-DPA (ONOS's {@code Ofdpa2Pipeline}/{@code Ofdpa3Pipeline}):
     * filtering objectives admit (port, VLAN) into the VLAN table, next
     * objectives make L2 interface and flood groups, forwarding objectives
     * fill the bridging table (SPECIFIC) and the ACL table (VERSATILE).
     */
    OFDPA {
        @Override
        public Steering render(Pod pod, Placement placement) {
            return Steering.ofdpa(OfdpaSteering.compute(pod, placement));
        }
    };

    @Override
    public Pipeline pipeline() {
        return this;
    }
}
