package org.bngpod.app.placement;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.bngpod.api.AccessLine;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.VlanRange;
import org.junit.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.bngpod.app.placement.TestPods.G;
import static org.bngpod.app.placement.TestPods.M;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/**
 * Placement decisions: the pod file's placement, failover, determinism,
 * capacity, minimal moves and the reasons' texts.
 */
public class PlacementEngineTest {

    private static final ImmutableSet<Integer> ALL = ImmutableSet.of(1, 2, 3, 4);

    private final PlacementEngine engine = new PlacementEngine();

    private static Map<String, Integer> map(Object... kv) {
        ImmutableMap.Builder<String, Integer> b = ImmutableMap.builder();
        for (int i = 0; i < kv.length; i += 2) {
            b.put((String) kv[i], (Integer) kv[i + 1]);
        }
        return b.build();
    }

    @Test
    public void demandAndCapacityOfTheLabPod() {
        Pod pod = TestPods.lab();
        LineGroup lg1 = pod.lineGroup("lg1").orElseThrow();
        LineGroup lg2 = pod.lineGroup("lg2").orElseThrow();
        // a /22 has 1,024 addresses, 1,022 usable
        assertEquals(1022, engine.expectedSessions(pod, lg1));
        assertEquals(1022 * M, engine.contractedRate(pod, lg1));
        assertEquals(1022 * 5 * M, engine.contractedRate(pod, lg2));
        assertEquals(12_500 * M, engine.rateCapacity(pod, pod.instance(1).orElseThrow()));
    }

    @Test
    public void usableAddressesPerPrefixLength() {
        Pod pod = new TestPods.Builder()
                .group("a", "silver", "10.0.0.0/24", "10.0.1.0/30", "10.0.2.0/31", "10.0.3.1/32")
                .instance(1, "server1", 10 * G, "a").build();
        assertEquals(254 + 2 + 2 + 1, engine.expectedSessions(pod, pod.lineGroup("a").orElseThrow()));
    }

    @Test
    public void initialIsWhatThePodFileStates() {
        Pod pod = TestPods.lab();
        Placement p = engine.initial(pod);
        assertEquals(map("lg1", 1, "lg2", 2, "lg3", 3, "lg4", 4), p.instances());
        for (LineGroup g : pod.lineGroups()) {
            assertEquals(Reason.Kind.STATED, p.reason(g.name()).orElseThrow().kind());
            int id = pod.instanceOf(g.name()).orElseThrow().id();
            assertEquals(ImmutableSet.of(g.name()), p.groupsOn(id));
        }
        assertTrue(p.unplaced().isEmpty());
        assertTrue(p.overCapacity().isEmpty());
        // every group of the test lab is on access1: 12.3 Gbit/s contracted on a 10G port
        assertEquals("lg2: on dp2 (id 2) as the pod file states; contracts 5.1 Gbit/s for 1,022 sessions; "
                             + "dp2: 5.1 of 12.5 Gbit/s contracted, 1,022 of 65,536 sessions; "
                             + "contracted on port access1 12.3 of 10.0 Gbit/s, over its rate (no placement "
                             + "relieves a port)",
                     p.reason("lg2").orElseThrow().text());
        assertEquals(4, p.describe().size());
        assertThat(p.describe().get(0), containsString("lg1: on dp1 (id 1)"));
    }

