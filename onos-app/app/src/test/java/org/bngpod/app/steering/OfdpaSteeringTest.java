package org.bngpod.app.steering;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Sets;
import org.bngpod.api.AccessLine;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.SwitchPort;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.PlacementEngine;
import org.junit.Test;
import org.onlab.packet.EthType;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.driver.extensions.OfdpaMatchVlanVid;
import org.onosproject.driver.pipeline.ofdpa.Ofdpa2Pipeline;
import org.onosproject.driver.pipeline.ofdpa.Ofdpa3Pipeline;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.IndexTableId;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.Criteria;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthCriterion;
import org.onosproject.net.flow.criteria.EthTypeCriterion;
import org.onosproject.net.flow.criteria.ExtensionCriterion;
import org.onosproject.net.flow.criteria.PortCriterion;
import org.onosproject.net.flow.criteria.VlanIdCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.onosproject.net.flowobjective.DefaultFilteringObjective;
import org.onosproject.net.flowobjective.FilteringObjective;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBucket;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The OF-DPA rendering of the fold, through ONOS's own OF-DPA pipeliners
 * (Ofdpa2Pipeline, Ofdpa3Pipeline from onos-drivers-default 2.5.6): every
 * objective is taken, the VLAN, bridging and ACL tables and the groups they
 * produce are the fold, and a failover changes only the moved group's rules
 * and groups. The lab pod itself is refused (its S300 is split by C-tag);
 * the renderings use the lab with S300 served whole by lg3.
 */
public class OfdpaSteeringTest {

    private static final ApplicationId APP = new TestApplicationId("org.bngpod.app");
    private static final DeviceId LEAF = DeviceId.deviceId("of:0000000000000001");
    private static final IndexTableId VLAN_TABLE = IndexTableId.of(10);
    private static final IndexTableId BRIDGING_TABLE = IndexTableId.of(50);
    private static final IndexTableId ACL_TABLE = IndexTableId.of(60);
    private static final VlanId CORE = VlanId.vlanId((short) 4094);
    private static final int L2_FLOOD_TYPE = 0x40000000;

    /**
     * The lab pod's netcfg without the line groups' core IPv6 addresses, which
     * OF-DPA refuses (NdSteeringTest): the IPv4 fold these tests are about.
     */
    static ObjectNode labJson() throws IOException {
        ObjectNode pod = LabPods.goldenPodJson();
        pod.path("lineGroups").forEach(g -> ((ObjectNode) g).remove("coreAddress6"));
        return pod;
    }

    /** The lab pod with lg3 serving S300 whole and lg4 without its part of S300. */
    static Pod wholeSTagLab() throws IOException {
        return LabPods.read(wholeSTagLabJson());
    }

    /** {@link #wholeSTagLab()}'s netcfg. */
    static ObjectNode wholeSTagLabJson() throws IOException {
        ObjectNode pod = labJson();
        for (JsonNode group : pod.path("lineGroups")) {
            ArrayNode lines = (ArrayNode) group.path("lines");
            for (int i = lines.size() - 1; i >= 0; i--) {
                ObjectNode line = (ObjectNode) lines.get(i);
                if (!line.path("ctag").isNull() && !line.path("ctag").isMissingNode()) {
                    if (group.path("name").asText().equals("lg3")) {
                        line.putNull("ctag");
                    } else {
                        lines.remove(i);
                    }
                }
            }
        }
        return pod;
    }

    @Test
    public void singleTableRenderingIsTheSteers() throws IOException {
        Pod pod = LabPods.golden();
        Placement placement = new PlacementEngine().initial(pod);
        Steering steering = SteeringPlan.compute(pod, placement, Pipeline.SINGLE_TABLE);
        assertEquals(Pipeline.SINGLE_TABLE, steering.pipeline());
        assertEquals(SteeringPlan.compute(pod, placement), steering.steers());
        assertTrue(steering.ofdpa().forwards().isEmpty());
    }

