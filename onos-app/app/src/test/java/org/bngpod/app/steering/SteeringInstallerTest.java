package org.bngpod.app.steering;

import com.google.common.collect.ImmutableSet;
import org.bngpod.api.Pod;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.PlacementEngine;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flowobjective.FlowObjectiveServiceAdapter;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.Objective;
import org.onosproject.net.flowobjective.ObjectiveError;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The installer against ONOS's flow objective service adapter: it sends the
 * difference, replaces re-steered entries instead of removing them, re-sends
 * on resync, removes on withdraw, and counts objective errors.
 */
public class SteeringInstallerTest {

    private static final ApplicationId APP = new TestApplicationId("org.bngpod.app");
    private static final DeviceId LEAF = DeviceId.deviceId("of:0000000000000001");
    private static final DeviceId OTHER = DeviceId.deviceId("of:0000000000000002");

    /** Records forwarding objectives; answers each through its context, failing those it is told to. */
    private static final class RecordingObjectives extends FlowObjectiveServiceAdapter {
        final List<DeviceId> devices = new ArrayList<>();
        final List<ForwardingObjective> sent = new ArrayList<>();
        int failEvery;

        @Override
        public void forward(DeviceId deviceId, ForwardingObjective objective) {
            devices.add(deviceId);
            sent.add(objective);
            objective.context().ifPresent(c -> {
                if (failEvery > 0 && sent.size() % failEvery == 0) {
                    c.onError(objective, ObjectiveError.FLOWINSTALLATIONFAILED);
                } else {
                    c.onSuccess(objective);
                }
            });
        }

        List<ForwardingObjective> ops(Objective.Operation op) {
            return sent.stream().filter(o -> o.op() == op).collect(Collectors.toList());
        }

        void clear() {
            devices.clear();
            sent.clear();
        }
    }

    private RecordingObjectives fos;
    private SteeringInstaller installer;
    private Pod pod;
    private Placement initial;
    private Set<Steer> plan;

    @Before
    public void setUp() throws IOException {
        fos = new RecordingObjectives();
        installer = new SteeringInstaller(fos, APP);
        pod = LabPods.golden();
        initial = new PlacementEngine().initial(pod);
        plan = SteeringPlan.compute(pod, initial);
    }

    private static Set<Steer> asSteers(List<ForwardingObjective> objectives, Set<Steer> universe) {
        Set<Steer> found = new HashSet<>();
        for (ForwardingObjective o : objectives) {
            found.add(universe.stream().filter(s -> s.selector().equals(o.selector())
                    && s.treatment().equals(o.treatment()) && s.priority() == o.priority())
                              .findFirst().orElseThrow(() -> new AssertionError("not a steer: " + o)));
        }
        return found;
    }

    @Test
    public void firstApplyAddsEverything() {
        installer.apply(LEAF, plan);
        assertEquals(plan.size(), fos.sent.size());
        assertEquals(plan.size(), fos.ops(Objective.Operation.ADD).size());
        assertEquals(plan, asSteers(fos.sent, plan));
        assertTrue(fos.devices.stream().allMatch(LEAF::equals));
        assertTrue(fos.sent.stream().allMatch(o -> o.appId().equals(APP) && o.permanent()
                && o.flag() == ForwardingObjective.Flag.VERSATILE));
        assertEquals(plan, installer.installed(LEAF));
        assertEquals(plan.size(), installer.successes());
        assertEquals(0, installer.errors());
        assertEquals(ImmutableSet.of(), installer.installed(OTHER));
    }

    @Test
    public void applyingTheSamePlanSendsNothing() {
        installer.apply(LEAF, plan);
        fos.clear();
        installer.apply(LEAF, SteeringPlan.compute(pod, initial));
        assertEquals(0, fos.sent.size());
    }

