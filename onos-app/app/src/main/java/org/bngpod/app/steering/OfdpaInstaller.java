package org.bngpod.app.steering;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.Sets;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flowobjective.FilteringObjective;
import org.onosproject.net.flowobjective.FlowObjectiveService;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.NextObjective;
import org.onosproject.net.flowobjective.Objective;
import org.onosproject.net.flowobjective.ObjectiveContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Installs {@link OfdpaSteering} on OF-DPA switches and remembers, per
 * device, what it installed and the next id of each next, so that a new
 * plan costs only its difference.
 *
 * <p>Order: forwarding objectives that went away are removed first and
 * flood members that went away are taken out of their groups; then new
 * filters, new nexts (and new flood members), new forwarding objectives are
 * added; last, nexts and filters nothing uses any more are removed. So a
 * forwarding objective never points at a next that is not there, and a
 * group is never deleted while a flow still points at it (OpenFlow deletes
 * such flows with the group). A forwarding objective whose entry (table,
 * match, priority) a new one takes is replaced, not removed.</p>
 */
final class OfdpaInstaller {

    private static final Logger LOG = LoggerFactory.getLogger(OfdpaInstaller.class);

    private final FlowObjectiveService flowObjectives;
    private final ApplicationId appId;
    private final ObjectiveOutcomes outcomes;
    private final Map<DeviceId, OfdpaSteering> installed = new HashMap<>();
    private final Map<DeviceId, Map<Object, Integer>> nextIds = new HashMap<>();

    OfdpaInstaller(FlowObjectiveService fos, ApplicationId appId, ObjectiveOutcomes outcomes) {
        this.flowObjectives = checkNotNull(fos, "flow objective service");
        this.appId = checkNotNull(appId, "appId");
        this.outcomes = checkNotNull(outcomes, "outcomes");
    }

    void apply(DeviceId device, OfdpaSteering next) {
        checkNotNull(device, "device");
        checkNotNull(next, "next steering");
        OfdpaSteering before = installed(device);
        Map<Object, Integer> ids = nextIds.computeIfAbsent(device, d -> new HashMap<>());
        Map<Object, OfdpaNext> oldNexts = byKey(before.nexts());
        Map<Object, OfdpaNext> newNexts = byKey(next.nexts());

        List<OfdpaForward> addedForwards = new ArrayList<>();
        Set<Object> addedEntries = new HashSet<>();
        for (OfdpaForward forward : next.forwards()) {
            if (!before.forwards().contains(forward)) {
                addedForwards.add(forward);
                addedEntries.add(forward.entry());
            }
        }
        int sent = 0;
        for (OfdpaForward forward : before.forwards()) {
            if (!next.forwards().contains(forward) && !addedEntries.contains(forward.entry())) {
                forward(device, forward, ids.get(forward.next().key()), Objective.Operation.REMOVE);
                sent++;
            }
        }
        for (Map.Entry<Object, OfdpaNext> entry : oldNexts.entrySet()) {
            OfdpaNext now = newNexts.get(entry.getKey());
            if (now != null && !now.equals(entry.getValue())) {
                Set<PortNumber> gone = Sets.difference(entry.getValue().members(), now.members());
                if (!gone.isEmpty()) {
                    next(device, entry.getValue(), ids.get(entry.getKey()), gone,
                         Objective.Operation.REMOVE_FROM_EXISTING);
                    sent++;
                }
            }
        }
        for (OfdpaFilter filter : next.filters()) {
            if (!before.filters().contains(filter)) {
                filter(device, filter, Objective.Operation.ADD);
                sent++;
            }
        }
        for (Map.Entry<Object, OfdpaNext> entry : newNexts.entrySet()) {
            OfdpaNext old = oldNexts.get(entry.getKey());
            OfdpaNext now = entry.getValue();
            if (old == null) {
                int id = flowObjectives.allocateNextId();
                ids.put(entry.getKey(), id);
                next(device, now, id, now.members(), Objective.Operation.ADD);
                sent++;
            } else if (!old.equals(now)) {
                Set<PortNumber> added = Sets.difference(now.members(), old.members());
                if (!added.isEmpty()) {
                    next(device, now, ids.get(entry.getKey()), added, Objective.Operation.ADD_TO_EXISTING);
                    sent++;
                }
            }
        }
        for (OfdpaForward forward : addedForwards) {
            forward(device, forward, ids.get(forward.next().key()), Objective.Operation.ADD);
            sent++;
        }
        for (Map.Entry<Object, OfdpaNext> entry : oldNexts.entrySet()) {
            if (!newNexts.containsKey(entry.getKey())) {
                next(device, entry.getValue(), ids.remove(entry.getKey()), entry.getValue().members(),
                     Objective.Operation.REMOVE);
                sent++;
            }
        }
        for (OfdpaFilter filter : before.filters()) {
            if (!next.filters().contains(filter)) {
                filter(device, filter, Objective.Operation.REMOVE);
                sent++;
            }
        }
        if (next.forwards().isEmpty() && next.filters().isEmpty()) {
            installed.remove(device);
            nextIds.remove(device);
        } else {
            installed.put(device, next);
        }
        if (sent > 0) {
            LOG.info("OF-DPA steering on {}: {} objectives sent; now {}", device, sent, next);
        }
    }

