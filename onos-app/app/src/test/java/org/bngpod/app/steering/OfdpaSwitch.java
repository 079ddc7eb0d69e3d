package org.bngpod.app.steering;

import org.onosproject.core.CoreService;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.GroupId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.behaviour.NextGroup;
import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.driver.DefaultDriverData;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flowobjective.FilteringObjective;
import org.onosproject.net.flowobjective.FlowObjectiveServiceAdapter;
import org.onosproject.net.flowobjective.FlowObjectiveStore;
import org.onosproject.net.flowobjective.FlowObjectiveStoreDelegate;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.NextObjective;
import org.onosproject.net.flowobjective.Objective;
import org.onosproject.net.flowobjective.ObjectiveContext;
import org.onosproject.net.flowobjective.ObjectiveError;
import org.onosproject.net.group.DefaultGroup;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupEvent;
import org.onosproject.net.group.GroupKey;
import org.onosproject.net.group.GroupListener;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.group.GroupServiceAdapter;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.TestStorageService;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One switch as ONOS drives it through one of its OF-DPA pipeliners
 * ({@code Ofdpa2Pipeline}, {@code Ofdpa3Pipeline} from onos-drivers-default):
 * a flow objective service handing every objective to the pipeliner, and the
 * services the pipeliner and its group handler use, holding what ONOS would
 * have written to the switch: the flow rules by table and the groups.
 *
 * <p>Like ONOS's flow objective manager, it hands objectives over one at a
 * time and waits for each to be answered (a forwarding objective is only
 * processed once the next it points at exists); group events are delivered
 * asynchronously, as ONOS's group manager does.</p>
 */
final class OfdpaSwitch extends FlowObjectiveServiceAdapter implements AutoCloseable {

    private final DeviceId device;
    private final Pipeliner pipeliner;
    private final Map<FlowId, FlowRule> rules = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<GroupKey, Group> groups = new ConcurrentHashMap<>();
    private final List<GroupListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService events = Executors.newSingleThreadExecutor();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final List<String> duplicates = new CopyOnWriteArrayList<>();
    private final Map<CountDownLatch, String> pending = new ConcurrentHashMap<>();
    private final Map<Integer, NextGroup> nextGroups = new ConcurrentHashMap<>();
    private final AtomicInteger nextIds = new AtomicInteger();
    private long answerMillis = 10_000;

    OfdpaSwitch(DeviceId device, Pipeliner pipeliner) {
        this.device = device;
        this.pipeliner = pipeliner;
        GroupService groupService = new Groups();
        FlowObjectiveStore store = new NextStore();
        CoreService core = new CoreServiceAdapter();
        DeviceService devices = new DeviceServiceAdapter();
        StorageService storage = new TestStorageService();
        // No driver: the pipeliner's forwarding-objective accumulator stays off.
        ((AbstractHandlerBehaviour) pipeliner).setData(new DefaultDriverData(null, device));
        SwitchServices.init(pipeliner, device, store, Map.of(
                FlowRuleService.class, SwitchServices.flowRules(rules),
                GroupService.class, groupService,
                CoreService.class, core,
                DeviceService.class, devices,
                StorageService.class, storage));
    }

    /** Sets how long an objective may take to be answered before it counts as unanswered. */
    void answerWithin(long millis) {
        this.answerMillis = millis;
    }

    @Override
    public int allocateNextId() {
        return nextIds.incrementAndGet();
    }

    @Override
    public void filter(DeviceId deviceId, FilteringObjective objective) {
        checkDevice(deviceId);
        FilteringObjective.Builder copy = objective.copy();
        handOver(objective, ctx -> pipeliner.filter(objective.op() == Objective.Operation.ADD
                ? copy.add(ctx) : copy.remove(ctx)));
    }

