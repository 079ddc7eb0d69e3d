package org.bngpod.app.steering;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableSet;
import org.bngpod.api.DpInstance;
import org.bngpod.api.Pod;
import org.bngpod.app.config.BngPodConfig;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.PlacementEngine;
import org.junit.Test;
import org.onlab.packet.EthType;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flowobjective.DefaultForwardingObjective;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.packet.PacketPriority;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

/**
 * The steering really steers: the app's objectives for the lab pod
 * (topology/examples/lab.yaml, its generated netcfg, VF ports numbered as the
 * emulated pod numbers them) go through ONOS's DefaultSingleTablePipeline into
 * flow rules, those into OVS flows, and the fold checks of
 * tests/emulated/test_onos_fold.py send frames through the emulated pod's Open
 * vSwitch loaded with them; then an instance fails, the installer re-steers,
 * and the checks run again against the new placement. Beside the app's flows
 * the switch holds the ARP punt of ONOS's host provider (priority 40000), as
 * on a real ONOS running org.onosproject.openflow: the ARP checks pass only if
 * the app's steering wins over it.
 *
 * <p>Needs root, Open vSwitch and the repository's .venv (as scripts/test.sh
 * uses); without them it is skipped with the reason, unless BNGPOD_REQUIRE_POD=1
 * (environment or system property) makes that a failure. Everything touching
 * namespaces runs under {@code flock /tmp/bngpod-netns.lock}.</p>
 */
public class OvsSteeringIT {

    private static final ApplicationId APP = new TestApplicationId(BngPodConfig.APP_NAME);
    private static final ApplicationId HOST_PROVIDER = new TestApplicationId("org.onosproject.provider.host");
    private static final String LOCK = "/tmp/bngpod-netns.lock";
    private static final long PYTEST_TIMEOUT_MINUTES = 20;
    /** dp4 serves lg4 and lg3 (they split S-tag 300 of access3): both move when it fails. */
    private static final int FAILED_INSTANCE = 4;

    private static boolean required() {
        return "1".equals(System.getenv("BNGPOD_REQUIRE_POD"))
                || "1".equals(System.getProperty("BNGPOD_REQUIRE_POD"));
    }

    private static Path repo() {
        return Paths.get(System.getProperty("bngpod.repo", "../..")).toAbsolutePath().normalize();
    }

    private static boolean onPath(String tool) {
        for (String dir : Splitter.on(File.pathSeparatorChar).omitEmptyStrings()
                .split(System.getenv().getOrDefault("PATH", ""))) {
            if (Files.isExecutable(Paths.get(dir, tool))) {
                return true;
            }
        }
        return Files.isExecutable(Paths.get("/usr/sbin", tool)) || Files.isExecutable(Paths.get("/sbin", tool));
    }

