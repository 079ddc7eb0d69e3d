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
import java.util.Map;
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
    public void theGoldenLabKeepsItsSplitStagOnOneInstance() throws IOException {
        Pod pod = goldenPod();
        PlacementEngine engine = new PlacementEngine();
        Placement initial = engine.initial(pod);
        for (LineGroup group : pod.lineGroups()) {
            if (group.name().equals("lg3")) {
                continue;
            }
            assertEquals(group.name(), Integer.valueOf(pod.instanceOf(group.name()).orElseThrow().id()),
                         initial.instanceOf(group.name()).orElseThrow());
            assertEquals(Reason.Kind.STATED, initial.reason(group.name()).orElseThrow().kind());
        }
        // lg3 and lg4 split S-tag 300 of access3 by C-tag: lg3 goes with lg4 (the larger, gold) to dp4
        assertEquals(Integer.valueOf(4), initial.instanceOf("lg3").orElseThrow());
        assertEquals(Reason.of(Reason.Kind.SHARED_STAG,
                               "lg3: on dp4 (id 4) with lg4, not on dp3 (id 3) as the pod file states: lg4 and lg3 "
                                       + "share S-tag 300 on access3, and ONOS's switch pipelines cannot split an "
                                       + "S-tag by C-tag; contracts 1.0 Gbit/s for 1,022 sessions; dp4: 6.1 of 12.5 "
                                       + "Gbit/s contracted, 2,044 of 65,536 sessions; contracted on port access3 "
                                       + "6.1 of 10.0 Gbit/s"),
                     initial.reason("lg3").orElseThrow());
        assertEquals("lg4: on dp4 (id 4) with lg3 (lg4 and lg3 share S-tag 300 on access3, and ONOS's switch "
                             + "pipelines cannot split an S-tag by C-tag) as the pod file states; contracts 5.1 "
                             + "Gbit/s for 1,022 sessions; dp4: 6.1 of 12.5 Gbit/s contracted, 2,044 of 65,536 "
                             + "sessions; contracted on port access3 6.1 of 10.0 Gbit/s, port access4 5.1 of 10.0 "
                             + "Gbit/s", initial.reason("lg4").orElseThrow().text());
        assertTrue(engine.keepsSharedStagsTogether(pod, initial));
        // what the pod file states splits it
        assertTrue(!engine.keepsSharedStagsTogether(pod, Placement.of(
                Map.of("lg1", 1, "lg2", 2, "lg3", 3, "lg4", 4), initial.reasons())));
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
            // what the dead instance served moves (dp3: nothing, dp4: lg3 and lg4 together)
            assertEquals(dead.name(), initial.groupsOn(dead.id()), after.changedFrom(initial));
            assertTrue(after.unplaced().isEmpty());
            assertTrue(after.groupsOn(dead.id()).isEmpty());
            assertEquals(after.instanceOf("lg3"), after.instanceOf("lg4"));
            // and back: nothing moves
            assertEquals(after, engine.rebalance(pod, after, all));
        }
        assertEquals(ImmutableSet.of("lg3", "lg4"), initial.groupsOn(4));
    }
}
