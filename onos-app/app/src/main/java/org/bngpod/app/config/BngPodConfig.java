package org.bngpod.app.config;

import org.bngpod.api.Pod;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.config.Config;

/**
 * The bngpod network configuration: config key {@value #CONFIG_KEY} of the
 * application {@value #APP_NAME}, written by {@code bngpod generate} as
 * {@code onos-netcfg.json} (docs/config-formats.md, "ONOS network
 * configuration (onos-netcfg.json)").
 *
 * <pre>{"apps": {"org.bngpod.app": {"pod": {"name": "lab", "deviceId": "of:...", ...}}}}</pre>
 *
 * <p>The whole pod is one config. {@link #isValid()} checks it completely,
 * shape, values and references, so that ONOS refuses an invalid pod when it is
 * posted; {@link #pod()} returns the model.</p>
 */
public final class BngPodConfig extends Config<ApplicationId> {

    /** Name of the bngpod ONOS application, the subject of the config. */
    public static final String APP_NAME = "org.bngpod.app";

    /** Config key of the pod under the application. */
    public static final String CONFIG_KEY = "pod";

    /**
     * Checks the configuration: every object has its required fields and no
     * unknown ones, every value has the right JSON type and a valid value, and
     * every reference resolves.
     *
     * @return true if the configuration is valid
     * @throws InvalidPodConfigException naming the path of the first invalid
     *                                   field, if it is not; ONOS reports the
     *                                   message to whoever posted the config
     */
    @Override
    public boolean isValid() {
        pod();
        return true;
    }

    /**
     * Reads the configuration into the pod model.
     *
     * @return the pod
     * @throws InvalidPodConfigException naming the path of the first invalid
     *                                   field, e.g.
     *                                   {@code lineGroups[1].lines[0].stag.max: 5000 is not a VLAN id (1..4094)}
     */
    public Pod pod() {
        return PodConfigReader.read(node);
    }
}
