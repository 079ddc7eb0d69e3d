package org.bngpod.app.steering;

import com.google.common.collect.ImmutableSet;
import org.bngpod.api.AccessLine;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.SwitchPort;
import org.bngpod.app.placement.Placement;
import org.onlab.packet.EthType;
import org.onlab.packet.ICMP6;
import org.onlab.packet.IPv6;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.TrafficSelector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.bngpod.app.steering.Steer.Kind;
import static org.bngpod.app.steering.Steer.PRIORITY_ARP;
import static org.bngpod.app.steering.Steer.PRIORITY_STEER;

/**
 * The fold as steers: what the switch must do so that every line reaches the
 * instance its line group is placed on, and the core side reaches the
 * instances by MAC. docs/onos/steering.md has the table.
 *
 * <p>OpenFlow matches no ranges, so every S-tag of a line is its own steer.
 * The steers match the outer VLAN only: ONOS 2.5.6's OpenFlow 1.3 provider
 * does not encode an inner-VLAN criterion (it would send the rule without
 * it, docs/onos/steering.md), so an S-tag that line groups split by C-tag is
 * steered whole, to the one instance that serves all of them (the placement
 * keeps them together). An S-tag whose groups are placed on different
 * instances cannot be steered on such a switch: {@link UnsupportedPodException}.</p>
 */
public final class SteeringPlan {

