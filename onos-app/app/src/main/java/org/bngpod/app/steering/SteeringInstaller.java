package org.bngpod.app.steering;

import com.google.common.collect.ImmutableSet;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flowobjective.FlowObjectiveService;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Placeholder for the steering helper's SteeringInstaller (Contract D); dropped at merge.
 */
public final class SteeringInstaller {

    @SuppressWarnings("unused")
    private final FlowObjectiveService fos;
    @SuppressWarnings("unused")
    private final ApplicationId appId;
    private final Map<DeviceId, Set<Steer>> installed = new HashMap<>();

    /**
     * Placeholder constructor.
     *
     * @param fos   flow objective service
     * @param appId application id
     */
    public SteeringInstaller(FlowObjectiveService fos, ApplicationId appId) {
        this.fos = fos;
        this.appId = appId;
    }

    /**
     * Installs the difference (placeholder: records the set, installs nothing).
     *
     * @param device device
     * @param next   steers
     */
    public synchronized void apply(DeviceId device, Set<Steer> next) {
        installed.put(device, ImmutableSet.copyOf(next));
    }

    /**
     * Re-sends everything last applied.
     *
     * @param device device
     */
    public synchronized void resync(DeviceId device) {
        installed.computeIfPresent(device, (d, steers) -> steers);
    }

    /**
     * Removes everything installed on device.
     *
     * @param device device
     */
    public synchronized void withdraw(DeviceId device) {
        installed.remove(device);
    }

    /**
     * Returns what is installed on device.
     *
     * @param device device
     * @return steers
     */
    public synchronized Set<Steer> installed(DeviceId device) {
        return installed.getOrDefault(device, Set.of());
    }
}
