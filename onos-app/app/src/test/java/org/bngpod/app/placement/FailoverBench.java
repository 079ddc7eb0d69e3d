package org.bngpod.app.placement;

import org.bngpod.api.Pod;
import org.bngpod.app.steering.Pipeline;
import org.bngpod.app.steering.Steering;
import org.bngpod.app.steering.SteeringInstaller;
import org.bngpod.app.steering.SteeringPlan;
import org.junit.Test;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flowobjective.FilteringObjective;
import org.onosproject.net.flowobjective.FlowObjectiveServiceAdapter;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.NextObjective;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * What the ONOS app's side of a failover costs in CPU: re-balance, the new
 * steering plan and the objectives the installer sends for the difference, on
 * a large pod (240 line groups of 10 S-tags, 48 instances on 24 servers), for
 * both renderings. Prints one JSON line per pipeline; not part of the test
 * suite (Surefire runs *Test classes): {@code make bench-onos} or
 * {@code mvn -B -o -q test -Dtest=FailoverBench -DfailIfNoTests=false}.
 */
public class FailoverBench {

    private static final long G = 1_000_000_000L;
    private static final int GROUPS = 240;
    private static final int INSTANCES = 48;
    private static final int ROUNDS = 30;

    /** Counts the objectives sent, by kind. */
    private static final class CountingObjectives extends FlowObjectiveServiceAdapter {
        final AtomicInteger sent = new AtomicInteger();
        final AtomicInteger nextIds = new AtomicInteger(1);

        @Override
        public void filter(DeviceId deviceId, FilteringObjective filteringObjective) {
            sent.incrementAndGet();
        }

        @Override
        public void forward(DeviceId deviceId, ForwardingObjective forwardingObjective) {
            sent.incrementAndGet();
        }

        @Override
        public void next(DeviceId deviceId, NextObjective nextObjective) {
            sent.incrementAndGet();
        }

        @Override
        public int allocateNextId() {
            return nextIds.getAndIncrement();
        }
    }

    private static Pod bigPod() {
        TestPods.Builder b = new TestPods.Builder();
        List<List<String>> on = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            on.add(new ArrayList<>());
        }
        for (int g = 0; g < GROUPS; g++) {
            String name = String.format(Locale.ROOT, "g%03d", g);
            b.group(name, g % 2 == 0 ? "gold" : "silver", String.format(Locale.ROOT, "10.%d.%d.0/24", g / 200,
                                                                         g % 200));
            on.get(g % INSTANCES).add(name);
        }
        for (int i = 0; i < INSTANCES; i++) {
            b.instance(i + 1, "server" + (i / 2 + 1), 12 * G, on.get(i).toArray(new String[0]));
        }
        return b.build();
    }

    /** Median of ROUNDS runs, in microseconds. */
    private static double medianMicros(Runnable work) {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            long t0 = System.nanoTime();
            work.run();
            times.add(System.nanoTime() - t0);
        }
        times.sort(Long::compare);
        return times.get(ROUNDS / 2) / 1000.0;
    }

    @Test
    public void failoverCost() {
        Pod pod = bigPod();
        PlacementEngine engine = new PlacementEngine(Capacity.of(65_536, 20));
        Placement before = engine.initial(pod);
        Set<Integer> available = new TreeSet<>();
        for (int i = 1; i <= INSTANCES; i++) {
            available.add(i);
        }
        available.remove(1);
        Placement after = engine.rebalance(pod, before, available);
        int moved = before.instances().entrySet().stream()
                .mapToInt(e -> e.getValue().equals(after.instances().get(e.getKey())) ? 0 : 1).sum();
        assertEquals(GROUPS / INSTANCES, moved);
        double rebalanceUs = medianMicros(() -> engine.rebalance(pod, before, available));

        DeviceId sw = pod.deviceId();
        for (Pipeline pipeline : Pipeline.values()) {
            Steering s0 = SteeringPlan.compute(pod, before, pipeline);
            Steering s1 = SteeringPlan.compute(pod, after, pipeline);
            double planUs = medianMicros(() -> SteeringPlan.compute(pod, after, pipeline));

            // the installer's difference: what a failover sends to the switch
            CountingObjectives fos = new CountingObjectives();
            SteeringInstaller installer = new SteeringInstaller(fos, new DefaultApplicationId(1, "org.bngpod.app"));
            installer.apply(sw, s0);
            int initial = fos.sent.getAndSet(0);
            long t0 = System.nanoTime();
            installer.apply(sw, s1);
            double diffUs = (System.nanoTime() - t0) / 1000.0;
            int sent = fos.sent.get();
            assertTrue(sent > 0 && sent < initial);

            System.out.printf(Locale.ROOT,
                    "{\"bench\": \"onos-failover\", \"pipeline\": \"%s\", \"line_groups\": %d, \"instances\": %d, "
                            + "\"s_tags\": %d, \"groups_moved\": %d, \"rebalance_us\": %.1f, \"plan_us\": %.1f, "
                            + "\"objectives_initial\": %d, \"objectives_failover\": %d, \"diff_us\": %.1f}%n",
                    pipeline.name().toLowerCase(Locale.ROOT), GROUPS, INSTANCES, GROUPS * 10, moved, rebalanceUs,
                    planUs, initial, sent, diffUs);
        }
    }
}