    @Test
    public void failoverSendsOnlyTheMovedGroupsDifference() {
        installer.apply(LEAF, plan);
        fos.clear();
        Placement after = new PlacementEngine().rebalance(pod, initial, ImmutableSet.of(1, 3, 4));
        assertEquals(Integer.valueOf(3), after.instanceOf("lg2").orElseThrow()); // from srv1 to srv2
        Set<Steer> next = SteeringPlan.compute(pod, after);
        installer.apply(LEAF, next);

        Set<Steer> added = asSteers(fos.ops(Objective.Operation.ADD), next);
        Set<Steer> removed = asSteers(fos.ops(Objective.Operation.REMOVE), plan);
        Set<Steer> expectedAdded = new HashSet<>(next);
        expectedAdded.removeAll(plan);
        assertEquals(expectedAdded, added);
        assertTrue(added.stream().allMatch(s -> s.lineGroup().equals("lg2")));
        assertTrue(removed.stream().allMatch(s -> s.lineGroup().equals("lg2") && s.instance() == 2));
        // steers whose match stays (access and core towards the instance) are replaced, never removed:
        // a removal after the add would delete the new entry
        Set<TrafficSelector> addedMatches = added.stream().map(Steer::selector).collect(Collectors.toSet());
        assertTrue(removed.stream().noneMatch(s -> addedMatches.contains(s.selector())));
        // what is removed is what came from dp2's port: lines back to the access ports and its core side
        Set<Steer> expectedRemoved = plan.stream().filter(s -> s.lineGroup().equals("lg2")
                && !addedMatches.contains(s.selector())).collect(Collectors.toSet());
        assertEquals(expectedRemoved, removed);
        // LINE_DOWN per S-tag, CORE_UP, CORE_ARP_UP, and CORE_ND_UP (NS, NA) when lg2 has a core IPv6 address
        int nd = pod.lineGroup("lg2").orElseThrow().coreAddress6().isPresent() ? 2 : 0;
        assertEquals(50 + 10 + 2 + nd, removed.size());
        assertEquals(next, installer.installed(LEAF));
    }

    @Test
    public void resyncResendsEverythingApplied() {
        installer.apply(LEAF, plan);
        fos.clear();
        installer.resync(LEAF);
        assertEquals(plan.size(), fos.ops(Objective.Operation.ADD).size());
        assertEquals(plan, asSteers(fos.sent, plan));
        fos.clear();
        installer.resync(OTHER);
        assertEquals(0, fos.sent.size());
    }

    @Test
    public void withdrawRemovesEverythingInstalled() {
        installer.apply(LEAF, plan);
        installer.apply(OTHER, plan);
        fos.clear();
        installer.withdraw(LEAF);
        assertEquals(plan.size(), fos.ops(Objective.Operation.REMOVE).size());
        assertEquals(plan, asSteers(fos.sent, plan));
        assertTrue(fos.devices.stream().allMatch(LEAF::equals));
        assertEquals(ImmutableSet.of(), installer.installed(LEAF));
        assertEquals(plan, installer.installed(OTHER));
        fos.clear();
        installer.withdraw(LEAF);
        assertEquals(0, fos.sent.size());
        // applying an empty plan removes as withdraw does
        installer.apply(OTHER, ImmutableSet.of());
        assertEquals(plan.size(), fos.ops(Objective.Operation.REMOVE).size());
        assertEquals(ImmutableSet.of(), installer.installed(OTHER));
    }

    @Test
    public void objectiveErrorsAreCountedAndResyncRetries() {
        fos.failEvery = 100;
        installer.apply(LEAF, plan);
        assertEquals(plan.size() / 100, installer.errors());
        assertEquals(plan.size() - plan.size() / 100, installer.successes());
        assertEquals(plan, installer.installed(LEAF));
        fos.failEvery = 0;
        installer.resync(LEAF);
        assertEquals(plan.size() / 100, installer.errors());
        assertEquals(2L * plan.size() - plan.size() / 100, installer.successes());
    }
}
