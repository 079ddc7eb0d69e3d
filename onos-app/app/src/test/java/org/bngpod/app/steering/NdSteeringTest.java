package org.bngpod.app.steering;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableSet;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.PlacementEngine;
import org.junit.Test;
import org.onlab.packet.Ip6Address;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PortCriterion;
import org.onosproject.net.flow.instructions.Instructions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

/**
 * The core side's IPv6 neighbour discovery steers: the router's Neighbor
 * Solicitation for a group's core IPv6 address to the group's instance, the
 * instance's multicast NS/NA to the uplink; through ONOS's
 * DefaultSingleTablePipeline and as ONOS 2.5.6's OpenFlow 1.3 provider
 * encodes them; following the group on failover; refused on OF-DPA.
 */
public class NdSteeringTest {

    private static final ApplicationId APP = new TestApplicationId("org.bngpod.app");
    private static final PortNumber UPLINK = PortNumber.portNumber(10);
    private static final int ICMP6 = 58;

    /** The lab pod (emulated switch ports) with IPv6 on the core: lg1..lg3 have core IPv6 addresses, lg4 not. */
    static ObjectNode dualStackLabJson() throws IOException {
        ObjectNode pod = LabPods.withEmulatedSwitchPorts(LabPods.goldenPodJson());
        ((ObjectNode) pod.get("core")).put("subnet6", "2001:db8:64::/64").put("routerAddress6", "2001:db8:64::1");
        for (JsonNode group : pod.path("lineGroups")) {
            String name = group.path("name").asText();
            if (name.equals("lg4")) {
                ((ObjectNode) group).remove("coreAddress6");
            } else {
                ((ObjectNode) group).put("coreAddress6", "2001:db8:64::1" + name.substring(2));
            }
        }
        return pod;
    }

    private static Pod dualStackLab() throws IOException {
        return LabPods.read(dualStackLabJson());
    }

    private static Set<Steer> nd(Set<Steer> steers) {
        return steers.stream().filter(s -> s.kind() == Steer.Kind.CORE_ND_DOWN || s.kind() == Steer.Kind.CORE_ND_UP)
                .collect(Collectors.toSet());
    }

    private static PortNumber output(Steer steer) {
        return ((Instructions.OutputInstruction) steer.treatment().allInstructions().get(0)).port();
    }

    private static PortNumber inPort(Steer steer) {
        return ((PortCriterion) steer.selector().getCriterion(Criterion.Type.IN_PORT)).port();
    }

