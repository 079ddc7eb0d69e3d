package org.bngpod.app.steering;

import org.bngpod.api.DpInstance;
import org.bngpod.api.Pod;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.PlacementEngine;
import org.junit.Test;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.TpPort;
import org.onlab.packet.VlanId;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flow.criteria.Criteria;
import org.onosproject.net.flow.criteria.Criterion;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/**
 * The steering of the lab pod through ONOS's DefaultSingleTablePipeline, and
 * its flow rules as ONOS 2.5.6's OpenFlow 1.3 provider would send them (no
 * switch needed): nothing the provider drops, every rule its own switch entry.
 */
public class OvsFlowsTest {

    private static final ApplicationId APP = new TestApplicationId("org.bngpod.app");
    private static final DeviceId LEAF = DeviceId.deviceId("of:0000000000000001");

    /** The switch's table after the installer applied the placement. */
    private static SingleTableSwitch steered(Pod pod, Placement placement) {
        SingleTableSwitch leaf = new SingleTableSwitch(pod.deviceId());
        SteeringInstaller installer = new SteeringInstaller(leaf, APP);
        installer.apply(pod.deviceId(), SteeringPlan.compute(pod, placement));
        assertEquals(List.of(), leaf.failures());
        assertEquals(0, installer.errors());
        return leaf;
    }

    @Test
    public void labRendersThroughTheSingleTablePipeline() throws IOException {
        Pod pod = LabPods.goldenEmulated();
        SingleTableSwitch leaf = new SingleTableSwitch(pod.deviceId());
        SteeringInstaller installer = new SteeringInstaller(leaf, APP);
        Placement initial = new PlacementEngine().initial(pod);
        installer.apply(pod.deviceId(), SteeringPlan.compute(pod, initial));
        assertEquals(List.of(), leaf.failures());
        assertEquals(0, installer.errors());
        assertEquals(SteeringPlan.compute(pod, initial).size(), leaf.table().size());
        assertEquals(leaf.table().size(), installer.successes());

        List<String> flows = OvsFlows.translate(leaf.table());
        assertEquals(leaf.table().size(), flows.size());
        // S-tag 300 of access3 is lg3's and lg4's: both on dp4 (port 5002), steered whole, one table
        assertEquals(Integer.valueOf(4), initial.instanceOf("lg3").orElseThrow());
        assertTrue(flows.stream().anyMatch(f -> f.matches(
                "table=0,priority=40200,cookie=0x[0-9a-f]+,send_flow_rem,in_port=3,dl_vlan=300,actions=output:5002")));
        assertTrue(flows.stream().anyMatch(f -> f.matches(
                "table=0,priority=40200,cookie=0x[0-9a-f]+,send_flow_rem,in_port=5002,dl_vlan=300,actions=output:3")));
        assertTrue(flows.stream().noneMatch(f -> f.contains("table=1") || f.contains("metadata")));
        assertTrue(flows.stream().anyMatch(f -> f.startsWith("table=0,priority=0,") && f.endsWith(",actions=drop")));
        assertTrue(flows.stream().filter(f -> f.contains("arp_tpa")).collect(Collectors.toList()).toString(),
                   flows.stream().anyMatch(f -> f.matches(
                "table=0,priority=40300,cookie=0x[0-9a-f]+,send_flow_rem,in_port=10,dl_type=0x0806,"
                        + "vlan_tci=0x0000/0x1000,arp_tpa=100.64.0.13,actions=output:5002")));

        // dp4 fails: the installer re-steers lg3 and lg4 together through the same pipeliner
        Placement after = new PlacementEngine().rebalance(pod, initial, Set.of(1, 2, 3));
        assertEquals(after.instanceOf("lg3"), after.instanceOf("lg4"));
        installer.apply(pod.deviceId(), SteeringPlan.compute(pod, after));
        assertEquals(List.of(), leaf.failures());
        assertEquals(SteeringPlan.compute(pod, after).size(), leaf.table().size());
        List<String> failed = OvsFlows.translate(leaf.table());
        assertTrue(failed.stream().noneMatch(f -> f.contains("output:5002") || f.contains("in_port=5002")));
    }

    /**
     * Whatever instances are left, the app's rules hold nothing ONOS's
     * OpenFlow 1.3 provider drops, and no two of them are one switch entry.
     * Two rules that differ only in what the provider drops (lg3's and lg4's
     * C-tags of S-tag 300, before the placement kept them together) are sent
     * as one match: each overwrites the other on the switch, ONOS never sees
     * all of them confirmed (the 8,188 rules PENDING_ADD and re-sent every
     * 30 s, then PENDING_REMOVE after the netcfg's removal, that a real ONOS
     * showed).
     */
    @Test
    public void everyRuleIsEncodedWholeAndIsItsOwnSwitchEntry() throws IOException {
        Pod pod = LabPods.goldenEmulated();
        PlacementEngine engine = new PlacementEngine();
        Placement initial = engine.initial(pod);
        Map<String, Placement> cases = new HashMap<>();
        cases.put("stated", initial);
        Set<Integer> all = pod.instances().stream().map(DpInstance::id).collect(Collectors.toSet());
        for (int dead : all) {
            cases.put("dp" + dead + " dead", engine.rebalance(pod, initial, all.stream().filter(i -> i != dead)
                    .collect(Collectors.toSet())));
        }
        cases.forEach((name, placement) -> {
            List<FlowRule> table = steered(pod, placement).table();
            long entries = table.stream().map(OpenFlow13Encoding::entry).distinct().count();
            assertEquals(name + ": rules, and the switch entries they make", table.size(), entries);
            for (FlowRule rule : table) {
                assertEquals(name + ": " + rule, List.of(), OpenFlow13Encoding.notEncoded(rule));
            }
        });
    }

