package org.bngpod.app.steering;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedSet;
import org.onlab.packet.VlanId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flowobjective.DefaultNextObjective;
import org.onosproject.net.flowobjective.DefaultNextTreatment;
import org.onosproject.net.flowobjective.NextObjective;

import java.util.Comparator;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Where OF-DPA forwarding objectives send frames: a next objective, which
 * ONOS's OF-DPA pipeliners turn into an L2 interface group per (port, VLAN)
 * and, for a flood, an L2 flood group of the VLAN holding them.
 *
 * <p>A next is identified by its {@link #key()} (kind, VLAN, port); the
 * members of a flood may change under the same key (a line group moved:
 * its S-tags' floods swap the instance port), which the installer sends as
 * buckets removed from and added to the existing group, keeping the next id
 * and the bridging entries pointing at it.</p>
 */
public final class OfdpaNext {

    /** Orders ports by number. */
    private static final Comparator<PortNumber> BY_NUMBER = Comparator.comparingLong(PortNumber::toLong);

    /** The shape of the group chain. */
    public enum Kind {
        /** One port: a SIMPLE next objective, one L2 interface group. */
        PORT,
        /** Every member port of a VLAN: a BROADCAST next objective, an L2 flood group. */
        FLOOD
    }

    private final Kind kind;
    private final VlanId vlan;
    private final SortedSet<PortNumber> members;
    private final boolean untagged;

    private OfdpaNext(Kind kind, VlanId vlan, Set<PortNumber> members, boolean untagged) {
        this.kind = checkNotNull(kind, "kind");
        this.vlan = checkNotNull(vlan, "vlan");
        this.members = ImmutableSortedSet.copyOf(BY_NUMBER, checkNotNull(members, "members"));
        this.untagged = untagged;
        checkArgument(!this.members.isEmpty(), "a next sends somewhere");
        checkArgument(kind != Kind.PORT || this.members.size() == 1, "a port next has one port");
    }

    /**
     * Returns the next that sends to one port in a VLAN.
     *
     * @param vlan     the switch-internal VLAN
     * @param port     the port
     * @param untagged whether frames leave untagged (the L2 interface group pops the VLAN)
     * @return the next
     */
    static OfdpaNext port(VlanId vlan, PortNumber port, boolean untagged) {
        return new OfdpaNext(Kind.PORT, vlan, Set.of(port), untagged);
    }

    /**
     * Returns the flood of a VLAN over its member ports (OF-DPA does not send
     * a flooded frame back out of the port it came in on).
     *
     * @param vlan    the VLAN
     * @param members the member ports
     * @return the next
     */
    static OfdpaNext flood(VlanId vlan, Set<PortNumber> members) {
        return new OfdpaNext(Kind.FLOOD, vlan, members, false);
    }

    /**
     * Returns what the next is, independent of a flood's members: the
     * installer keeps one next id per key.
     *
     * @return key value
     */
    public Object key() {
        return kind == Kind.PORT ? ImmutableList.of(kind, vlan, members.first()) : ImmutableList.of(kind, vlan);
    }

    /**
     * Returns the kind.
     *
     * @return kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * Returns the VLAN whose groups these are.
     *
     * @return VLAN id
     */
    public VlanId vlan() {
        return vlan;
    }

    /**
     * Returns the ports frames leave on.
     *
     * @return ports, by number
     */
    public SortedSet<PortNumber> members() {
        return members;
    }

    /**
     * Returns whether frames leave untagged.
     *
     * @return true when the L2 interface groups pop the VLAN
     */
    public boolean untagged() {
        return untagged;
    }

    /**
     * Returns the next objective for some of the members (all of them for an
     * add or remove, the changed ones for adding to or removing from an
     * existing flood): SIMPLE or BROADCAST, one treatment (pop VLAN if
     * untagged, output) per port, the VLAN as meta (the L2 interface
     * groups' VLAN).
     *
     * @param appId the application
     * @param id    the next id
     * @param ports the members to put in the objective
     * @return objective builder
     */
    public NextObjective.Builder objective(ApplicationId appId, int id, Set<PortNumber> ports) {
        checkArgument(members.containsAll(ports), "ports %s are not members of %s", ports, this);
        NextObjective.Builder builder = DefaultNextObjective.builder()
                .withId(id)
                .withType(kind == Kind.PORT ? NextObjective.Type.SIMPLE : NextObjective.Type.BROADCAST)
                .withMeta(DefaultTrafficSelector.builder().matchVlanId(vlan).build())
                .fromApp(checkNotNull(appId, "appId"));
        for (PortNumber port : ImmutableSortedSet.copyOf(BY_NUMBER, ports)) {
            builder.addTreatment(DefaultNextTreatment.of(treatment(port)));
        }
        return builder;
    }

    private TrafficTreatment treatment(PortNumber port) {
        TrafficTreatment.Builder treatment = DefaultTrafficTreatment.builder();
        if (untagged) {
            treatment.popVlan();
        }
        return treatment.setOutput(port).build();
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof OfdpaNext)) {
            return false;
        }
        OfdpaNext that = (OfdpaNext) obj;
        return kind == that.kind && untagged == that.untagged && vlan.equals(that.vlan)
                && members.equals(that.members);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, vlan, members, untagged);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("kind", kind).add("vlan", vlan)
                .add("members", members).add("untagged", untagged).toString();
    }
}
