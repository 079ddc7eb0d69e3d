package org.bngpod.app.steering;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableSet;
import org.bngpod.api.AccessLine;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.SwitchPort;
import org.bngpod.api.VlanRange;
import org.bngpod.app.placement.Placement;
import org.onlab.packet.EthType;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.TrafficSelector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The fold as OF-DPA takes it (docs/onos/steering.md, "OF-DPA"): every line
 * S-tag is a VLAN bridged between its access port and its instance's port
 * (a VLAN-only bridging entry to the S-tag's flood group), the core side is
 * one VLAN bridged by destination MAC (each group's core MAC to its
 * instance's port, the router's MAC to the uplink), and the instances' ARP
 * requests reach the uplink through ACL entries matching their core MAC.
 *
 * <p>What OF-DPA's bridging cannot express is refused
 * ({@link UnsupportedPodException}): S-tags split by C-tag between groups,
 * an S-tag on two access ports, a tagged core VLAN that is also an S-tag,
 * a line group's core IPv6 address (its Neighbor Solicitations cannot be
 * steered by target).</p>
 */
public final class OfdpaSteering {

    private final VlanId coreVlan;
    private final Set<OfdpaFilter> filters;
    private final Set<OfdpaNext> nexts;
    private final Set<OfdpaForward> forwards;

    private OfdpaSteering(VlanId coreVlan, Set<OfdpaFilter> filters, Set<OfdpaNext> nexts,
                          Set<OfdpaForward> forwards) {
        this.coreVlan = checkNotNull(coreVlan, "coreVlan");
        this.filters = ImmutableSet.copyOf(filters);
        this.nexts = ImmutableSet.copyOf(nexts);
        this.forwards = ImmutableSet.copyOf(forwards);
    }

    /** Nothing installed. */
    static final OfdpaSteering EMPTY = new OfdpaSteering(VlanId.vlanId((short) VlanRange.MAX_VLAN),
                                                         Set.of(), Set.of(), Set.of());

    /**
     * Returns the VLAN the core side is bridged in inside the switch: the
     * pod's core VLAN, or for an untagged core the highest VLAN id no line
     * of the pod uses (the one the systemd-networkd rendering uses too).
     *
     * @return VLAN id
     */
    public VlanId coreVlan() {
        return coreVlan;
    }

    /**
     * Returns the (port, VLAN) pairs the VLAN table admits.
     *
     * @return filters
     */
    public Set<OfdpaFilter> filters() {
        return filters;
    }

    /**
     * Returns the groups the forwarding objectives send to.
     *
     * @return nexts, one per key
     */
    public Set<OfdpaNext> nexts() {
        return nexts;
    }

    /**
     * Returns the bridging and ACL entries.
     *
     * @return forwards
     */
    public Set<OfdpaForward> forwards() {
        return forwards;
    }

    /**
     * Returns the OF-DPA steering a pod needs for a placement; groups left
     * unplaced get none (the VLAN table drops their frames).
     *
     * @param pod       the pod
     * @param placement where each line group is served
     * @return the steering
     * @throws UnsupportedPodException if the pod needs what OF-DPA cannot bridge
     */
    static OfdpaSteering compute(Pod pod, Placement placement) {
        checkNotNull(pod, "pod");
        checkNotNull(placement, "placement");
        refuseUnsupported(pod);
        boolean untaggedCore = pod.core().vlan().equals(VlanId.NONE);
        VlanId core = coreVlan(pod);
        PortNumber uplink = portNumber(pod, pod.core().uplink());
        OfdpaNext toUplink = OfdpaNext.port(core, uplink, untaggedCore);

        Set<OfdpaFilter> filters = new HashSet<>();
        Set<OfdpaForward> forwards = new HashSet<>();
        boolean anyPlaced = false;
        for (LineGroup group : pod.lineGroups()) {
            Optional<DpInstance> instance = placement.instanceOf(group.name()).flatMap(pod::instance);
            if (instance.isEmpty()) {
                continue;
            }
            anyPlaced = true;
            int id = instance.get().id();
            PortNumber instancePort = SteeringPlan.instancePort(pod, instance.get());
            for (AccessLine line : group.lines()) {
                PortNumber access = portNumber(pod, line.port());
                for (int s = line.stag().min(); s <= line.stag().max(); s++) {
                    VlanId stag = VlanId.vlanId((short) s);
                    filters.add(OfdpaFilter.tagged(access, stag));
                    filters.add(OfdpaFilter.tagged(instancePort, stag));
                    forwards.add(new OfdpaForward(
                            OfdpaForward.Kind.LINE_FLOOD, id, group.name(), Steer.PRIORITY_STEER,
                            DefaultTrafficSelector.builder().matchVlanId(stag).matchEthDst(MacAddress.NONE).build(),
                            OfdpaNext.flood(stag, Set.of(access, instancePort))));
                }
            }
            filters.add(coreFilter(uplink, core, untaggedCore));
            filters.add(coreFilter(instancePort, core, untaggedCore));
            forwards.add(new OfdpaForward(
                    OfdpaForward.Kind.CORE_DOWN, id, group.name(), Steer.PRIORITY_STEER,
                    DefaultTrafficSelector.builder().matchVlanId(core).matchEthDst(group.coreMac()).build(),
                    OfdpaNext.port(core, instancePort, untaggedCore)));
            TrafficSelector arpUp = DefaultTrafficSelector.builder()
                    .matchInPort(instancePort)
                    .matchVlanId(core)
                    .matchEthType(EthType.EtherType.ARP.ethType().toShort())
                    .matchEthSrc(group.coreMac())
                    .matchEthDst(MacAddress.BROADCAST)
                    .build();
            forwards.add(new OfdpaForward(OfdpaForward.Kind.CORE_ARP_UP, id, group.name(), Steer.PRIORITY_ARP,
                                          arpUp, toUplink));
        }
        if (anyPlaced) {
            forwards.add(new OfdpaForward(
                    OfdpaForward.Kind.CORE_UP, Steer.SHARED, "", Steer.PRIORITY_STEER,
                    DefaultTrafficSelector.builder().matchVlanId(core).matchEthDst(pod.core().routerMac()).build(),
                    toUplink));
        }
        Set<OfdpaNext> nexts = new HashSet<>();
        forwards.forEach(f -> nexts.add(f.next()));
        return new OfdpaSteering(core, filters, nexts, forwards);
    }

