package org.bngpod.app.cli;

import org.bngpod.api.AccessLine;
import org.bngpod.api.DpInstance;
import org.bngpod.api.Failover;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.InstanceStatus;
import org.bngpod.api.LineGroup;
import org.bngpod.api.PlacementState;
import org.bngpod.api.Pod;
import org.bngpod.api.PodStats;
import org.bngpod.api.Session;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The CLI commands' text, one line per row, apart from Karaf so that tests
 * can read it.
 */
public final class CliFormat {

    private CliFormat() {
    }

    /**
     * The pod in brief.
     *
     * @param pod       the pod, or null
     * @param rejection why the last config was rejected, or null
     * @return lines
     */
    public static List<String> pod(Pod pod, String rejection) {
        List<String> out = new ArrayList<>();
        if (pod == null) {
            out.add("no pod configured (netcfg apps/org.bngpod.app/pod)");
        } else {
            out.add(String.format(Locale.ROOT, "pod %s, switch %s", pod.name(), pod.deviceId()));
            out.add(String.format(Locale.ROOT, "  %d ports, %d servers, %d instances, %d line groups, %d pools, "
                                          + "%d QoS profiles", pod.ports().size(), pod.servers().size(),
                                  pod.instances().size(), pod.lineGroups().size(), pod.pools().size(),
                                  pod.qosProfiles().size()));
            out.add(String.format(Locale.ROOT, "  core: uplink %s, router %s (%s), subnet %s", pod.core().uplink(),
                                  pod.core().routerAddress(), pod.core().routerMac(), pod.core().subnet()));
            pod.core().subnet6().ifPresent(p -> out.add(String.format(
                    Locale.ROOT, "  core IPv6: subnet %s, router %s", p,
                    pod.core().routerAddress6().map(Object::toString).orElse("none"))));
            out.add(String.format(Locale.ROOT, "  control plane: %s", pod.controlPlane().address()));
        }
        if (rejection != null) {
            out.add("last config rejected (running pod kept): " + rejection);
        }
        return out;
    }

    /**
     * The instances with availability and the groups each serves.
     *
     * @param pod   the pod
     * @param state the placement
     * @return lines
     */
    public static List<String> instances(Pod pod, PlacementState state) {
        List<String> out = new ArrayList<>();
        for (DpInstance i : pod.instances()) {
            InstanceStatus s = state.instance(i.id()).orElse(InstanceStatus.available(i.id(), i.name()));
            String groups = state.groups().stream().filter(g -> g.instance().equals(Optional.of(i.id())))
                    .map(GroupPlacement::lineGroup).collect(Collectors.joining(","));
            out.add(String.format(Locale.ROOT, "id=%d name=%s server=%s/%s vf=%d port=%s %s groups=%s", i.id(),
                                  i.name(), i.server(), i.port(), i.vf(), pod.switchPortOf(i).name(),
                                  s.available() ? "available"
                                          : "DEAD (" + s.declaredBy().orElse("?") + ": " + s.reason().orElse("")
                                                  + ")",
                                  groups.isEmpty() ? "-" : groups));
        }
        return out;
    }

    /**
     * The line groups, their lines and why each is where it is.
     *
     * @param pod   the pod
     * @param state the placement
     * @return lines
     */
    public static List<String> lines(Pod pod, PlacementState state) {
        List<String> out = new ArrayList<>();
        for (LineGroup g : pod.lineGroups()) {
            GroupPlacement p = state.group(g.name()).orElse(null);
            String where = p == null || !p.placed() ? "unplaced"
                    : pod.instance(p.instance().get()).map(i -> i.name() + " (id " + i.id() + ")").orElse("?");
            out.add(String.format(Locale.ROOT, "%s on %s: profile %s, AC MAC %s, core %s (%s)", g.name(), where,
                                  g.qosProfile(), g.acMac(),
                                  g.coreAddress() + g.coreAddress6().map(a -> " " + a).orElse(""), g.coreMac()));
            for (AccessLine l : g.lines()) {
                out.add(String.format(Locale.ROOT, "  line %s S-tag %s C-tag %s", l.port(), l.stag(),
                                      l.ctag().map(Object::toString).orElse("any")));
            }
            out.add("  why: " + (p == null ? "not placed yet" : p.reason()));
        }
        return out;
    }

    /**
     * The placement.
     *
     * @param state the placement
     * @return lines
     */
    public static List<String> placement(PlacementState state) {
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "placement version %d, %d moves", state.version(), state.moves()));
        for (GroupPlacement g : state.groups()) {
            out.add(String.format(Locale.ROOT, "%s -> %s [%s] %s", g.lineGroup(),
                                  g.instance().map(String::valueOf).orElse("none"), g.reasonKind(), g.reason()));
        }
        return out;
    }

    /**
     * Sessions, one per line.
     *
     * @param sessions sessions
     * @return lines
     */
    public static List<String> sessions(List<Session> sessions) {
        List<String> out = new ArrayList<>();
        for (Session s : sessions) {
            out.add(String.format(Locale.ROOT,
                                  "id=%s cp=%s group=%s instance=%d line=%s/%d/%d pppoe=%d mac=%s ip=%s user=%s "
                                          + "profile=%s since=%s up=%d/%d down=%d/%d",
                                  s.id(), s.cp(), s.lineGroup(), s.instance(), s.accessPort(), s.stag(), s.ctag(),
                                  s.pppoeId(), s.mac(), s.ipv4().map(Object::toString).orElse("-"),
                                  s.username().isEmpty() ? "-" : s.username(), s.qosProfile().orElse("-"),
                                  s.since(), s.usage().upBytes(), s.usage().upPackets(), s.usage().downBytes(),
                                  s.usage().downPackets()));
        }
        return out;
    }

    /**
     * Pod figures.
     *
     * @param stats figures
     * @return lines
     */
    public static List<String> stats(PodStats stats) {
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "sessions: %,d", stats.sessions()));
        stats.sessionsPerInstance().forEach((id, n) -> out.add(
                String.format(Locale.ROOT, "  instance %d: %,d", id, n)));
        stats.sessionsPerGroup().forEach((g, n) -> out.add(String.format(Locale.ROOT, "  line group %s: %,d", g, n)));
        out.add(String.format(Locale.ROOT, "placement version %d, line-group moves %d", stats.placementVersion(),
                              stats.moves()));
        Optional<Failover> f = stats.lastFailover();
        out.add(f.map(x -> String.format(Locale.ROOT, "last failover: instance %d at %s by %s (%s), moved %s",
                                         x.instance(), x.at(), x.declaredBy(), x.reason(),
                                         x.moved().isEmpty() ? "nothing" : String.join(",", x.moved())))
                        .orElse("last failover: none"));
        return out;
    }
}