    private static final byte ICMP6_NEIGHBOR_SOLICITATION = ICMP6.NEIGHBOR_SOLICITATION;
    private static final byte ICMP6_NEIGHBOR_ADVERTISEMENT = ICMP6.NEIGHBOR_ADVERTISEMENT;
    /** IPv6 multicast maps to 33:33:xx:xx:xx:xx (RFC 2464). */
    private static final MacAddress IPV6_MULTICAST_MAC = MacAddress.valueOf("33:33:00:00:00:00");
    private static final MacAddress IPV6_MULTICAST_MASK = MacAddress.valueOf("ff:ff:00:00:00:00");

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
        lineSteers(pod, placement, steers);
        for (LineGroup group : pod.lineGroups()) {
            Optional<DpInstance> instance = placement.instanceOf(group.name()).flatMap(pod::instance);
            if (instance.isEmpty()) {
                continue;
            }
            coreSteers(pod, group, instance.get().id(), instancePort(pod, instance.get()), steers);
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

    /**
     * One steer each way per (access port, S-tag) of a placed group's line:
     * the S-tag whole, to the instance serving every placed group that holds
     * part of it. Steers of a shared S-tag belong to those groups together
     * (their names joined by "+").
     *
     * @throws UnsupportedPodException if groups sharing an S-tag are placed on different instances
     */
    private static void lineSteers(Pod pod, Placement placement, ImmutableSet.Builder<Steer> steers) {
        // (access port, S-tag) -> the groups holding part of it, in pod order
        Map<List<Object>, Set<LineGroup>> holders = new LinkedHashMap<>();
        for (LineGroup group : pod.lineGroups()) {
            for (AccessLine line : group.lines()) {
                for (int s = line.stag().min(); s <= line.stag().max(); s++) {
                    holders.computeIfAbsent(List.of(line.port(), s), k -> new LinkedHashSet<>()).add(group);
                }
            }
        }
        List<String> split = new ArrayList<>();
        for (Map.Entry<List<Object>, Set<LineGroup>> e : holders.entrySet()) {
            String port = (String) e.getKey().get(0);
            int s = (Integer) e.getKey().get(1);
            Map<DpInstance, List<String>> served = new LinkedHashMap<>();
            for (LineGroup group : e.getValue()) {
                placement.instanceOf(group.name()).flatMap(pod::instance)
                        .ifPresent(i -> served.computeIfAbsent(i, k -> new ArrayList<>()).add(group.name()));
            }
            if (served.size() > 1) {
                split.add(String.format(Locale.ROOT, "S-tag %d on %s is split by C-tag between %s", s, port,
                                        served.entrySet().stream().map(x -> String.join(", ", x.getValue())
                                                + " on " + x.getKey().name() + " (id " + x.getKey().id() + ")")
                                                .collect(Collectors.joining(" and "))));
                continue;
            }
            if (served.isEmpty()) {
                continue;
            }
            DpInstance instance = served.keySet().iterator().next();
            String owners = String.join("+", served.get(instance));
            PortNumber access = pod.port(port).map(SwitchPort::number).orElseThrow();
            PortNumber instancePort = instancePort(pod, instance);
            VlanId stag = VlanId.vlanId((short) s);
            steers.add(line(Kind.LINE_UP, owners, instance.id(), access, stag, instancePort));
            steers.add(line(Kind.LINE_DOWN, owners, instance.id(), instancePort, stag, access));
        }
        if (!split.isEmpty()) {
            throw new UnsupportedPodException(
                    "a single-table OpenFlow 1.3 switch cannot steer pod " + pod.name() + " so placed: "
                            + split.get(0) + (split.size() > 1 ? " (and " + (split.size() - 1) + " more)" : "")
                            + "; ONOS's OpenFlow 1.3 provider does not encode INNER_VLAN_VID, so such groups "
                            + "must be placed together", split);
        }
    }

    private static Steer line(Kind kind, String owners, int instance, PortNumber in, VlanId stag, PortNumber out) {
        TrafficSelector match = DefaultTrafficSelector.builder().matchInPort(in).matchVlanId(stag).build();
        return Steer.forward(kind, instance, owners, PRIORITY_STEER, match, out);
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
        group.coreAddress6().ifPresent(a6 -> ndSteers(group, instance, instancePort, uplink, vlan, a6, steers));
        IpAddress address = group.coreAddress();
        if (!address.isIp4()) {
            // ARP steers are IPv4 only; a group's core address is IPv4 (pod validator).
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

    /**
     * IPv6's ARP steers: the router's Neighbor Solicitation for the group's
     * core IPv6 address (sent to the address's solicited-node multicast MAC,
     * which no MAC steer takes) to the group's instance; the instance's own
     * multicast NS (resolving the router) and NA (announcing its address) to
     * the uplink, only from the group's core MAC and core IPv6 address. The
     * ICMPv6 type and ND target come with their OpenFlow prerequisites
     * (EtherType IPv6, IP protocol 58), without which a switch refuses the
     * match.
     */
    private static void ndSteers(LineGroup group, int instance, PortNumber instancePort, PortNumber uplink,
                                 VlanId vlan, IpAddress address6, ImmutableSet.Builder<Steer> steers) {
        String name = group.name();
        steers.add(Steer.forward(Kind.CORE_ND_DOWN, instance, name, PRIORITY_ARP,
                                 icmp6(core(uplink, vlan), ICMP6_NEIGHBOR_SOLICITATION)
                                         .matchIPv6NDTargetAddress(address6.getIp6Address()).build(),
                                 instancePort));
        for (byte type : new byte[] {ICMP6_NEIGHBOR_SOLICITATION, ICMP6_NEIGHBOR_ADVERTISEMENT}) {
            steers.add(Steer.forward(Kind.CORE_ND_UP, instance, name, PRIORITY_ARP,
                                     icmp6(core(instancePort, vlan).matchEthSrc(group.coreMac())
                                                   .matchEthDstMasked(IPV6_MULTICAST_MAC, IPV6_MULTICAST_MASK)
                                                   .matchIPv6Src(address6.toIpPrefix()), type).build(),
                                     uplink));
        }
    }

    private static TrafficSelector.Builder icmp6(TrafficSelector.Builder match, byte type) {
        return match.matchEthType(EthType.EtherType.IPV6.ethType().toShort())
                .matchIPProtocol(IPv6.PROTOCOL_ICMP6).matchIcmpv6Type(type);
    }

    /** The core side's match: the port, and untagged (VLAN NONE) or the core VLAN. */
    private static TrafficSelector.Builder core(PortNumber in, VlanId vlan) {
        return DefaultTrafficSelector.builder().matchInPort(in).matchVlanId(vlan);
    }
}