    @Test
    public void initialMarksWhatDoesNotFitAndTheUnassigned() {
        // dp1 takes lg1 and lg2 (2,044 sessions) but holds 1,500; lg5 is on no instance
        Pod pod = new TestPods.Builder()
                .group("lg1", "silver", "100.80.0.0/22")
                .group("lg2", "gold", "100.80.4.0/22")
                .group("lg5", "silver", "100.80.16.0/24")
                .instance(1, "server1", 12_500 * M, "lg1", "lg2")
                .instance(2, "server1", 12_500 * M)
                .build();
        PlacementEngine small = new PlacementEngine(Capacity.of(1500, 20));
        Placement p = small.initial(pod);
        // lg2 comes first (same sessions, more bandwidth), so lg1 is the one over capacity
        assertEquals(map("lg1", 1, "lg2", 1), p.instances());
        assertEquals(ImmutableSet.of("lg1"), p.overCapacity());
        assertEquals(ImmutableSet.of("lg5"), p.unplaced());
        assertEquals("lg1: on dp1 (id 1) as the pod file states, but dp1 (id 1) over capacity (dp1: 6.1 of "
                             + "12.5 Gbit/s contracted, 2,044 of 1,500 sessions; taking off 1.0 Gbit/s relieves it: "
                             + "the smallest group that brings it within capacity), contracts 1.0 Gbit/s for "
                             + "1,022 sessions; a re-balance moves it; contracted on port access1 6.1 of 10.0 Gbit/s",
                     p.reason("lg1").orElseThrow().text());
        assertThat(p.reason("lg5").orElseThrow().text(), containsString("places it on no instance"));
        assertEquals(Reason.Kind.UNPLACED, p.reason("lg5").orElseThrow().kind());

        // a re-balance with everything available moves lg1 (the one initial marked) and places lg5, and leaves lg2
        Placement r = small.rebalance(pod, p, ImmutableSet.of(1, 2));
        // lg5 goes where it leaves the most contracted rate free: dp2 (1.3 of 12.5G against 5.4)
        assertEquals(map("lg1", 2, "lg2", 1, "lg5", 2), r.instances());
        // lg2 keeps its reason; the port's figure now counts lg5 too
        assertEquals(p.reason("lg2").orElseThrow().text().replace("access1 6.1", "access1 6.4"),
                     r.reason("lg2").orElseThrow().text());
        assertThat(r.reason("lg1").orElseThrow().text(),
                   containsString("lg1: dp1 (id 1) over capacity (dp1: 6.1 of 12.5 Gbit/s contracted, 2,044 of "
                                          + "1,500 sessions; taking off 1.0 Gbit/s relieves it"));
        assertThat(r.reason("lg5").orElseThrow().text(), containsString("lg5: was unplaced; moved to dp2 (id 2)"));
        assertTrue(r.unplaced().isEmpty());
        assertTrue(r.overCapacity().isEmpty());
    }

    @Test
    public void failoverMovesOnlyTheDeadInstancesGroups() {
        Pod pod = TestPods.lab();
        Placement before = engine.initial(pod);
        Placement after = engine.rebalance(pod, before, ImmutableSet.of(1, 3, 4));
        assertEquals(ImmutableSet.of("lg2"), after.changedFrom(before));
        // dp1 and dp3 would both have 6.1 of 12.5G; dp4 (gold already) more: the lower id wins
        assertEquals(map("lg1", 1, "lg2", 1, "lg3", 3, "lg4", 4), after.instances());
        for (String kept : new String[] {"lg1", "lg3", "lg4"}) {
            assertEquals(before.reason(kept), after.reason(kept));
        }
        assertThat(after.reason("lg1").orElseThrow().text(), containsString("; dp1: 1.0 of 12.5 Gbit/s contracted"));
        Reason moved = after.reason("lg2").orElseThrow();
        assertEquals(Reason.Kind.MOVED, moved.kind());
        assertEquals("lg2: instance dp2 (id 2) unavailable; moved to dp1 (id 1) (most headroom: contracts 5.1 "
                             + "Gbit/s for 1,022 sessions; dp1: 6.1 of 12.5 Gbit/s contracted, 2,044 of 65,536 "
                             + "sessions; next best dp3 (id 3) would have had 6.1 of 12.5 Gbit/s contracted, 2,044 "
                             + "of 65,536 sessions (tie: lower id wins)); contracted on port access1 12.3 of 10.0 "
                             + "Gbit/s, over its rate (no placement relieves a port)",
                     moved.text());
    }

