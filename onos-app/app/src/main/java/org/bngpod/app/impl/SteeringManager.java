package org.bngpod.app.impl;

import org.bngpod.api.GroupPlacement;
import org.bngpod.api.PlacementEvent;
import org.bngpod.api.PlacementListener;
import org.bngpod.api.PlacementService;
import org.bngpod.api.PlacementState;
import org.bngpod.api.Pod;
import org.bngpod.api.PodEvent;
import org.bngpod.api.PodListener;
import org.bngpod.api.PodService;
import org.bngpod.app.config.BngPodConfig;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.Reason;
import org.bngpod.app.steering.SteeringInstaller;
import org.bngpod.app.steering.SteeringPlan;
import org.bngpod.app.steering.SteeringRenderer;
import org.bngpod.app.steering.UnsupportedPodException;
import org.onlab.util.ItemNotFoundException;
import org.onosproject.cluster.ClusterService;
import org.onosproject.cluster.LeadershipEvent;
import org.onosproject.cluster.LeadershipEventListener;
import org.onosproject.cluster.LeadershipService;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.driver.DriverService;
import org.onosproject.net.flowobjective.FlowObjectiveService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.onlab.util.Tools.groupedThreads;

/**
 * Programs the switch with the fold of the current placement: listens to
 * placement changes, the pod's configuration, the switch (re)connecting and
 * the leadership, and installs the difference through the flow objective
 * service. Only the cluster leader of the placement topic steers; a new
 * leader re-applies the whole plan (its installer starts empty).
 *
 * <p>The rendering (single table or OF-DPA) is chosen per switch from the
 * pipeliner its driver declares ({@link SteeringRenderer#forDriver}), when
 * the switch is first steered and again whenever it connects (its driver may
 * be known only then).</p>
 */
@Component(immediate = true)
public class SteeringManager {

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PodService podService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PlacementService placementService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LeadershipService leadershipService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterService clusterService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowObjectiveService flowObjectiveService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DriverService driverService;

    /** Where the steering is computed and sent, one event at a time; tests set a direct executor. */
    ExecutorService executor;

    private final PlacementListener placementListener = this::placementEvent;
    private final PodListener podListener = this::podEvent;
    private final DeviceListener deviceListener = this::deviceEvent;
    private final LeadershipEventListener leadershipListener = new InternalLeadershipListener();

    private SteeringInstaller installer;
    /** The switch steered last, and its renderer (both touched on the executor only). */
    private DeviceId steered;
    private SteeringRenderer renderer;
    private volatile String steeringProblem;

    @Activate
    protected void activate() {
        ApplicationId appId = coreService.registerApplication(BngPodConfig.APP_NAME);
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(groupedThreads("bngpod", "steering-%d", log));
        }
        installer = new SteeringInstaller(flowObjectiveService, appId);
        placementService.addListener(placementListener);
        podService.addListener(podListener);
        deviceService.addListener(deviceListener);
        leadershipService.addListener(leadershipListener);
        executor.execute(this::steer);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        leadershipService.removeListener(leadershipListener);
        deviceService.removeListener(deviceListener);
        podService.removeListener(podListener);
        placementService.removeListener(placementListener);
        executor.execute(this::withdraw);
        executor.shutdown();
        log.info("Stopped");
    }

    /** The steering installer (tests look at what it installed). */
    SteeringInstaller installer() {
        return installer;
    }

    /** Why the pod could not be steered the last time, or null. */
    String steeringProblem() {
        return steeringProblem;
    }

    /** Steers the switch for the current placement (leader only). */
    void steer() {
        if (!PlacementManager.leads(leadershipService, clusterService)) {
            return;
        }
        try {
            steerNow();
        } catch (RuntimeException e) {
            // never leave the event thread on a surprise; the next event retries
            log.error("bngpod: steering failed", e);
        }
    }

    private void steerNow() {
        Pod pod = podService.pod().orElse(null);
        if (pod == null) {
            withdraw();
            return;
        }
        PlacementState state = placementService.placement();
        if (state.version() == 0) {
            // no placement of this pod stored yet: the placement manager is making
            // one and its PLACEMENT_CHANGED steers; the switch keeps what it has
            return;
        }
        if (steered != null && !steered.equals(pod.deviceId())) {
            withdraw();
        }
        if (steered == null) {
            steered = pod.deviceId();
            renderer = rendererOf(steered);
        }
        try {
            installer.apply(steered, SteeringPlan.compute(pod, placementOf(state), renderer));
            steeringProblem = null;
        } catch (UnsupportedPodException e) {
            // nothing half-done on the switch: what it had stays until the pod is fixed
            if (!e.getMessage().equals(steeringProblem)) {
                log.error("bngpod: the pod cannot be steered on {} ({} pipeline): {}", steered,
                          renderer.pipeline(), e.getMessage());
            }
            steeringProblem = e.getMessage();
        }
    }

    /** The renderer of a switch from its driver; a switch ONOS does not know yet is rendered single-table. */
    private SteeringRenderer rendererOf(DeviceId device) {
        try {
            return SteeringRenderer.forDriver(driverService.getDriver(device));
        } catch (ItemNotFoundException e) {
            return SteeringRenderer.forDriver(null);
        }
    }

    /** The placement as steering takes it: which instance serves each group, and why. */
    static Placement placementOf(PlacementState state) {
        Map<String, Integer> instances = new HashMap<>();
        Map<String, Reason> reasons = new HashMap<>();
        for (GroupPlacement g : state.groups()) {
            g.instance().ifPresent(id -> instances.put(g.lineGroup(), id));
            reasons.put(g.lineGroup(), Reason.of(Reason.Kind.valueOf(g.reasonKind()), g.reason()));
        }
        return Placement.of(instances, reasons);
    }

    private void withdraw() {
        if (steered != null) {
            installer.withdraw(steered);
            steered = null;
            renderer = null;
        }
    }

    // ----------------------------------------------------------------- events

    private void placementEvent(PlacementEvent event) {
        if (event.type() == PlacementEvent.Type.PLACEMENT_CHANGED) {
            executor.execute(this::steer);
        }
    }

    private void podEvent(PodEvent event) {
        if (event.type() != PodEvent.Type.CONFIG_REJECTED) {
            executor.execute(this::steer);
        }
    }

    private void deviceEvent(DeviceEvent event) {
        Pod pod = podService.pod().orElse(null);
        if (pod == null || !event.subject().id().equals(pod.deviceId())) {
            return;
        }
        if ((event.type() == DeviceEvent.Type.DEVICE_ADDED
                || event.type() == DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED)
                && deviceService.isAvailable(pod.deviceId())) {
            executor.execute(() -> reconnected(pod.deviceId()));
        }
    }

    private void reconnected(DeviceId device) {
        if (!PlacementManager.leads(leadershipService, clusterService)) {
            return;
        }
        // its driver may be known only now: choose the renderer again and steer, then
        // re-send everything (a reconnected switch may have lost its tables)
        log.info("bngpod: switch {} (re)connected, re-sending the steering", device);
        if (device.equals(steered)) {
            renderer = rendererOf(device);
        }
        steer();
        installer.resync(device);
    }

    private class InternalLeadershipListener implements LeadershipEventListener {
        @Override
        public boolean isRelevant(LeadershipEvent event) {
            return PlacementManager.TOPIC.equals(event.subject().topic());
        }

        @Override
        public void event(LeadershipEvent event) {
            executor.execute(SteeringManager.this::steer);
        }
    }
}