    private static FlowRule rule(TrafficSelector selector, TrafficTreatment treatment) {
        return DefaultFlowRule.builder().forDevice(LEAF).fromApp(APP).withPriority(10).makePermanent()
                .withSelector(selector).withTreatment(treatment).build();
    }

    private static TrafficTreatment out(long port) {
        return DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(port)).build();
    }

    @Test
    public void whatTheProviderDoesNotEncodeIsRefused() {
        assertTrue(OpenFlow13Encoding.NOT_ENCODED_CRITERIA.contains(Criterion.Type.INNER_VLAN_VID));
        TrafficSelector.Builder port = DefaultTrafficSelector.builder().matchInPort(PortNumber.portNumber(3));
        Map<String, FlowRule> dropped = Map.of(
                "criterion INNER_VLAN_VID", rule(DefaultTrafficSelector.builder(port.build())
                        .matchVlanId(VlanId.vlanId((short) 300)).matchInnerVlanId(VlanId.vlanId((short) 7)).build(),
                                                  out(2)),
                "criterion INNER_VLAN_PCP", rule(DefaultTrafficSelector.builder(port.build())
                        .matchInnerVlanPcp((byte) 3).build(), out(2)),
                "criterion TCP_DST_MASKED", rule(DefaultTrafficSelector.builder(port.build())
                        .matchEthType((short) 0x0800).matchIPProtocol((byte) 6)
                        .matchTcpDstMasked(TpPort.tpPort(80), TpPort.tpPort(0xfff0)).build(), out(2)),
                "criterion MPLS_TC", rule(DefaultTrafficSelector.builder(port.build())
                        .matchEthType((short) 0x8847).add(Criteria.matchMplsTc((byte) 1)).build(), out(2)),
                "instruction L3MODIFICATION:IP_DSCP", rule(port.build(), DefaultTrafficTreatment.builder()
                        .setIpDscp((byte) 46).setOutput(PortNumber.portNumber(2)).build()),
                "instruction L3MODIFICATION:ARP_TPA", rule(port.build(), DefaultTrafficTreatment.builder()
                        .setArpTpa(org.onlab.packet.Ip4Address.valueOf("10.0.0.1"))
                        .setOutput(PortNumber.portNumber(2)).build()));
        dropped.forEach((what, r) -> {
            OvsFlows.UntranslatableRuleException e =
                    assertThrows(what, OvsFlows.UntranslatableRuleException.class, () -> OvsFlows.flow(r));
            assertThat(e.getMessage(), containsString("does not encode " + what));
        });
    }

    @Test
    public void rulesTheProviderEncodesButTheSteeringDoesNotUseAreRefused() {
        FlowRule ipMatch = rule(DefaultTrafficSelector.builder().matchEthType((short) 0x0800)
                                        .matchIPDst(IpPrefix.valueOf("10.0.0.0/8")).build(), out(2));
        assertThrows(OvsFlows.UntranslatableRuleException.class, () -> OvsFlows.translate(List.of(ipMatch)));
        FlowRule popVlan = rule(DefaultTrafficSelector.builder().matchInPort(PortNumber.portNumber(1)).build(),
                                DefaultTrafficTreatment.builder().popVlan().setOutput(PortNumber.portNumber(2))
                                        .build());
        assertThrows(OvsFlows.UntranslatableRuleException.class, () -> OvsFlows.translate(List.of(popVlan)));
        FlowRule otherTable = DefaultFlowRule.builder().forDevice(LEAF).fromApp(APP).withPriority(10)
                .makePermanent().forTable(5).withSelector(DefaultTrafficSelector.emptySelector())
                .withTreatment(out(2)).build();
        assertThrows(OvsFlows.UntranslatableRuleException.class, () -> OvsFlows.translate(List.of(otherTable)));
    }

    @Test
    public void aPuntToTheControllerAsksForWholeFrames() {
        FlowRule punt = rule(DefaultTrafficSelector.builder().matchEthType((short) 0x0806).build(),
                             DefaultTrafficTreatment.builder().punt().build());
        assertThat(OvsFlows.flow(punt), containsString(",dl_type=0x0806,actions=CONTROLLER:65535"));
    }
}
