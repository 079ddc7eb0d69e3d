package org.bngpod.app.impl;

import com.google.common.collect.ImmutableList;
import org.bngpod.api.DpInstance;
import org.bngpod.api.Failover;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.InstanceStatus;
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
import org.bngpod.app.placement.PlacementEngine;
import org.bngpod.app.placement.Reason;
import org.bngpod.app.steering.Pipeline;
import org.bngpod.app.steering.SteeringInstaller;
import org.bngpod.app.steering.SteeringPlan;
import org.bngpod.app.steering.UnsupportedPodException;
import org.onlab.util.ItemNotFoundException;
import org.onosproject.cluster.ClusterService;
import org.onosproject.cluster.LeadershipEvent;
import org.onosproject.cluster.LeadershipEventListener;
import org.onosproject.cluster.LeadershipService;
import org.onosproject.cluster.NodeId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.driver.Driver;
import org.onosproject.net.driver.DriverService;
import org.onosproject.net.flowobjective.FlowObjectiveService;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.MapEvent;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.onlab.util.Tools.groupedThreads;

/**
 * Places line groups on DP instances, fails them over and steers the switch.
 *
 * <p>State lives in two distributed maps so that every node answers the same:
 * the placement ({@value #PLACEMENT_MAP}) and who declared which instance
 * dead ({@value #HEALTH_MAP}). Any node records a declaration; only the
 * cluster leader of topic {@value #TOPIC} computes placements and programs
 * the switch (steering is the leader's alone, and the leader re-applies the
 * whole plan when it takes over).</p>
 */
