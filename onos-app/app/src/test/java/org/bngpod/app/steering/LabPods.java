package org.bngpod.app.steering;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.Pod;
import org.bngpod.app.config.BngPodConfig;
import org.onosproject.TestApplicationId;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

import static org.junit.Assume.assumeTrue;

/**
 * The lab pod as {@code bngpod generate} renders it for ONOS
 * (topology/tests/golden/lab/onos-netcfg.json, system property
 * {@value #PROPERTY}), read through the app's config reader.
 */
final class LabPods {

    static final String PROPERTY = "bngpod.golden.netcfg";
    private static final String DEFAULT = "../../topology/tests/golden/lab/onos-netcfg.json";
    static final ObjectMapper MAPPER = new ObjectMapper();

    private LabPods() {
    }

    /** The golden netcfg's pod object; the calling test is skipped when the file is absent. */
    static ObjectNode goldenPodJson() throws IOException {
        Path golden = Paths.get(System.getProperty(PROPERTY, DEFAULT));
        assumeTrue("no golden netcfg at " + golden + " yet", Files.isRegularFile(golden));
        return (ObjectNode) MAPPER.readTree(golden.toFile())
                .path("apps").path(BngPodConfig.APP_NAME).path(BngPodConfig.CONFIG_KEY);
    }

    /** The lab pod, instances reached through their server ports' switch ports. */
    static Pod golden() throws IOException {
        return read(goldenPodJson());
    }

    /** The lab pod as the emulated pod cables it: each VF on switch port (server port * 100 + VF). */
    static Pod goldenEmulated() throws IOException {
        return read(withEmulatedSwitchPorts(goldenPodJson()));
    }

    /**
     * Adds {@code switchPort = server switch port number * 100 + VF} to every
     * instance, the numbering of the emulated pod's OVS bridge.
     *
     * @param pod a pod object of the netcfg
     * @return the same object
     */
    static ObjectNode withEmulatedSwitchPorts(ObjectNode pod) {
        Map<String, Long> portNumbers = new HashMap<>();
        pod.path("ports").forEach(p -> portNumbers.put(p.path("name").asText(), p.path("number").asLong()));
        Map<String, Long> serverPortNumbers = new HashMap<>();
        pod.path("servers").forEach(s -> s.path("ports").forEach(
                p -> serverPortNumbers.put(s.path("name").asText() + "/" + p.path("name").asText(),
                                           portNumbers.get(p.path("switchPort").asText()))));
        for (JsonNode instance : pod.path("instances")) {
            long number = serverPortNumbers.get(instance.path("server").asText() + "/"
                                                        + instance.path("port").asText());
            ((ObjectNode) instance).put("switchPort", number * 100 + instance.path("vf").asLong());
        }
        return pod;
    }

    static Pod read(JsonNode pod) {
        BngPodConfig config = new BngPodConfig();
        config.init(new TestApplicationId(BngPodConfig.APP_NAME), BngPodConfig.CONFIG_KEY, pod, MAPPER, c -> { });
        return config.pod();
    }
}
