package org.bngpod.app.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import org.bngpod.api.Failover;
import org.bngpod.api.PlacementEvent;
import org.bngpod.api.PlacementState;
import org.bngpod.api.PodEvent;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.Reason;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.cluster.NodeId;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.Objective;

import java.io.IOException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/**
 * The placement manager: the pod file's placement from netcfg, failover on a
 * control plane's word and on a switch port, no move back, the leader alone
 * acting, steering applied for every placement, rejected config keeping the pod.
 */
public class PlacementManagerTest {

    private Testbed bed;
    private final List<PlacementEvent> events = new ArrayList<>();
    private final List<PodEvent> podEvents = new ArrayList<>();

    @Before
    public void setUp() {
        bed = new Testbed(Testbed.fixturePod());
        bed.placement.addListener(events::add);
        bed.pods.addListener(podEvents::add);
    }

    @After
    public void tearDown() {
        bed.close();
    }

    @Test
    public void startsFromThePodFile() {
        PlacementState state = bed.placement.placement();
        assertEquals(1, state.version());
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg1"));
        assertEquals(Integer.valueOf(2), bed.instanceOf("lg2"));
        assertEquals("STATED", bed.placement.placementOf("lg2").orElseThrow().reasonKind());
        assertTrue(state.instances().stream().allMatch(i -> i.available()));
        assertEquals(Set.of(1, 2), bed.steeredInstances());
    }

    @Test
    public void deadInstanceFailsOverAndNothingMovesBack() {
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        PlacementState state = bed.placement.placement();
        assertEquals(2, state.version());
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg2"));
        assertEquals("MOVED", state.group("lg2").orElseThrow().reasonKind());
        assertThat(state.group("lg2").orElseThrow().reason(), containsString("instance dp2 (id 2) unavailable"));
        assertFalse(state.instance(2).orElseThrow().available());
        assertEquals("cp1", state.instance(2).orElseThrow().declaredBy().orElseThrow());
        assertEquals(1, state.moves());
        Failover f = state.lastFailover().orElseThrow();
        assertEquals(2, f.instance());
        assertEquals(List.of("lg2"), f.moved());
        assertEquals("PFCP heartbeat lost", f.reason());
        assertEquals(Set.of(1), bed.steeredInstances());
        assertEquals(List.of(PlacementEvent.Type.INSTANCE_DOWN, PlacementEvent.Type.PLACEMENT_CHANGED),
                     Testbed.types(events));

        // idempotent
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        assertEquals(2, bed.placement.placement().version());

        events.clear();
        bed.placement.declareAlive(2, "cp1");
        state = bed.placement.placement();
        assertTrue(state.instance(2).orElseThrow().available());
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg2"));
        assertEquals(3, state.version());
        assertEquals(List.of(PlacementEvent.Type.INSTANCE_UP), Testbed.types(events));
    }

    /**
     * A pod removed from the netcfg and pushed again is a new pod: it starts
     * where the pod file states, not where the removed one had moved its
     * groups (a real ONOS 2.5.6 brought the old moves back). The placement
     * version goes on growing, so a control plane sees the change.
     */
    @Test
    public void aPodPushedAgainAfterItsRemovalStartsFromThePodFile() {
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        bed.placement.declareAlive(2, "cp1");
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg2"));
        long before = bed.placement.placement().version();

        bed.netcfg.push(null);
        assertEquals(0, bed.placement.placement().version());
        assertTrue(bed.steeredInstances().isEmpty());
        bed.netcfg.push(Testbed.fixturePod());

        PlacementState state = bed.placement.placement();
        assertEquals(Integer.valueOf(2), bed.instanceOf("lg2"));
        assertEquals("STATED", state.group("lg2").orElseThrow().reasonKind());
        assertTrue(state.version() + " after " + before, state.version() > before);
        assertEquals(Set.of(1, 2), bed.steeredInstances());
    }

    /** Health is about instances and outlives the pod's removal: a control plane reports a death once. */
    @Test
    public void aPodPushedAgainStillAvoidsAnInstanceDeclaredDead() {
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        bed.netcfg.push(null);
        bed.netcfg.push(Testbed.fixturePod());
        PlacementState state = bed.placement.placement();
        assertFalse(state.instance(2).orElseThrow().available());
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg2"));
        assertEquals("MOVED", state.group("lg2").orElseThrow().reasonKind());
    }

