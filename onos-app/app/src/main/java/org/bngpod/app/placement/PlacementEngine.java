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
 * Decides which DP instance serves which line group, by contracted rates.
 *
 * <p>Demand of a line group: its expected sessions are the usable addresses
 * of its pools (an IPv4 prefix shorter than /31 loses its network and
 * broadcast addresses, as the control plane's allocator does), and its
 * <em>contracted rate</em> is its expected sessions times the downstream rate
 * its QoS profile guarantees a session ({@link QosProfile#downGuaranteed()};
 * for a profile that states none, its downstream rate divided by
 * {@link Capacity#oversubscription()}). Capacity of an instance: its VF's
 * rate (its share of the server port, the HQoS port rate) of contracted rate,
 * and {@link Capacity#sessions()} sessions. Capacity of an access port: its
 * rate; a group counts its whole contracted rate on every access port it has
 * lines on (its subscribers may all be on one of them).</p>
 *
 * <p>Line groups are always taken in one order: most contracted rate first,
 * then most expected sessions, then by name. {@link #initial(Pod)} places each
 * group where the pod file says; a group that no longer fits on its instance
 * (after the larger groups there) is marked {@link Reason.Kind#OVER_CAPACITY}.
 * {@link #rebalance(Pod, Placement, Set)} keeps every group whose instance is
 * available and still has room for it, and moves the others: those of an
 * unavailable or unknown instance, unplaced ones, and from an instance over
 * capacity, one at a time, the group whose rate relieves it best (the
 * smallest that brings it within capacity, else the largest) until it is
 * within capacity. A group to move goes to the available instance left with
 * the largest free fraction of its contracted rate after taking it (then the
 * largest free fraction of sessions; ties to the lower id). A group that fits
 * nowhere stays unplaced, with the reason. No placement relieves an access
 * port (its groups use it wherever they are served): a port whose placed groups
 * contract more than its rate is named so in their reasons; it moves nothing.</p>
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
            Comparator.comparingLong((Demand d) -> d.rate).reversed()
                    .thenComparing(Comparator.comparingLong((Demand d) -> d.sessions).reversed())
                    .thenComparing(d -> d.group);

    private static final Comparator<Bundle> BUNDLE_ORDER =
            Comparator.comparingLong((Bundle b) -> b.rate).reversed()
                    .thenComparing(Comparator.comparingLong((Bundle b) -> b.sessions).reversed())
                    .thenComparing(b -> b.members.get(0).group);

    /** What a reason's figures of the access ports start with (a kept reason is given fresh ones). */
    static final String PORTS = "; contracted on ";

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
     * Returns the downstream rate a session of a profile is contracted: the
     * profile's {@link QosProfile#downGuaranteed()}, or when it states none,
     * its downstream rate divided by {@link Capacity#oversubscription()}
     * (rounded up).
     *
     * @param profile QoS profile
     * @return bit/s, at least 1
     */
    public long contractedPerSession(QosProfile profile) {
        long ratio = capacity.oversubscription();
        return profile.downGuaranteed().orElse((profile.downRate() + ratio - 1) / ratio);
    }

    /**
     * Returns the contracted rate of a line group: its expected sessions
     * times the rate its profile contracts a session, saturating at
     * {@link Long#MAX_VALUE}.
     *
     * @param pod   pod of the group
     * @param group line group of the pod
     * @return bit/s
     */
    public long contractedRate(Pod pod, LineGroup group) {
        QosProfile profile = pod.qosProfile(group.qosProfile()).orElseThrow();
        return saturate(BigInteger.valueOf(contractedPerSession(profile))
                                .multiply(BigInteger.valueOf(expectedSessions(pod, group))));
    }

    /**
     * Returns the rate capacity of an instance: its VF's rate.
     *
     * @param pod      pod of the instance
     * @param instance instance of the pod
     * @return bit/s
     */
    public long rateCapacity(Pod pod, DpInstance instance) {
        return pod.vfOf(instance).rate();
    }

    private static long saturate(BigInteger value) {
        return value.compareTo(MAX) > 0 ? Long.MAX_VALUE : value.longValueExact();
    }

    /**
     * Returns the placement the pod file states, checked against capacity.
     * On an instance whose stated groups contract more than its rate (or hold
     * more sessions than it can), the groups a re-balance would take off
     * (see {@link #rebalance(Pod, Placement, Set)}) stay on it, marked
     * {@link Reason.Kind#OVER_CAPACITY}, and are not counted in its load. A
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
        List<Bundle> bundles = bundles(pod);
        // which bundles each instance is stated (S-tag clashes aside), then which of them it cannot take
        Map<Integer, Load> scratch = loads(pod, loads.keySet());
        Map<Integer, List<Bundle>> stated = new TreeMap<>();
        Map<Bundle, String> clashes = new HashMap<>();
        for (Bundle b : bundles) {
            Optional<Integer> id = b.members.stream().map(d -> pod.instanceOf(d.group)).filter(Optional::isPresent)
                    .map(o -> o.get().id()).findFirst();
            String conflict = id.isPresent() ? scratch.get(id.get()).conflict(b) : null;
            if (conflict != null) {
                clashes.put(b, conflict);
            } else if (id.isPresent()) {
                b.members.forEach(scratch.get(id.get())::add);
                stated.computeIfAbsent(id.get(), k -> new ArrayList<>()).add(b);
            }
        }
        Map<Bundle, String> over = new HashMap<>();
        stated.forEach((id, list) -> relieve(scratch.get(id), list, over));
        for (Bundle b : bundles) {
            Demand lead = b.members.stream().filter(d -> pod.instanceOf(d.group).isPresent()).findFirst()
                    .orElse(null);
            if (lead == null) {
                for (Demand d : b.members) {
                    reasons.put(d.group, Reason.of(Reason.Kind.UNPLACED, String.format(
                            Locale.ROOT, "%s: unplaced%s: the pod file places it on no instance (contracts %s)",
                            d.group, b.with(d), d.needs())));
                }
                continue;
            }
            Load load = loads.get(pod.instanceOf(lead.group).get().id());
            String conflict = clashes.get(b);
            if (conflict != null) {
                for (Demand d : b.members) {
                    reasons.put(d.group, Reason.of(Reason.Kind.UNPLACED, String.format(
                            Locale.ROOT, "%s: unplaced: the pod file states %s, but %s; a re-balance places it",
                            d.group, pod.instanceOf(d.group).map(PlacementEngine::label).orElse("no instance"),
                            conflict)));
                }
                continue;
            }
            boolean fits = !over.containsKey(b);
            String after = load.usedAfter(b);
            for (Demand d : b.members) {
                instances.put(d.group, load.instance.id());
                Optional<DpInstance> statedOn = pod.instanceOf(d.group);
                boolean here = statedOn.isPresent() && statedOn.get().id() == load.instance.id();
                if (!fits) {
                    reasons.put(d.group, Reason.of(Reason.Kind.OVER_CAPACITY, String.format(
                            Locale.ROOT, "%s: on %s %s, but %s, contracts %s; a re-balance moves it",
                            d.group, load.label(), here ? "as the pod file states" : b.joining(d, statedText(statedOn)),
                            over.get(b), b.needs())));
                    continue;
                }
                load.add(d);
                if (here) {
                    reasons.put(d.group, Reason.of(Reason.Kind.STATED, String.format(
                            Locale.ROOT, "%s: on %s%s as the pod file states; contracts %s; %s",
                            d.group, load.label(), b.with(d), d.needs(), after)));
                } else {
                    reasons.put(d.group, Reason.of(Reason.Kind.SHARED_STAG, String.format(
                            Locale.ROOT, "%s: on %s %s; contracts %s; %s",
                            d.group, load.label(), b.joining(d, statedText(statedOn)), d.needs(), after)));
                }
            }
        }
        return finish(pod, instances, reasons);
    }

    /**
     * Re-balances a placement over the available instances, moving as few
     * line groups as possible: a group stays where it is when its instance is
     * available and within capacity. An instance over capacity sheds groups
     * one at a time, each time the one whose contracted rate relieves it
     * best: the smallest (by rate, then sessions) whose move alone brings it
     * within capacity, else the largest. Every group to move (shed, on an
     * unavailable or unknown instance, unplaced), largest first, goes to the
     * available instance left with the largest free fraction of its rate
     * after taking it (then of its sessions; ties to the lower id), or stays
     * unplaced when none can take it. Groups that share an S-tag stay or move
     * together, where the first of them is (the others join it there). Ids
     * that are not instances of the pod are ignored; groups of the current
     * placement that are not in the pod are dropped.
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
        Map<Integer, List<Bundle>> staying = new TreeMap<>();

        for (Bundle b : bundles(pod)) {
            // a bundle is where its first placed group is; the others join it there
            Integer id = where(current, b);
            Load load = id == null ? null : loads.get(id);
            if (load != null) {
                staying.computeIfAbsent(id, k -> new ArrayList<>()).add(b);
                continue;
            }
            String cause;
            if (id == null) {
                cause = "was unplaced";
            } else if (pod.instance(id).isEmpty()) {
                cause = String.format(Locale.ROOT, "instance id %d is not in the pod", id);
            } else {
                cause = String.format(Locale.ROOT, "instance %s unavailable", label(pod.instance(id).get()));
            }
            toMove.add(b);
            causes.put(b, cause);
        }

        for (Map.Entry<Integer, List<Bundle>> e : staying.entrySet()) {
            Load load = loads.get(e.getKey());
            // S-tags first: a bundle that clashes with the larger ones before it moves
            Load scratch = new Load(load.instance, load.sessionCapacity, load.rateCapacity);
            List<Bundle> keep = new ArrayList<>();
            for (Bundle b : e.getValue()) {
                String conflict = scratch.conflict(b);
                if (conflict != null) {
                    toMove.add(b);
                    causes.put(b, String.format(Locale.ROOT, "on %s %s", load.label(), conflict));
                } else {
                    b.members.forEach(scratch::add);
                    keep.add(b);
                }
            }
            // then capacity: relieve it one group at a time, by the group whose rate relieves it best
            for (Bundle victim : relieve(scratch, keep, causes)) {
                toMove.add(victim);
            }
            for (Bundle b : keep) {
                for (Demand d : b.members) {
                    load.add(d);
                    instances.put(d.group, load.instance.id());
                    Reason before = current.reason(d.group).orElse(null);
                    boolean wasHere = current.instanceOf(d.group).equals(Optional.of(load.instance.id()));
                    boolean keepReason = wasHere && before != null && (before.kind() == Reason.Kind.STATED
                            || before.kind() == Reason.Kind.MOVED || before.kind() == Reason.Kind.KEPT
                            || before.kind() == Reason.Kind.SHARED_STAG);
                    if (keepReason) {
                        reasons.put(d.group, before);
                    } else if (wasHere) {
                        reasons.put(d.group, Reason.of(Reason.Kind.KEPT, String.format(
                                Locale.ROOT, "%s: kept on %s%s, which has room for it: contracts %s; %s",
                                d.group, load.label(), b.with(d), d.needs(), load.usedAfter(b))));
                    } else {
                        reasons.put(d.group, Reason.of(Reason.Kind.SHARED_STAG, String.format(
                                Locale.ROOT, "%s: on %s %s; contracts %s; %s", d.group, load.label(),
                                b.joining(d, current.instanceOf(d.group).flatMap(pod::instance)
                                        .map(i -> "on " + label(i)).orElse("unplaced")), d.needs(),
                                load.usedAfter(b))));
                    }
                }
            }
        }

        toMove.sort(BUNDLE_ORDER);
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
                runnerUp = String.format(Locale.ROOT, "next best %s would have had %s%s", next.label(),
                                         next.figuresAfter(b),
                                         compareAfter(best, next, b) == 0 ? " (tie: lower id wins)" : "");
            }
            String after = best.usedAfter(b);
            for (Demand d : b.members) {
                best.add(d);
                instances.put(d.group, best.instance.id());
                reasons.put(d.group, Reason.of(Reason.Kind.MOVED, String.format(
                        Locale.ROOT, "%s: %s; moved to %s%s (most headroom: contracts %s; %s; %s)",
                        d.group, cause, best.label(), b.with(d), b.needs(), after, runnerUp)));
            }
        }
        return finish(pod, instances, reasons);
    }

    /**
     * Takes bundles off an instance over capacity until it is within: each
     * time the one whose rate relieves it best, the smallest (by rate, then
     * sessions) that alone brings it within capacity, else the largest.
     * Removes them from keep and the load, and states why in causes.
     *
     * @return the bundles taken off, in the order taken
     */
    private static List<Bundle> relieve(Load load, List<Bundle> keep, Map<Bundle, String> causes) {
        List<Bundle> taken = new ArrayList<>();
        while (!keep.isEmpty()) {
            // exact sums: a saturated total must not hide a group that does not fit
            BigInteger rate = keep.stream().map(b -> BigInteger.valueOf(b.rate)).reduce(BigInteger.ZERO,
                                                                                        BigInteger::add);
            BigInteger sessions = keep.stream().map(b -> BigInteger.valueOf(b.sessions))
                    .reduce(BigInteger.ZERO, BigInteger::add);
            BigInteger excessRate = rate.subtract(BigInteger.valueOf(load.rateCapacity));
            BigInteger excessSessions = sessions.subtract(BigInteger.valueOf(load.sessionCapacity));
            if (excessRate.signum() <= 0 && excessSessions.signum() <= 0) {
                break;
            }
            Bundle victim = keep.stream().filter(b -> BigInteger.valueOf(b.rate).compareTo(excessRate) >= 0
                            && BigInteger.valueOf(b.sessions).compareTo(excessSessions) >= 0)
                    .min(Comparator.comparingLong((Bundle b) -> b.rate)
                                 .thenComparingLong(b -> b.sessions).thenComparing(BUNDLE_ORDER))
                    .orElse(null);
            String how = "the smallest group that brings it within capacity";
            if (victim == null) {
                victim = keep.get(0);
                how = "the largest group: no one group brings it within capacity";
            }
            causes.put(victim, String.format(Locale.ROOT, "%s over capacity (%s; taking off %s relieves it: %s)",
                                             load.label(), load.used(), rate(victim.rate), how));
            keep.remove(victim);
            load.remove(victim, keep);
            taken.add(victim);
        }
        return taken;
    }

    /** Where a bundle is in a placement: where its first placed group is, or null. */
    private static Integer where(Placement current, Bundle b) {
        return b.members.stream().map(d -> current.instanceOf(d.group)).filter(Optional::isPresent)
                .map(Optional::get).findFirst().orElse(null);
    }

    /**
     * The placement, each placed group's reason ending with what the placed
     * groups contract on each of its access ports against the port's rate.
     */
    private Placement finish(Pod pod, Map<String, Integer> instances, Map<String, Reason> reasons) {
        Map<String, Long> contracted = new HashMap<>();
        Map<String, LineGroup> groups = new HashMap<>();
        for (LineGroup g : pod.lineGroups()) {
            groups.put(g.name(), g);
            if (instances.containsKey(g.name())) {
                long rate = contractedRate(pod, g);
                for (String port : accessPorts(g)) {
                    contracted.merge(port, rate, (x, y) -> saturate(BigInteger.valueOf(x).add(BigInteger.valueOf(y))));
                }
            }
        }
        Map<String, Reason> out = new HashMap<>();
        reasons.forEach((group, reason) -> {
            String text = reason.text();
            int cut = text.indexOf(PORTS);
            if (cut >= 0) {
                text = text.substring(0, cut);
            }
            if (instances.containsKey(group) && groups.containsKey(group)) {
                String ports = accessPorts(groups.get(group)).stream().map(port -> {
                    long rate = pod.port(port).map(p -> p.rate()).orElse(0L);
                    long used = contracted.getOrDefault(port, 0L);
                    return String.format(Locale.ROOT, "port %s %s of %s%s", port, rateIn(used, rate), rate(rate),
                                         used > rate ? ", over its rate (no placement relieves a port)" : "");
                }).collect(Collectors.joining(", "));
                text = text + PORTS + ports;
            }
            out.put(group, Reason.of(reason.kind(), text));
        });
        return Placement.of(instances, out);
    }

    private static List<String> accessPorts(LineGroup g) {
        return g.lines().stream().map(AccessLine::port).distinct().collect(Collectors.toList());
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
                .map(g -> new Demand(g.name(), expectedSessions(pod, g), contractedRate(pod, g), g.lines()))
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
                loads.put(instance.id(), new Load(instance, capacity.sessions(), rateCapacity(pod, instance)));
            }
        }
        return loads;
    }

    /**
     * Compares the headroom two instances would keep after taking a group:
     * their free fractions of contracted rate, then of sessions, exactly.
     */
    private static int compareAfter(Load a, Load b, Bundle d) {
        int byRate = new Fraction(a.freeRate() - d.rate, a.rateCapacity)
                .compareTo(new Fraction(b.freeRate() - d.rate, b.rateCapacity));
        if (byRate != 0) {
            return byRate;
        }
        return new Fraction(a.freeSessions() - d.sessions, a.sessionCapacity)
                .compareTo(new Fraction(b.freeSessions() - d.sessions, b.sessionCapacity));
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

    /**
     * Formats a rate as a number in the unit {@link #rate(long)} gives
     * another rate (its scale), without the unit: "1.2" of "2.5 Gbit/s".
     */
    static String rateIn(long bps, long scale) {
        return String.format(Locale.ROOT, "%,.1f", scale >= 1_000_000_000L ? bps / 1e9 : bps / 1e6);
    }

    /** What a line group needs. */
    private static final class Demand {
        final String group;
        final long sessions;
        final long rate;
        final List<AccessLine> lines;

        Demand(String group, long sessions, long rate, List<AccessLine> lines) {
            this.lines = lines;
            this.group = group;
            this.sessions = sessions;
            this.rate = rate;
        }

        String needs() {
            return rate(rate) + " for " + sessions(sessions);
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
        final long rate;

        Bundle(List<Demand> members, List<String> shared) {
            this.members = List.copyOf(members);
            this.shared = List.copyOf(shared);
            this.sessions = saturate(members.stream().map(d -> BigInteger.valueOf(d.sessions))
                                             .reduce(BigInteger.ZERO, BigInteger::add));
            this.rate = saturate(members.stream().map(d -> BigInteger.valueOf(d.rate))
                                              .reduce(BigInteger.ZERO, BigInteger::add));
        }

        /** What the bundle needs: with others, the sum, so named. */
        String needs() {
            String both = rate(rate) + " for " + sessions(sessions);
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
    }

    /** What an instance has taken so far. */
    private static final class Load {
        final DpInstance instance;
        final long sessionCapacity;
        final long rateCapacity;
        long sessions;
        long rate;
        final List<GroupLine> lines = new ArrayList<>();

        Load(DpInstance instance, long sessionCapacity, long rateCapacity) {
            this.instance = instance;
            this.sessionCapacity = sessionCapacity;
            this.rateCapacity = rateCapacity;
        }

        long freeSessions() {
            return sessionCapacity - sessions;
        }

        long freeRate() {
            return rateCapacity - rate;
        }

        boolean fits(Bundle b) {
            return b.sessions <= freeSessions() && b.rate <= freeRate();
        }

        void add(Demand d) {
            sessions = saturate(BigInteger.valueOf(sessions).add(BigInteger.valueOf(d.sessions)));
            rate = saturate(BigInteger.valueOf(rate).add(BigInteger.valueOf(d.rate)));
            d.lines.forEach(line -> lines.add(new GroupLine(d.group, line)));
        }

        /** Takes b off; what is left is the bundles of rest (the totals summed again, saturating). */
        void remove(Bundle b, List<Bundle> rest) {
            sessions = 0;
            rate = 0;
            for (Bundle r : rest) {
                sessions = saturate(BigInteger.valueOf(sessions).add(BigInteger.valueOf(r.sessions)));
                rate = saturate(BigInteger.valueOf(rate).add(BigInteger.valueOf(r.rate)));
            }
            Set<String> names = b.members.stream().map(d -> d.group).collect(Collectors.toSet());
            lines.removeIf(l -> names.contains(l.group));
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

        String label() {
            return PlacementEngine.label(instance);
        }

        private String used(long r, long n) {
            return instance.name() + ": " + figures(r, n);
        }

        private String figures(long r, long n) {
            return String.format(Locale.ROOT, "%s of %s contracted, %,d of %,d sessions",
                                 rateIn(r, rateCapacity), rate(rateCapacity), n, sessionCapacity);
        }

        /** What it would have taken after b, without its name. */
        String figuresAfter(Bundle b) {
            return figures(saturate(BigInteger.valueOf(rate).add(BigInteger.valueOf(b.rate))),
                           saturate(BigInteger.valueOf(sessions).add(BigInteger.valueOf(b.sessions))));
        }

        /** What it has taken: "dp3: 1.2 of 2.5 Gbit/s contracted, 1,022 of 65,536 sessions". */
        String used() {
            return used(rate, sessions);
        }

        /** What it would have taken after b. */
        String usedAfter(Bundle b) {
            return used(saturate(BigInteger.valueOf(rate).add(BigInteger.valueOf(b.rate))),
                        saturate(BigInteger.valueOf(sessions).add(BigInteger.valueOf(b.sessions))));
        }

        String free() {
            return String.format(Locale.ROOT, "%s of %s and %,d of %,d sessions free", rate(freeRate()),
                                 rate(rateCapacity), freeSessions(), sessionCapacity);
        }
    }
}
