package org.bngpod.app.steering;

import com.google.common.collect.ImmutableSet;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flowobjective.FlowObjectiveService;
import org.onosproject.net.flowobjective.ForwardingObjective;
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
 * Installs steers on switches through the flow objective service and
 * remembers, per device, what it installed, so that a new plan costs only
 * its difference.
 *
 * <p>A steer whose flow entry (match and priority) is taken over by a new
 * steer is not removed: the new objective replaces the entry on the switch,
 * and removing the old one after it would delete the new one. Objective
 * errors are logged and counted ({@link #errors()}); what was sent is still
 * recorded as installed, and {@link #resync} sends it again.</p>
 *
 * <p>{@link #apply(DeviceId, Steering)} takes either pipeline's rendering;
 * OF-DPA's filtering, next and forwarding objectives are diffed and ordered
 * as {@link OfdpaInstaller} says. {@link #resync} and {@link #withdraw}
 * cover both.</p>
 */
public final class SteeringInstaller {

    private static final Logger LOG = LoggerFactory.getLogger(SteeringInstaller.class);

    private final FlowObjectiveService flowObjectives;
    private final ApplicationId appId;
    private final Map<DeviceId, Set<Steer>> installed = new HashMap<>();
    private final ObjectiveOutcomes outcomes = new ObjectiveOutcomes();
    private final OfdpaInstaller ofdpa;

    /**
     * Creates an installer.
     *
     * @param fos   ONOS flow objective service
     * @param appId the application the objectives come from
     */
    public SteeringInstaller(FlowObjectiveService fos, ApplicationId appId) {
        this.flowObjectives = checkNotNull(fos, "flow objective service");
        this.appId = checkNotNull(appId, "appId");
        this.ofdpa = new OfdpaInstaller(fos, appId, outcomes);
    }

    /**
     * Installs the difference between what this installer installed on a
     * device before and the next steering, for the steering's pipeline. A
     * device whose pipeline changed (another driver) first loses what was
     * installed for the other pipeline.
     *
     * @param device   the switch
     * @param steering everything the device should have
     *                 ({@link SteeringPlan#compute(org.bngpod.api.Pod, org.bngpod.app.placement.Placement, Pipeline)})
     */
    public synchronized void apply(DeviceId device, Steering steering) {
        checkNotNull(device, "device");
        checkNotNull(steering, "steering");
        if (steering.pipeline() == Pipeline.OFDPA) {
            if (installed.containsKey(device)) {
                apply(device, ImmutableSet.of());
            }
            ofdpa.apply(device, steering.ofdpa());
        } else {
            if (!ofdpa.installed(device).forwards().isEmpty() || !ofdpa.installed(device).filters().isEmpty()) {
                ofdpa.withdraw(device);
            }
            apply(device, steering.steers());
        }
    }

    /**
     * Returns what this installer last applied to an OF-DPA device.
     *
     * @param device the switch
     * @return the OF-DPA steering, empty when none
     */
    public synchronized OfdpaSteering installedOfdpa(DeviceId device) {
        return ofdpa.installed(device);
    }

    /** The next ids allocated on a device, by next key (tests). */
    synchronized Map<Object, Integer> nextIds(DeviceId device) {
        return ofdpa.nextIds(device);
    }

    /**
     * Installs the difference between what this installer installed on a
     * device before and the next set of steers: removes the steers that went
     * away (unless a new steer takes their flow entry), adds the new ones.
     *
     * @param device the switch
     * @param next   every steer the device should have
     */
    public synchronized void apply(DeviceId device, Set<Steer> next) {
        checkNotNull(device, "device");
        Set<Steer> wanted = ImmutableSet.copyOf(checkNotNull(next, "next steers"));
        Set<Steer> before = installed.getOrDefault(device, ImmutableSet.of());
        List<Steer> added = new ArrayList<>();
        Set<Object> addedEntries = new HashSet<>();
        for (Steer steer : wanted) {
            if (!before.contains(steer)) {
                added.add(steer);
                addedEntries.add(steer.entry());
            }
        }
        int removed = 0;
        for (Steer steer : before) {
            if (!wanted.contains(steer) && !addedEntries.contains(steer.entry())) {
                send(device, steer, Objective.Operation.REMOVE);
                removed++;
            }
        }
        for (Steer steer : added) {
            send(device, steer, Objective.Operation.ADD);
        }
        remember(device, wanted);
        if (removed > 0 || !added.isEmpty()) {
            LOG.info("steering on {}: {} added or replaced, {} removed, {} in place",
                     device, added.size(), removed, wanted.size());
        }
    }

    /**
     * Sends every steer last applied to a device again (the switch
     * reconnected, or lost entries).
     *
     * @param device the switch
     */
    public synchronized void resync(DeviceId device) {
        Set<Steer> steers = installed.getOrDefault(checkNotNull(device, "device"), ImmutableSet.of());
        steers.forEach(steer -> send(device, steer, Objective.Operation.ADD));
        if (!steers.isEmpty()) {
            LOG.info("steering on {}: {} steers re-sent", device, steers.size());
        }
        ofdpa.resync(device);
    }

    /**
     * Removes every steer this installer installed on a device (the pod's
     * configuration was withdrawn, or the application deactivated).
     *
     * @param device the switch
     */
    public synchronized void withdraw(DeviceId device) {
        Set<Steer> steers = installed.getOrDefault(checkNotNull(device, "device"), ImmutableSet.of());
        steers.forEach(steer -> send(device, steer, Objective.Operation.REMOVE));
        installed.remove(device);
        if (!steers.isEmpty()) {
            LOG.info("steering on {}: {} steers withdrawn", device, steers.size());
        }
        ofdpa.withdraw(device);
    }

    /**
     * Returns what this installer last applied to a device.
     *
     * @param device the switch
     * @return the steers, empty when none
     */
    public synchronized Set<Steer> installed(DeviceId device) {
        return installed.getOrDefault(checkNotNull(device, "device"), ImmutableSet.of());
    }

    /**
     * Returns how many objectives the flow objective service reported failed.
     *
     * @return error count since the installer was made
     */
    public long errors() {
        return outcomes.errors();
    }

    /**
     * Returns how many objectives the flow objective service reported done.
     *
     * @return success count since the installer was made
     */
    public long successes() {
        return outcomes.successes();
    }

    private void remember(DeviceId device, Set<Steer> steers) {
        if (steers.isEmpty()) {
            installed.remove(device);
        } else {
            installed.put(device, steers);
        }
    }

    private void send(DeviceId device, Steer steer, Objective.Operation op) {
        ForwardingObjective.Builder builder = steer.objective(appId);
        ObjectiveContext context = outcomes.context(LOG, "steering", device, op, steer);
        ForwardingObjective objective = op == Objective.Operation.ADD ? builder.add(context)
                : builder.remove(context);
        flowObjectives.forward(device, objective);
    }
}