    /** A stored placement that splits an S-tag (written before the rule) is joined at once. */
    @Test
    public void aStoredPlacementThatSplitsAnStagIsJoined() throws IOException {
        bed.close();
        bed = new Testbed(Testbed.goldenLabPod());
        PlacementRecord rec = bed.store.placement();
        Placement split = Placement.of(
                Map.of("lg1", 1, "lg2", 2, "lg3", 3, "lg4", 4),
                Map.of("lg1", Reason.of(Reason.Kind.STATED, "lg1"), "lg2", Reason.of(Reason.Kind.STATED, "lg2"),
                       "lg3", Reason.of(Reason.Kind.STATED, "lg3"), "lg4", Reason.of(Reason.Kind.STATED, "lg4")));
        bed.store.setPlacement(new PlacementRecord(rec.pod, rec.version + 1, split, rec.available, 0, null));
        assertEquals(Integer.valueOf(3), bed.instanceOf("lg3"));

        // as the leader does on its next event (a device, the pod, a declaration, the leadership)
        bed.placement.reconcile();
        assertEquals(Integer.valueOf(4), bed.instanceOf("lg3"));
        assertEquals(Integer.valueOf(4), bed.instanceOf("lg4"));
        assertEquals("SHARED_STAG", bed.placement.placementOf("lg3").orElseThrow().reasonKind());
    }