@Component(immediate = true, service = PlacementService.class)
public class PlacementManager extends AbstractListenerManager<PlacementEvent, PlacementListener>
        implements PlacementService {

    static final String PLACEMENT_MAP = "bngpod-placement";
    static final String HEALTH_MAP = "bngpod-health";
    static final String TOPIC = "org.bngpod.app.placement";
    static final String KEY = "placement";

    /** Declarer of an instance whose switch port went down. */
    public static final String SWITCH = "switch";
    /** Declarer for the operator (REST, CLI); declaring alive clears every declarer. */
    public static final String OPERATOR = "operator";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PodService podService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;
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

    /** Where events are handled; tests set a direct executor before activate. */
    ExecutorService executor;
    Clock clock = Clock.systemUTC();

    private final PlacementEngine engine = new PlacementEngine();
    private final PodListener podListener = this::podEvent;
    private final DeviceListener deviceListener = this::deviceEvent;
    private final LeadershipEventListener leadershipListener = new InternalLeadershipListener();
    private final MapEventListener<String, PlacementRecord> placementListener = this::placementStored;
    private final MapEventListener<Integer, HealthRecord> healthListener = this::healthStored;

    private ApplicationId appId;
    private volatile String steeringProblem;
    private ConsistentMap<String, PlacementRecord> placements;
    private ConsistentMap<Integer, HealthRecord> health;
    private SteeringInstaller installer;
    private DeviceId steered;

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(BngPodConfig.APP_NAME);
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(groupedThreads("bngpod", "placement-%d", log));
        }
        installer = new SteeringInstaller(flowObjectiveService, appId);
        placements = storageService.<String, PlacementRecord>consistentMapBuilder()
                .withName(PLACEMENT_MAP).withSerializer(StoreSerializers.SERIALIZER)
                .withApplicationId(appId).build();
        health = storageService.<Integer, HealthRecord>consistentMapBuilder()
                .withName(HEALTH_MAP).withSerializer(StoreSerializers.SERIALIZER)
                .withApplicationId(appId).build();
        eventDispatcher.addSink(PlacementEvent.class, listenerRegistry);
        placements.addListener(placementListener);
        health.addListener(healthListener);
        leadershipService.addListener(leadershipListener);
        leadershipService.runForLeadership(TOPIC);
        podService.addListener(podListener);
        deviceService.addListener(deviceListener);
        executor.execute(this::reconcileAndSteer);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        deviceService.removeListener(deviceListener);
        podService.removeListener(podListener);
        leadershipService.removeListener(leadershipListener);
        placements.removeListener(placementListener);
        health.removeListener(healthListener);
        executor.execute(this::withdrawSteering);
        executor.shutdown();
        leadershipService.withdraw(TOPIC);
        eventDispatcher.removeSink(PlacementEvent.class);
        log.info("Stopped");
    }

    /** The steering installer (tests look at what it installed). */
    SteeringInstaller installer() {
        return installer;
    }

    boolean isLeader() {
        NodeId leader = leadershipService.getLeader(TOPIC);
        return leader != null && leader.equals(clusterService.getLocalNode().id());
    }

    // ----------------------------------------------------------------- queries

    @Override
    public PlacementState placement() {
        Optional<Pod> pod = podService.pod();
        PlacementRecord rec = record();
        if (pod.isEmpty() || rec == null || !rec.pod.equals(pod.get().name())) {
            return PlacementState.EMPTY;
        }
        Placement p = rec.placement();
        List<GroupPlacement> groups = new ArrayList<>();
        p.reasons().forEach((group, reason) -> groups.add(GroupPlacement.of(
                group, p.instanceOf(group).orElse(null), reason.kind().name(), reason.text())));
        List<InstanceStatus> instances = new ArrayList<>();
        for (DpInstance instance : pod.get().instances()) {
            Versioned<HealthRecord> h = health.get(instance.id());
            if (h == null || !h.value().dead()) {
                instances.add(InstanceStatus.available(instance.id(), instance.name()));
            } else {
                Map.Entry<String, String> first = h.value().first();
                instances.add(InstanceStatus.unavailable(instance.id(), instance.name(), first.getKey(),
                                                         first.getValue()));
            }
        }
        instances.sort(Comparator.comparingInt(InstanceStatus::id));
        return PlacementState.of(rec.version, groups, instances, rec.moves, rec.lastFailover);
    }

    @Override
    public Optional<GroupPlacement> placementOf(String lineGroup) {
        return placement().group(lineGroup);
    }

    private PlacementRecord record() {
        Versioned<PlacementRecord> v = placements.get(KEY);
        return v == null ? null : v.value();
    }

    // ----------------------------------------------------------------- declarations

    @Override
    public void declareDead(int instance, String declaredBy, String reason) {
        checkNotNull(declaredBy, "declaredBy is null");
        checkNotNull(reason, "reason is null");
        requireInstance(instance);
        Versioned<HealthRecord> before = health.get(instance);
        if (before != null && reason.equals(before.value().deadBy.get(declaredBy))) {
            return;
        }
        log.warn("bngpod: instance {} declared dead by {}: {}", instance, declaredBy, reason);
        health.compute(instance, (id, h) -> (h == null ? new HealthRecord(Map.of()) : h).with(declaredBy, reason));
        // the leader acts through its health map listener; act here too so that a
        // request answered by the leader returns with the new placement in place
        reconcileAndSteer();
    }

    @Override
    public void declareAlive(int instance, String declaredBy) {
        checkNotNull(declaredBy, "declaredBy is null");
        requireInstance(instance);
        Versioned<HealthRecord> before = health.get(instance);
        if (before == null) {
            return;
        }
        HealthRecord next = OPERATOR.equals(declaredBy) ? new HealthRecord(Map.of())
                : before.value().without(declaredBy);
        if (next.deadBy.equals(before.value().deadBy)) {
            return;
        }
        log.info("bngpod: instance {} declared alive by {}", instance, declaredBy);
        if (next.dead()) {
            health.put(instance, next);
        } else {
            health.remove(instance);
        }
        reconcileAndSteer();
    }

    @Override
    public void rebalance() {
        Pod pod = podService.pod().orElse(null);
        checkState(pod != null, "no pod is configured");
        checkState(isLeader(), "only the cluster leader re-balances (leader: %s)",
                   leadershipService.getLeader(TOPIC));
        synchronized (this) {
            PlacementRecord rec = record();
            Placement base = rec == null || !rec.pod.equals(pod.name()) ? engine.initial(pod) : rec.placement();
            store(pod, rec, engine.rebalance(pod, base, available(pod)));
        }
        steer();
    }

    private void requireInstance(int instance) {
        Pod pod = podService.pod().orElse(null);
        checkArgument(pod != null, "no pod is configured");
        checkArgument(pod.instance(instance).isPresent(), "unknown instance %s", instance);
    }

    private Set<Integer> available(Pod pod) {
        return pod.instances().stream().map(DpInstance::id).filter(id -> {
            Versioned<HealthRecord> h = health.get(id);
            return h == null || !h.value().dead();
        }).collect(Collectors.toSet());
    }

    // ----------------------------------------------------------------- the leader's work

    /** Brings the stored placement in line with the pod and the instances' health, then steers. */
    void reconcileAndSteer() {
        if (!isLeader()) {
            return;
        }
        try {
            reconcile();
            steer();
        } catch (RuntimeException e) {
            // never leave the event thread on a surprise; the next event retries
            log.error("bngpod: placement failed", e);
        }
    }

    private synchronized void reconcile() {
        Pod pod = podService.pod().orElse(null);
        if (pod == null) {
            return;
        }
        PlacementRecord rec = record();
        Placement initial = engine.initial(pod);
        Map<String, Integer> instances = new HashMap<>();
        Map<String, Reason> reasons = new HashMap<>();
        boolean samePod = rec != null && rec.pod.equals(pod.name());
        Placement before = samePod ? rec.placement() : null;
        for (String group : initial.reasons().keySet()) {
            // groups already placed stay where they are; new groups start where the pod file says
            Placement from = before != null && before.reason(group).isPresent() ? before : initial;
            from.instanceOf(group).ifPresent(id -> instances.put(group, id));
            reasons.put(group, from.reason(group).orElseThrow());
        }
        Placement base = Placement.of(instances, reasons);
        Set<Integer> available = available(pod);
        boolean needsMove = base.instances().values().stream().anyMatch(id -> !available.contains(id));
        Placement next = needsMove ? engine.rebalance(pod, base, available) : base;
        store(pod, samePod ? rec : null, next);
    }

    /** Writes a new placement record if anything changed. */
    private void store(Pod pod, PlacementRecord rec, Placement next) {
        Set<Integer> available = available(pod);
        if (rec != null && rec.placement().equals(next) && rec.available.equals(available)) {
            return;
        }
        long version = rec == null ? 1 : rec.version + 1;
        long moves = rec == null ? 0 : rec.moves;
        Failover last = rec == null ? null : rec.lastFailover;
        if (rec != null) {
            Placement before = rec.placement();
            List<String> moved = next.changedFrom(before).stream()
                    .filter(g -> before.instanceOf(g).isPresent()).collect(Collectors.toList());
            moves += moved.size();
            for (Integer dead : rec.available) {
                if (available.contains(dead) || pod.instance(dead).isEmpty()) {
                    continue;
                }
                Map.Entry<String, String> who = health.get(dead).value().first();
                List<String> off = before.groupsOn(dead).stream()
                        .filter(g -> !next.instanceOf(g).equals(Optional.of(dead)))
                        .collect(ImmutableList.toImmutableList());
                last = Failover.of(dead, who.getKey(), who.getValue(), clock.instant(), off);
                log.warn("bngpod: failover of instance {}: {} moved ({})", dead, off, who.getValue());
            }
        }
        for (String group : next.changedFrom(rec == null ? Placement.of(Map.of(), Map.of()) : rec.placement())) {
            log.info("bngpod: {}", next.reason(group).map(Reason::text).orElse(group));
        }
        placements.put(KEY, new PlacementRecord(pod.name(), version, next, available, moves, last));
    }

    private synchronized void steer() {
        Pod pod = podService.pod().orElse(null);
        PlacementRecord rec = record();
        if (pod == null || rec == null || !rec.pod.equals(pod.name())) {
            withdrawSteering();
            return;
        }
        if (steered != null && !steered.equals(pod.deviceId())) {
            installer.withdraw(steered);
        }
        steered = pod.deviceId();
        Pipeline pipeline = pipeline(steered);
        try {
            installer.apply(steered, SteeringPlan.compute(pod, rec.placement(), pipeline));
            steeringProblem = null;
        } catch (UnsupportedPodException e) {
            // nothing half-done on the switch: what it had stays until the pod is fixed
            if (!e.getMessage().equals(steeringProblem)) {
                log.error("bngpod: the pod cannot be steered on {} ({} pipeline): {}", steered, pipeline,
                          e.getMessage());
            }
            steeringProblem = e.getMessage();
        }
    }

    /**
     * Returns the steering pipeline of a switch from its driver: OF-DPA for
     * OF-DPA drivers, else the single-table rendering (OVS and other
     * OpenFlow 1.3 switches). A switch ONOS does not know yet gets the
     * single-table rendering; it is steered again when it connects.
     */
    Pipeline pipeline(DeviceId device) {
        try {
            Driver driver = driverService.getDriver(device);
            return Pipeline.forDriver(driver == null ? null : driver.name());
        } catch (ItemNotFoundException e) {
            return Pipeline.SINGLE_TABLE;
        }
    }

    /** Why the pod could not be steered the last time, or null. */
    String steeringProblem() {
        return steeringProblem;
    }

    private synchronized void withdrawSteering() {
        if (steered != null) {
            installer.withdraw(steered);
            steered = null;
        }
    }

    // ----------------------------------------------------------------- events

    private void podEvent(PodEvent event) {
        if (event.type() == PodEvent.Type.CONFIG_REJECTED) {
            return;
        }
        executor.execute(this::reconcileAndSteer);
    }

    /** The switch port an instance is reached through (its server port's switch port). */
    static PortNumber instancePort(Pod pod, DpInstance instance) {
        return SteeringPlan.instancePort(pod, instance);
    }

    private void deviceEvent(DeviceEvent event) {
        Pod pod = podService.pod().orElse(null);
        if (pod == null || !event.subject().id().equals(pod.deviceId())) {
            return;
        }
        switch (event.type()) {
            case DEVICE_ADDED:
            case DEVICE_AVAILABILITY_CHANGED:
                if (deviceService.isAvailable(pod.deviceId())) {
                    executor.execute(() -> {
                        if (isLeader()) {
                            // its driver may be known only now: steer (for its pipeline), then
                            // re-send everything (a reconnected switch may have lost its tables)
                            log.info("bngpod: switch {} (re)connected, re-sending the steering", pod.deviceId());
                            steer();
                            installer.resync(pod.deviceId());
                        }
                    });
                }
                break;
            case PORT_UPDATED:
            case PORT_REMOVED:
                if (event.port() == null) {
                    break;
                }
                PortNumber number = event.port().number();
                boolean down = event.type() == DeviceEvent.Type.PORT_REMOVED || !event.port().isEnabled();
                executor.execute(() -> portChanged(pod, number, down));
                break;
            default:
                break;
        }
    }

    private void portChanged(Pod pod, PortNumber number, boolean down) {
        if (!isLeader()) {
            return;
        }
        for (DpInstance instance : pod.instances()) {
            if (!instancePort(pod, instance).equals(number)) {
                continue;
            }
            try {
                if (down) {
                    declareDead(instance.id(), SWITCH, "switch port " + number + " down");
                } else {
                    declareAlive(instance.id(), SWITCH);
                }
            } catch (IllegalArgumentException e) {
                log.debug("bngpod: port {} of a pod that changed meanwhile: {}", number, e.getMessage());
            }
        }
    }

    private void healthStored(MapEvent<Integer, HealthRecord> event) {
        // a declaration recorded by another node: the leader acts on it
        executor.execute(this::reconcileAndSteer);
    }

    private void placementStored(MapEvent<String, PlacementRecord> event) {
        if (event.newValue() == null) {
            return;
        }
        PlacementRecord now = event.newValue().value();
        PlacementRecord was = event.oldValue() == null ? null : event.oldValue().value();
        PlacementState state = placement();
        if (was != null && now.pod.equals(was.pod)) {
            for (Integer id : was.available) {
                if (!now.available.contains(id)) {
                    post(new PlacementEvent(PlacementEvent.Type.INSTANCE_DOWN, state));
                }
            }
            for (Integer id : now.available) {
                if (!was.available.contains(id)) {
                    post(new PlacementEvent(PlacementEvent.Type.INSTANCE_UP, state));
                }
            }
        }
        if (was == null || !Objects.equals(was.instances, now.instances) || !was.pod.equals(now.pod)) {
            post(new PlacementEvent(PlacementEvent.Type.PLACEMENT_CHANGED, state));
        }
    }

    private class InternalLeadershipListener implements LeadershipEventListener {
        @Override
        public boolean isRelevant(LeadershipEvent event) {
            return TOPIC.equals(event.subject().topic());
        }

        @Override
        public void event(LeadershipEvent event) {
            // a new leader recomputes and re-applies the whole plan (its installer starts empty)
            executor.execute(PlacementManager.this::reconcileAndSteer);
        }
    }
}