    private static String run(Path cwd, Map<String, String> env, String... command)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + out);
        }
        return out;
    }

    /** Why the pod cannot be built here, or null. */
    private static String missing(Path python) throws IOException, InterruptedException {
        if (!Files.isExecutable(python)) {
            return python + " is missing (scripts/setup.sh makes it)";
        }
        if (!"0".equals(run(repo(), Map.of(), "id", "-u").trim())) {
            return "needs root (network namespaces, Open vSwitch)";
        }
        for (String tool : new String[] {"ovs-vswitchd", "ovsdb-server", "ovs-vsctl", "ovs-ofctl", "ethtool",
                "flock"}) {
            if (!onPath(tool)) {
                return tool + " is not installed (make setup)";
            }
        }
        return null;
    }

    @Test
    public void steeringSteersOnOpenVswitchBeforeAndAfterFailover() throws Exception {
        Path repo = repo();
        Path python = repo.resolve(".venv/bin/python");
        String why = Boolean.getBoolean("bngpod.ovs.skip")
                ? "-Dbngpod.ovs.skip=true (make setup's pre-fetch run)" : missing(python);
        if (why != null) {
            if (required()) {
                fail("the OVS steering test cannot run: " + why);
            }
            String skip = "OVS steering test skipped: " + why + " (BNGPOD_REQUIRE_POD=1 makes this a failure)";
            System.out.println("OvsSteeringIT: " + skip);
            assumeTrue(skip, false);
        }

        Path work = Paths.get("target", "ovs-steering").toAbsolutePath();
        deleteTree(work);
        Files.createDirectories(work);
        Pod pod = generatedLabPod(repo, python, work.resolve("generated"));

        SingleTableSwitch leaf = new SingleTableSwitch(pod.deviceId());
        SteeringInstaller installer = new SteeringInstaller(leaf, APP);
        PlacementEngine engine = new PlacementEngine();

        Placement stated = engine.initial(pod);
        installer.apply(pod.deviceId(), SteeringPlan.compute(pod, stated));
        // a real ONOS running the host provider (app org.onosproject.openflow) has this punt on every
        // switch: the app's steering must win over it for the ARP the fold checks send
        leaf.forward(pod.deviceId(), hostProviderArpPunt());
        writePhase(work.resolve("flows/1-stated"), pod, stated, OvsFlows.translate(leaf.table()));

        Set<Integer> alive = pod.instances().stream().map(DpInstance::id)
                .filter(id -> id != FAILED_INSTANCE).collect(Collectors.toSet());
        Placement failed = engine.rebalance(pod, stated, alive);
        assertEquals(ImmutableSet.of("lg3", "lg4"), failed.changedFrom(stated));
        assertNotEquals(Integer.valueOf(FAILED_INSTANCE), failed.instanceOf("lg3").orElseThrow());
        assertEquals(failed.instanceOf("lg3"), failed.instanceOf("lg4"));
        installer.apply(pod.deviceId(), SteeringPlan.compute(pod, failed));
        String name = pod.instance(FAILED_INSTANCE).orElseThrow().name();
        writePhase(work.resolve("flows/2-" + name + "-failed"), pod, failed, OvsFlows.translate(leaf.table()));
        assertEquals(List.of(), leaf.failures());
        assertEquals(0, installer.errors());

        Path log = work.resolve("pytest.log");
        ProcessBuilder pb = new ProcessBuilder(
                "flock", LOCK, python.toString(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEs",
                "tests/emulated/test_onos_fold.py")
                .directory(repo.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("BNGPOD_ONOS_FLOWS_DIR", work.resolve("flows").toString());
        pb.environment().put("BNGPOD_REQUIRE_POD", "1");
        Process pytest = pb.start();
        if (!pytest.waitFor(PYTEST_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            pytest.destroy();
            if (!pytest.waitFor(30, TimeUnit.SECONDS)) {
                pytest.destroyForcibly();
            }
            fail("the fold checks did not finish within " + PYTEST_TIMEOUT_MINUTES + " min; see " + log);
        }
        String out = Files.readString(log);
        String summary = lastLine(out);
        System.out.println("OvsSteeringIT: fold checks on OVS (" + log + "): " + summary);
        if (pytest.exitValue() != 0) {
            fail("the fold checks failed on the ONOS-rendered flows (" + log + "):\n" + tail(out, 6000));
        }
        Matcher passed = Pattern.compile("(\\d+) passed").matcher(summary);
        assertTrue("no passed tests in: " + summary, passed.find());
        assertTrue("some checks did not run: " + summary,
                   !summary.contains("skipped") && !summary.contains("deselected"));
        // two phases, eight checks each plus the parametrized drops
        assertTrue(summary, Integer.parseInt(passed.group(1)) >= 2 * 8);
    }

    /**
     * The punt ONOS's host provider asks for (PacketService.requestPackets for
     * ARP at PacketPriority.CONTROL), as ONOS's packet manager sends it: a
     * VERSATILE, permanent forwarding objective whose treatment punts.
     */
    static ForwardingObjective hostProviderArpPunt() {
        return DefaultForwardingObjective.builder()
                .withSelector(DefaultTrafficSelector.builder().matchEthType(EthType.EtherType.ARP.ethType().toShort())
                                      .build())
                .withTreatment(DefaultTrafficTreatment.builder().punt().build())
                .withPriority(PacketPriority.CONTROL.priorityValue())
                .withFlag(ForwardingObjective.Flag.VERSATILE)
                .fromApp(HOST_PROVIDER)
                .makePermanent()
                .add();
    }

    /** The lab pod file's ONOS netcfg as `bngpod generate` writes it, with the emulated pod's VF ports. */
    private static Pod generatedLabPod(Path repo, Path python, Path out) throws IOException, InterruptedException {
        run(repo, Map.of("PYTHONPATH", repo.resolve("topology") + File.pathSeparator + repo.resolve("basebox-config")),
            python.toString(), "-m", "bngpod.cli", "generate", "topology/examples/lab.yaml", "-o", out.toString());
        ObjectNode pod = (ObjectNode) LabPods.MAPPER.readTree(out.resolve("onos-netcfg.json").toFile())
                .path("apps").path(BngPodConfig.APP_NAME).path(BngPodConfig.CONFIG_KEY);
        return LabPods.read(LabPods.withEmulatedSwitchPorts(pod));
    }

    private static void writePhase(Path dir, Pod pod, Placement placement, List<String> flows) throws IOException {
        Files.createDirectories(dir);
        List<String> lines = new ArrayList<>();
        lines.add("# bngpod steering of pod " + pod.name() + " rendered by ONOS's DefaultSingleTablePipeline,");
        lines.add("# translated for Open vSwitch (OvsSteeringIT). Load with:");
        lines.add("#   ovs-ofctl -O OpenFlow13 replace-flows BRIDGE FILE");
        lines.addAll(flows);
        Files.write(dir.resolve("flows.of13"), lines, StandardCharsets.UTF_8);
        Map<String, String> groups = new TreeMap<>();
        placement.instances().forEach((group, id) -> groups.put(group, pod.instance(id).orElseThrow().name()));
        LabPods.MAPPER.writerWithDefaultPrettyPrinter().writeValue(dir.resolve("placement.json").toFile(), groups);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted((a, b) -> b.compareTo(a)).collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
    }

    private static String lastLine(String text) {
        List<String> lines = Splitter.on('\n').splitToList(text.strip());
        return lines.get(lines.size() - 1);
    }

    private static String tail(String text, int chars) {
        return text.length() <= chars ? text : "..." + text.substring(text.length() - chars);
    }
}