    @Test
    public void eachGroupWithACoreIpv6AddressGetsItsNdSteers() throws IOException {
        Pod pod = dualStackLab();
        Placement placement = new PlacementEngine().initial(pod);
        Set<Steer> steers = SteeringPlan.compute(pod, placement);
        Set<Steer> nd = nd(steers);
        assertEquals(3 * 3, nd.size());
        for (LineGroup group : pod.lineGroups()) {
            Set<Steer> own = nd.stream().filter(s -> s.lineGroup().equals(group.name())).collect(Collectors.toSet());
            if (group.coreAddress6().isEmpty()) {
                assertEquals(group.name(), Set.of(), own);
                continue;
            }
            Ip6Address a6 = group.coreAddress6().get().getIp6Address();
            int id = placement.instanceOf(group.name()).orElseThrow();
            PortNumber port = SteeringPlan.instancePort(pod, pod.instance(id).orElseThrow());
            TrafficSelector down = DefaultTrafficSelector.builder().matchInPort(UPLINK).matchVlanId(VlanId.NONE)
                    .matchEthType((short) 0x86dd).matchIPProtocol((byte) ICMP6).matchIcmpv6Type((byte) 135)
                    .matchIPv6NDTargetAddress(a6).build();
            assertEquals(Set.of(Steer.forward(Steer.Kind.CORE_ND_DOWN, id, group.name(), Steer.PRIORITY_ARP, down,
                                              port)),
                         own.stream().filter(s -> s.kind() == Steer.Kind.CORE_ND_DOWN).collect(Collectors.toSet()));
            Set<Steer> up = own.stream().filter(s -> s.kind() == Steer.Kind.CORE_ND_UP).collect(Collectors.toSet());
            Set<Steer> wantUp = ImmutableSet.of((byte) 135, (byte) 136).stream().map(type -> Steer.forward(
                    Steer.Kind.CORE_ND_UP, id, group.name(), Steer.PRIORITY_ARP,
                    DefaultTrafficSelector.builder().matchInPort(port).matchVlanId(VlanId.NONE)
                            .matchEthSrc(group.coreMac())
                            .matchEthDstMasked(MacAddress.valueOf("33:33:00:00:00:00"),
                                               MacAddress.valueOf("ff:ff:00:00:00:00"))
                            .matchEthType((short) 0x86dd).matchIPProtocol((byte) ICMP6).matchIcmpv6Type(type)
                            .matchIPv6Src(a6.toIpPrefix()).build(), UPLINK)).collect(Collectors.toSet());
            assertEquals(wantUp, up);
        }
        // the IPv4 fold is the same with or without IPv6
        ObjectNode v4json = LabPods.withEmulatedSwitchPorts(LabPods.goldenPodJson());
        ((ObjectNode) v4json.get("core")).remove(List.of("subnet6", "routerAddress6"));
        v4json.path("lineGroups").forEach(g -> ((ObjectNode) g).remove("coreAddress6"));
        Pod v4 = LabPods.read(v4json);
        Set<Steer> rest = steers.stream().filter(s -> !nd.contains(s)).collect(Collectors.toSet());
        assertEquals(SteeringPlan.compute(v4, new PlacementEngine().initial(v4)), rest);
    }

    @Test
    public void ndSteersFollowTheGroupOnFailover() throws IOException {
        Pod pod = dualStackLab();
        PlacementEngine engine = new PlacementEngine();
        Placement before = engine.initial(pod);
        Placement after = engine.rebalance(pod, before, ImmutableSet.of(2, 3, 4)); // dp1 (lg1) dies
        int target = after.instanceOf("lg1").orElseThrow();
        PortNumber newPort = SteeringPlan.instancePort(pod, pod.instance(target).orElseThrow());
        PortNumber oldPort = SteeringPlan.instancePort(pod, pod.instance(1).orElseThrow());
        Set<Steer> old = nd(SteeringPlan.compute(pod, before));
        Set<Steer> next = nd(SteeringPlan.compute(pod, after));
        for (String other : new String[] {"lg2", "lg3"}) {
            assertEquals(old.stream().filter(s -> s.lineGroup().equals(other)).collect(Collectors.toSet()),
                         next.stream().filter(s -> s.lineGroup().equals(other)).collect(Collectors.toSet()));
        }
        for (Steer s : next) {
            if (!s.lineGroup().equals("lg1")) {
                continue;
            }
            assertEquals(target, s.instance());
            if (s.kind() == Steer.Kind.CORE_ND_DOWN) {
                assertEquals(newPort, output(s));
                assertTrue(old.stream().anyMatch(o -> o.selector().equals(s.selector()) && output(o).equals(oldPort)));
            } else {
                assertEquals(newPort, inPort(s));
                assertEquals(UPLINK, output(s));
            }
        }

        // installed on the single-table switch: the same entries as a fresh install of the new placement
        SingleTableSwitch leaf = new SingleTableSwitch(pod.deviceId());
        SteeringInstaller installer = new SteeringInstaller(leaf, APP);
        installer.apply(pod.deviceId(), SteeringPlan.compute(pod, before));
        installer.apply(pod.deviceId(), SteeringPlan.compute(pod, after));
        assertEquals(List.of(), leaf.failures());
        assertEquals(0, installer.errors());
        SingleTableSwitch fresh = new SingleTableSwitch(pod.deviceId());
        new SteeringInstaller(fresh, APP).apply(pod.deviceId(), SteeringPlan.compute(pod, after));
        assertEquals(Set.copyOf(OvsFlows.translate(fresh.table()).stream().map(NdSteeringTest::withoutCookie)
                                        .collect(Collectors.toList())),
                     Set.copyOf(OvsFlows.translate(leaf.table()).stream().map(NdSteeringTest::withoutCookie)
                                        .collect(Collectors.toList())));
    }

