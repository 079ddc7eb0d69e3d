package org.bngpod.app.steering;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.bngpod.api.DpInstance;
import org.bngpod.api.Pod;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.PlacementEngine;
import org.bngpod.app.placement.Reason;
import org.junit.Test;
import org.onlab.packet.EthType;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PortCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.Objective;
import org.onosproject.net.packet.PacketPriority;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.bngpod.app.steering.Steer.Kind;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/**
 * The steering plan of the lab pod (topology/tests/golden/lab/onos-netcfg.json):
 * what each group gets, the objectives, and what a failover changes.
 */
public class SteeringPlanTest {

    private static final ApplicationId APP = new TestApplicationId("org.bngpod.app");
    private static final PortNumber ACCESS1 = PortNumber.portNumber(1);
    private static final PortNumber ACCESS3 = PortNumber.portNumber(3);
    private static final PortNumber UPLINK = PortNumber.portNumber(10);
    private static final MacAddress ROUTER = MacAddress.valueOf("02:ee:00:00:00:01");

    private static Map<String, Long> countByGroup(Set<Steer> steers) {
        return steers.stream().collect(Collectors.groupingBy(Steer::lineGroup, Collectors.counting()));
    }

    private static Set<Steer> of(Set<Steer> steers, String group) {
        return steers.stream().filter(s -> s.lineGroup().equals(group)).collect(Collectors.toSet());
    }

    /** The steers that serve any of the groups (alone, or shared with others: "lg3+lg4"). */
    private static Set<Steer> serving(Set<Steer> steers, Set<String> groups) {
        return steers.stream().filter(s -> Splitter.on('+').splitToList(s.lineGroup()).stream()
                .anyMatch(groups::contains)).collect(Collectors.toSet());
    }

    private static PortNumber output(Steer steer) {
        Instruction only = steer.treatment().allInstructions().get(0);
        assertEquals(steer.toString(), 1, steer.treatment().allInstructions().size());
        return ((Instructions.OutputInstruction) only).port();
    }

    private static PortNumber inPort(Steer steer) {
        return ((PortCriterion) steer.selector().getCriterion(Criterion.Type.IN_PORT)).port();
    }

    private static TrafficSelector.Builder match(PortNumber in, int stag) {
        return DefaultTrafficSelector.builder().matchInPort(in).matchVlanId(VlanId.vlanId((short) stag));
    }

    private static Steer find(Set<Steer> steers, TrafficSelector selector) {
        Set<Steer> found = steers.stream().filter(s -> s.selector().equals(selector)).collect(Collectors.toSet());
        assertEquals("steers matching " + selector, 1, found.size());
        return found.iterator().next();
    }

    @Test
    public void labPlanCountsPerGroup() throws IOException {
        Pod pod = LabPods.golden();
        Placement placement = new PlacementEngine().initial(pod);
        Set<Steer> plan = SteeringPlan.compute(pod, placement);
        // Line steers: 2 per S-tag (its up and down), a shared S-tag once for its groups; 4 core steers
        // each, and 3 neighbour-discovery steers for each group with a core IPv6 address (lg1..lg3).
        assertEquals(ImmutableMap.builder()
                             .put("lg1", 50L * 2 + 4 + 3)           // access1 S100-149
                             .put("lg2", (50L + 10) * 2 + 4 + 3)    // access2 S200-249, access1 S150-159
                             .put("lg3", 4L + 3)                    // its core side; its line is lg4's S-tag too
                             .put("lg4", 50L * 2 + 4)           // access4 S400-449
                             .put("lg3+lg4", 2L)                // access3 S300, C1-1999 lg3's, C2000-4094 lg4's
                             .put("", 1L)                       // the drop
                             .build(),
                     countByGroup(plan));
        for (Steer steer : plan) {
            if (steer.kind() != Kind.DROP) {
                for (String group : Splitter.on('+').split(steer.lineGroup())) {
                    assertEquals(steer.toString(), placement.instanceOf(group).orElseThrow(),
                                 Integer.valueOf(steer.instance()));
                }
            }
        }
    }