    private static OfdpaFilter coreFilter(PortNumber port, VlanId core, boolean untagged) {
        return untagged ? OfdpaFilter.untagged(port, core) : OfdpaFilter.tagged(port, core);
    }

    private static PortNumber portNumber(Pod pod, String name) {
        return pod.port(name).map(SwitchPort::number).orElseThrow(
                () -> new IllegalArgumentException("pod " + pod.name() + " has no switch port " + name));
    }

    /**
     * Returns the VLAN the core side is bridged in: the core VLAN when
     * tagged, else the highest VLAN id no line of the pod uses, whatever the
     * placement (so that it never moves).
     */
    static VlanId coreVlan(Pod pod) {
        if (!pod.core().vlan().equals(VlanId.NONE)) {
            return pod.core().vlan();
        }
        for (int vid = VlanRange.MAX_VLAN; vid >= VlanRange.MIN_VLAN; vid--) {
            int candidate = vid;
            boolean used = pod.lineGroups().stream().flatMap(g -> g.lines().stream())
                    .anyMatch(line -> line.stag().contains(candidate));
            if (!used) {
                return VlanId.vlanId((short) vid);
            }
        }
        throw new UnsupportedPodException("OF-DPA cannot render pod " + pod.name()
                + ": its lines use every VLAN id, none is left for the untagged core side",
                List.of("no free VLAN id for the untagged core side"));
    }

    /**
     * Throws if the pod needs what OF-DPA's bridging cannot express, naming
     * every fault.
     *
     * @param pod the pod
     * @throws UnsupportedPodException naming the lines at fault
     */
    static void refuseUnsupported(Pod pod) {
        List<String> problems = new ArrayList<>();
        Map<Integer, String> stagOwner = new HashMap<>();
        Map<String, String> conflicts = new LinkedHashMap<>();
        for (LineGroup group : pod.lineGroups()) {
            for (AccessLine line : group.lines()) {
                if (line.ctag().isPresent()) {
                    problems.add(String.format(
                            "line group %s: line %s S-tag %s C-tag %s splits S-tags by C-tag (OF-DPA bridges on "
                                    + "one VLAN id; ONOS's OF-DPA 3 double-tag filter pops the S-tag into the "
                                    + "routing (TMAC) path and does not bridge an (S, C) pair)",
                            group.name(), line.port(), line.stag(), line.ctag().get()));
                }
                for (int s = line.stag().min(); s <= line.stag().max(); s++) {
                    String owner = line.port() + " (" + group.name() + ")";
                    String before = stagOwner.putIfAbsent(s, owner);
                    if (before != null && !before.startsWith(line.port() + " ")) {
                        conflicts.putIfAbsent(line.port() + "/" + before, String.format(
                                "S-tag %d on %s and %s: one OF-DPA VLAN floods over both access ports",
                                s, before, owner));
                    }
                    if (!pod.core().vlan().equals(VlanId.NONE) && pod.core().vlan().toShort() == s) {
                        problems.add(String.format("line group %s: S-tag %d is also the core VLAN", group.name(), s));
                    }
                }
            }
        }
        problems.addAll(conflicts.values());
        for (LineGroup group : pod.lineGroups()) {
            group.coreAddress6().ifPresent(a -> problems.add(String.format(
                    "line group %s: core IPv6 address %s cannot be steered (the router's Neighbor Solicitation "
                            + "for it goes to a multicast MAC; OF-DPA's ACL table matches no IPv6 ND target, "
                            + "which ONOS's OF-DPA pipeliners pass to it unchecked)", group.name(), a)));
        }
        if (!problems.isEmpty()) {
            throw new UnsupportedPodException(
                    "OF-DPA cannot render pod " + pod.name() + ": " + String.join("; ", problems)
                            + ". Serve whole S-tags per line group and give line groups no core IPv6 address "
                            + "on OF-DPA switches, or use a single-table (OVS) switch; docs/onos/steering.md, "
                            + "OF-DPA limits.", problems);
        }
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof OfdpaSteering)) {
            return false;
        }
        OfdpaSteering that = (OfdpaSteering) obj;
        return coreVlan.equals(that.coreVlan) && filters.equals(that.filters) && nexts.equals(that.nexts)
                && forwards.equals(that.forwards);
    }

    @Override
    public int hashCode() {
        return Objects.hash(coreVlan, filters, nexts, forwards);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("coreVlan", coreVlan).add("filters", filters.size())
                .add("nexts", nexts.size()).add("forwards", forwards.size()).toString();
    }
}
