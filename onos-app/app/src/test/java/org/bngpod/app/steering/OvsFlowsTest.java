package org.bngpod.app.steering;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.bngpod.api.Pod;
import org.bngpod.api.PortRole;
import org.bngpod.api.SwitchPort;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.PlacementEngine;
import org.junit.Test;
import org.onlab.packet.IpPrefix;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/**
 * The steering of the lab pod through ONOS's DefaultSingleTablePipeline, and
 * the translation of its flow rules into OVS flows (no switch needed).
 */
public class OvsFlowsTest {

    private static final ApplicationId APP = new TestApplicationId("org.bngpod.app");

    static Map<PortNumber, Integer> accessTpids(Pod pod) {
        return pod.ports(PortRole.ACCESS).stream()
                .collect(Collectors.toMap(SwitchPort::number, p -> p.tpid().orElseThrow()));
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

        List<String> flows = new OvsFlows(accessTpids(pod)).translate(leaf.table());
        // one flow per rule, plus a pop per split (in_port, S-tag): access3 and dp3's and dp4's ports, and table 1's drop
        assertEquals(leaf.table().size() + 3 + 1, flows.size());
        assertTrue(flows.contains("table=0,priority=200,in_port=3,dl_vlan=300,"
                                          + "actions=pop_vlan,write_metadata:300,goto_table:1"));
        assertTrue(flows.contains("table=1,priority=0,actions=drop"));
        assertTrue(flows.stream().anyMatch(f -> f.startsWith("table=1,priority=200,") && f.endsWith(
                ",in_port=3,metadata=300,dl_vlan=1999,actions=push_vlan:0x8100,mod_vlan_vid:300,output:5001")));
        assertTrue(flows.stream().anyMatch(f -> f.startsWith("table=0,priority=0,") && f.endsWith(",actions=drop")));
        assertTrue(flows.stream().filter(f -> f.contains("arp_tpa")).collect(Collectors.toList()).toString(),
                   flows.stream().anyMatch(f -> f.matches(
                "table=0,priority=300,cookie=0x[0-9a-f]+,in_port=10,dl_type=0x0806,vlan_tci=0x0000/0x1000,"
                        + "arp_tpa=100.64.0.13,actions=output:5001")));

        // dp3 fails: the installer re-steers lg3 through the same pipeliner
        Placement after = new PlacementEngine().rebalance(pod, initial, ImmutableSet.of(1, 2, 4));
        installer.apply(pod.deviceId(), SteeringPlan.compute(pod, after));
        assertEquals(List.of(), leaf.failures());
        assertEquals(SteeringPlan.compute(pod, after).size(), leaf.table().size());
        List<String> failed = new OvsFlows(accessTpids(pod)).translate(leaf.table());
        assertTrue(failed.stream().noneMatch(f -> f.contains("output:5001") || f.contains("in_port=5001")));
    }

    @Test
    public void untranslatableRulesAreRefused() {
        Map<PortNumber, Integer> tpids = ImmutableMap.of(PortNumber.portNumber(1), 0x8100);
        OvsFlows ovs = new OvsFlows(tpids);
        DeviceId leaf = DeviceId.deviceId("of:0000000000000001");
        FlowRule ipMatch = DefaultFlowRule.builder().forDevice(leaf).fromApp(APP).withPriority(10).makePermanent()
                .withSelector(DefaultTrafficSelector.builder().matchEthType((short) 0x0800)
                                      .matchIPDst(IpPrefix.valueOf("10.0.0.0/8")).build())
                .withTreatment(DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build())
                .build();
        assertThrows(OvsFlows.UntranslatableRuleException.class, () -> ovs.translate(List.of(ipMatch)));
        FlowRule setVlan = DefaultFlowRule.builder().forDevice(leaf).fromApp(APP).withPriority(10).makePermanent()
                .withSelector(DefaultTrafficSelector.builder().matchInPort(PortNumber.portNumber(1)).build())
                .withTreatment(DefaultTrafficTreatment.builder().popVlan().setOutput(PortNumber.portNumber(2))
                                       .build())
                .build();
        assertThrows(OvsFlows.UntranslatableRuleException.class, () -> ovs.translate(List.of(setVlan)));
        FlowRule toController = DefaultFlowRule.builder().forDevice(leaf).fromApp(APP).withPriority(10)
                .makePermanent().withSelector(DefaultTrafficSelector.emptySelector())
                .withTreatment(DefaultTrafficTreatment.builder().setOutput(PortNumber.CONTROLLER).build()).build();
        assertThrows(OvsFlows.UntranslatableRuleException.class, () -> ovs.translate(List.of(toController)));
        FlowRule otherTable = DefaultFlowRule.builder().forDevice(leaf).fromApp(APP).withPriority(10)
                .makePermanent().forTable(5).withSelector(DefaultTrafficSelector.emptySelector())
                .withTreatment(DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(2)).build())
                .build();
        assertThrows(OvsFlows.UntranslatableRuleException.class, () -> ovs.translate(List.of(otherTable)));
    }
}
