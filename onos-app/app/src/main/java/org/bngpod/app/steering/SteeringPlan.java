package org.bngpod.app.steering;

import com.google.common.collect.ImmutableSet;
import org.bngpod.api.AccessLine;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.SwitchPort;
import org.bngpod.api.VlanRange;
import org.bngpod.app.placement.Placement;
import org.onlab.packet.EthType;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.TrafficSelector;

import java.util.Optional;
import java.util.Set;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.bngpod.app.steering.Steer.Kind;
import static org.bngpod.app.steering.Steer.PRIORITY_ARP;
import static org.bngpod.app.steering.Steer.PRIORITY_STEER;

/**
 * The fold as steers: what the switch must do so that every line reaches the
 * instance its line group is placed on, and the core side reaches the
 * instances by MAC. docs/onos/steering.md has the table.
 *
 * <p>OpenFlow matches no ranges, so every S-tag of a line is its own steer,
 * and a line that holds only a C-tag range of its S-tags (an S-tag split
 * between groups) gets one steer per (S-tag, C-tag), matching the inner VLAN
 * exactly: ONOS has no masked VLAN criterion.</p>
 */
public final class SteeringPlan {

    private SteeringPlan() {
    }

    /**
     * Returns every steer the pod needs for a placement. A group the
     * placement leaves unplaced (or places on an instance the pod does not
     * have) gets none: its frames meet the drop.
     *
     * @param pod       the pod
     * @param placement where each line group is served
     * @return the steers, the drop included
     */
    public static Set<Steer> compute(Pod pod, Placement placement) {
        checkNotNull(pod, "pod");
        checkNotNull(placement, "placement");
        ImmutableSet.Builder<Steer> steers = ImmutableSet.builder();
        for (LineGroup group : pod.lineGroups()) {
            Optional<DpInstance> instance = placement.instanceOf(group.name()).flatMap(pod::instance);
            if (instance.isEmpty()) {
                continue;
            }
            PortNumber instancePort = instancePort(pod, instance.get());
            lineSteers(pod, group, instance.get().id(), instancePort, steers);
            coreSteers(pod, group, instance.get().id(), instancePort, steers);
        }
        steers.add(Steer.drop(DefaultTrafficSelector.emptySelector()));
        return steers.build();
    }

    /**
     * Returns the steering a pod needs for a placement, rendered for a
     * pipeline: {@link Pipeline#SINGLE_TABLE} gives {@link #compute(Pod, Placement)}'s
     * steers, {@link Pipeline#OFDPA} the objectives of {@link OfdpaSteering}.
     *
     * @param pod       the pod
     * @param placement where each line group is served
     * @param renderer  the device's renderer ({@link SteeringRenderer#forDriver})
     * @return the steering
     * @throws UnsupportedPodException if the pipeline cannot express the pod's fold
     *                                 (OF-DPA: S-tags split by C-tag, an S-tag on two access ports)
     */
    public static Steering compute(Pod pod, Placement placement, SteeringRenderer renderer) {
        return checkNotNull(renderer, "renderer").render(pod, placement);
    }

    /**
     * Returns the switch port an instance is reached through: its stated
     * switch port, else its server port's switch port.
     *
     * @param pod      the pod
     * @param instance an instance of the pod
     * @return port number
     */
    public static PortNumber instancePort(Pod pod, DpInstance instance) {
        return instance.switchPort().orElseGet(() -> pod.switchPortOf(instance).number());
    }

    private static void lineSteers(Pod pod, LineGroup group, int instance, PortNumber instancePort,
                                   ImmutableSet.Builder<Steer> steers) {
        for (AccessLine line : group.lines()) {
            PortNumber access = pod.port(line.port()).map(SwitchPort::number).orElseThrow();
            VlanRange stags = line.stag();
            for (int s = stags.min(); s <= stags.max(); s++) {
                VlanId stag = VlanId.vlanId((short) s);
                if (line.ctag().isEmpty()) {
                    steers.add(line(Kind.LINE_UP, group, instance, access, stag, null, instancePort));
                    steers.add(line(Kind.LINE_DOWN, group, instance, instancePort, stag, null, access));
                    continue;
                }
                VlanRange ctags = line.ctag().get();
                for (int c = ctags.min(); c <= ctags.max(); c++) {
                    VlanId ctag = VlanId.vlanId((short) c);
                    steers.add(line(Kind.LINE_UP, group, instance, access, stag, ctag, instancePort));
                    steers.add(line(Kind.LINE_DOWN, group, instance, instancePort, stag, ctag, access));
                }
            }
        }
    }

    private static Steer line(Kind kind, LineGroup group, int instance, PortNumber in,
                              VlanId stag, VlanId ctag, PortNumber out) {
        TrafficSelector.Builder match = DefaultTrafficSelector.builder().matchInPort(in).matchVlanId(stag);
        if (ctag != null) {
            match.matchInnerVlanId(ctag);
        }
        return Steer.forward(kind, instance, group.name(), PRIORITY_STEER, match.build(), out);
    }

    private static void coreSteers(Pod pod, LineGroup group, int instance, PortNumber instancePort,
                                   ImmutableSet.Builder<Steer> steers) {
        PortNumber uplink = pod.port(pod.core().uplink()).map(SwitchPort::number).orElseThrow();
        VlanId vlan = pod.core().vlan();
        MacAddress router = pod.core().routerMac();
        String name = group.name();

        steers.add(Steer.forward(Kind.CORE_DOWN, instance, name, PRIORITY_STEER,
                                 core(uplink, vlan).matchEthDst(group.coreMac()).build(), instancePort));
        steers.add(Steer.forward(Kind.CORE_UP, instance, name, PRIORITY_STEER,
                                 core(instancePort, vlan).matchEthSrc(group.coreMac()).matchEthDst(router).build(),
                                 uplink));
        IpAddress address = group.coreAddress();
        if (!address.isIp4()) {
            // ARP steers are IPv4 only; the core side of the pod is IPv4 (pod validator).
            return;
        }
        steers.add(Steer.forward(Kind.CORE_ARP_DOWN, instance, name, PRIORITY_ARP,
                                 core(uplink, vlan).matchEthType(EthType.EtherType.ARP.ethType().toShort())
                                         .matchArpTpa(address.getIp4Address()).build(),
                                 instancePort));
        steers.add(Steer.forward(Kind.CORE_ARP_UP, instance, name, PRIORITY_ARP,
                                 core(instancePort, vlan).matchEthSrc(group.coreMac())
                                         .matchEthDst(MacAddress.BROADCAST)
                                         .matchEthType(EthType.EtherType.ARP.ethType().toShort())
                                         .matchArpSpa(address.getIp4Address()).build(),
                                 uplink));
    }

    /** The core side's match: the port, and untagged (VLAN NONE) or the core VLAN. */
    private static TrafficSelector.Builder core(PortNumber in, VlanId vlan) {
        return DefaultTrafficSelector.builder().matchInPort(in).matchVlanId(vlan);
    }
}