    private static String withoutCookie(String flow) {
        return flow.replaceAll("cookie=0x[0-9a-f]+,", "");
    }

    /** The ND flows as the OpenFlow 1.3 provider sends them, from the lab with IPv6 through DefaultSingleTablePipeline. */
    private static List<String> ndFlows() throws IOException {
        Pod pod = dualStackLab();
        SingleTableSwitch leaf = new SingleTableSwitch(pod.deviceId());
        SteeringInstaller installer = new SteeringInstaller(leaf, APP);
        installer.apply(pod.deviceId(), SteeringPlan.compute(pod, new PlacementEngine().initial(pod)));
        assertEquals(List.of(), leaf.failures());
        assertEquals(0, installer.errors());
        List<String> flows = OvsFlows.translate(leaf.table());
        return flows.stream().filter(f -> f.contains("dl_type=0x86dd")).map(NdSteeringTest::withoutCookie)
                .collect(Collectors.toList());
    }

    @Test
    public void ndSteersAsTheProviderEncodesThem() throws IOException {
        List<String> flows = ndFlows();
        assertEquals(flows.toString(), 9, flows.size());
        // lg1 on dp1 (port 4901): the router's NS for 2001:db8:64::11
        assertTrue(flows.toString(), flows.contains(
                "table=0,priority=40300,send_flow_rem,in_port=10,dl_type=0x86dd,vlan_tci=0x0000/0x1000,nw_proto=58,"
                        + "icmpv6_type=135,nd_target=2001:db8:64::11,actions=output:4901"));
        for (int type : new int[] {135, 136}) {
            assertTrue(flows.toString(), flows.contains(String.format(Locale.ROOT,
                    "table=0,priority=40300,send_flow_rem,in_port=4901,dl_dst=33:33:00:00:00:00/FF:FF:00:00:00:00,"
                            + "dl_src=02:CC:00:00:00:01,dl_type=0x86dd,vlan_tci=0x0000/0x1000,nw_proto=58,"
                            + "ipv6_src=2001:db8:64::11,icmpv6_type=%d,actions=output:10", type)));
        }
    }