    @Test
    public void failoverOfAnInstanceWithSeveralGroupsSpreadsThem() {
        Pod pod = new TestPods.Builder()
                .group("a", "gold", "100.80.0.0/22")
                .group("b", "gold", "100.80.4.0/23")
                .group("c", "silver", "100.80.8.0/22")
                .group("d", "silver", "100.80.12.0/22")
                .instance(1, "server1", 12_500 * M, "a", "b")
                .instance(2, "server1", 12_500 * M, "c")
                .instance(3, "server2", 12_500 * M, "d")
                .build();
        PlacementEngine emu = new PlacementEngine(Capacity.of(4096, 20));
        Placement before = emu.initial(pod);
        Placement after = emu.rebalance(pod, before, ImmutableSet.of(2, 3));
        assertEquals(ImmutableSet.of("a", "b"), after.changedFrom(before));
        // a (largest) goes to dp2 by tie on id; then dp3 has more headroom for b
        assertEquals(map("a", 2, "b", 3, "c", 2, "d", 3), after.instances());
    }

    @Test
    public void bandwidthHeadroomDecides() {
        // dp3's VF is twice as fast: it keeps the most headroom though its id is higher;
        // dp4 (an empty 5G VF) cannot take a 5.1G group at all
        Pod pod = new TestPods.Builder()
                .group("a", "gold", "100.80.0.0/22")
                .group("b", "gold", "100.80.4.0/22")
                .group("c", "gold", "100.80.8.0/22")
                .instance(1, "server1", 12_500 * M, "a")
                .instance(2, "server1", 12_500 * M, "b")
                .instance(3, "server2", 25_000 * M, "c")
                .instance(4, "server2", 5_000 * M)
                .build();
        Placement after = engine.rebalance(pod, engine.initial(pod), ImmutableSet.of(2, 3, 4));
        assertEquals(Integer.valueOf(3), after.instanceOf("a").orElseThrow());
        assertThat(after.reason("a").orElseThrow().text(),
                   containsString("moved to dp3 (id 3) (most headroom: contracts 5.1 Gbit/s for 1,022 sessions; "
                                          + "dp3: 10.2 of 25.0 Gbit/s contracted, 2,044 of 65,536 sessions; "
                                          + "next best dp2 (id 2) would have had 10.2 of 12.5 Gbit/s contracted, "
                                          + "2,044 of 65,536 sessions)"));
        assertTrue(after.groupsOn(4).isEmpty());
    }

    @Test
    public void nothingFitsLeavesTheGroupUnplacedWithTheReason() {
        Pod pod = TestPods.lab();
        PlacementEngine small = new PlacementEngine(Capacity.of(1500, 20));
        Placement before = small.initial(pod);
        assertTrue(before.overCapacity().isEmpty());
        Placement after = small.rebalance(pod, before, ImmutableSet.of(1, 3, 4));
        assertEquals(ImmutableSet.of("lg2"), after.unplaced());
        assertEquals(map("lg1", 1, "lg3", 3, "lg4", 4), after.instances());
        Reason r = after.reason("lg2").orElseThrow();
        assertEquals(Reason.Kind.UNPLACED, r.kind());
        assertEquals("lg2: instance dp2 (id 2) unavailable; unplaced: no available instance can take 5.1 Gbit/s "
                             + "for 1,022 sessions (dp1 (id 1) has 11.5 Gbit/s of 12.5 Gbit/s and 478 of 1,500 "
                             + "sessions free; dp3 (id 3) has 11.5 Gbit/s of 12.5 Gbit/s and 478 of 1,500 sessions "
                             + "free; dp4 (id 4) has 7.4 Gbit/s of 12.5 Gbit/s and 478 of 1,500 sessions free)",
                     r.text());

        // dp2 comes back: lg2 is placed again (on the empty dp2), nothing else moves
        Placement back = small.rebalance(pod, after, ALL);
        assertEquals(ImmutableSet.of("lg2"), back.changedFrom(after));
        assertEquals(Integer.valueOf(2), back.instanceOf("lg2").orElseThrow());
        assertThat(back.reason("lg2").orElseThrow().text(), containsString("lg2: was unplaced; moved to dp2 (id 2)"));
    }

