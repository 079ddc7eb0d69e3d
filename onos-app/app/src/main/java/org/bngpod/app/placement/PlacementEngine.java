package org.bngpod.app.placement;

import com.google.common.collect.ImmutableSet;
import org.bngpod.api.AccessLine;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.Pool;
import org.bngpod.api.QosProfile;
import org.bngpod.api.VlanRange;
import org.onlab.packet.IpPrefix;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Decides which DP instance serves which line group.
 *
 * <p>Demand of a line group: its expected sessions are the usable addresses
 * of its pools (an IPv4 prefix shorter than /31 loses its network and
 * broadcast addresses, as the control plane's allocator does), and its
 * bandwidth is its QoS profile's downstream rate times its expected
 * sessions. Capacity of an instance: {@link Capacity#sessions()} sessions,
 * and its VF's rate (its share of the port) times
 * {@link Capacity#oversubscription()} of bandwidth.</p>
 *
 * <p>Line groups are always taken in one order: most expected sessions
 * first, then most bandwidth, then by name. {@link #initial(Pod)} places each
 * group where the pod file says; a group that no longer fits on its instance
 * (after the larger groups there) is marked {@link Reason.Kind#OVER_CAPACITY}.
 * {@link #rebalance(Pod, Placement, Set)} keeps every group whose instance is
 * available and still has room for it, and moves the others (unavailable or
 * unknown instance, over capacity, unplaced) one by one onto the available
 * instance left with the most headroom: the largest smaller-of-two free
 * fractions (free sessions over session capacity, free bandwidth over
 * bandwidth capacity) after taking the group; ties go to the lower instance
 * id. A group that fits nowhere stays unplaced, with the reason.</p>
 *
 * <p>One more rule, whatever the capacity: an instance never serves two
 * groups whose lines use the same S-tag on different access ports (the DP
 * tells a frame's access port by the S-tag). A stated group that would break
 * it stays unplaced until a re-balance; a group is never kept or moved where
 * it would break it.</p>
 */
public final class PlacementEngine {

    private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private static final Comparator<Demand> ORDER =
            Comparator.comparingLong((Demand d) -> d.sessions).reversed()
                    .thenComparing(Comparator.comparingLong((Demand d) -> d.bandwidth).reversed())
                    .thenComparing(d -> d.group);

    private final Capacity capacity;

    /**
     * Creates an engine with {@link Capacity#DEFAULT}.
     */
    public PlacementEngine() {
        this(Capacity.DEFAULT);
    }

    /**
     * Creates an engine.
     *
     * @param capacity what each instance can take
     */
    public PlacementEngine(Capacity capacity) {
        this.capacity = checkNotNull(capacity, "capacity is null");
    }

    /**
     * Returns the capacity the engine places against.
     *
     * @return capacity
     */
    public Capacity capacity() {
        return capacity;
    }

    /**
     * Returns the expected sessions of a line group: the usable addresses of
     * its pools, saturating at {@link Long#MAX_VALUE}.
     *
     * @param pod   pod of the group
     * @param group line group of the pod
     * @return expected sessions
     */
    public long expectedSessions(Pod pod, LineGroup group) {
        long sum = 0;
        for (Pool pool : pod.poolsOf(group)) {
            sum = saturate(BigInteger.valueOf(sum).add(usable(pool.prefix())));
        }
        return sum;
    }

    private static BigInteger usable(IpPrefix prefix) {
        int hostBits = (prefix.isIp4() ? 32 : 128) - prefix.prefixLength();
        BigInteger n = BigInteger.ONE.shiftLeft(hostBits);
        return prefix.isIp4() && hostBits > 1 ? n.subtract(BigInteger.TWO) : n;
    }

    /**
     * Returns the bandwidth of a line group: its profile's downstream rate
     * times its expected sessions, saturating at {@link Long#MAX_VALUE}.
     *
     * @param pod   pod of the group
     * @param group line group of the pod
     * @return bit/s
     */
    public long bandwidth(Pod pod, LineGroup group) {
        QosProfile profile = pod.qosProfile(group.qosProfile()).orElseThrow();
        return saturate(BigInteger.valueOf(profile.downRate())
                                .multiply(BigInteger.valueOf(expectedSessions(pod, group))));
    }

    /**
     * Returns the bandwidth capacity of an instance: its VF's rate times the
     * oversubscription ratio, saturating at {@link Long#MAX_VALUE}.
     *
     * @param pod      pod of the instance
     * @param instance instance of the pod
     * @return bit/s
     */
    public long bandwidthCapacity(Pod pod, DpInstance instance) {
        return saturate(BigInteger.valueOf(pod.vfOf(instance).rate())
                                .multiply(BigInteger.valueOf(capacity.oversubscription())));
    }

    private static long saturate(BigInteger value) {
        return value.compareTo(MAX) > 0 ? Long.MAX_VALUE : value.longValueExact();
    }

    /**
     * Returns the placement the pod file states, checked against capacity.
     * Groups of an instance are counted in the engine's order; one that does
     * not fit after the ones before it stays on its instance, marked
     * {@link Reason.Kind#OVER_CAPACITY}, and is not counted in the load. A
     * group no instance lists is unplaced.
     *
     * @param pod the pod
     * @return the stated placement
     */
    public Placement initial(Pod pod) {
        checkNotNull(pod, "pod is null");
        Map<Integer, Load> loads = loads(pod, pod.instances().stream().map(DpInstance::id)
                .collect(Collectors.toSet()));
        Map<String, Integer> instances = new HashMap<>();
        Map<String, Reason> reasons = new HashMap<>();
        for (Demand d : demands(pod)) {
            Optional<DpInstance> stated = pod.instanceOf(d.group);
            if (stated.isEmpty()) {
                reasons.put(d.group, Reason.of(Reason.Kind.UNPLACED, String.format(
                        Locale.ROOT, "%s: unplaced: the pod file places it on no instance (needs %s)",
                        d.group, d.needs())));
                continue;
            }
            Load load = loads.get(stated.get().id());
            String conflict = load.conflict(d);
            if (conflict != null) {
                reasons.put(d.group, Reason.of(Reason.Kind.UNPLACED, String.format(
                        Locale.ROOT, "%s: unplaced: the pod file states %s, but %s; a re-balance places it",
                        d.group, load.label(), conflict)));
                continue;
            }
            instances.put(d.group, load.instance.id());
            if (load.fits(d)) {
                load.add(d);
                reasons.put(d.group, Reason.of(Reason.Kind.STATED, String.format(
                        Locale.ROOT, "%s: on %s as the pod file states; needs %s, leaving %s",
                        d.group, load.label(), d.needs(), load.free())));
            } else {
                reasons.put(d.group, Reason.of(Reason.Kind.OVER_CAPACITY, String.format(
                        Locale.ROOT, "%s: on %s as the pod file states, but over capacity: needs %s, "
                                + "has %s after larger groups; a re-balance moves it",
                        d.group, load.label(), d.needs(), load.free())));
            }
        }
        return Placement.of(instances, reasons);
    }

    /**
     * Re-balances a placement over the available instances, moving as few
     * line groups as possible: a group stays where it is when its instance is
     * available and has room for it (groups counted in the engine's order);
     * every other group goes to the available instance left with the most
     * headroom, or stays unplaced when none can take it. Ids that are not
     * instances of the pod are ignored; groups of the current placement that
     * are not in the pod are dropped.
     *
     * @param pod                the pod
     * @param current            the current placement
     * @param availableInstances ids of the instances that can serve
     * @return the new placement
     */
    public Placement rebalance(Pod pod, Placement current, Set<Integer> availableInstances) {
        checkNotNull(pod, "pod is null");
        checkNotNull(current, "current is null");
        Set<Integer> available = ImmutableSet.copyOf(checkNotNull(availableInstances, "availableInstances is null"));
        Map<Integer, Load> loads = loads(pod, available);
        Map<String, Integer> instances = new HashMap<>();
        Map<String, Reason> reasons = new HashMap<>();
        List<Demand> toMove = new ArrayList<>();
        Map<String, String> causes = new HashMap<>();

        for (Demand d : demands(pod)) {
            Integer id = current.instanceOf(d.group).orElse(null);
            Load load = id == null ? null : loads.get(id);
            String conflict = load == null ? null : load.conflict(d);
            if (load != null && load.fits(d) && conflict == null) {
                load.add(d);
                instances.put(d.group, id);
                Reason before = current.reason(d.group).orElse(null);
                boolean keep = before != null && (before.kind() == Reason.Kind.STATED
                        || before.kind() == Reason.Kind.MOVED || before.kind() == Reason.Kind.KEPT);
                reasons.put(d.group, keep ? before : Reason.of(Reason.Kind.KEPT, String.format(
                        Locale.ROOT, "%s: kept on %s, which has room for it: needs %s, leaving %s",
                        d.group, load.label(), d.needs(), load.free())));
                continue;
            }
            String cause;
            if (id == null) {
                cause = "was unplaced";
            } else if (pod.instance(id).isEmpty()) {
                cause = String.format(Locale.ROOT, "instance id %d is not in the pod", id);
            } else if (load == null) {
                cause = String.format(Locale.ROOT, "instance %s unavailable", label(pod.instance(id).get()));
            } else if (conflict != null) {
                cause = String.format(Locale.ROOT, "on %s %s", load.label(), conflict);
            } else {
                cause = String.format(Locale.ROOT, "%s over capacity (has %s after larger groups)",
                                      load.label(), load.free());
            }
            toMove.add(d);
            causes.put(d.group, cause);
        }

        for (Demand d : toMove) {
            String cause = causes.get(d.group);
            Comparator<Load> mostHeadroomFirst = ((Comparator<Load>) (a, b) -> compareAfter(b, a, d))
                    .thenComparingInt(l -> l.instance.id());
            List<Load> candidates = loads.values().stream().filter(l -> l.fits(d) && l.conflict(d) == null)
                    .sorted(mostHeadroomFirst).collect(Collectors.toList());
            if (candidates.isEmpty()) {
                String others = loads.isEmpty() ? "no instance is available"
                        : loads.values().stream().map(l -> l.conflict(d) != null ? l.label() + ": " + l.conflict(d)
                                : l.label() + " has " + l.free())
                        .collect(Collectors.joining("; "));
                reasons.put(d.group, Reason.of(Reason.Kind.UNPLACED, String.format(
                        Locale.ROOT, "%s: %s; unplaced: no available instance can take %s (%s)",
                        d.group, cause, d.needs(), others)));
                continue;
            }
            Load best = candidates.get(0);
            String runnerUp = "no other instance could take it";
            if (candidates.size() > 1) {
                Load next = candidates.get(1);
                runnerUp = String.format(Locale.ROOT, "next best %s would have left %s%s", next.label(),
                                         next.freeAfter(d),
                                         compareAfter(best, next, d) == 0 ? " (tie: lower id wins)" : "");
            }
            String freeAfter = best.freeAfter(d);
            best.add(d);
            instances.put(d.group, best.instance.id());
            reasons.put(d.group, Reason.of(Reason.Kind.MOVED, String.format(
                    Locale.ROOT, "%s: %s; moved to %s (most headroom: needs %s, leaving %s; %s)",
                    d.group, cause, best.label(), d.needs(), freeAfter, runnerUp)));
        }
        return Placement.of(instances, reasons);
    }

    private List<Demand> demands(Pod pod) {
        return pod.lineGroups().stream()
                .map(g -> new Demand(g.name(), expectedSessions(pod, g), bandwidth(pod, g), g.lines()))
                .sorted(ORDER).collect(Collectors.toList());
    }

    private Map<Integer, Load> loads(Pod pod, Set<Integer> ids) {
        Map<Integer, Load> loads = new TreeMap<>();
        for (DpInstance instance : pod.instances()) {
            if (ids.contains(instance.id())) {
                loads.put(instance.id(), new Load(instance, capacity.sessions(), bandwidthCapacity(pod, instance)));
            }
        }
        return loads;
    }

    /**
     * Compares the headroom two instances would keep after taking a group:
     * the smaller of their free session and free bandwidth fractions, exactly.
     */
    private static int compareAfter(Load a, Load b, Demand d) {
        Fraction fa = a.headroomAfter(d);
        Fraction fb = b.headroomAfter(d);
        return fa.compareTo(fb);
    }

    private static String label(DpInstance instance) {
        return String.format(Locale.ROOT, "%s (id %d)", instance.name(), instance.id());
    }

    private static String sessions(long n) {
        return String.format(Locale.ROOT, "%,d sessions", n);
    }

    /**
     * Formats a rate in Gbit/s (or Mbit/s below 1 Gbit/s) with one decimal.
     */
    static String rate(long bps) {
        if (bps >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%,.1f Gbit/s", bps / 1e9);
        }
        return String.format(Locale.ROOT, "%,.1f Mbit/s", bps / 1e6);
    }

    /** What a line group needs. */
    private static final class Demand {
        final String group;
        final long sessions;
        final long bandwidth;
        final List<AccessLine> lines;

        Demand(String group, long sessions, long bandwidth, List<AccessLine> lines) {
            this.lines = lines;
            this.group = group;
            this.sessions = sessions;
            this.bandwidth = bandwidth;
        }

        String needs() {
            return sessions(sessions) + " and " + rate(bandwidth);
        }
    }

    /** A non-negative fraction, compared exactly. */
    private static final class GroupLine {
        final String group;
        final AccessLine line;

        GroupLine(String group, AccessLine line) {
            this.group = group;
            this.line = line;
        }
    }

    private static final class Fraction implements Comparable<Fraction> {
        final BigInteger num;
        final BigInteger den;

        Fraction(long num, long den) {
            this.num = BigInteger.valueOf(num);
            this.den = BigInteger.valueOf(den);
        }

        @Override
        public int compareTo(Fraction o) {
            return num.multiply(o.den).compareTo(o.num.multiply(den));
        }

        Fraction min(Fraction o) {
            return compareTo(o) <= 0 ? this : o;
        }
    }

    /** What an instance has taken so far. */
    private static final class Load {
        final DpInstance instance;
        final long sessionCapacity;
        final long bandwidthCapacity;
        long sessions;
        long bandwidth;
        final List<GroupLine> lines = new ArrayList<>();

        Load(DpInstance instance, long sessionCapacity, long bandwidthCapacity) {
            this.instance = instance;
            this.sessionCapacity = sessionCapacity;
            this.bandwidthCapacity = bandwidthCapacity;
        }

        long freeSessions() {
            return sessionCapacity - sessions;
        }

        long freeBandwidth() {
            return bandwidthCapacity - bandwidth;
        }

        boolean fits(Demand d) {
            return d.sessions <= freeSessions() && d.bandwidth <= freeBandwidth();
        }

        void add(Demand d) {
            sessions += d.sessions;
            bandwidth += d.bandwidth;
            d.lines.forEach(line -> lines.add(new GroupLine(d.group, line)));
        }

        /*
         * The DP tells a frame's access port by its S-tag alone (DESIGN.md, line
         * identity at an instance), so one instance must never serve the same
         * S-tag on two access ports.
         */
        String conflict(Demand d) {
            for (AccessLine mine : d.lines) {
                for (GroupLine other : lines) {
                    if (!mine.port().equals(other.line.port()) && mine.stag().overlaps(other.line.stag())) {
                        VlanRange a = mine.stag();
                        VlanRange b = other.line.stag();
                        int first = Math.max(a.min(), b.min());
                        return String.format(Locale.ROOT, "S-tag %d of %s on %s is %s's on %s there",
                                             first, d.group, mine.port(), other.group, other.line.port());
                    }
                }
            }
            return null;
        }

        Fraction headroomAfter(Demand d) {
            return new Fraction(freeSessions() - d.sessions, sessionCapacity)
                    .min(new Fraction(freeBandwidth() - d.bandwidth, bandwidthCapacity));
        }

        String label() {
            return PlacementEngine.label(instance);
        }

        String free() {
            return String.format(Locale.ROOT, "%,d of %,d sessions and %s of %s free", freeSessions(),
                                 sessionCapacity, rate(freeBandwidth()), rate(bandwidthCapacity));
        }

        String freeAfter(Demand d) {
            return String.format(Locale.ROOT, "%,d of %,d sessions and %s of %s free",
                                 freeSessions() - d.sessions, sessionCapacity,
                                 rate(freeBandwidth() - d.bandwidth), rate(bandwidthCapacity));
        }
    }
}
