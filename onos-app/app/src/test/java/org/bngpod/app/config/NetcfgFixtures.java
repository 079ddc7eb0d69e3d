package org.bngpod.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.ConfigApplyDelegate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import static com.google.common.base.Preconditions.checkState;

/**
 * Loads network configurations the way ONOS's network configuration service
 * does: the JSON tree of an {@code onos-netcfg.json}, the {@code pod} config
 * of the application picked out of it and handed to
 * {@link Config#init(Object, String, JsonNode, ObjectMapper, ConfigApplyDelegate)}.
 */
final class NetcfgFixtures {

    /** The application, as the core service would register it. */
    static final ApplicationId APP_ID = new TestApplicationId(BngPodConfig.APP_NAME);

    /** The test fixture: the doc's example with two instances and two line groups. */
    static final String FIXTURE = "/pod-netcfg.json";

    static final ObjectMapper MAPPER = new ObjectMapper();

    private NetcfgFixtures() {
    }

    /**
     * Reads a whole netcfg document from the test resources.
     *
     * @param resource resource path
     * @return JSON tree
     */
    static ObjectNode netcfg(String resource) {
        try (InputStream in = NetcfgFixtures.class.getResourceAsStream(resource)) {
            checkState(in != null, "no test resource %s", resource);
            return (ObjectNode) MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Returns the pod config of the application in a netcfg document.
     *
     * @param netcfg netcfg document
     * @return the {@code apps/org.bngpod.app/pod} node
     */
    static JsonNode podNode(JsonNode netcfg) {
        JsonNode pod = netcfg.path("apps").path(BngPodConfig.APP_NAME).path(BngPodConfig.CONFIG_KEY);
        checkState(!pod.isMissingNode(), "netcfg has no apps/%s/%s", BngPodConfig.APP_NAME,
                   BngPodConfig.CONFIG_KEY);
        return pod;
    }

    /**
     * Returns a copy of the fixture's pod config, to modify.
     *
     * @return pod object
     */
    static ObjectNode fixturePod() {
        return (ObjectNode) podNode(netcfg(FIXTURE)).deepCopy();
    }

    /**
     * Creates a config over a JSON node as the network configuration service does.
     *
     * @param node     config JSON
     * @param delegate apply delegate
     * @return initialized config
     */
    static BngPodConfig config(JsonNode node, ConfigApplyDelegate delegate) {
        BngPodConfig config = new BngPodConfig();
        config.init(APP_ID, BngPodConfig.CONFIG_KEY, node, MAPPER, delegate);
        return config;
    }

    /**
     * A delegate that records the configs applied through it.
     */
    static final class RecordingDelegate implements ConfigApplyDelegate {
        final List<Config<?>> applied = new ArrayList<>();

        @Override
        public void onApply(@SuppressWarnings("rawtypes") Config config) {
            applied.add(config);
        }
    }
}