    @Test
    public void noInstanceAvailable() {
        Pod pod = TestPods.lab();
        Placement after = engine.rebalance(pod, engine.initial(pod), ImmutableSet.of());
        assertTrue(after.instances().isEmpty());
        assertEquals(ImmutableSet.of("lg1", "lg2", "lg3", "lg4"), after.unplaced());
        assertThat(after.reason("lg3").orElseThrow().text(),
                   containsString("lg3: instance dp3 (id 3) unavailable; unplaced: no available instance can take "
                                          + "1.0 Gbit/s for 1,022 sessions (no instance is available)"));
    }

    @Test
    public void anInstanceComingBackDoesNotMoveGroups() {
        Pod pod = TestPods.lab();
        Placement failed = engine.rebalance(pod, engine.initial(pod), ImmutableSet.of(1, 3, 4));
        Placement back = engine.rebalance(pod, failed, ALL);
        assertEquals(failed, back);
        assertTrue(back.changedFrom(failed).isEmpty());
        assertTrue(back.groupsOn(2).isEmpty());
        // and the reason still tells why lg2 is on dp1
        assertThat(back.reason("lg2").orElseThrow().text(), containsString("instance dp2 (id 2) unavailable"));
    }

    @Test
    public void sameInputSameOutputWhateverTheOrder() {
        Pod pod = TestPods.lab();
        Pod written = TestPods.labBuilder().reversed().build();
        assertFalse(pod.equals(written));
        Placement initial = engine.initial(pod);
        assertEquals(initial, engine.initial(pod));
        assertEquals(initial, engine.initial(written));

        Set<Integer> hash = new HashMap<Integer, Boolean>(Map.of(4, true, 3, true, 1, true)).keySet();
        Set<Integer> tree = new TreeSet<>(List.of(1, 3, 4));
        Set<Integer> linked = new LinkedHashSet<>(List.of(4, 3, 1));
        Placement expected = engine.rebalance(pod, initial, tree);
        assertEquals(expected, engine.rebalance(pod, initial, hash));
        assertEquals(expected, engine.rebalance(pod, initial, linked));
        assertEquals(expected, engine.rebalance(written, engine.initial(written), linked));
        assertEquals(expected.toString(), engine.rebalance(written, initial, hash).toString());
    }

    @Test
    public void unknownIdsAndGroupsAreIgnored() {
        Pod pod = TestPods.lab();
        Placement initial = engine.initial(pod);
        Map<String, Integer> instances = new HashMap<>(initial.instances());
        Map<String, Reason> reasons = new HashMap<>(initial.reasons());
        instances.put("gone", 1);
        reasons.put("gone", Reason.of(Reason.Kind.STATED, "gone: old"));
        instances.put("lg3", 9);
        Placement current = Placement.of(instances, reasons);
        Placement after = engine.rebalance(pod, current, ImmutableSet.of(1, 2, 3, 4, 7));
        assertFalse(after.reasons().containsKey("gone"));
        assertEquals(map("lg1", 1, "lg2", 2, "lg3", 3, "lg4", 4), after.instances());
        assertThat(after.reason("lg3").orElseThrow().text(),
                   containsString("lg3: instance id 9 is not in the pod; moved to dp3 (id 3)"));
    }