    @Test
    public void labWithSplitSTagIsRefusedForOfdpa() throws IOException {
        Pod pod = LabPods.read(labJson());
        Placement placement = new PlacementEngine().initial(pod);
        try {
            SteeringPlan.compute(pod, placement, Pipeline.OFDPA);
            fail("the lab splits S300 by C-tag; OF-DPA cannot bridge that");
        } catch (UnsupportedPodException e) {
            assertEquals(2, e.problems().size());
            assertTrue(e.getMessage(), e.getMessage().startsWith("OF-DPA cannot render pod lab: "));
            assertTrue(e.getMessage(), e.getMessage().contains(
                    "line group lg3: line access3 S-tag 300-300 C-tag 1-1999 splits S-tags by C-tag"));
            assertTrue(e.getMessage(), e.getMessage().contains(
                    "line group lg4: line access3 S-tag 300-300 C-tag 2000-4094 splits S-tags by C-tag"));
            assertTrue(e.getMessage(), e.getMessage().contains("use a single-table (OVS) switch"));
        }
    }

    @Test
    public void sTagOnTwoAccessPortsIsRefusedForOfdpa() throws IOException {
        ObjectNode json = labJson();
        for (JsonNode group : json.path("lineGroups")) {
            if (group.path("name").asText().equals("lg4")) {
                // lg4's S400-449 on access4, and S100 again on access2 (lg1 has it on access1)
                ArrayNode lines = (ArrayNode) group.path("lines");
                lines.removeAll();
                lines.addObject().put("port", "access4").putObject("stag").put("min", 400).put("max", 449);
                ObjectNode extra = lines.addObject().put("port", "access2");
                extra.putObject("stag").put("min", 100).put("max", 100);
                extra.putNull("ctag");
                ((ObjectNode) lines.get(0)).putNull("ctag");
            }
            if (group.path("name").asText().equals("lg3")) {
                ((ObjectNode) group.path("lines").get(0)).putNull("ctag");
            }
        }
        Pod pod = LabPods.read(json);
        try {
            SteeringPlan.compute(pod, new PlacementEngine().initial(pod), Pipeline.OFDPA);
            fail("S100 on access1 and access2 would be one OF-DPA flood");
        } catch (UnsupportedPodException e) {
            assertEquals(e.getMessage(), List.of(
                    "S-tag 100 on access1 (lg1) and access2 (lg4): one OF-DPA VLAN floods over both access ports"),
                    e.problems());
        }
    }

    @Test
    public void planHasOneFloodPerSTagAndTheCoreByMac() throws IOException {
        Pod pod = wholeSTagLab();
        OfdpaSteering plan = SteeringPlan.compute(pod, new PlacementEngine().initial(pod), Pipeline.OFDPA).ofdpa();
        int stags = 50 + 60 + 1 + 50;
        assertEquals(CORE, plan.coreVlan());
        assertEquals(2 * stags + 3, plan.filters().size());         // access + instance port per S; uplink, 49, 50 untagged
        assertEquals(stags + 3, plan.nexts().size());               // a flood per S; uplink, 49, 50 in the core VLAN
        assertEquals(stags + 4 + 1 + 4, plan.forwards().size());    // floods, core MACs, router MAC, ARP
        for (OfdpaNext next : plan.nexts()) {
            assertEquals(next.toString(), next.kind() == OfdpaNext.Kind.PORT, next.untagged());
        }
    }

    @Test
    public void ofdpa2RendersTheFoldAndFailover() throws IOException {
        rendersTheFoldAndFailover(new Ofdpa2Pipeline());
    }

    @Test
    public void ofdpa3RendersTheFoldAndFailover() throws IOException {
        rendersTheFoldAndFailover(new Ofdpa3Pipeline());
    }

