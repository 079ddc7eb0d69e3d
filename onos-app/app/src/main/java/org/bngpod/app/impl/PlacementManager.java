package org.bngpod.app.impl;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedSet;
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
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.PlacementEngine;
import org.bngpod.app.placement.Reason;
import org.bngpod.app.steering.SteeringPlan;
import org.onosproject.cluster.ClusterService;
import org.onosproject.cluster.LeadershipEvent;
import org.onosproject.cluster.LeadershipEventListener;
import org.onosproject.cluster.LeadershipService;
import org.onosproject.cluster.NodeId;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
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
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;
import static org.onlab.util.Tools.groupedThreads;

/**
 * Places line groups on DP instances and fails them over when instances die.
 *
 * <p>The placement and who declared which instance dead live in
 * {@link PlacementStore}, so every node answers the same. Any node records a
 * declaration; only the cluster leader of topic {@value #TOPIC} computes
 * placements. Every node posts the {@link PlacementEvent}s of a stored
 * change; {@link SteeringManager} steers the switch from them.</p>
 */
@Component(immediate = true, service = PlacementService.class)
public class PlacementManager extends AbstractListenerManager<PlacementEvent, PlacementListener>
        implements PlacementService {

    static final String TOPIC = "org.bngpod.app.placement";

    /** Callers of {@link #placementAfter} that may wait at once on a node; more are answered at once. */
    static final int MAX_WAITERS = 64;

    /** Declarer of an instance whose switch port went down. */
    public static final String SWITCH = "switch";
    /** Declarer for the operator (REST, CLI); declaring alive clears every declarer. */
    public static final String OPERATOR = "operator";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PodService podService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PlacementStore store;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LeadershipService leadershipService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterService clusterService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    /**
     * Where events and the store's changes are handled, one at a time in
     * order; tests set a direct executor before activate.
     */
    ExecutorService executor;
    Clock clock = Clock.systemUTC();

    private final PlacementEngine engine = new PlacementEngine();

    /**
     * Waiters of {@link #placementAfter}: a generation counter the event
     * thread bumps (never blocking: it only takes the monitor to notify), and
     * the monitor waiters sleep on between two reads of the placement.
     */
    private final AtomicLong generation = new AtomicLong();
    private final Object changed = new Object();
    private final Semaphore waiters = new Semaphore(MAX_WAITERS);
    private final PodListener podListener = this::podEvent;
    private final DeviceListener deviceListener = this::deviceEvent;
    private final LeadershipEventListener leadershipListener = new InternalLeadershipListener();
    private final PlacementStoreDelegate storeDelegate = new InternalStoreDelegate();

    @Activate
    protected void activate() {
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(groupedThreads("bngpod", "placement-%d", log));
        }
        eventDispatcher.addSink(PlacementEvent.class, listenerRegistry);
        store.setDelegate(storeDelegate);
        leadershipService.addListener(leadershipListener);
        leadershipService.runForLeadership(TOPIC);
        podService.addListener(podListener);
        deviceService.addListener(deviceListener);
        executor.execute(this::reconcile);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        deviceService.removeListener(deviceListener);
        podService.removeListener(podListener);
        leadershipService.removeListener(leadershipListener);
        store.unsetDelegate(storeDelegate);
        executor.shutdown();
        leadershipService.withdraw(TOPIC);
        eventDispatcher.removeSink(PlacementEvent.class);
        log.info("Stopped");
    }

    /**
     * Returns whether this node leads the placement topic, and so places line
     * groups and steers the switch.
     *
     * @param leadership the leadership service
     * @param cluster    the cluster service
     * @return true on the leader
     */
    static boolean leads(LeadershipService leadership, ClusterService cluster) {
        NodeId leader = leadership.getLeader(TOPIC);
        return leader != null && leader.equals(cluster.getLocalNode().id());
    }

    boolean isLeader() {
        return leads(leadershipService, clusterService);
    }

    // ----------------------------------------------------------------- queries

    @Override
    public PlacementState placement() {
        return state(store.placement());
    }

    /** The placement state of a record: EMPTY without a pod or for another pod's record. */
    private PlacementState state(PlacementRecord rec) {
        Optional<Pod> pod = podService.pod();
        if (pod.isEmpty() || rec == null || !rec.pod.equals(pod.get().name())) {
            return PlacementState.EMPTY;
        }
        Placement p = rec.placement();
        List<GroupPlacement> groups = new ArrayList<>();
        p.reasons().forEach((group, reason) -> groups.add(GroupPlacement.of(
                group, p.instanceOf(group).orElse(null), reason.kind().name(), reason.text())));
        List<InstanceStatus> instances = new ArrayList<>();
        for (DpInstance instance : pod.get().instances()) {
            HealthRecord h = store.health(instance.id());
            if (h == null || !h.dead()) {
                instances.add(InstanceStatus.available(instance.id(), instance.name()));
            } else {
                Map.Entry<String, String> first = h.first();
                instances.add(InstanceStatus.unavailable(instance.id(), instance.name(), first.getKey(),
                                                         first.getValue()));
            }
        }
        instances.sort(Comparator.comparingInt(InstanceStatus::id));
        return PlacementState.of(rec.version, groups, instances, rec.moves, rec.lastFailover);
    }

    @Override
    public PlacementState placementAfter(long version, long maxWaitMillis) throws InterruptedException {
        checkArgument(maxWaitMillis >= 0, "maxWaitMillis %s is negative", maxWaitMillis);
        long seen = generation.get();
        PlacementState now = placement();
        if (now.version() != version || maxWaitMillis == 0 || !waiters.tryAcquire()) {
            return now;
        }
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return now;
                }
                synchronized (changed) {
                    // read the placement outside the monitor: a map read may take a while,
                    // and the event thread must never wait for this one
                    if (generation.get() == seen) {
                        TimeUnit.NANOSECONDS.timedWait(changed, left);
                    }
                }
                seen = generation.get();
                now = placement();
                if (now.version() != version) {
                    return now;
                }
            }
        } finally {
            waiters.release();
        }
    }

    /**
     * Returns how many callers of {@link #placementAfter} wait now (tests).
     *
     * @return waiting callers
     */
    public int placementAfterWaiting() {
        return MAX_WAITERS - waiters.availablePermits();
    }

    /**
     * Returns how many callers of {@link #placementAfter} may wait at once (tests).
     *
     * @return the bound
     */
    public int placementAfterMaxWaiters() {
        return MAX_WAITERS;
    }

    /** Wakes the callers of {@link #placementAfter}: what placement() answers may have changed. */
    private void placementMayHaveChanged() {
        generation.incrementAndGet();
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    @Override
    public Optional<GroupPlacement> placementOf(String lineGroup) {
        return placement().group(lineGroup);
    }

    // ----------------------------------------------------------------- declarations

    @Override
    public void declareDead(int instance, String declaredBy, String reason) {
        checkNotNull(declaredBy, "declaredBy is null");
        checkNotNull(reason, "reason is null");
        requireInstance(instance);
        declareDead(Set.of(instance), declaredBy, reason);
    }

    /**
     * Records the declarations, then re-places once: instances that die
     * together (behind one switch port) lose their groups in one move, never
     * to one another.
     */
    private void declareDead(Set<Integer> instances, String declaredBy, String reason) {
        // under the lock that placing takes: no placement sees some of them dead and not the others
        synchronized (this) {
            boolean changed = false;
            for (int instance : instances) {
                if (store.declareDead(instance, declaredBy, reason)) {
                    log.warn("bngpod: instance {} declared dead by {}: {}", instance, declaredBy, reason);
                    changed = true;
                }
            }
            if (changed) {
                // the leader also acts through the store's event; act here too so that a
                // request answered by the leader returns with the new placement in place
                reconcile();
            }
        }
    }

    @Override
    public void declareAlive(int instance, String declaredBy) {
        checkNotNull(declaredBy, "declaredBy is null");
        requireInstance(instance);
        declareAlive(Set.of(instance), declaredBy);
    }

    private void declareAlive(Set<Integer> instances, String declaredBy) {
        synchronized (this) {
            boolean changed = false;
            for (int instance : instances) {
                boolean taken = OPERATOR.equals(declaredBy) ? store.clearDeclarations(instance)
                        : store.declareAlive(instance, declaredBy);
                if (taken) {
                    log.info("bngpod: instance {} declared alive by {}", instance, declaredBy);
                    changed = true;
                }
            }
            if (changed) {
                reconcile();
            }
        }
    }

    @Override
    public void rebalance() {
        Pod pod = podService.pod().orElse(null);
        checkState(pod != null, "no pod is configured");
        checkState(isLeader(), "only the cluster leader re-balances (leader: %s)",
                   leadershipService.getLeader(TOPIC));
        synchronized (this) {
            PlacementRecord rec = store.placement();
            Placement base = rec == null || !rec.pod.equals(pod.name()) ? engine.initial(pod) : rec.placement();
            store(pod, rec, engine.rebalance(pod, base, available(pod)));
        }
    }

    private void requireInstance(int instance) {
        Pod pod = podService.pod().orElse(null);
        checkArgument(pod != null, "no pod is configured");
        checkArgument(pod.instance(instance).isPresent(), "unknown instance %s", instance);
    }

    private Set<Integer> available(Pod pod) {
        return pod.instances().stream().map(DpInstance::id).filter(id -> {
            HealthRecord h = store.health(id);
            return h == null || !h.dead();
        }).collect(Collectors.toSet());
    }

    // ----------------------------------------------------------------- the leader's work

    /** Brings the stored placement in line with the pod and the instances' health (leader only). */
    void reconcile() {
        if (!isLeader()) {
            return;
        }
        try {
            reconcileNow();
        } catch (RuntimeException e) {
            // never leave the event thread on a surprise; the next event retries
            log.error("bngpod: placement failed", e);
        }
    }

    private synchronized void reconcileNow() {
        Pod pod = podService.pod().orElse(null);
        if (pod == null) {
            return;
        }
        PlacementRecord rec = store.placement();
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
        // a record of an older version, or an update of the pod, may split an S-tag between instances
        boolean needsMove = base.instances().values().stream().anyMatch(id -> !available.contains(id))
                || !engine.keepsSharedStagsTogether(pod, base);
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
            moves += next.changedFrom(before).stream().filter(g -> before.instanceOf(g).isPresent()).count();
            last = failovers(pod, rec, before, next, available).orElse(last);
        }
        for (String group : next.changedFrom(rec == null ? Placement.of(Map.of(), Map.of()) : rec.placement())) {
            log.info("bngpod: {}", next.reason(group).map(Reason::text).orElse(group));
        }
        store.setPlacement(new PlacementRecord(pod.name(), version, next, available, moves, last));
    }

    /**
     * Logs one failover per instance that died since the last record, each
     * with the groups that moved off it, and returns the one to show as the
     * last failover: of the instances that lost groups, the lowest id; else
     * the lowest id of those that died.
     */
    private Optional<Failover> failovers(Pod pod, PlacementRecord rec, Placement before, Placement next,
                                         Set<Integer> available) {
        Failover shown = null;
        boolean shownMoved = false;
        for (Integer dead : ImmutableSortedSet.copyOf(rec.available)) {
            HealthRecord h = store.health(dead);
            if (available.contains(dead) || pod.instance(dead).isEmpty() || h == null || !h.dead()) {
                continue;
            }
            Map.Entry<String, String> who = h.first();
            List<String> off = before.groupsOn(dead).stream()
                    .filter(g -> !next.instanceOf(g).equals(Optional.of(dead)))
                    .collect(ImmutableList.toImmutableList());
            Failover failover = Failover.of(dead, who.getKey(), who.getValue(), clock.instant(), off);
            log.warn("bngpod: failover of instance {}: {} moved ({})", dead, off, who.getValue());
            if (shown == null || (!shownMoved && !off.isEmpty())) {
                shown = failover;
                shownMoved = !off.isEmpty();
            }
        }
        return Optional.ofNullable(shown);
    }

    // ----------------------------------------------------------------- events

    private void podEvent(PodEvent event) {
        if (event.type() == PodEvent.Type.CONFIG_REJECTED) {
            return;
        }
        // a pod coming or going changes what placement() answers (EMPTY without a pod)
        placementMayHaveChanged();
        if (event.type() == PodEvent.Type.POD_REMOVED) {
            String removed = event.subject().name();
            executor.execute(() -> forget(removed));
            return;
        }
        executor.execute(this::reconcile);
    }

    /**
     * The pod was removed from the netcfg: its placement goes with it (leader
     * only), so that the same pod pushed again starts where its file states
     * instead of where the removed one had moved its groups. The record stays,
     * emptied, so the version keeps growing across the removal; the health
     * declarations stay too (they are about instances, and a control plane
     * reports a death once).
     */
    private void forget(String pod) {
        if (!isLeader()) {
            return;
        }
        synchronized (this) {
            PlacementRecord rec = store.placement();
            if (rec == null || !rec.pod.equals(pod) || rec.placement().reasons().isEmpty()) {
                return;
            }
            log.info("bngpod: pod {} removed: its placement (version {}) is forgotten", pod, rec.version);
            store.setPlacement(new PlacementRecord(rec.pod, rec.version + 1, Placement.of(Map.of(), Map.of()),
                                                   rec.available, rec.moves, rec.lastFailover));
        }
    }

    private void deviceEvent(DeviceEvent event) {
        Pod pod = podService.pod().orElse(null);
        if (pod == null || !event.subject().id().equals(pod.deviceId()) || event.port() == null) {
            return;
        }
        if (event.type() == DeviceEvent.Type.PORT_UPDATED || event.type() == DeviceEvent.Type.PORT_REMOVED) {
            PortNumber number = event.port().number();
            boolean down = event.type() == DeviceEvent.Type.PORT_REMOVED || !event.port().isEnabled();
            executor.execute(() -> portChanged(pod, number, down));
        }
    }

    /** Every instance behind a switch port dies or comes back with it, all in one step. */
    private void portChanged(Pod pod, PortNumber number, boolean down) {
        if (!isLeader()) {
            return;
        }
        Pod now = podService.pod().orElse(null);
        Set<Integer> behind = pod.instances().stream()
                .filter(i -> SteeringPlan.instancePort(pod, i).equals(number))
                .map(DpInstance::id)
                // the pod may have changed since the port event was queued
                .filter(id -> now != null && now.instance(id).isPresent())
                .collect(ImmutableSortedSet.toImmutableSortedSet(Comparator.naturalOrder()));
        if (behind.isEmpty()) {
            return;
        }
        if (down) {
            declareDead(behind, SWITCH, "switch port " + number + " down");
        } else {
            declareAlive(behind, SWITCH);
        }
    }

    /** Posts what a stored placement changed (on every node). */
    private void placementStored(PlacementRecord now, PlacementRecord was) {
        PlacementState state = state(now);
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
        placementMayHaveChanged();
    }

    private class InternalStoreDelegate implements PlacementStoreDelegate {
        @Override
        public void notify(PlacementStoreEvent event) {
            // On the store's thread: a map call here waits for that very thread
            // (Atomix times out, and the events behind it are lost). Hand off.
            switch (event.type()) {
                case PLACEMENT_UPDATED:
                    PlacementRecord now = event.subject();
                    PlacementRecord was = event.previous();
                    executor.execute(() -> placementStored(now, was));
                    break;
                case HEALTH_UPDATED:
                    // a declaration recorded by another node: the leader acts on it
                    executor.execute(PlacementManager.this::reconcile);
                    break;
                default:
                    break;
            }
        }
    }

    private class InternalLeadershipListener implements LeadershipEventListener {
        @Override
        public boolean isRelevant(LeadershipEvent event) {
            return TOPIC.equals(event.subject().topic());
        }

        @Override
        public void event(LeadershipEvent event) {
            executor.execute(PlacementManager.this::reconcile);
        }
    }
}
