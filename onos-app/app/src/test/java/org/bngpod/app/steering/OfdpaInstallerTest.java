package org.bngpod.app.steering;

import com.google.common.collect.ImmutableSet;
import org.bngpod.api.Pod;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.PlacementEngine;
import org.junit.Test;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flowobjective.FilteringObjective;
import org.onosproject.net.flowobjective.FlowObjectiveServiceAdapter;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.NextObjective;
import org.onosproject.net.flowobjective.Objective;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The OF-DPA side of the installer against ONOS's flow objective service
 * adapter: the order objectives are sent in (filtering, next, forwarding;
 * removals the other way round), next ids from the service, the failover
 * difference, and a device changing pipeline.
 */
public class OfdpaInstallerTest {

    private static final ApplicationId APP = new TestApplicationId("org.bngpod.app");
    private static final DeviceId LEAF = DeviceId.deviceId("of:0000000000000001");

    /** Records every objective as "kind op", answering each with success. */
    private static final class Recording extends FlowObjectiveServiceAdapter {
        final List<String> sent = new ArrayList<>();
        final List<Objective> objectives = new ArrayList<>();
        int nextId = 100;

        @Override
        public int allocateNextId() {
            return ++nextId;
        }

        @Override
        public void filter(DeviceId deviceId, FilteringObjective objective) {
            record("filter", objective);
        }

        @Override
        public void next(DeviceId deviceId, NextObjective objective) {
            record("next", objective);
        }

        @Override
        public void forward(DeviceId deviceId, ForwardingObjective objective) {
            record(objective.flag() == ForwardingObjective.Flag.VERSATILE && objective.nextId() == null
                           ? "steer" : "forward", objective);
        }

        private void record(String kind, Objective objective) {
            sent.add(kind + " " + objective.op());
            objectives.add(objective);
            objective.context().ifPresent(c -> c.onSuccess(objective));
        }

        /** The sequence with consecutive repeats folded. */
        List<String> phases() {
            List<String> phases = new ArrayList<>();
            for (String s : sent) {
                if (phases.isEmpty() || !phases.get(phases.size() - 1).equals(s)) {
                    phases.add(s);
                }
            }
            return phases;
        }

        void clear() {
            sent.clear();
            objectives.clear();
        }
    }

    @Test
    public void installsInOrderAndRemovesInReverse() throws IOException {
        Pod pod = OfdpaSteeringTest.wholeSTagLab();
        PlacementEngine engine = new PlacementEngine();
        Placement before = engine.initial(pod);
        Recording fos = new Recording();
        SteeringInstaller installer = new SteeringInstaller(fos, APP);

        installer.apply(LEAF, SteeringPlan.compute(pod, before, Pipeline.OFDPA));
        assertEquals(List.of("filter ADD", "next ADD", "forward ADD"), fos.phases());
        assertEquals(fos.sent.size(), installer.successes());
        // every forwarding objective points at a next id the service allocated and a next objective carried
        Set<Integer> nextIds = fos.objectives.stream().filter(o -> o instanceof NextObjective)
                .map(Objective::id).collect(Collectors.toSet());
        assertTrue(fos.objectives.stream().filter(o -> o instanceof ForwardingObjective)
                           .allMatch(o -> nextIds.contains(((ForwardingObjective) o).nextId())));
        assertEquals(Set.copyOf(installer.nextIds(LEAF).values()), nextIds);

        fos.clear();
        installer.apply(LEAF, SteeringPlan.compute(pod, before, Pipeline.OFDPA));
        assertEquals(List.of(), fos.sent);

        fos.clear();
        Placement after = engine.rebalance(pod, before, ImmutableSet.of(1, 2, 4));
        installer.apply(LEAF, SteeringPlan.compute(pod, after, Pipeline.OFDPA));
        assertEquals(List.of("forward REMOVE", "next REMOVE_FROM_EXISTING", "filter ADD", "next ADD_TO_EXISTING",
                             "forward ADD", "filter REMOVE"), fos.phases());

        fos.clear();
        installer.resync(LEAF);
        assertEquals(List.of("filter ADD", "forward ADD"), fos.phases());

        fos.clear();
        installer.withdraw(LEAF);
        assertEquals(List.of("forward REMOVE", "next REMOVE", "filter REMOVE"), fos.phases());
        assertTrue(installer.installedOfdpa(LEAF).filters().isEmpty());
        assertEquals(0, installer.errors());
    }

    @Test
    public void aDeviceChangingPipelineLosesTheOtherRendering() throws IOException {
        Pod pod = OfdpaSteeringTest.wholeSTagLab();
        Placement placement = new PlacementEngine().initial(pod);
        Recording fos = new Recording();
        SteeringInstaller installer = new SteeringInstaller(fos, APP);

        installer.apply(LEAF, SteeringPlan.compute(pod, placement, Pipeline.SINGLE_TABLE));
        assertEquals(List.of("steer ADD"), fos.phases());
        fos.clear();
        installer.apply(LEAF, SteeringPlan.compute(pod, placement, Pipeline.OFDPA));
        assertEquals(List.of("steer REMOVE", "filter ADD", "next ADD", "forward ADD"), fos.phases());
        assertEquals(Set.of(), installer.installed(LEAF));
        fos.clear();
        installer.apply(LEAF, SteeringPlan.compute(pod, placement, Pipeline.SINGLE_TABLE));
        assertEquals(List.of("forward REMOVE", "next REMOVE", "filter REMOVE", "steer ADD"), fos.phases());
        assertTrue(installer.installedOfdpa(LEAF).forwards().isEmpty());
        assertEquals(SteeringPlan.compute(pod, placement), installer.installed(LEAF));
    }
}