    @Test
    public void unknownInstanceIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> bed.placement.declareDead(9, "cp1", "x"));
        assertEquals("unknown instance 9", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> bed.placement.declareAlive(9, "cp1"));
        assertEquals(1, bed.placement.placement().version());
    }

    @Test
    public void switchPortDownKillsItsInstancesUntilItComesBack() {
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        // both instances are VFs behind switch port 49 (srv1)
        bed.devices.port(49, false);
        PlacementState state = bed.placement.placement();
        assertFalse(state.instance(1).orElseThrow().available());
        assertEquals("switch", state.instance(1).orElseThrow().declaredBy().orElseThrow());
        assertEquals("UNPLACED", state.group("lg1").orElseThrow().reasonKind());
        assertEquals("UNPLACED", state.group("lg2").orElseThrow().reasonKind());
        assertTrue(bed.steeredInstances().isEmpty());

        bed.devices.port(49, true);
        state = bed.placement.placement();
        assertTrue(state.instance(1).orElseThrow().available());
        // the control plane's word on instance 2 stands
        assertFalse(state.instance(2).orElseThrow().available());
        assertEquals("cp1", state.instance(2).orElseThrow().declaredBy().orElseThrow());
        // available again does not move anything; a re-balance places the groups
        assertEquals(null, bed.instanceOf("lg1"));
        bed.placement.rebalance();
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg1"));
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg2"));

        // other ports and other devices change nothing
        long version = bed.placement.placement().version();
        bed.devices.port(1, false);
        assertEquals(version, bed.placement.placement().version());
    }

    /**
     * The lab pod with a standby: dp4 (behind switch port 50 with dp3) serves
     * nothing, lg4 is on dp2.
     */
    private static ObjectNode labWithStandbyBesideDp3() throws IOException {
        ObjectNode pod = Testbed.goldenLabPod().deepCopy();
        // lg4 without its half of S-tag 300: lg3 then goes where the pod file states
        for (JsonNode group : pod.path("lineGroups")) {
            if (group.path("name").asText().equals("lg4")) {
                ArrayNode lines = (ArrayNode) group.path("lines");
                for (int i = lines.size() - 1; i >= 0; i--) {
                    if (lines.get(i).path("port").asText().equals("access3")) {
                        lines.remove(i);
                    }
                }
            }
        }
        for (JsonNode instance : pod.path("instances")) {
            ArrayNode groups = (ArrayNode) instance.path("lineGroups");
            if (instance.path("name").asText().equals("dp4")) {
                groups.removeAll();
            } else if (instance.path("name").asText().equals("dp2")) {
                groups.add("lg4");
            }
        }
        return pod;
    }

    @Test
    public void aServerPortDownFailsEveryInstanceBehindItOverInOneStep() throws IOException {
        bed.close();
        bed = new Testbed(labWithStandbyBesideDp3());
        bed.placement.addListener(events::add);
        assertEquals(Integer.valueOf(3), bed.instanceOf("lg3"));
        int sentBefore = bed.objectives.forwards.size();

        // srv2 (port 50) carries dp3 and the standby dp4: both die with it, and lg3
        // must not stop over on dp4 on its way to a live instance
        bed.devices.port(50, false);

        PlacementState state = bed.placement.placement();
        assertEquals("one placement change", 2, state.version());
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg3"));
        assertThat(state.group("lg3").orElseThrow().reason(), containsString("instance dp3 (id 3) unavailable"));
        assertEquals("each group moved once", 1, state.moves());
        for (int dead : List.of(3, 4)) {
            assertFalse(state.instance(dead).orElseThrow().available());
            assertEquals("switch", state.instance(dead).orElseThrow().declaredBy().orElseThrow());
        }
        Failover f = state.lastFailover().orElseThrow();
        assertEquals("the instance lg3 was on", 3, f.instance());
        assertEquals(List.of("lg3"), f.moved());
        assertEquals("switch port 50 down", f.reason());
        assertEquals(List.of(PlacementEvent.Type.INSTANCE_DOWN, PlacementEvent.Type.INSTANCE_DOWN,
                             PlacementEvent.Type.PLACEMENT_CHANGED), Testbed.types(events));
        // lg3's steers went to the switch once, towards dp1
        long lg3Steers = bed.steering.installer().installed(Testbed.SWITCH).stream()
                .filter(s -> s.lineGroup().equals("lg3")).count();
        List<ForwardingObjective> sent = bed.objectives.forwards.subList(sentBefore, bed.objectives.forwards.size());
        assertEquals(lg3Steers, sent.stream().filter(o -> o.op() == Objective.Operation.ADD).count());
    }

    @Test
    public void operatorAliveClearsEveryDeclarer() {
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        bed.placement.declareDead(2, "cp2", "association failed");
        bed.placement.declareAlive(2, "cp1");
        assertFalse(bed.placement.placement().instance(2).orElseThrow().available());
        bed.placement.declareAlive(2, PlacementManager.OPERATOR);
        assertTrue(bed.placement.placement().instance(2).orElseThrow().available());
    }

    @Test
    public void onlyTheLeaderActs() {
        bed.leadership.leader = NodeId.nodeId("other");
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        assertEquals(Integer.valueOf(2), bed.instanceOf("lg2"));
        assertThrows(IllegalStateException.class, () -> bed.placement.rebalance());
        // this node takes over: it acts on the recorded declaration
        bed.leadership.leader = Testbed.FakeLeadership.LOCAL;
        bed.placement.reconcile();
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg2"));
        assertEquals(Set.of(1), bed.steeredInstances());
    }

    @Test
    public void rejectedConfigKeepsTheRunningPod() {
        ObjectNode bad = Testbed.fixturePod().deepCopy();
        ((ObjectNode) bad.path("lineGroups").get(1).path("lines").get(1).path("stag")).put("max", 5000);
        bed.netcfg.push(bad);
        assertEquals("lineGroups[1].lines[1].stag.max: 5000 is not a VLAN id (1..4094)",
                     bed.pods.lastRejection().orElseThrow());
        assertTrue(bed.pods.pod().isPresent());
        assertEquals(PodEvent.Type.CONFIG_REJECTED, podEvents.get(podEvents.size() - 1).type());
        assertEquals(1, bed.placement.placement().version());
        assertEquals(Set.of(1, 2), bed.steeredInstances());
    }

    @Test
    public void updatedPodKeepsPlacementAndRemovedPodWithdrawsSteering() {
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        ObjectNode renamed = Testbed.fixturePod().deepCopy();
        ((ObjectNode) renamed.path("instances").get(0)).put("name", "dp-one");
        bed.netcfg.push(renamed);
        assertEquals(PodEvent.Type.POD_UPDATED, podEvents.get(podEvents.size() - 1).type());
        assertEquals("dp-one", bed.pods.instances().get(0).name());
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg2"));

        bed.netcfg.push(null);
        assertTrue(bed.pods.pod().isEmpty());
        assertEquals(PlacementState.EMPTY, bed.placement.placement());
        assertTrue(bed.steering.installer().installed(Testbed.SWITCH).isEmpty());
    }
}
