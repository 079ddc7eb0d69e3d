package org.bngpod.app.steering;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flowobjective.DefaultForwardingObjective;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.packet.PacketPriority;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One steering rule of the fold: a match on the switch and where matching
 * frames go. A value: two steers are equal when they match, forward and
 * belong alike, so a plan can be diffed against what is installed.
 *
 * <p>Each steer is one VERSATILE forwarding objective, permanent, at a fixed
 * priority, whose treatment outputs to one port (or drops).</p>
 */
public final class Steer {

    /**
     * Priority of ONOS's own punts to the controller
     * ({@code PacketPriority.CONTROL}): the host provider's
     * {@code arp -> CONTROLLER} (app org.onosproject.openflow, unless its
     * requestArp is false) and the LLDP provider's. The steers sit above it,
     * so that the fold wins for every frame it steers (the core router's and
     * the instances' ARP above all); the drop sits below it, so that what no
     * steer takes still reaches those punts when they are installed.
     */
    public static final int PRIORITY_ONOS_PUNT = PacketPriority.CONTROL.priorityValue();
    /**
     * Priority of the ARP and neighbour discovery steers (more specific than
     * the MAC steers they overlap).
     */
    public static final int PRIORITY_ARP = PRIORITY_ONOS_PUNT + 300;
    /** Priority of the line and core-MAC steers. */
    public static final int PRIORITY_STEER = PRIORITY_ONOS_PUNT + 200;
    /** Priority of the drop that catches everything no steer (and no punt of ONOS) takes. */
    public static final int PRIORITY_DROP = 0;

    /** Instance id of steers that belong to no instance (the drop). */
    public static final int SHARED = 0;

    /** What a steer is for. */
    public enum Kind {
        /** Access port + S-tag (+ C-tag) to the serving instance's port. */
        LINE_UP,
        /** Instance port + S-tag (+ C-tag) back to the line's access port. */
        LINE_DOWN,
        /** Uplink, destination = a group's core MAC, to the group's instance. */
        CORE_DOWN,
        /** Uplink, ARP for a group's core address, to the group's instance. */
        CORE_ARP_DOWN,
        /** Instance port, source = its group's core MAC, destination = the router, to the uplink. */
        CORE_UP,
        /** Instance port, its ARP broadcast from its group's core MAC and address, to the uplink. */
        CORE_ARP_UP,
        /** Uplink, Neighbor Solicitation for a group's core IPv6 address, to the group's instance. */
        CORE_ND_DOWN,
        /**
         * Instance port, its multicast Neighbor Solicitation or Advertisement from its
         * group's core MAC and core IPv6 address, to the uplink.
         */
        CORE_ND_UP,
        /** Everything else: dropped. */
        DROP
    }

    private final Kind kind;
    private final int instance;
    private final String lineGroup;
    private final int priority;
    private final TrafficSelector selector;
    private final TrafficTreatment treatment;

    private Steer(Kind kind, int instance, String lineGroup, int priority,
                  TrafficSelector selector, TrafficTreatment treatment) {
        this.kind = checkNotNull(kind, "kind");
        this.instance = instance;
        this.lineGroup = checkNotNull(lineGroup, "lineGroup");
        this.priority = priority;
        this.selector = checkNotNull(selector, "selector");
        this.treatment = checkNotNull(treatment, "treatment");
        checkArgument(instance >= 0, "instance id %s", instance);
    }

    /**
     * Returns a steer that forwards what selector matches out of one port.
     *
     * @param kind      what the steer is for (not {@link Kind#DROP})
     * @param instance  id of the instance the steer belongs to
     * @param lineGroup name of the line group the steer belongs to
     * @param priority  objective priority
     * @param selector  match
     * @param out       output port
     * @return the steer
     */
    static Steer forward(Kind kind, int instance, String lineGroup, int priority,
                         TrafficSelector selector, PortNumber out) {
        checkArgument(kind != Kind.DROP, "a forwarding steer is not a drop");
        checkArgument(instance > 0, "a forwarding steer belongs to an instance");
        return new Steer(kind, instance, lineGroup, priority, selector,
                         DefaultTrafficTreatment.builder().setOutput(out).build());
    }

    /**
     * Returns the steer that drops what selector matches.
     *
     * @param selector match
     * @return the steer, shared by no instance and no line group
     */
    static Steer drop(TrafficSelector selector) {
        return new Steer(Kind.DROP, SHARED, "", PRIORITY_DROP, selector,
                         DefaultTrafficTreatment.builder().drop().build());
    }

    /**
     * Returns what the steer is for.
     *
     * @return kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * Returns the id of the instance the steer delivers to or comes from.
     *
     * @return instance id, or {@link #SHARED} (0) for the drop
     */
    public int instance() {
        return instance;
    }

    /**
     * Returns the line group the steer serves.
     *
     * @return line group name, or "" for the drop
     */
    public String lineGroup() {
        return lineGroup;
    }

    /**
     * Returns the objective priority.
     *
     * @return priority
     */
    public int priority() {
        return priority;
    }

    /**
     * Returns the match.
     *
     * @return selector
     */
    public TrafficSelector selector() {
        return selector;
    }

    /**
     * Returns what happens to matching frames: one output, or a drop.
     *
     * @return treatment
     */
    public TrafficTreatment treatment() {
        return treatment;
    }

    /**
     * Returns the steer's forwarding objective, ready for a context and
     * {@code add()} or {@code remove()}: VERSATILE, permanent, at the steer's
     * priority, from the application.
     *
     * @param appId the application
     * @return objective builder
     */
    public ForwardingObjective.Builder objective(ApplicationId appId) {
        return DefaultForwardingObjective.builder()
                .withSelector(selector)
                .withTreatment(treatment)
                .withPriority(priority)
                .withFlag(ForwardingObjective.Flag.VERSATILE)
                .makePermanent()
                .fromApp(checkNotNull(appId, "appId"));
    }

    /**
     * Returns the flow entry the steer occupies on the switch: the same match
     * at the same priority is the same entry, whatever it does, so installing
     * a steer replaces any other steer with an equal entry.
     *
     * @return a value equal for steers of the same entry
     */
    Object entry() {
        return ImmutableList.of(priority, selector);
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Steer)) {
            return false;
        }
        Steer that = (Steer) obj;
        return kind == that.kind && instance == that.instance && priority == that.priority
                && lineGroup.equals(that.lineGroup) && selector.equals(that.selector)
                && treatment.equals(that.treatment);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, instance, lineGroup, priority, selector, treatment);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("kind", kind).add("instance", instance).add("lineGroup", lineGroup)
                .add("priority", priority).add("selector", selector.criteria())
                .add("treatment", treatment.allInstructions()).toString();
    }
}
