package org.bngpod.app.steering;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flowobjective.DefaultForwardingObjective;
import org.onosproject.net.flowobjective.ForwardingObjective;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One OF-DPA forwarding objective of the fold: a match in the bridging table
 * (SPECIFIC: VLAN and destination MAC, or the VLAN alone for its flood) or in
 * the ACL policy table (VERSATILE), sending to a {@link OfdpaNext}. A value:
 * it names its next, not the next's id, which the installer allocates.
 */
public final class OfdpaForward {

    /** What the forwarding objective is for. */
    public enum Kind {
        /** Bridging, VLAN = an S-tag, any destination: the S-tag's flood (access port and instance port). */
        LINE_FLOOD,
        /** Bridging, core VLAN + a group's core MAC: to the group's instance port. */
        CORE_DOWN,
        /** Bridging, core VLAN + the router's MAC: to the uplink. */
        CORE_UP,
        /** ACL, an instance's ARP broadcast from its group's core MAC: to the uplink. */
        CORE_ARP_UP
    }

    private final Kind kind;
    private final int instance;
    private final String lineGroup;
    private final int priority;
    private final TrafficSelector selector;
    private final OfdpaNext next;

    OfdpaForward(Kind kind, int instance, String lineGroup, int priority,
                 TrafficSelector selector, OfdpaNext next) {
        this.kind = checkNotNull(kind, "kind");
        this.instance = instance;
        this.lineGroup = checkNotNull(lineGroup, "lineGroup");
        this.priority = priority;
        this.selector = checkNotNull(selector, "selector");
        this.next = checkNotNull(next, "next");
        checkArgument(instance >= 0, "instance id %s", instance);
    }

    /**
     * Returns what the objective is for.
     *
     * @return kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * Returns the instance the objective delivers to or comes from.
     *
     * @return instance id, or {@link Steer#SHARED} for the router's entry
     */
    public int instance() {
        return instance;
    }

    /**
     * Returns the line group the objective serves.
     *
     * @return line group name, or "" for the router's entry
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
     * Returns where matching frames go.
     *
     * @return the next
     */
    public OfdpaNext next() {
        return next;
    }

    /**
     * Returns the objective's flag: SPECIFIC (bridging table) but for the
     * ARP steers, which are VERSATILE (ACL policy table).
     *
     * @return flag
     */
    public ForwardingObjective.Flag flag() {
        return kind == Kind.CORE_ARP_UP ? ForwardingObjective.Flag.VERSATILE : ForwardingObjective.Flag.SPECIFIC;
    }

    /**
     * Returns the forwarding objective, ready for a context: permanent, at
     * the priority, from the application, to the next id (no treatment:
     * OF-DPA's bridging and ACL tables forward through groups).
     *
     * @param appId  the application
     * @param nextId the id the installer allocated for {@link #next()}
     * @return objective builder
     */
    public ForwardingObjective.Builder objective(ApplicationId appId, int nextId) {
        return DefaultForwardingObjective.builder()
                .withSelector(selector)
                .nextStep(nextId)
                .withPriority(priority)
                .withFlag(flag())
                .makePermanent()
                .fromApp(checkNotNull(appId, "appId"));
    }

    /**
     * Returns the flow entry the objective occupies: the same match and
     * priority in the same table is the same entry, whatever it points at.
     *
     * @return a value equal for objectives of the same entry
     */
    Object entry() {
        return ImmutableList.of(flag(), priority, selector);
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof OfdpaForward)) {
            return false;
        }
        OfdpaForward that = (OfdpaForward) obj;
        return kind == that.kind && instance == that.instance && priority == that.priority
                && lineGroup.equals(that.lineGroup) && selector.equals(that.selector)
                && next.key().equals(that.next.key());
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, instance, lineGroup, priority, selector, next.key());
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("kind", kind).add("instance", instance).add("lineGroup", lineGroup)
                .add("priority", priority).add("selector", selector.criteria())
                .add("next", next.key()).toString();
    }
}