    /**
     * What ONOS's OF-DPA 3 pipeliner (2.5.6) does with the double-tag forms a
     * split S-tag would need: an outer and an inner VLAN condition are
     * refused; with a VLAN pop in the meta (its double-tagged host filter)
     * they are not answered and write nothing unless a router MAC comes too,
     * and then the S-tag is popped into OVID, the VLAN 1 table matches the
     * C-tag and the frame goes to termination MAC and routing, never to
     * bridging.
     */
    @Test
    public void ofdpa3TakesNoDoubleTaggedBridging() {
        try (OfdpaSwitch sw = new OfdpaSwitch(LEAF, new Ofdpa3Pipeline())) {
            sw.answerWithin(1_000);
            FilteringObjective inner = DefaultFilteringObjective.builder()
                    .withKey(Criteria.matchInPort(PortNumber.portNumber(3)))
                    .addCondition(Criteria.matchVlanId(VlanId.vlanId((short) 300)))
                    .addCondition(Criteria.matchInnerVlanId(VlanId.vlanId((short) 7)))
                    .permit().withPriority(200).makePermanent().fromApp(APP).add();
            sw.filter(LEAF, inner);
            assertEquals(1, sw.failures().size());
            assertTrue(sw.failures().get(0), sw.failures().get(0).endsWith(": UNSUPPORTED"));

            FilteringObjective doubleTagged = DefaultFilteringObjective.builder()
                    .withKey(Criteria.matchInPort(PortNumber.portNumber(3)))
                    .addCondition(Criteria.matchVlanId(VlanId.vlanId((short) 300)))
                    .addCondition(Criteria.matchInnerVlanId(VlanId.vlanId((short) 7)))
                    .withMeta(DefaultTrafficTreatment.builder().popVlan().build())
                    .permit().withPriority(200).makePermanent().fromApp(APP).add();
            sw.filter(LEAF, doubleTagged);
            assertEquals(2, sw.failures().size());
            assertTrue(sw.failures().get(1), sw.failures().get(1).endsWith(": no answer"));
            assertEquals(List.of(), sw.rules());

            FilteringObjective routed = DefaultFilteringObjective.builder()
                    .withKey(Criteria.matchInPort(PortNumber.portNumber(3)))
                    .addCondition(Criteria.matchVlanId(VlanId.vlanId((short) 300)))
                    .addCondition(Criteria.matchInnerVlanId(VlanId.vlanId((short) 7)))
                    .addCondition(Criteria.matchEthDst(MacAddress.valueOf("02:ee:00:00:00:01")))
                    .withMeta(DefaultTrafficTreatment.builder().popVlan().build())
                    .permit().withPriority(200).makePermanent().fromApp(APP).add();
            sw.filter(LEAF, routed);
            assertEquals(2, sw.failures().size());
            Set<IndexTableId> tables = sw.rules().stream().map(r -> (IndexTableId) r.table())
                    .collect(Collectors.toSet());
            assertEquals(Set.of(VLAN_TABLE, IndexTableId.of(11), IndexTableId.of(20)), tables);
            assertTrue(sw.rules().stream().filter(r -> r.table().equals(IndexTableId.of(20)))
                               .allMatch(r -> r.treatment().tableTransition() != null
                                       && r.treatment().tableTransition().tableId() != 50));
        }
    }

