package org.bngpod.app.placement;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.bngpod.api.AccessLine;
import org.bngpod.api.Pod;
import org.bngpod.api.VlanRange;
import org.junit.Test;

import java.util.Map;

import static org.bngpod.app.placement.TestPods.G;
import static org.bngpod.app.placement.TestPods.M;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * Placement by contracted rates (issue 20 item 3): against the instances'
 * VF rates rather than session counts, a re-balance relieving an instance by
 * the group whose rate does it, the S-tag rule kept, and the figures in the
 * reasons.
 */
public class QosPlacementTest {

    private final PlacementEngine engine = new PlacementEngine();

    private static Map<String, Integer> map(Object... kv) {
        ImmutableMap.Builder<String, Integer> b = ImmutableMap.builder();
        for (int i = 0; i < kv.length; i += 2) {
            b.put((String) kv[i], (Integer) kv[i + 1]);
        }
        return b.build();
    }

    @Test
    public void aProfilesGuaranteedRateIsWhatASessionContracts() {
        Pod pod = new TestPods.Builder()
                .group("biz", "business", "10.0.0.0/24")
                .group("gold", "gold", "10.0.4.0/22")
                .instance(1, "server1", 10 * G, "biz", "gold")
                .build();
        // 254 sessions x 20M guaranteed; gold states none: 100M / 20 (Capacity's ratio) a session
        assertEquals(254 * 20 * M, engine.contractedRate(pod, pod.lineGroup("biz").orElseThrow()));
        assertEquals(1022 * 5 * M, engine.contractedRate(pod, pod.lineGroup("gold").orElseThrow()));
        assertEquals(10 * G, engine.rateCapacity(pod, pod.instance(1).orElseThrow()));
    }

    @Test
    public void aGroupThatFitsBySessionsButNotByRateGoesElsewhere() {
        // dp1 (a 10G VF) is stated gold (5.11G) and biz (5.08G): 1,276 of 65,536 sessions, but 10.19G
        Pod pod = new TestPods.Builder()
                .group("gold", "gold", "10.0.4.0/22")
                .group("biz", "business", "10.0.0.0/24")
                .instance(1, "server1", 10 * G, "gold", "biz")
                .instance(2, "server1", 10 * G)
                .build();
        Placement initial = engine.initial(pod);
        assertEquals(ImmutableSet.of("biz"), initial.overCapacity());
        assertThat(initial.reason("biz").orElseThrow().text(), containsString(
                "but dp1 (id 1) over capacity (dp1: 10.2 of 10.0 Gbit/s contracted, 1,276 of 65,536 sessions; "
                        + "taking off 5.1 Gbit/s relieves it: the smallest group that brings it within capacity)"));
        Placement after = engine.rebalance(pod, initial, ImmutableSet.of(1, 2));
        assertEquals(map("gold", 1, "biz", 2), after.instances());
        assertEquals(Reason.Kind.MOVED, after.reason("biz").orElseThrow().kind());
        assertThat(after.reason("biz").orElseThrow().text(), containsString(
                "moved to dp2 (id 2) (most headroom: contracts 5.1 Gbit/s for 254 sessions; dp2: 5.1 of 10.0 Gbit/s "
                        + "contracted, 254 of 65,536 sessions; no other instance could take it)"));
        assertTrue(after.overCapacity().isEmpty());
        // and it stays there
        assertEquals(after, engine.rebalance(pod, after, ImmutableSet.of(1, 2)));
    }

    /** dp1 (7G) holds big (5.11G, 1,022 sessions), many (2.05G, 2,046) and small (0.51G, 510): 7.67G. */
    private static Pod loadedPod() {
        return new TestPods.Builder()
                .group("big", "gold", "10.1.0.0/22")
                .group("many", "silver", "10.2.0.0/21")
                .group("small", "silver", "10.3.0.0/23")
                .group("x", "silver", "10.4.0.0/22")
                .instance(1, "server1", 7 * G, "big", "many", "small")
                .instance(2, "server1", 10 * G, "x")
                .instance(3, "server2", 10 * G)
                .build();
    }

    @Test
    public void rebalanceMovesTheGroupWhoseRateRelievesTheMostLoadedInstance() {
        Pod pod = loadedPod();
        // a placement that put everything there (kept, e.g. stored before a VF got slower)
        Placement current = Placement.of(
                map("big", 1, "many", 1, "small", 1, "x", 2),
                ImmutableMap.of("big", Reason.of(Reason.Kind.KEPT, "big"), "many", Reason.of(Reason.Kind.KEPT, "many"),
                                "small", Reason.of(Reason.Kind.KEPT, "small"), "x", Reason.of(Reason.Kind.KEPT, "x")));
        Placement after = engine.rebalance(pod, current, ImmutableSet.of(1, 2, 3));
        // 0.67G too much: many (2.05G) is the smallest group whose move is enough; small (0.51G) is not,
        // and big would move 5.11G; by sessions (the old order) big would have gone
        assertEquals(ImmutableSet.of("many"), after.changedFrom(current));
        // to dp3, which has the most contracted rate free (dp2 would have 3.1 of 10G)
        assertEquals(map("big", 1, "many", 3, "small", 1, "x", 2), after.instances());
        assertEquals("many: dp1 (id 1) over capacity (dp1: 7.7 of 7.0 Gbit/s contracted, 3,578 of 65,536 sessions; "
                             + "taking off 2.0 Gbit/s relieves it: the smallest group that brings it within capacity); "
                             + "moved to dp3 (id 3) (most headroom: contracts 2.0 Gbit/s for 2,046 sessions; dp3: 2.0 "
                             + "of 10.0 Gbit/s contracted, 2,046 of 65,536 sessions; next best dp2 (id 2) would have "
                             + "had 3.1 of 10.0 Gbit/s contracted, 3,068 of 65,536 sessions); contracted on port "
                             + "access1 8.7 of 10.0 Gbit/s",
                     after.reason("many").orElseThrow().text());
        // the pod file's own placement marks the same group, and a re-balance moves just it
        Placement initial = engine.initial(pod);
        assertEquals(ImmutableSet.of("many"), initial.overCapacity());
        assertEquals(ImmutableSet.of("many"), engine.rebalance(pod, initial, ImmutableSet.of(1, 2, 3))
                .changedFrom(initial));
    }