    @Override
    public void next(DeviceId deviceId, NextObjective objective) {
        checkDevice(deviceId);
        NextObjective.Builder copy = objective.copy();
        handOver(objective, ctx -> {
            switch (objective.op()) {
                case ADD:
                    pipeliner.next(copy.add(ctx));
                    break;
                case REMOVE:
                    pipeliner.next(copy.remove(ctx));
                    break;
                case ADD_TO_EXISTING:
                    pipeliner.next(copy.addToExisting(ctx));
                    break;
                case REMOVE_FROM_EXISTING:
                    pipeliner.next(copy.removeFromExisting(ctx));
                    break;
                case VERIFY:
                    pipeliner.next(copy.verify(ctx));
                    break;
                default:
                    throw new AssertionError("next operation " + objective.op());
            }
        });
    }

    @Override
    public void forward(DeviceId deviceId, ForwardingObjective objective) {
        checkDevice(deviceId);
        ForwardingObjective.Builder copy = objective.copy();
        handOver(objective, ctx -> pipeliner.forward(objective.op() == Objective.Operation.ADD
                ? copy.add(ctx) : copy.remove(ctx)));
    }

    /** Gives the pipeliner the objective with a context that also tells this switch, and waits for the answer. */
    private void handOver(Objective original, Consumer<ObjectiveContext> send) {
        CountDownLatch answered = new CountDownLatch(1);
        ObjectiveContext context = new ObjectiveContext() {
            @Override
            public void onSuccess(Objective objective) {
                original.context().ifPresent(c -> c.onSuccess(original));
                answered.countDown();
            }

            @Override
            public void onError(Objective objective, ObjectiveError error) {
                failures.add(original.op() + " " + original + ": " + error);
                original.context().ifPresent(c -> c.onError(original, error));
                answered.countDown();
            }
        };
        try {
            send.accept(context);
            if (original instanceof NextObjective && original.op() == Objective.Operation.REMOVE) {
                // Nothing later depends on a removal being done (ONOS does not serialize it with other
                // next ids either); OF-DPA's group handler answers removals on its group checker's beat.
                pending.put(answered, original.op() + " " + original);
                return;
            }
            if (!answered.await(answerMillis, TimeUnit.MILLISECONDS)) {
                failures.add(original.op() + " " + original + ": no answer");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (RuntimeException e) {
            failures.add(original.op() + " " + original + ": " + e);
        }
    }

    private void checkDevice(DeviceId deviceId) {
        if (!device.equals(deviceId)) {
            throw new AssertionError("objective for " + deviceId + " sent to " + device);
        }
    }

    /**
     * Waits for every objective handed over without waiting (next removals)
     * to be answered; those that are not count as failures.
     */
    void settle() {
        long deadline = System.currentTimeMillis() + answerMillis;
        try {
            for (Map.Entry<CountDownLatch, String> entry : pending.entrySet()) {
                long left = Math.max(0, deadline - System.currentTimeMillis());
                if (!entry.getKey().await(left, TimeUnit.MILLISECONDS)) {
                    failures.add(entry.getValue() + ": no answer");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        pending.clear();
    }

    /** The flow rules ONOS would have on the switch, in the order first written. */
    List<FlowRule> rules() {
        synchronized (rules) {
            return new ArrayList<>(rules.values());
        }
    }

    /** The groups ONOS would have on the switch. */
    List<Group> groups() {
        return new ArrayList<>(groups.values());
    }

    /** Objectives the pipeliner failed or never answered. */
    List<String> failures() {
        return failures;
    }

    /** Groups added twice under one key (ONOS's group store would ignore the second). */
    List<String> duplicates() {
        return duplicates;
    }

    @Override
    public void close() {
        events.shutdown();
    }

    private void post(GroupEvent.Type type, Group group) {
        GroupEvent event = new GroupEvent(type, group);
        events.execute(() -> listeners.forEach(l -> l.event(event)));
    }

    private static Group group(GroupId id, DeviceId device, GroupDescription.Type type, List<GroupBucket> buckets,
                               GroupKey key, org.onosproject.core.ApplicationId appId) {
        DefaultGroup group = new DefaultGroup(id, new DefaultGroupDescription(
                device, type, new GroupBuckets(buckets), key, id.id(), appId));
        group.setState(Group.GroupState.ADDED);
        return group;
    }

    /** ONOS's group service as the switch answers it: every request done at once, then its event. */
    private final class Groups extends GroupServiceAdapter {
        @Override
        public void addGroup(GroupDescription description) {
            Group group = group(GroupId.valueOf(description.givenGroupId()), description.deviceId(),
                                description.type(), description.buckets().buckets(), description.appCookie(),
                                description.appId());
            if (groups.putIfAbsent(description.appCookie(), group) != null) {
                duplicates.add(Integer.toHexString(description.givenGroupId()));
                return;
            }
            post(GroupEvent.Type.GROUP_ADDED, group);
        }

        @Override
        public Group getGroup(DeviceId deviceId, GroupKey appCookie) {
            return groups.get(appCookie);
        }

        @Override
        public void addBucketsToGroup(DeviceId deviceId, GroupKey oldCookie, GroupBuckets buckets,
                                      GroupKey newCookie, org.onosproject.core.ApplicationId appId) {
            Group old = groups.remove(oldCookie);
            if (old == null) {
                return;
            }
            List<GroupBucket> merged = new ArrayList<>(old.buckets().buckets());
            buckets.buckets().stream().filter(b -> !merged.contains(b)).forEach(merged::add);
            Group group = group(old.id(), deviceId, old.type(), merged, newCookie, appId);
            groups.put(newCookie, group);
            post(GroupEvent.Type.GROUP_UPDATED, group);
        }

        @Override
        public void removeBucketsFromGroup(DeviceId deviceId, GroupKey oldCookie, GroupBuckets buckets,
                                           GroupKey newCookie, org.onosproject.core.ApplicationId appId) {
            Group old = groups.remove(oldCookie);
            if (old == null) {
                return;
            }
            List<GroupBucket> kept = new ArrayList<>(old.buckets().buckets());
            kept.removeAll(buckets.buckets());
            Group group = group(old.id(), deviceId, old.type(), kept, newCookie, appId);
            groups.put(newCookie, group);
            post(GroupEvent.Type.GROUP_UPDATED, group);
        }

        @Override
        public void removeGroup(DeviceId deviceId, GroupKey appCookie, org.onosproject.core.ApplicationId appId) {
            Group removed = groups.remove(appCookie);
            if (removed != null) {
                post(GroupEvent.Type.GROUP_REMOVED, removed);
            }
        }

        @Override
        public Iterable<Group> getGroups(DeviceId deviceId) {
            return groups();
        }

        @Override
        public Iterable<Group> getGroups(DeviceId deviceId, org.onosproject.core.ApplicationId appId) {
            return groups();
        }

        @Override
        public void addListener(GroupListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeListener(GroupListener listener) {
            listeners.remove(listener);
        }
    }

    /** The flow objective store: next groups by next id. */
    private final class NextStore implements FlowObjectiveStore {
        @Override
        public void putNextGroup(Integer nextId, NextGroup group) {
            nextGroups.put(nextId, group);
        }

        @Override
        public NextGroup getNextGroup(Integer nextId) {
            return nextGroups.get(nextId);
        }

        @Override
        public NextGroup removeNextGroup(Integer nextId) {
            return nextGroups.remove(nextId);
        }

        @Override
        public Map<Integer, NextGroup> getAllGroups() {
            return Map.copyOf(nextGroups);
        }

        @Override
        public int allocateNextId() {
            return nextIds.incrementAndGet();
        }

        @Override
        public void setDelegate(FlowObjectiveStoreDelegate delegate) {
        }

        @Override
        public void unsetDelegate(FlowObjectiveStoreDelegate delegate) {
        }

        @Override
        public boolean hasDelegate() {
            return false;
        }
    }
}