    private static void rendersTheFoldAndFailover(Pipeliner pipeliner) throws IOException {
        Pod pod = wholeSTagLab();
        PlacementEngine engine = new PlacementEngine();
        Placement before = engine.initial(pod);
        try (OfdpaSwitch sw = new OfdpaSwitch(LEAF, pipeliner)) {
            SteeringInstaller installer = new SteeringInstaller(sw, APP);
            Steering steering = SteeringPlan.compute(pod, before, Pipeline.OFDPA);
            installer.apply(LEAF, steering);
            assertEquals(List.of(), sw.failures());
            assertEquals(List.of(), sw.duplicates());
            assertEquals(0, installer.errors());
            OfdpaSteering plan = steering.ofdpa();
            int objectives = plan.filters().size() + plan.nexts().size() + plan.forwards().size();
            assertEquals(objectives, installer.successes());
            assertEquals(plan, installer.installedOfdpa(LEAF));
            assertEquals(Set.of(), installer.installed(LEAF));
            assertFold(pod, before, sw);
            int stags = 161;
            assertEquals(2 * stags + 6, table(sw, VLAN_TABLE).size());
            assertEquals(stags + 5, table(sw, BRIDGING_TABLE).size());
            assertEquals(4, table(sw, ACL_TABLE).size());
            assertEquals(stags + 2 * stags + 3, sw.groups().size());

            // dp3 dies: lg3 moves; only its rules and groups change
            Placement after = engine.rebalance(pod, before, ImmutableSet.of(1, 2, 4));
            assertEquals(Set.of("lg3"), after.changedFrom(before));
            PortNumber from = instancePort(pod, before, "lg3");
            PortNumber to = instancePort(pod, after, "lg3");
            MacAddress coreMac = pod.lineGroup("lg3").orElseThrow().coreMac();
            Set<String> rulesBefore = describeRules(sw);
            Map<Integer, String> groupsBefore = describeGroups(sw);
            long successes = installer.successes();
            installer.apply(LEAF, SteeringPlan.compute(pod, after, Pipeline.OFDPA));
            sw.settle();
            assertEquals(List.of(), sw.failures());
            assertEquals(List.of(), sw.duplicates());
            assertEquals(0, installer.errors());
            // forwards: lg3's ARP (old removed, new added), its core MAC and its S300 flood entry re-sent
            // (same entries, now the new instance's); the S300 flood: bucket of the old port out, new port in;
            // filters: S300 admitted on the new port, no longer on the old one
            assertEquals(successes + 8, installer.successes());
            assertFold(pod, after, sw);

            Set<String> rulesAfter = describeRules(sw);
            Set<String> removed = Sets.difference(rulesBefore, rulesAfter);
            Set<String> added = Sets.difference(rulesAfter, rulesBefore);
            assertEquals(removed.toString(), 3, removed.size());
            assertEquals(added.toString(), 3, added.size());
            for (String rule : Sets.union(removed, added)) {
                assertTrue(rule, rule.contains("vlan=300 ") || rule.contains(coreMac.toString()));
            }
            Map<Integer, String> groupsAfter = describeGroups(sw);
            int flood300 = L2_FLOOD_TYPE | (300 << 16);
            int l2To = (300 << 16) | (int) to.toLong();
            int l2From = (300 << 16) | (int) from.toLong();
            assertEquals(Set.of(l2To), Sets.difference(groupsAfter.keySet(), groupsBefore.keySet()));
            assertEquals(Set.of(), Sets.difference(groupsBefore.keySet(), groupsAfter.keySet()));
            Set<Integer> changed = groupsBefore.keySet().stream()
                    .filter(id -> !groupsBefore.get(id).equals(groupsAfter.get(id))).collect(Collectors.toSet());
            assertEquals(Set.of(flood300), changed);
            // ONOS's OF-DPA group handler leaves the L2 interface group of a removed flood bucket
            assertTrue(groupsAfter.containsKey(l2From));

            // switch reconnected: everything re-sent, nothing changes
            installer.resync(LEAF);
            assertEquals(List.of(), sw.failures());
            assertEquals(0, installer.errors());
            assertEquals(rulesAfter, describeRules(sw));
            assertEquals(groupsAfter, describeGroups(sw));

            // withdrawn: no rules left; of the groups only the orphaned L2 interface group
            installer.withdraw(LEAF);
            sw.settle();
            assertEquals(List.of(), sw.failures());
            assertEquals(0, installer.errors());
            assertEquals(List.of(), sw.rules());
            assertEquals(Set.of(l2From), describeGroups(sw).keySet());
            assertTrue(installer.installedOfdpa(LEAF).forwards().isEmpty());
            assertTrue(installer.nextIds(LEAF).isEmpty());
        }
    }

    private static PortNumber instancePort(Pod pod, Placement placement, String group) {
        DpInstance instance = pod.instance(placement.instanceOf(group).orElseThrow()).orElseThrow();
        return SteeringPlan.instancePort(pod, instance);
    }