    @Test
    public void labSteersGoWhereThePlacementSays() throws IOException {
        Pod pod = LabPods.golden();
        Set<Steer> plan = SteeringPlan.compute(pod, new PlacementEngine().initial(pod));
        PortNumber srv1 = PortNumber.portNumber(49);
        PortNumber srv2 = PortNumber.portNumber(50);

        Steer up = find(plan, match(ACCESS1, 100).build());
        assertEquals(Kind.LINE_UP, up.kind());
        assertEquals(srv1, output(up));
        assertEquals(1, up.instance());
        assertEquals(ACCESS1, output(find(plan, match(srv1, 149).build())));
        assertEquals(2, find(plan, match(ACCESS1, 150).build()).instance());

        // the split S-tag: whole, to dp4 that serves both halves; no inner VLAN anywhere
        Steer s300 = find(plan, match(ACCESS3, 300).build());
        assertEquals(4, s300.instance());
        assertEquals("lg3+lg4", s300.lineGroup());
        assertEquals(srv2, output(s300));
        assertEquals(ACCESS3, output(find(plan, match(srv2, 300).build())));
        assertTrue(plan.stream().noneMatch(s -> s.selector().getCriterion(Criterion.Type.INNER_VLAN_VID) != null));

        // core side, untagged (core VLAN 0)
        MacAddress lg3Mac = MacAddress.valueOf("02:cc:00:00:00:03");
        Ip4Address lg3Address = Ip4Address.valueOf("100.64.0.13");
        Steer down = find(plan, DefaultTrafficSelector.builder().matchInPort(UPLINK).matchVlanId(VlanId.NONE)
                .matchEthDst(lg3Mac).build());
        assertEquals(Kind.CORE_DOWN, down.kind());
        assertEquals(srv2, output(down));
        Steer arp = find(plan, DefaultTrafficSelector.builder().matchInPort(UPLINK).matchVlanId(VlanId.NONE)
                .matchEthType(EthType.EtherType.ARP.ethType().toShort()).matchArpTpa(lg3Address).build());
        assertEquals(Steer.PRIORITY_ARP, arp.priority());
        assertEquals(srv2, output(arp));
        assertEquals(UPLINK, output(find(plan, DefaultTrafficSelector.builder().matchInPort(srv2)
                .matchVlanId(VlanId.NONE).matchEthSrc(lg3Mac).matchEthDst(ROUTER).build())));
        assertEquals(UPLINK, output(find(plan, DefaultTrafficSelector.builder().matchInPort(srv2)
                .matchVlanId(VlanId.NONE).matchEthSrc(lg3Mac).matchEthDst(MacAddress.BROADCAST)
                .matchEthType(EthType.EtherType.ARP.ethType().toShort()).matchArpSpa(lg3Address).build())));

        Steer drop = find(plan, DefaultTrafficSelector.emptySelector());
        assertEquals(Kind.DROP, drop.kind());
        assertEquals(Steer.SHARED, drop.instance());
        assertEquals(Steer.PRIORITY_DROP, drop.priority());
        assertEquals(DefaultTrafficTreatment.builder().drop().build(), drop.treatment());
    }

    @Test
    public void statedSwitchPortsAreUsed() throws IOException {
        Pod pod = LabPods.goldenEmulated();
        Set<Steer> plan = SteeringPlan.compute(pod, new PlacementEngine().initial(pod));
        Map<Integer, PortNumber> ports = new HashMap<>();
        for (Steer steer : plan) {
            if (steer.kind() == Kind.LINE_UP || steer.kind() == Kind.CORE_DOWN) {
                ports.merge(steer.instance(), output(steer), (a, b) -> {
                    assertEquals(a, b);
                    return a;
                });
            }
        }
        // dp3 serves nothing: lg3 is with lg4 on dp4
        assertEquals(ImmutableMap.of(1, PortNumber.portNumber(4901), 2, PortNumber.portNumber(4902),
                                     4, PortNumber.portNumber(5002)), ports);
        Map<Integer, PortNumber> stated = ImmutableMap.of(1, PortNumber.portNumber(4901),
                2, PortNumber.portNumber(4902), 3, PortNumber.portNumber(5001), 4, PortNumber.portNumber(5002));
        for (DpInstance instance : pod.instances()) {
            assertEquals(stated.get(instance.id()), SteeringPlan.instancePort(pod, instance));
        }
    }