    @Test
    public void noOneGroupIsEnoughThenTheLargestGoesFirst() {
        // dp1 (5G) stated three silver /22s and a /23: 3.58G of... on a 3G VF: 0.58G too much
        Pod pod = new TestPods.Builder()
                .group("a", "silver", "10.1.0.0/22")
                .group("b", "silver", "10.2.0.0/22")
                .group("c", "silver", "10.3.0.0/22")
                .group("d", "silver", "10.4.0.0/24")
                .instance(1, "server1", 2_500 * M, "a", "b", "c", "d")
                .instance(2, "server1", 10 * G)
                .build();
        // 3.32G on 2.5G: 0.82G too much, more than any one group (1.02G is a, b, c: the smallest of them is enough)
        Placement initial = engine.initial(pod);
        assertEquals(1, initial.overCapacity().size());
        // on a 1.5G VF: 1.82G too much: no one group is enough, so the largest goes, then the smallest that is
        Pod tight = new TestPods.Builder()
                .group("a", "silver", "10.1.0.0/22")
                .group("b", "silver", "10.2.0.0/22")
                .group("c", "silver", "10.3.0.0/22")
                .group("d", "silver", "10.4.0.0/24")
                .instance(1, "server1", 1_500 * M, "a", "b", "c", "d")
                .instance(2, "server1", 10 * G)
                .build();
        Placement p = engine.initial(tight);
        assertEquals(ImmutableSet.of("a", "b"), p.overCapacity());
        assertThat(p.reason("a").orElseThrow().text(),
                   containsString("the largest group: no one group brings it within capacity"));
        Placement q = engine.rebalance(tight, p, ImmutableSet.of(1, 2));
        assertEquals(map("a", 2, "b", 2, "c", 1, "d", 1), q.instances());
    }

    @Test
    public void groupsThatShareAnStagAreTakenOffTogether() {
        // gold and silver split S-tag 100 of access1 (6.13G together); dp1 is a 6G VF with other (0.51G) too
        Pod pod = new TestPods.Builder()
                .group("gold", "gold", "100.80.0.0/22")
                .group("silver", "silver", "100.80.4.0/22")
                .group("other", "silver", "100.80.8.0/23")
                .lines("gold", AccessLine.of("access1", VlanRange.single(100), VlanRange.of(1, 1999)))
                .lines("silver", AccessLine.of("access1", VlanRange.single(100), VlanRange.of(2000, 4094)))
                .lines("other", AccessLine.of("access1", VlanRange.of(300, 309)))
                .instance(1, "server1", 6 * G, "gold", "silver", "other")
                .instance(2, "server1", 12_500 * M)
                .build();
        Placement p = engine.initial(pod);
        // only the two together relieve dp1: both are marked, never one of them
        assertEquals(ImmutableSet.of("gold", "silver"), p.overCapacity());
        Placement q = engine.rebalance(pod, p, ImmutableSet.of(1, 2));
        assertEquals(map("gold", 2, "silver", 2, "other", 1), q.instances());
        assertTrue(engine.keepsSharedStagsTogether(pod, q));
        assertThat(q.reason("silver").orElseThrow().text(), containsString(
                "taking off 6.1 Gbit/s relieves it: the smallest group that brings it within capacity); moved to "
                        + "dp2 (id 2) with gold (gold and silver share S-tag 100 on access1"));
        assertThat(q.reason("silver").orElseThrow().text(), containsString("contracts together 6.1 Gbit/s"));
    }

    @Test
    public void theReasonsNameTheAccessPortsFigures() {
        // lg2 has lines on access2 and access1; access1 carries every group's lines: 12.3G contracted on 10G
        Pod pod = TestPods.labBuilder()
                .lines("lg2", AccessLine.of("access2", VlanRange.of(200, 249)),
                       AccessLine.of("access1", VlanRange.of(150, 159)))
                .build();
        Placement p = engine.initial(pod);
        assertThat(p.reason("lg2").orElseThrow().text(), containsString(
                "; dp2: 5.1 of 12.5 Gbit/s contracted, 1,022 of 65,536 sessions; contracted on port access2 5.1 of "
                        + "10.0 Gbit/s, port access1 12.3 of 10.0 Gbit/s, over its rate (no placement relieves a "
                        + "port)"));
        // a port over its rate moves nothing
        assertTrue(p.overCapacity().isEmpty());
        assertEquals(p, engine.rebalance(pod, p, ImmutableSet.of(1, 2, 3, 4)));
        // unplaced groups count on no port, and their reasons name none
        Placement q = engine.rebalance(pod, p, ImmutableSet.of());
        assertThat(q.reason("lg2").orElseThrow().text(), containsString("no instance is available"));
        assertTrue(!q.reason("lg2").orElseThrow().text().contains("contracted on port"));
    }
}