    /** Checks the switch's VLAN, bridging and ACL tables and groups against the fold of the placement. */
    private static void assertFold(Pod pod, Placement placement, OfdpaSwitch sw) {
        PortNumber uplink = pod.port(pod.core().uplink()).map(SwitchPort::number).orElseThrow();
        Set<List<Object>> vlanRules = new HashSet<>();
        Map<List<Object>, Set<PortNumber>> bridging = new HashMap<>();
        Map<List<Object>, Set<PortNumber>> acl = new HashMap<>();
        Set<PortNumber> corePorts = new HashSet<>();
        corePorts.add(uplink);
        bridging.put(List.of(CORE, pod.core().routerMac()), Set.of(uplink));
        for (LineGroup group : pod.lineGroups()) {
            PortNumber port = instancePort(pod, placement, group.name());
            corePorts.add(port);
            for (AccessLine line : group.lines()) {
                PortNumber access = pod.port(line.port()).map(SwitchPort::number).orElseThrow();
                for (int s = line.stag().min(); s <= line.stag().max(); s++) {
                    VlanId stag = VlanId.vlanId((short) s);
                    vlanRules.add(List.of(access, stag));
                    vlanRules.add(List.of(port, stag));
                    bridging.put(List.of(stag, MacAddress.NONE), Set.of(access, port));
                }
            }
            bridging.put(List.of(CORE, group.coreMac()), Set.of(port));
            acl.put(List.of(port, group.coreMac()), Set.of(uplink));
        }
        for (PortNumber port : corePorts) {
            vlanRules.add(List.of(port, VlanId.NONE));   // untagged frames: assigned the internal VLAN
            vlanRules.add(List.of(port, CORE));          // and frames already in it
        }

        Set<List<Object>> actualVlan = new HashSet<>();
        for (FlowRule rule : table(sw, VLAN_TABLE)) {
            actualVlan.add(List.of(inPort(rule.selector()), vlanOf(rule.selector())));
        }
        assertEquals(vlanRules, actualVlan);

        Map<List<Object>, Set<PortNumber>> actualBridging = new HashMap<>();
        for (FlowRule rule : table(sw, BRIDGING_TABLE)) {
            EthCriterion dst = (EthCriterion) rule.selector().getCriterion(Criterion.Type.ETH_DST);
            List<Object> key = List.of(vlanOf(rule.selector()), dst == null ? MacAddress.NONE : dst.mac());
            int group = groupOf(rule);
            actualBridging.put(key, ports(sw, group));
            VlanId vlan = (VlanId) key.get(0);
            if (vlan.equals(CORE)) {
                assertTrue(rule.toString(), pops(sw, group));      // the core side leaves untagged
            } else {
                assertEquals(rule.toString(), L2_FLOOD_TYPE | (vlan.toShort() << 16), group);
                assertTrue(rule.toString(), !pops(sw, group));     // S-tags leave tagged
            }
        }
        assertEquals(bridging, actualBridging);

        Map<List<Object>, Set<PortNumber>> actualAcl = new HashMap<>();
        for (FlowRule rule : table(sw, ACL_TABLE)) {
            TrafficSelector selector = rule.selector();
            assertEquals(CORE, vlanOf(selector));
            assertEquals(EthType.EtherType.ARP.ethType(),
                         ((EthTypeCriterion) selector.getCriterion(Criterion.Type.ETH_TYPE)).ethType());
            assertEquals(MacAddress.BROADCAST, ((EthCriterion) selector.getCriterion(Criterion.Type.ETH_DST)).mac());
            MacAddress src = ((EthCriterion) selector.getCriterion(Criterion.Type.ETH_SRC)).mac();
            actualAcl.put(List.of(inPort(selector), src), ports(sw, groupOf(rule)));
        }
        assertEquals(acl, actualAcl);
        assertTrue(sw.rules().stream().allMatch(r -> r.table().equals(VLAN_TABLE) || r.table().equals(BRIDGING_TABLE)
                || r.table().equals(ACL_TABLE)));
    }

    private static List<FlowRule> table(OfdpaSwitch sw, IndexTableId table) {
        return sw.rules().stream().filter(r -> r.table().equals(table)).collect(Collectors.toList());
    }

