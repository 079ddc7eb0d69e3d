package org.bngpod.app.placement;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableSet;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.app.config.BngPodConfig;
import org.junit.Test;
import org.onosproject.TestApplicationId;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

/**
 * Places the lab pod as {@code bngpod generate} renders it for ONOS
 * (topology/tests/golden/lab/onos-netcfg.json, read through the app's config
 * reader); skipped while that file does not exist.
 */
public class GoldenLabPlacementTest {

    private static final String PROPERTY = "bngpod.golden.netcfg";
    private static final String DEFAULT = "../../topology/tests/golden/lab/onos-netcfg.json";

    private static Pod goldenPod() throws IOException {
        Path golden = Paths.get(System.getProperty(PROPERTY, DEFAULT));
        assumeTrue("no golden netcfg at " + golden + " yet", Files.isRegularFile(golden));
        ObjectMapper mapper = new ObjectMapper();
        JsonNode pod = mapper.readTree(golden.toFile())
                .path("apps").path(BngPodConfig.APP_NAME).path(BngPodConfig.CONFIG_KEY);
        BngPodConfig config = new BngPodConfig();
        config.init(new TestApplicationId(BngPodConfig.APP_NAME), BngPodConfig.CONFIG_KEY, pod, mapper,
                    c -> { });
        return config.pod();
    }

    @Test
    public void theGoldenLabPlacesLikeTheTestLab() throws IOException {
        Pod pod = goldenPod();
        PlacementEngine engine = new PlacementEngine();
        Placement initial = engine.initial(pod);
        for (LineGroup group : pod.lineGroups()) {
            assertEquals(group.name(), Integer.valueOf(pod.instanceOf(group.name()).orElseThrow().id()),
                         initial.instanceOf(group.name()).orElseThrow());
            assertEquals(Reason.Kind.STATED, initial.reason(group.name()).orElseThrow().kind());
        }
        // same groups, pools, profiles and VF rates as TestPods.lab(): the same decisions, word for word
        assertEquals(engine.initial(TestPods.lab()), initial);
    }

    @Test
    public void eachInstanceFailsInTurn() throws IOException {
        Pod pod = goldenPod();
        PlacementEngine engine = new PlacementEngine(Capacity.of(4096, 20));
        Placement initial = engine.initial(pod);
        Set<Integer> all = new HashSet<>();
        pod.instances().forEach(i -> all.add(i.id()));
        for (DpInstance dead : pod.instances()) {
            Set<Integer> available = new HashSet<>(all);
            available.remove(dead.id());
            Placement after = engine.rebalance(pod, initial, available);
            assertEquals(ImmutableSet.copyOf(dead.lineGroups()), after.changedFrom(initial));
            assertTrue(after.unplaced().isEmpty());
            assertTrue(after.groupsOn(dead.id()).isEmpty());
            // and back: nothing moves
            assertEquals(after, engine.rebalance(pod, after, all));
        }
    }
}