    @Test
    public void capacityIsRespectedAndKeptGroupsStay() {
        // 3 servers x 2 instances, 24 groups of random sizes and profiles; instances fail one by one
        Random random = new Random(5);
        TestPods.Builder b = new TestPods.Builder();
        List<List<String>> onInstance = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            onInstance.add(new ArrayList<>());
        }
        for (int g = 0; g < 24; g++) {
            String name = String.format("g%02d", g);
            int len = 21 + random.nextInt(4);   // /21../24
            b.group(name, random.nextBoolean() ? "gold" : "silver",
                    String.format("10.%d.0.0/%d", g, len));
            onInstance.get(g % 6).add(name);
        }
        for (int i = 0; i < 6; i++) {
            b.instance(i + 1, "server" + (i / 2 + 1), (5 + 5 * (i % 3)) * G,
                       onInstance.get(i).toArray(new String[0]));
        }
        Pod pod = b.build();
        PlacementEngine e = new PlacementEngine(Capacity.of(8192, 30));
        Placement current = e.initial(pod);
        Set<Integer> available = new TreeSet<>(List.of(1, 2, 3, 4, 5, 6));
        for (int dead : new int[] {3, 1, 6, 2}) {
            available.remove(dead);
            Placement next = e.rebalance(pod, current, available);
            checkCapacity(e, pod, next);
            for (Map.Entry<String, Integer> kept : current.instances().entrySet()) {
                if (available.contains(kept.getValue()) && !current.overCapacity().contains(kept.getKey())) {
                    assertEquals(kept.getKey(), kept.getValue(), next.instances().get(kept.getKey()));
                }
            }
            for (String g : next.unplaced()) {
                assertEquals(Reason.Kind.UNPLACED, next.reason(g).orElseThrow().kind());
            }
            assertEquals(pod.lineGroups().size(), next.reasons().size());
            current = next;
        }
        // with two instances left, something did not fit
        assertFalse(current.unplaced().isEmpty());
        // bring everything back: placed groups stay, unplaced ones find room
        Placement back = e.rebalance(pod, current, ImmutableSet.of(1, 2, 3, 4, 5, 6));
        checkCapacity(e, pod, back);
        assertTrue(back.unplaced().isEmpty());
        for (Map.Entry<String, Integer> kept : current.instances().entrySet()) {
            assertEquals(kept.getValue(), back.instances().get(kept.getKey()));
        }
    }

    private static void checkCapacity(PlacementEngine e, Pod pod, Placement p) {
        for (DpInstance instance : pod.instances()) {
            long sessions = 0;
            long bandwidth = 0;
            for (String g : p.groupsOn(instance.id())) {
                LineGroup group = pod.lineGroup(g).orElseThrow();
                sessions += e.expectedSessions(pod, group);
                bandwidth += e.contractedRate(pod, group);
            }
            assertTrue(instance.name() + " sessions " + sessions, sessions <= e.capacity().sessions());
            assertTrue(instance.name() + " bandwidth " + bandwidth, bandwidth <= e.rateCapacity(pod, instance));
        }
    }

    @Test
    public void badArguments() {
        assertThrows(IllegalArgumentException.class, () -> Capacity.of(0, 20));
        assertThrows(IllegalArgumentException.class, () -> Capacity.of(10, 0));
        assertThrows(IllegalArgumentException.class,
                     () -> Placement.of(map("lg1", 1), ImmutableMap.of()));
        assertThrows(NullPointerException.class, () -> engine.initial(null));
    }

    private static Pod stagPod(String... placement) {
        // lg1, lg2 and lg3 use S-tag 100, each on an access port of its own
        return new TestPods.Builder()
                .group("lg1", "silver", "100.80.0.0/22")
                .group("lg2", "silver", "100.80.4.0/23")
                .group("lg3", "silver", "100.80.8.0/24")
                .lines("lg1", AccessLine.of("access1", VlanRange.of(100, 101)))
                .lines("lg2", AccessLine.of("access2", VlanRange.of(90, 100)))
                .lines("lg3", AccessLine.of("access3", VlanRange.single(100)))
                .instance(1, "server1", 12_500 * M, placement[0].isEmpty() ? new String[0] : placement[0].split(","))
                .instance(2, "server1", 12_500 * M, placement[1].isEmpty() ? new String[0] : placement[1].split(","))
                .instance(3, "server2", 12_500 * M, placement[2].isEmpty() ? new String[0] : placement[2].split(","))
                .build();
    }

    @Test
    public void neverTheSameStagOnTwoAccessPortsOfOneInstance() {
        Pod pod = stagPod("lg1", "lg2", "lg3");
        Placement p = engine.initial(pod);
        // instance 2 fails: lg2 would have most headroom on 3 with lg3 (S-tag 100 on access3)
        // and on 1 with lg1 (S-tag 100 on access1): both conflict, so it stays unplaced
        Placement q = engine.rebalance(pod, p, ImmutableSet.of(1, 3));
        assertEquals(map("lg1", 1, "lg3", 3), q.instances());
        assertEquals(Reason.Kind.UNPLACED, q.reason("lg2").orElseThrow().kind());
        assertEquals("lg2: instance dp2 (id 2) unavailable; unplaced: no available instance can take "
                             + "510.0 Mbit/s for 510 sessions (dp1 (id 1): S-tag 100 of lg2 on access2 is lg1's "
                             + "on access1 there; dp3 (id 3): S-tag 100 of lg2 on access2 is lg3's on access3 there)",
                     q.reason("lg2").orElseThrow().text());
        // an instance whose groups use other S-tags takes it
        Placement r = engine.rebalance(pod, engine.initial(stagPod("lg1", "lg2", "")), ImmutableSet.of(1, 3));
        assertEquals(map("lg1", 1, "lg2", 3), r.instances());
    }

    @Test
    public void aStatedConflictIsUnplacedAndRebalancedAway() {
        Pod pod = stagPod("lg1,lg2", "", "lg3");
        Placement p = engine.initial(pod);
        assertEquals(map("lg1", 1, "lg3", 3), p.instances());
        assertEquals("lg2: unplaced: the pod file states dp1 (id 1), but S-tag 100 of lg2 on access2 is lg1's "
                             + "on access1 there; a re-balance places it", p.reason("lg2").orElseThrow().text());
        Placement q = engine.rebalance(pod, p, ImmutableSet.of(1, 2, 3));
        assertEquals(map("lg1", 1, "lg2", 2, "lg3", 3), q.instances());
        assertEquals(Reason.Kind.MOVED, q.reason("lg2").orElseThrow().kind());
        assertThat(q.reason("lg2").orElseThrow().text(), containsString("was unplaced; moved to dp2 (id 2)"));
    }

    /** gold and silver split S-tag 100 of access1 by C-tag; other has S-tags of its own. */
    private static Pod splitPod(String... placement) {
        return new TestPods.Builder()
                .group("gold", "gold", "100.80.0.0/22")
                .group("silver", "silver", "100.80.4.0/22")
                .group("other", "silver", "100.80.8.0/24")
                .lines("gold", AccessLine.of("access1", VlanRange.single(100), VlanRange.of(1, 1999)),
                       AccessLine.of("access2", VlanRange.of(200, 209)))
                .lines("silver", AccessLine.of("access1", VlanRange.single(100), VlanRange.of(2000, 4094)))
                .lines("other", AccessLine.of("access1", VlanRange.of(300, 309)))
                .instance(1, "server1", 12_500 * M, placement[0].isEmpty() ? new String[0] : placement[0].split(","))
                .instance(2, "server1", 12_500 * M, placement[1].isEmpty() ? new String[0] : placement[1].split(","))
                .instance(3, "server2", 12_500 * M, placement[2].isEmpty() ? new String[0] : placement[2].split(","))
                .build();
    }

    @Test
    public void groupsThatSplitAnStagArePlacedWhereTheFirstOfThemIsStated() {
        Placement p = engine.initial(splitPod("gold", "silver", "other"));
        assertEquals(map("gold", 1, "silver", 1, "other", 3), p.instances());
        assertEquals(Reason.Kind.STATED, p.reason("gold").orElseThrow().kind());
        assertEquals(Reason.of(Reason.Kind.SHARED_STAG,
                               "silver: on dp1 (id 1) with gold, not on dp2 (id 2) as the pod file states: gold and "
                                       + "silver share S-tag 100 on access1, and ONOS's switch pipelines cannot split "
                                       + "an S-tag by C-tag; contracts 1.0 Gbit/s for 1,022 sessions; dp1: 6.1 of "
                                       + "12.5 Gbit/s contracted, 2,044 of 65,536 sessions; contracted on port "
                                       + "access1 6.4 of 10.0 Gbit/s"),
                     p.reason("silver").orElseThrow());
        assertTrue(engine.keepsSharedStagsTogether(splitPod("gold", "silver", "other"), p));
        // a group the pod file places nowhere follows the others too
        Placement q = engine.initial(splitPod("gold", "", "other"));
        assertEquals(map("gold", 1, "silver", 1, "other", 3), q.instances());
        assertThat(q.reason("silver").orElseThrow().text(),
                   containsString("with gold, not unplaced as the pod file leaves it"));
    }

    @Test
    public void groupsThatSplitAnStagFailOverTogether() {
        Pod pod = splitPod("gold,silver", "", "other");
        Placement p = engine.initial(pod);
        Placement q = engine.rebalance(pod, p, ImmutableSet.of(2, 3));
        assertEquals(map("gold", 2, "silver", 2, "other", 3), q.instances());
        assertEquals(ImmutableSet.of("gold", "silver"), q.changedFrom(p));
        assertEquals("silver: instance dp1 (id 1) unavailable; moved to dp2 (id 2) with gold (gold and silver share "
                             + "S-tag 100 on access1, and ONOS's switch pipelines cannot split an S-tag by C-tag) "
                             + "(most headroom: contracts together 6.1 Gbit/s for 2,044 sessions; dp2: 6.1 of 12.5 "
                             + "Gbit/s contracted, 2,044 of 65,536 sessions; next best dp3 (id 3) would have had 6.4 "
                             + "of 12.5 Gbit/s contracted, 2,298 of 65,536 sessions); contracted on port access1 6.4 "
                             + "of 10.0 Gbit/s",
                     q.reason("silver").orElseThrow().text());
        assertEquals(Reason.Kind.MOVED, q.reason("gold").orElseThrow().kind());
        // no room for both anywhere: both unplaced, never one without the other
        Placement none = new PlacementEngine(Capacity.of(1500, 20)).rebalance(pod, p, ImmutableSet.of(2, 3));
        assertEquals(map("other", 3), none.instances());
        assertThat(none.reason("gold").orElseThrow().text(), containsString("no available instance can take "
                + "together 6.1 Gbit/s for 2,044 sessions"));
        assertTrue(engine.keepsSharedStagsTogether(pod, none));
    }

    @Test
    public void aPlacementThatSplitsAnStagIsJoinedWhereItsFirstGroupIs() {
        // e.g. a placement stored before the rule, or written by hand
        Pod pod = splitPod("gold", "silver", "other");
        Placement split = Placement.of(map("gold", 1, "silver", 2, "other", 3), ImmutableMap.of(
                "gold", Reason.of(Reason.Kind.STATED, "gold"), "silver", Reason.of(Reason.Kind.STATED, "silver"),
                "other", Reason.of(Reason.Kind.STATED, "other")));
        assertFalse(engine.keepsSharedStagsTogether(pod, split));
        Placement q = engine.rebalance(pod, split, ImmutableSet.of(1, 2, 3));
        assertEquals(map("gold", 1, "silver", 1, "other", 3), q.instances());
        // the kept reason, with the ports' figures of the new placement
        assertEquals(Reason.of(Reason.Kind.STATED, "gold; contracted on port access1 6.4 of 10.0 Gbit/s, "
                + "port access2 5.1 of 10.0 Gbit/s"), q.reason("gold").orElseThrow());
        assertEquals(Reason.Kind.SHARED_STAG, q.reason("silver").orElseThrow().kind());
        assertThat(q.reason("silver").orElseThrow().text(), containsString("silver: on dp1 (id 1) with gold, not on dp2 (id 2):"));
        assertTrue(engine.keepsSharedStagsTogether(pod, q));
    }
}