    private static PortNumber inPort(TrafficSelector selector) {
        PortCriterion port = (PortCriterion) selector.getCriterion(Criterion.Type.IN_PORT);
        assertNotNull(selector.toString(), port);
        return port.port();
    }

    /** The VLAN a rule matches: the standard criterion (OF-DPA 3) or OF-DPA 2's VLAN extension. */
    private static VlanId vlanOf(TrafficSelector selector) {
        VlanIdCriterion vlan = (VlanIdCriterion) selector.getCriterion(Criterion.Type.VLAN_VID);
        if (vlan != null) {
            return vlan.vlanId();
        }
        for (Criterion criterion : selector.criteria()) {
            if (criterion instanceof ExtensionCriterion
                    && ((ExtensionCriterion) criterion).extensionSelector() instanceof OfdpaMatchVlanVid) {
                return ((OfdpaMatchVlanVid) ((ExtensionCriterion) criterion).extensionSelector()).vlanId();
            }
        }
        throw new AssertionError("no VLAN match in " + selector);
    }

    private static int groupOf(FlowRule rule) {
        List<Integer> groups = rule.treatment().allInstructions().stream()
                .filter(i -> i instanceof Instructions.GroupInstruction)
                .map(i -> ((Instructions.GroupInstruction) i).groupId().id())
                .collect(Collectors.toList());
        assertEquals(rule.toString(), 1, groups.size());
        return groups.get(0);
    }

    private static Group group(OfdpaSwitch sw, int id) {
        return sw.groups().stream().filter(g -> g.id().id() == id).findFirst()
                .orElseThrow(() -> new AssertionError("no group 0x" + Integer.toHexString(id)));
    }

    /** The ports a group (and the groups it chains to) outputs to. */
    private static Set<PortNumber> ports(OfdpaSwitch sw, int id) {
        Set<PortNumber> ports = new HashSet<>();
        for (GroupBucket bucket : group(sw, id).buckets().buckets()) {
            for (Instruction instruction : bucket.treatment().allInstructions()) {
                if (instruction instanceof Instructions.OutputInstruction) {
                    ports.add(((Instructions.OutputInstruction) instruction).port());
                } else if (instruction instanceof Instructions.GroupInstruction) {
                    ports.addAll(ports(sw, ((Instructions.GroupInstruction) instruction).groupId().id()));
                }
            }
        }
        return ports;
    }

    /** Whether the group's L2 interface buckets pop the VLAN. */
    private static boolean pops(OfdpaSwitch sw, int id) {
        for (GroupBucket bucket : group(sw, id).buckets().buckets()) {
            for (Instruction instruction : bucket.treatment().allInstructions()) {
                if (instruction instanceof L2ModificationInstruction && ((L2ModificationInstruction) instruction)
                        .subtype() == L2ModificationInstruction.L2SubType.VLAN_POP) {
                    return true;
                }
                if (instruction instanceof Instructions.GroupInstruction
                        && pops(sw, ((Instructions.GroupInstruction) instruction).groupId().id())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Set<String> describeRules(OfdpaSwitch sw) {
        Set<String> rules = new HashSet<>();
        for (FlowRule rule : sw.rules()) {
            List<String> criteria = new ArrayList<>();
            for (Criterion criterion : rule.selector().criteria()) {
                criteria.add(criterion instanceof ExtensionCriterion || criterion.type() == Criterion.Type.VLAN_VID
                        ? "vlan=" + vlanOf(rule.selector()) : criterion.toString());
            }
            criteria.sort(String::compareTo);
            rules.add("table=" + rule.table() + " priority=" + rule.priority() + " " + String.join(" ", criteria)
                              + " -> " + rule.treatment().allInstructions());
        }
        return rules;
    }

    private static Map<Integer, String> describeGroups(OfdpaSwitch sw) {
        Map<Integer, String> groups = new HashMap<>();
        for (Group group : sw.groups()) {
            groups.put(group.id().id(), group.type() + " " + group.buckets().buckets().stream()
                    .map(b -> b.treatment().allInstructions().toString()).sorted().collect(Collectors.toList()));
        }
        return groups;
    }
}