    /**
     * Re-sends the filters and forwarding objectives last applied. Next
     * objectives are not re-sent: ONOS keeps them and their groups in its
     * stores and its group subsystem re-audits groups on reconnect, an OF-DPA
     * pipeliner refuses to add a next id it already has, and it verifies only
     * hashed and broadcast nexts.
     */
    void resync(DeviceId device) {
        OfdpaSteering steering = installed(checkNotNull(device, "device"));
        Map<Object, Integer> ids = nextIds.getOrDefault(device, Map.of());
        steering.filters().forEach(f -> filter(device, f, Objective.Operation.ADD));
        steering.forwards().forEach(f -> forward(device, f, ids.get(f.next().key()), Objective.Operation.ADD));
        if (!steering.forwards().isEmpty()) {
            LOG.info("OF-DPA steering on {}: re-sent {}", device, steering);
        }
    }

    void withdraw(DeviceId device) {
        apply(device, OfdpaSteering.EMPTY);
    }

    OfdpaSteering installed(DeviceId device) {
        return installed.getOrDefault(checkNotNull(device, "device"), OfdpaSteering.EMPTY);
    }

    Map<Object, Integer> nextIds(DeviceId device) {
        return ImmutableMap.copyOf(nextIds.getOrDefault(checkNotNull(device, "device"), Map.of()));
    }

    private static Map<Object, OfdpaNext> byKey(Set<OfdpaNext> nexts) {
        Map<Object, OfdpaNext> map = new HashMap<>();
        nexts.forEach(n -> map.put(n.key(), n));
        return map;
    }

    private ObjectiveContext context(DeviceId device, Objective.Operation op, Object what) {
        return outcomes.context(LOG, "OF-DPA steering", device, op, what);
    }

    private void filter(DeviceId device, OfdpaFilter filter, Objective.Operation op) {
        FilteringObjective.Builder builder = filter.objective(appId);
        ObjectiveContext context = context(device, op, filter);
        flowObjectives.filter(device, op == Objective.Operation.ADD ? builder.add(context) : builder.remove(context));
    }

    private void next(DeviceId device, OfdpaNext next, Integer id, Set<PortNumber> ports, Objective.Operation op) {
        if (id == null) {
            throw new IllegalStateException("no next id for " + next + " on " + device);
        }
        NextObjective.Builder builder = next.objective(appId, id, ports);
        ObjectiveContext context = context(device, op, next);
        NextObjective objective;
        switch (op) {
            case ADD:
                objective = builder.add(context);
                break;
            case REMOVE:
                objective = builder.remove(context);
                break;
            case ADD_TO_EXISTING:
                objective = builder.addToExisting(context);
                break;
            case REMOVE_FROM_EXISTING:
                objective = builder.removeFromExisting(context);
                break;
            case VERIFY:
                objective = builder.verify(context);
                break;
            default:
                throw new IllegalArgumentException("next operation " + op);
        }
        flowObjectives.next(device, objective);
    }

    private void forward(DeviceId device, OfdpaForward forward, Integer nextId, Objective.Operation op) {
        if (nextId == null) {
            throw new IllegalStateException("no next id for " + forward + " on " + device);
        }
        ForwardingObjective.Builder builder = forward.objective(appId, nextId);
        ObjectiveContext context = context(device, op, forward);
        flowObjectives.forward(device, op == Objective.Operation.ADD ? builder.add(context)
                : builder.remove(context));
    }
}
