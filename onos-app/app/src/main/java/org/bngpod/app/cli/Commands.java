package org.bngpod.app.cli;

import org.bngpod.api.PlacementService;
import org.bngpod.api.PlacementState;
import org.bngpod.api.Pod;
import org.bngpod.api.PodService;
import org.bngpod.api.PodStats;
import org.bngpod.api.Session;
import org.bngpod.api.SessionService;
import org.bngpod.app.impl.PlacementManager;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;

import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The bngpod Karaf commands (scope onos): each prints {@link CliFormat}'s text.
 */
public final class Commands {

    private Commands() {
    }

    abstract static class PodCommand extends AbstractShellCommand {
        void printAll(List<String> lines) {
            lines.forEach(l -> print("%s", l));
        }

        Pod podOrSay() {
            Pod pod = get(PodService.class).pod().orElse(null);
            if (pod == null) {
                print("%s", "no pod configured (netcfg apps/org.bngpod.app/pod)");
            }
            return pod;
        }
    }

    /** Shows the pod. */
    @Service
    @Command(scope = "onos", name = "bngpod-pod", description = "Shows the bngpod pod from the network config")
    public static class PodShow extends PodCommand {
        @Override
        protected void doExecute() {
            PodService pods = get(PodService.class);
            printAll(CliFormat.pod(pods.pod().orElse(null), pods.lastRejection().orElse(null)));
        }
    }

    /** Lists the instances. */
    @Service
    @Command(scope = "onos", name = "bngpod-instances",
            description = "Lists the DP instances, their availability and the line groups each serves")
    public static class Instances extends PodCommand {
        @Override
        protected void doExecute() {
            Pod pod = podOrSay();
            if (pod != null) {
                printAll(CliFormat.instances(pod, get(PlacementService.class).placement()));
            }
        }
    }

    /** Lists line groups with the reason of their placement. */
    @Service
    @Command(scope = "onos", name = "bngpod-lines",
            description = "Lists the line groups, their access lines and why each is on its instance")
    public static class Lines extends PodCommand {
        @Override
        protected void doExecute() {
            Pod pod = podOrSay();
            if (pod != null) {
                printAll(CliFormat.lines(pod, get(PlacementService.class).placement()));
            }
        }
    }

    /** Shows the placement. */
    @Service
    @Command(scope = "onos", name = "bngpod-placement", description = "Shows the placement of line groups")
    public static class Placement extends PodCommand {
        @Option(name = "-r", aliases = "--rebalance", description = "Re-balance first (cluster leader only)")
        boolean rebalance;

        @Override
        protected void doExecute() {
            if (rebalance) {
                get(PlacementService.class).rebalance();
            }
            printAll(CliFormat.placement(get(PlacementService.class).placement()));
        }
    }

    /** Lists sessions. */
    @Service
    @Command(scope = "onos", name = "bngpod-sessions", description = "Lists the subscriber sessions")
    public static class Sessions extends PodCommand {
        @Option(name = "-i", aliases = "--instance", description = "Only this instance's sessions")
        Integer instance;

        @Option(name = "-g", aliases = "--line-group", description = "Only this line group's sessions")
        String lineGroup;

        @Override
        protected void doExecute() {
            List<Session> list = get(SessionService.class).sessions().stream()
                    .filter(s -> instance == null || s.instance() == instance)
                    .filter(s -> lineGroup == null || s.lineGroup().equals(lineGroup))
                    .sorted(Comparator.comparing(Session::id)).collect(Collectors.toList());
            printAll(CliFormat.sessions(list));
            print("%d sessions", list.size());
        }
    }

    /** Shows pod figures. */
    @Service
    @Command(scope = "onos", name = "bngpod-stats",
            description = "Sessions per instance and line group, moves, the last failover")
    public static class Stats extends PodCommand {
        @Override
        protected void doExecute() {
            SessionService sessions = get(SessionService.class);
            PlacementState state = get(PlacementService.class).placement();
            printAll(CliFormat.stats(PodStats.of(sessions.count(), sessions.countsByInstance(),
                                                 sessions.countsByGroup(), state.version(), state.moves(),
                                                 state.lastFailover().orElse(null))));
        }
    }

    /** Declares an instance dead. */
    @Service
    @Command(scope = "onos", name = "bngpod-instance-down",
            description = "Declares a DP instance dead: its line groups fail over")
    public static class InstanceDown extends PodCommand {
        @Argument(index = 0, name = "id", description = "Instance id", required = true)
        int id;

        @Argument(index = 1, name = "reason", description = "Why (words)", multiValued = true)
        List<String> reason;

        @Override
        protected void doExecute() {
            String why = reason == null || reason.isEmpty() ? "declared dead by the operator" : String.join(" ", reason);
            get(PlacementService.class).declareDead(id, PlacementManager.OPERATOR, why);
            printAll(CliFormat.placement(get(PlacementService.class).placement()));
        }
    }

    /** Declares an instance alive. */
    @Service
    @Command(scope = "onos", name = "bngpod-instance-up",
            description = "Declares a DP instance available again (nothing moves back)")
    public static class InstanceUp extends PodCommand {
        @Argument(index = 0, name = "id", description = "Instance id", required = true)
        int id;

        @Override
        protected void doExecute() {
            get(PlacementService.class).declareAlive(id, PlacementManager.OPERATOR);
            printAll(CliFormat.placement(get(PlacementService.class).placement()));
        }
    }
}
