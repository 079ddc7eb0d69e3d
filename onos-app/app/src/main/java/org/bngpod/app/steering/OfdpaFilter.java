package org.bngpod.app.steering;

import com.google.common.base.MoreObjects;
import org.onlab.packet.VlanId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.criteria.Criteria;
import org.onosproject.net.flowobjective.DefaultFilteringObjective;
import org.onosproject.net.flowobjective.FilteringObjective;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One (port, VLAN) the OF-DPA VLAN table admits: a PERMIT filtering
 * objective. Frames of a VLAN no filter admits on their port are dropped by
 * the VLAN table. Untagged frames ({@link VlanId#NONE}) are assigned a
 * switch-internal VLAN, as ONOS does for untagged ports.
 */
public final class OfdpaFilter {

    private final PortNumber port;
    private final VlanId vlan;
    private final VlanId assigned;

    private OfdpaFilter(PortNumber port, VlanId vlan, VlanId assigned) {
        this.port = checkNotNull(port, "port");
        this.vlan = checkNotNull(vlan, "vlan");
        this.assigned = checkNotNull(assigned, "assigned vlan");
        checkArgument(!assigned.equals(VlanId.NONE) && !assigned.equals(VlanId.ANY),
                      "assigned vlan %s", assigned);
        checkArgument(vlan.equals(VlanId.NONE) || vlan.equals(assigned),
                      "a tagged VLAN %s is admitted as itself, not %s", vlan, assigned);
    }

    /**
     * Returns the filter admitting a tagged VLAN on a port.
     *
     * @param port the switch port
     * @param vlan the VLAN id (outer tag)
     * @return the filter
     */
    static OfdpaFilter tagged(PortNumber port, VlanId vlan) {
        return new OfdpaFilter(port, vlan, vlan);
    }

    /**
     * Returns the filter admitting untagged frames on a port into an internal VLAN.
     *
     * @param port     the switch port
     * @param internal the VLAN untagged frames are assigned
     * @return the filter
     */
    static OfdpaFilter untagged(PortNumber port, VlanId internal) {
        return new OfdpaFilter(port, VlanId.NONE, internal);
    }

    /**
     * Returns the port.
     *
     * @return port number
     */
    public PortNumber port() {
        return port;
    }

    /**
     * Returns the VLAN admitted: the frame's outer VLAN id, or
     * {@link VlanId#NONE} for untagged frames.
     *
     * @return VLAN id
     */
    public VlanId vlan() {
        return vlan;
    }

    /**
     * Returns the VLAN the frames carry inside the switch (the bridging and
     * ACL tables see this one).
     *
     * @return VLAN id
     */
    public VlanId assigned() {
        return assigned;
    }

    /**
     * Returns the filtering objective, ready for a context: PERMIT, keyed by
     * the port, conditioned on the VLAN; for untagged frames the internal
     * VLAN is in the meta treatment (how ONOS's OF-DPA pipeliners learn it).
     *
     * @param appId the application
     * @return objective builder
     */
    public FilteringObjective.Builder objective(ApplicationId appId) {
        FilteringObjective.Builder builder = DefaultFilteringObjective.builder()
                .withKey(Criteria.matchInPort(port))
                .addCondition(Criteria.matchVlanId(vlan))
                .permit()
                .withPriority(Steer.PRIORITY_STEER)
                .makePermanent()
                .fromApp(checkNotNull(appId, "appId"));
        if (vlan.equals(VlanId.NONE)) {
            builder.withMeta(DefaultTrafficTreatment.builder().setVlanId(assigned).build());
        }
        return builder;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof OfdpaFilter)) {
            return false;
        }
        OfdpaFilter that = (OfdpaFilter) obj;
        return port.equals(that.port) && vlan.equals(that.vlan) && assigned.equals(that.assigned);
    }

    @Override
    public int hashCode() {
        return Objects.hash(port, vlan, assigned);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("port", port).add("vlan", vlan).add("assigned", assigned).toString();
    }
}