    /**
     * Open vSwitch's own parser takes each ND flow as written: a match field
     * without its prerequisites would be dropped from the match ("normalization
     * changed ofp_match"), which is the widening the strict translator exists
     * to catch.
     */
    @Test
    public void openVswitchParsesTheNdFlowsUnchanged() throws Exception {
        assumeTrue("ovs-ofctl is not installed", Files.isExecutable(Path.of("/usr/bin/ovs-ofctl")));
        List<String> flows = ndFlows();
        Path file = Files.createTempFile("bngpod-nd", ".of13");
        try {
            Files.write(file, flows, StandardCharsets.UTF_8);
            String out = ovsParse(file);
            assertTrue(out, !out.contains("normalization changed"));
            assertEquals(out, 9, out.lines().filter(l -> l.contains("OFPT_FLOW_MOD")).count());
            assertEquals(out, 3, out.lines().filter(l -> l.contains("nd_target=2001:db8:64::1")).count());
            assertEquals(out, 6, out.lines().filter(l -> l.contains("ipv6_src=2001:db8:64::1")).count());

            // the check bites: the same flow without its ICMPv6 type is normalized (and refused below)
            Files.write(file, List.of(flows.get(0).replaceAll("icmpv6_type=13[56],", "")), StandardCharsets.UTF_8);
            assertTrue(ovsParse(file).contains("normalization changed"));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static String ovsParse(Path file) throws Exception {
        Process p = new ProcessBuilder("ovs-ofctl", "-O", "OpenFlow13", "parse-flows", file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("ovs-ofctl timed out", p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(out, 0, p.exitValue());
        return out;
    }

    private static FlowRule rule(TrafficSelector selector) {
        return DefaultFlowRule.builder().forDevice(org.onosproject.net.DeviceId.deviceId("of:0000000000000001"))
                .withSelector(selector).withTreatment(DefaultTrafficTreatment.builder().setOutput(UPLINK).build())
                .withPriority(40300).fromApp(APP).makePermanent().forTable(0).build();
    }

    @Test
    public void translatorRefusesNdMatchesWithoutTheirPrerequisites() {
        Ip6Address target = Ip6Address.valueOf("2001:db8:64::11");
        // ND target without the ICMPv6 type, with a type that is not ND, without IP protocol 58
        for (TrafficSelector bad : List.of(
                DefaultTrafficSelector.builder().matchEthType((short) 0x86dd).matchIPProtocol((byte) ICMP6)
                        .matchIPv6NDTargetAddress(target).build(),
                DefaultTrafficSelector.builder().matchEthType((short) 0x86dd).matchIPProtocol((byte) ICMP6)
                        .matchIcmpv6Type((byte) 128).matchIPv6NDTargetAddress(target).build(),
                DefaultTrafficSelector.builder().matchEthType((short) 0x86dd).matchIcmpv6Type((byte) 135)
                        .matchIPv6NDTargetAddress(target).build(),
                DefaultTrafficSelector.builder().matchEthType((short) 0x0800).matchIPProtocol((byte) ICMP6)
                        .matchIcmpv6Type((byte) 135).matchIPv6NDTargetAddress(target).build(),
                DefaultTrafficSelector.builder().matchIPv6Src(target.toIpPrefix()).build())) {
            OvsFlows.UntranslatableRuleException e = assertThrows(OvsFlows.UntranslatableRuleException.class,
                                                                   () -> OvsFlows.flow(rule(bad)));
            assertTrue(e.getMessage(), e.getMessage().contains("OFPBMC_BAD_PREREQ"));
        }
        String ok = OvsFlows.flow(rule(DefaultTrafficSelector.builder().matchEthType((short) 0x86dd)
                                               .matchIPProtocol((byte) ICMP6).matchIcmpv6Type((byte) 136)
                                               .matchIPv6NDTargetAddress(target).build()));
        assertTrue(ok, ok.endsWith("dl_type=0x86dd,nw_proto=58,icmpv6_type=136,nd_target=2001:db8:64::11,"
                                           + "actions=output:10"));
    }

    @Test
    public void ofdpaRefusesCoreIpv6Addresses() throws IOException {
        // the lab with S300 whole (OF-DPA's other limits met) and IPv6 on the core side
        ObjectNode json = OfdpaSteeringTest.wholeSTagLabJson();
        ((ObjectNode) json.get("core")).put("subnet6", "2001:db8:64::/64");
        for (JsonNode group : json.path("lineGroups")) {
            ((ObjectNode) group).put("coreAddress6", "2001:db8:64::1" + group.path("name").asText().substring(2));
        }
        Pod pod = LabPods.read(json);
        UnsupportedPodException e = assertThrows(UnsupportedPodException.class, () -> SteeringPlan.compute(
                pod, new PlacementEngine().initial(pod), Pipeline.OFDPA));
        assertEquals(e.getMessage(), 4, e.problems().size());
        assertTrue(e.getMessage(), e.problems().get(0).startsWith(
                "line group lg1: core IPv6 address 2001:db8:64::11 cannot be steered"));
        assertTrue(e.getMessage(), e.getMessage().contains("OF-DPA's ACL table matches no IPv6 ND target"));
        assertTrue(e.getMessage(), e.getMessage().contains("give line groups no core IPv6 address"));
        // the single-table rendering of the same pod has them
        assertEquals(4 * 3, nd(SteeringPlan.compute(pod, new PlacementEngine().initial(pod),
                                                    Pipeline.SINGLE_TABLE).steers()).size());
    }
}
