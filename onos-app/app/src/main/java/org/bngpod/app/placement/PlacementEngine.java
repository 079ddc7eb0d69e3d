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
 * <p>Two more rules, whatever the capacity:</p>
 * <ul>
 *   <li>Line groups that split an S-tag of an access port by C-tag (lg3 and
 *   lg4 of the lab, both on S-tag 300 of access3) are placed together, as one
 *   bundle: the switch pipelines ONOS drives cannot match the C-tag (ONOS
 *   2.5.6's OpenFlow 1.3 provider does not encode INNER_VLAN_VID; OF-DPA
 *   bridges on one VLAN id), so the whole S-tag goes to one instance. A
 *   bundle is placed where its first group (in the engine's order) is, or is
 *   stated, and moves whole, its demand the sum of its groups'; a group that
 *   joins it elsewhere than the pod file states is marked
 *   {@link Reason.Kind#SHARED_STAG}. Only the static fold (two OVS tables)
 *   splits an S-tag across instances.</li>
 *   <li>An instance never serves two groups whose lines use the same S-tag on
 *   different access ports (the DP tells a frame's access port by the S-tag).
 *   A stated group that would break it stays unplaced until a re-balance; a
 *   group is never kept or moved where it would break it.</li>
 * </ul>
 */
public final class PlacementEngine {

    private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private static final Comparator<Demand> ORDER =
            Comparator.comparingLong((Demand d) -> d.sessions).reversed()
                    .thenComparing(Comparator.comparingLong((Demand d) -> d.bandwidth).reversed())
                    .thenComparing(d -> d.group);

    private static final Comparator<Bundle> BUNDLE_ORDER =
            Comparator.comparingLong((Bundle b) -> b.sessions).reversed()
                    .thenComparing(Comparator.comparingLong((Bundle b) -> b.bandwidth).reversed())
                    .thenComparing(b -> b.members.get(0).group);

    /** Why groups that share an S-tag go together (their reasons say it). */
    static final String SPLIT_STAG = "and ONOS's switch pipelines cannot split an S-tag by C-tag";

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
     * group no instance lists is unplaced. Groups that share an S-tag go
     * where the first of them is stated ({@link Reason.Kind#SHARED_STAG} for
     * those the pod file puts elsewhere or nowhere).
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
        for (Bundle b : bundles(pod)) {
            Demand lead = b.members.stream().filter(d -> pod.instanceOf(d.group).isPresent()).findFirst()
                    .orElse(null);
            if (lead == null) {
                for (Demand d : b.members) {
                    reasons.put(d.group, Reason.of(Reason.Kind.UNPLACED, String.format(
                            Locale.ROOT, "%s: unplaced%s: the pod file places it on no instance (needs %s)",
                            d.group, b.with(d), d.needs())));
                }
                continue;
            }
            Load load = loads.get(pod.instanceOf(lead.group).get().id());
            String conflict = load.conflict(b);
            if (conflict != null) {
                for (Demand d : b.members) {
                    reasons.put(d.group, Reason.of(Reason.Kind.UNPLACED, String.format(
                            Locale.ROOT, "%s: unplaced: the pod file states %s, but %s; a re-balance places it",
                            d.group, pod.instanceOf(d.group).map(PlacementEngine::label).orElse("no instance"),
                            conflict)));
                }
                continue;
            }
            boolean fits = load.fits(b);
            for (Demand d : b.members) {
                instances.put(d.group, load.instance.id());
                Optional<DpInstance> stated = pod.instanceOf(d.group);
                boolean here = stated.isPresent() && stated.get().id() == load.instance.id();
                if (!fits) {
                    reasons.put(d.group, Reason.of(Reason.Kind.OVER_CAPACITY, String.format(
                            Locale.ROOT, "%s: on %s %s, but over capacity: needs %s, "
                                    + "has %s after larger groups; a re-balance moves it",
                            d.group, load.label(), here ? "as the pod file states" : b.joining(d, statedText(stated)),
                            b.needs(), load.free())));
                    continue;
                }
                load.add(d);
                if (here) {
                    reasons.put(d.group, Reason.of(Reason.Kind.STATED, String.format(
                            Locale.ROOT, "%s: on %s%s as the pod file states; needs %s, leaving %s",
                            d.group, load.label(), b.with(d), d.needs(), load.free())));
                } else {
                    reasons.put(d.group, Reason.of(Reason.Kind.SHARED_STAG, String.format(
                            Locale.ROOT, "%s: on %s %s; needs %s, leaving %s",
                            d.group, load.label(), b.joining(d, statedText(stated)), d.needs(), load.free())));
                }
            }
        }
        return Placement.of(instances, reasons);
    }

    /**
     * Re-balances a placement over the available instances, moving as few
     * line groups as possible: a group stays where it is when its instance is
     * available and has room for it (groups counted in the engine's order);
     * every other group goes to the available instance left with the most
     * headroom, or stays unplaced when none can take it. Groups that share an
     * S-tag stay or move together, where the first of them is (the others
     * join it there). Ids that are not instances of the pod are ignored;
     * groups of the current placement that are not in the pod are dropped.
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
        List<Bundle> toMove = new ArrayList<>();
        Map<Bundle, String> causes = new HashMap<>();

        for (Bundle b : bundles(pod)) {
            // a bundle is where its first placed group is; the others join it there
            Demand lead = b.members.stream().filter(d -> current.instanceOf(d.group).isPresent()).findFirst()
                    .orElse(b.members.get(0));
            Integer id = current.instanceOf(lead.group).orElse(null);
            Load load = id == null ? null : loads.get(id);
            String conflict = load == null ? null : load.conflict(b);
            if (load != null && load.fits(b) && conflict == null) {
                for (Demand d : b.members) {
                    load.add(d);
                    instances.put(d.group, id);
                    Reason before = current.reason(d.group).orElse(null);
                    boolean wasHere = current.instanceOf(d.group).equals(Optional.of(id));
                    boolean keep = wasHere && before != null && (before.kind() == Reason.Kind.STATED
                            || before.kind() == Reason.Kind.MOVED || before.kind() == Reason.Kind.KEPT
                            || before.kind() == Reason.Kind.SHARED_STAG);
                    if (keep) {
                        reasons.put(d.group, before);
                    } else if (wasHere) {
                        reasons.put(d.group, Reason.of(Reason.Kind.KEPT, String.format(
                                Locale.ROOT, "%s: kept on %s%s, which has room for it: needs %s, leaving %s",
                                d.group, load.label(), b.with(d), d.needs(), load.free())));
                    } else {
                        reasons.put(d.group, Reason.of(Reason.Kind.SHARED_STAG, String.format(
                                Locale.ROOT, "%s: on %s %s; needs %s, leaving %s", d.group, load.label(),
                                b.joining(d, current.instanceOf(d.group).flatMap(pod::instance)
                                        .map(i -> "on " + label(i)).orElse("unplaced")), d.needs(),
                                load.free())));
                    }
                }
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
            toMove.add(b);
            causes.put(b, cause);
        }

        for (Bundle b : toMove) {
            String cause = causes.get(b);
            Comparator<Load> mostHeadroomFirst = ((Comparator<Load>) (x, y) -> compareAfter(y, x, b))
                    .thenComparingInt(l -> l.instance.id());
            List<Load> candidates = loads.values().stream().filter(l -> l.fits(b) && l.conflict(b) == null)
                    .sorted(mostHeadroomFirst).collect(Collectors.toList());
            if (candidates.isEmpty()) {
                String others = loads.isEmpty() ? "no instance is available"
                        : loads.values().stream().map(l -> l.conflict(b) != null ? l.label() + ": " + l.conflict(b)
                                : l.label() + " has " + l.free())
                        .collect(Collectors.joining("; "));
                for (Demand d : b.members) {
                    reasons.put(d.group, Reason.of(Reason.Kind.UNPLACED, String.format(
                            Locale.ROOT, "%s: %s; unplaced: no available instance can take %s%s (%s)",
                            d.group, cause, b.needs(), b.with(d), others)));
                }
                continue;
            }
            Load best = candidates.get(0);
            String runnerUp = "no other instance could take it";
            if (candidates.size() > 1) {
                Load next = candidates.get(1);
                runnerUp = String.format(Locale.ROOT, "next best %s would have left %s%s", next.label(),
                                         next.freeAfter(b),
                                         compareAfter(best, next, b) == 0 ? " (tie: lower id wins)" : "");
            }
            String freeAfter = best.freeAfter(b);
            for (Demand d : b.members) {
                best.add(d);
                instances.put(d.group, best.instance.id());
                reasons.put(d.group, Reason.of(Reason.Kind.MOVED, String.format(
                        Locale.ROOT, "%s: %s; moved to %s%s (most headroom: needs %s, leaving %s; %s)",
                        d.group, cause, best.label(), b.with(d), b.needs(), freeAfter, runnerUp)));
            }
        }
        return Placement.of(instances, reasons);
    }

    /**
     * Returns whether every group of a placement that shares an S-tag of an
     * access port with others is placed on the same instance as them (or
     * all of them are unplaced): what the switch pipelines ONOS drives can
     * steer.
     *
     * @param pod       the pod
     * @param placement a placement of it
     * @return true when no S-tag is split between instances
     */
    public boolean keepsSharedStagsTogether(Pod pod, Placement placement) {
        checkNotNull(pod, "pod is null");
        checkNotNull(placement, "placement is null");
        for (Bundle b : bundles(pod)) {
            Set<Optional<Integer>> where = b.members.stream().map(d -> placement.instanceOf(d.group))
                    .collect(Collectors.toSet());
            if (where.size() > 1) {
                return false;
            }
        }
        return true;
    }

    private List<Demand> demands(Pod pod) {
        return pod.lineGroups().stream()
                .map(g -> new Demand(g.name(), expectedSessions(pod, g), bandwidth(pod, g), g.lines()))
                .sorted(ORDER).collect(Collectors.toList());
    }

    /**
     * The groups as the engine places them: each group alone, except groups
     * that share an S-tag of an access port (directly or through another
     * group), which are one bundle. Bundles come in the engine's order of
     * their summed demand, their groups in the engine's order.
     */
    private List<Bundle> bundles(Pod pod) {
        List<Demand> demands = demands(pod);
        int[] parent = new int[demands.size()];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i;
        }
        List<int[]> edges = new ArrayList<>();
        List<String> whys = new ArrayList<>();
        for (int i = 0; i < demands.size(); i++) {
            for (int j = i + 1; j < demands.size(); j++) {
                String why = sharedStag(demands.get(i), demands.get(j));
                if (why != null) {
                    edges.add(new int[] {i, j});
                    whys.add(why);
                    int a = find(parent, i);
                    int b = find(parent, j);
                    parent[Math.max(a, b)] = Math.min(a, b);
                }
            }
        }
        Map<Integer, List<Demand>> members = new TreeMap<>();
        for (int i = 0; i < demands.size(); i++) {
            members.computeIfAbsent(find(parent, i), k -> new ArrayList<>()).add(demands.get(i));
        }
        Map<Integer, List<String>> shared = new HashMap<>();
        for (int e = 0; e < edges.size(); e++) {
            shared.computeIfAbsent(find(parent, edges.get(e)[0]), k -> new ArrayList<>()).add(whys.get(e));
        }
        List<Bundle> bundles = new ArrayList<>();
        members.forEach((r, list) -> bundles.add(new Bundle(list, shared.getOrDefault(r, List.of()))));
        bundles.sort(BUNDLE_ORDER);
        return bundles;
    }

    private static int find(int[] parent, int i) {
        while (parent[i] != i) {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        return i;
    }

    /** What two groups share on one access port (an S-tag they split by C-tag), or null. */
    private static String sharedStag(Demand a, Demand b) {
        for (AccessLine x : a.lines) {
            for (AccessLine y : b.lines) {
                if (x.port().equals(y.port()) && x.stag().overlaps(y.stag())) {
                    int first = Math.max(x.stag().min(), y.stag().min());
                    int last = Math.min(x.stag().max(), y.stag().max());
                    String tags = first == last ? "S-tag " + first : "S-tags " + first + "-" + last;
                    return String.format(Locale.ROOT, "%s and %s share %s on %s", a.group, b.group, tags, x.port());
                }
            }
        }
        return null;
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
    private static int compareAfter(Load a, Load b, Bundle d) {
        Fraction fa = a.headroomAfter(d);
        Fraction fb = b.headroomAfter(d);
        return fa.compareTo(fb);
    }

    private static String statedText(Optional<DpInstance> stated) {
        return stated.map(i -> "on " + label(i) + " as the pod file states")
                .orElse("unplaced as the pod file leaves it");
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

    /**
     * Groups that go together: one group, or the groups that share an S-tag
     * of an access port. Its demand is the sum of theirs.
     */
    private static final class Bundle {
        final List<Demand> members;
        final List<String> shared;
        final long sessions;
        final long bandwidth;

        Bundle(List<Demand> members, List<String> shared) {
            this.members = List.copyOf(members);
            this.shared = List.copyOf(shared);
            this.sessions = saturate(members.stream().map(d -> BigInteger.valueOf(d.sessions))
                                             .reduce(BigInteger.ZERO, BigInteger::add));
            this.bandwidth = saturate(members.stream().map(d -> BigInteger.valueOf(d.bandwidth))
                                              .reduce(BigInteger.ZERO, BigInteger::add));
        }

        /** What the bundle needs: with others, the sum, so named. */
        String needs() {
            String both = sessions(sessions) + " and " + rate(bandwidth);
            return members.size() == 1 ? both : "together " + both;
        }

        /** The other groups of d's bundle and why, for d's reason; "" for a group alone. */
        String with(Demand d) {
            if (members.size() == 1) {
                return "";
            }
            String others = members.stream().filter(m -> m != d).map(m -> m.group).collect(Collectors.joining(", "));
            return String.format(Locale.ROOT, " with %s (%s, %s)", others, String.join("; ", shared), SPLIT_STAG);
        }

        /** Why d is with its bundle instead of where it would be (instead: "on dp3 (id 3)", ...). */
        String joining(Demand d, String instead) {
            String others = members.stream().filter(m -> m != d).map(m -> m.group).collect(Collectors.joining(", "));
            return String.format(Locale.ROOT, "with %s, not %s: %s, %s", others, instead,
                                 String.join("; ", shared), SPLIT_STAG);
        }
    }

    /** A line of a group an instance serves. */
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

        boolean fits(Bundle b) {
            return b.sessions <= freeSessions() && b.bandwidth <= freeBandwidth();
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
        String conflict(Bundle b) {
            for (Demand d : b.members) {
                for (AccessLine mine : d.lines) {
                    for (GroupLine other : lines) {
                        if (!mine.port().equals(other.line.port()) && mine.stag().overlaps(other.line.stag())) {
                            VlanRange x = mine.stag();
                            VlanRange y = other.line.stag();
                            int first = Math.max(x.min(), y.min());
                            return String.format(Locale.ROOT, "S-tag %d of %s on %s is %s's on %s there",
                                                 first, d.group, mine.port(), other.group, other.line.port());
                        }
                    }
                }
            }
            return null;
        }

        Fraction headroomAfter(Bundle b) {
            return new Fraction(freeSessions() - b.sessions, sessionCapacity)
                    .min(new Fraction(freeBandwidth() - b.bandwidth, bandwidthCapacity));
        }

        String label() {
            return PlacementEngine.label(instance);
        }

        String free() {
            return String.format(Locale.ROOT, "%,d of %,d sessions and %s of %s free", freeSessions(),
                                 sessionCapacity, rate(freeBandwidth()), rate(bandwidthCapacity));
        }

        String freeAfter(Bundle b) {
            return String.format(Locale.ROOT, "%,d of %,d sessions and %s of %s free",
                                 freeSessions() - b.sessions, sessionCapacity,
                                 rate(freeBandwidth() - b.bandwidth), rate(bandwidthCapacity));
        }
    }
}