    @Test
    public void objectivesAreVersatilePermanentAndFromTheApp() throws IOException {
        Pod pod = LabPods.golden();
        for (Steer steer : SteeringPlan.compute(pod, new PlacementEngine().initial(pod))) {
            ForwardingObjective add = steer.objective(APP).add();
            assertEquals(ForwardingObjective.Flag.VERSATILE, add.flag());
            assertTrue(add.permanent());
            assertEquals(APP, add.appId());
            assertEquals(steer.priority(), add.priority());
            assertEquals(steer.selector(), add.selector());
            assertEquals(steer.treatment(), add.treatment());
            assertEquals(Objective.Operation.ADD, add.op());
            assertEquals(Objective.Operation.REMOVE, steer.objective(APP).remove().op());
        }
    }

    @Test
    public void unplacedGroupsGetNoSteers() throws IOException {
        Pod pod = LabPods.golden();
        Placement initial = new PlacementEngine().initial(pod);
        Placement noneLeft = new PlacementEngine().rebalance(pod, initial, ImmutableSet.of());
        assertEquals(ImmutableSet.of(Kind.DROP),
                     SteeringPlan.compute(pod, noneLeft).stream().map(Steer::kind).collect(Collectors.toSet()));
    }

    @Test
    public void failoverReSteersOnlyTheMovedGroups() throws IOException {
        Pod pod = LabPods.goldenEmulated();
        PlacementEngine engine = new PlacementEngine();
        Placement before = engine.initial(pod);
        Placement after = engine.rebalance(pod, before, ImmutableSet.of(1, 2, 3)); // dp4 dies
        Set<String> moved = ImmutableSet.of("lg3", "lg4");
        assertEquals(moved, after.changedFrom(before));
        int target = after.instanceOf("lg4").orElseThrow();
        assertEquals(Integer.valueOf(target), after.instanceOf("lg3").orElseThrow());
        assertNotEquals(4, target);
        PortNumber oldPort = SteeringPlan.instancePort(pod, pod.instance(4).orElseThrow());
        PortNumber newPort = SteeringPlan.instancePort(pod, pod.instance(target).orElseThrow());

        Set<Steer> old = SteeringPlan.compute(pod, before);
        Set<Steer> next = SteeringPlan.compute(pod, after);
        // every steer of the other groups (and the drop) stays exactly as it was
        for (String group : new String[] {"lg1", "lg2", ""}) {
            assertEquals(group, of(old, group), of(next, group));
        }
        Set<Steer> oldMoved = serving(old, moved);
        Set<Steer> newMoved = serving(next, moved);
        assertEquals(oldMoved.size(), newMoved.size());
        assertTrue(newMoved.stream().allMatch(s -> s.instance() == target));
        Set<Steer> gone = new HashSet<>(oldMoved);
        gone.retainAll(newMoved);
        assertTrue("no moved group's steer survives unchanged: " + gone, gone.isEmpty());
        for (Steer steer : newMoved) {
            switch (steer.kind()) {
                case LINE_UP:
                case CORE_DOWN:
                case CORE_ARP_DOWN:
                case CORE_ND_DOWN:
                    // same match as before, delivered to the new instance
                    assertEquals(newPort, output(steer));
                    assertTrue(oldMoved.stream().anyMatch(o -> o.selector().equals(steer.selector())
                            && output(o).equals(oldPort)));
                    break;
                default:
                    assertEquals(newPort, inPort(steer));
            }
        }
        // the router's routes point at the group's core address, which moved with the group:
        // the uplink still ARPs for and sends to the same addresses and MACs.
        assertEquals(coreMatches(old), coreMatches(next));
    }

    @Test
    public void anStagSplitBetweenInstancesIsRefused() throws IOException {
        Pod pod = LabPods.golden();
        Placement split = Placement.of(
                ImmutableMap.of("lg1", 1, "lg2", 2, "lg3", 3, "lg4", 4),
                ImmutableMap.of("lg1", Reason.of(Reason.Kind.STATED, "lg1"), "lg2", Reason.of(Reason.Kind.STATED, "lg2"),
                                "lg3", Reason.of(Reason.Kind.STATED, "lg3"), "lg4", Reason.of(Reason.Kind.STATED, "lg4")));
        UnsupportedPodException e = assertThrows(UnsupportedPodException.class,
                                                 () -> SteeringPlan.compute(pod, split));
        assertEquals(List.of("S-tag 300 on access3 is split by C-tag between lg3 on dp3 (id 3) and lg4 on dp4 (id 4)"),
                     e.problems());
        assertThat(e.getMessage(), containsString("does not encode INNER_VLAN_VID"));
        // and the renderer says the same (SteeringManager leaves the switch as it was)
        assertThrows(UnsupportedPodException.class, () -> Pipeline.SINGLE_TABLE.render(pod, split));
    }

    @Test
    public void anUnplacedHalfLeavesItsStagToTheOtherHalf() throws IOException {
        Pod pod = LabPods.golden();
        Placement half = Placement.of(
                ImmutableMap.of("lg4", 4),
                ImmutableMap.of("lg1", Reason.of(Reason.Kind.UNPLACED, "lg1"),
                                "lg2", Reason.of(Reason.Kind.UNPLACED, "lg2"),
                                "lg3", Reason.of(Reason.Kind.UNPLACED, "lg3"), "lg4", Reason.of(Reason.Kind.STATED, "lg4")));
        Steer s300 = find(SteeringPlan.compute(pod, half), match(ACCESS3, 300).build());
        assertEquals("lg4", s300.lineGroup());
        assertEquals(4, s300.instance());
    }

    @Test
    public void everySteerWinsOverOnosOwnPuntsAndTheDropDoesNot() throws IOException {
        // ONOS's host provider punts every ARP frame at PacketPriority.CONTROL (40000): below it, the
        // core router's ARP and the instances' ARP replies would never reach the steers
        int punt = PacketPriority.CONTROL.priorityValue();
        Pod pod = LabPods.golden();
        for (Steer steer : SteeringPlan.compute(pod, new PlacementEngine().initial(pod))) {
            if (steer.kind() == Kind.DROP) {
                assertTrue(steer.toString(), steer.priority() < punt);
            } else {
                assertTrue(steer.toString(), steer.priority() > punt);
            }
        }
    }

    private static Set<TrafficSelector> coreMatches(Set<Steer> steers) {
        return steers.stream().filter(s -> s.kind() == Kind.CORE_DOWN || s.kind() == Kind.CORE_ARP_DOWN
                || s.kind() == Kind.CORE_ND_DOWN)
                .map(Steer::selector).collect(Collectors.toSet());
    }

    @Test
    public void steersAreValues() throws IOException {
        Pod pod = LabPods.golden();
        Placement placement = new PlacementEngine().initial(pod);
        assertEquals(SteeringPlan.compute(pod, placement), SteeringPlan.compute(LabPods.golden(), placement));
        Steer a = find(SteeringPlan.compute(pod, placement), match(ACCESS1, 100).build());
        Steer b = find(SteeringPlan.compute(pod, placement), match(ACCESS1, 100).build());
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertFalse(a.equals(find(SteeringPlan.compute(pod, placement), match(ACCESS1, 101).build())));
        assertTrue(a.toString().contains("lg1"));
    }
}
