package org.bngpod.app.emu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.PlacementEvent;
import org.bngpod.api.Pod;
import org.bngpod.app.config.BngPodConfig;
import org.bngpod.app.impl.AppComponents;
import org.bngpod.app.impl.Testbed;
import org.bngpod.app.rest.ContainerLogin;
import org.bngpod.app.steering.OnosDrivers;
import org.bngpod.app.steering.OvsSwitch;
import org.eclipse.jetty.server.Server;
import javax.ws.rs.core.Application;
import org.onlab.packet.IpAddress;
import org.onlab.util.ItemNotFoundException;
import org.onlab.osgi.ServiceDirectory;
import org.onosproject.TestApplicationId;
import org.onosproject.cluster.ClusterServiceAdapter;
import org.onosproject.cluster.ControllerNode;
import org.onosproject.cluster.DefaultControllerNode;
import org.onosproject.cluster.NodeId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.net.DeviceId;
import org.onosproject.net.driver.Driver;
import org.onosproject.net.driver.DriverServiceAdapter;
import org.onosproject.store.service.StorageService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The emulated pod's controller ({@code bngpod up --controller},
 * docs/emulated-pod.md): the bngpod ONOS application's own components (pod,
 * placement store, placement, steering and session managers) on ONOS's test
 * kit, driving the emulated pod's Open vSwitch through ONOS's own
 * DefaultSingleTablePipeline and the flow-mods ONOS 2.5.6's OpenFlow 1.3
 * provider sends ({@link OvsSwitch}), with the switch's port status as
 * device port events ({@link OvsPorts}), and the app's REST API served as
 * ONOS serves it: the same resources at {@code /onos/bngpod}, HTTP Basic
 * against a Karaf users file, web.xml's auth-constraint, the app's roles.
 * bng-cp talks to it as to ONOS.
 *
 * <p>What is not ONOS: one node (the leader of every topic), the stores in
 * memory (their events on a store thread, as Atomix delivers them), the
 * netcfg read once from a file. Stopping it leaves the switch's flows, as an
 * ONOS node stopping does.</p>
 *
 * <pre>
 * java -cp ... org.bngpod.app.emu.PodController --netcfg onos-netcfg.json --listen 10.200.0.1:8181
 *      --users users.properties --web-xml web.xml --switch unix:/run/bngpod/ovs/bpsw.mgmt --events events.jsonl
 * </pre>
 *
 * <p>Events (JSON lines, {@code t} in ms since the epoch): {@code ready};
 * {@code request} (method, path, user) for every request that is not a GET;
 * {@code placement} (type, version, where each group is); {@code push}
 * (flow-mods added/removed and how long ovs-ofctl took; audit repairs too);
 * {@code port} (number, enabled).</p>
 *
 * <p>Another app's controller reuses it through {@link #run(String[], Extension)}
 * (onos-app's test-jar): its components start beside the app's, its REST
 * resources are served under their own context path.</p>
 */
public final class PodController {

    private static final Logger LOG = LoggerFactory.getLogger(PodController.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final long READY_TIMEOUT_SECONDS = 60;

    private final Map<String, String> args;
    private final Extension extension;
    private BufferedWriter events;

    private PodController(Map<String, String> args, Extension extension) {
        this.args = args;
        this.extension = extension;
    }

    /**
     * What another app adds to the controller: its components, started once
     * the app's are, and the web application ONOS would serve for it.
     */
    public interface Extension {
        /**
         * Returns the arguments (without --) it needs beside the controller's.
         *
         * @return argument names
         */
        List<String> arguments();

        /**
         * Starts its components; called before the REST server starts.
         *
         * @param app    the app's services it may use
         * @param args   every argument, by name without --
         * @param events writes a line to the events file ({@code t} is added)
         * @throws Exception if they cannot start (the controller exits 1)
         */
        void start(AppServices app, Map<String, String> args, java.util.function.Consumer<ObjectNode> events)
                throws Exception;

        /**
         * Returns what its REST resources look up, beside the app's services.
         *
         * @return services by type
         */
        Map<Class<?>, Object> services();

        /**
         * Returns its web applications.
         *
         * @return contexts
         */
        List<WebContext> webContexts();

        /** Stops its components (the controller is stopping). */
        void stop();
    }

    /**
     * The app's services another app's components bind (by their API types:
     * onos-app's bundle is a WAB, its classes are not on another module's
     * class path).
     */
    public static final class AppServices {
        public final org.bngpod.api.PodService pods;
        public final org.bngpod.api.SessionService sessions;
        public final org.onosproject.cluster.LeadershipService leadership;
        public final org.onosproject.cluster.ClusterService cluster;

        AppServices(AppComponents app, AppComponents.Services services) {
            this.pods = app.pods;
            this.sessions = app.sessions;
            this.leadership = services.leadership;
            this.cluster = services.cluster;
        }
    }

    /** A web application served under its WAB's context path. */
    public static final class WebContext {
        final String path;
        final Class<? extends Application> application;
        final Set<String> roles;

        /**
         * A web application.
         *
         * @param path        its Web-ContextPath, e.g. /onos/bngpod
         * @param application its JAX-RS application
         * @param roles       the roles its web.xml's auth-constraint lets in
         */
        public WebContext(String path, Class<? extends Application> application, Set<String> roles) {
            this.path = path;
            this.application = application;
            this.roles = Set.copyOf(roles);
        }
    }

    /**
     * Runs the controller until it is stopped (SIGTERM).
     *
     * @param argv --netcfg, --listen, --users, --web-xml, --switch, --events
     */
    public static void main(String[] argv) {
        run(argv, null);
    }

    /**
     * Runs the controller with another app's components until it is stopped.
     *
     * @param argv      the controller's arguments and those the extension needs
     * @param extension the other app's part, or null
     */
    public static void run(String[] argv, Extension extension) {
        Map<String, String> args = new TreeMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            if (!argv[i].startsWith("--")) {
                usage("unexpected argument " + argv[i]);
            }
            args.put(argv[i].substring(2), argv[i + 1]);
        }
        if (argv.length % 2 != 0) {
            usage("odd number of arguments");
        }
        List<String> needed = new ArrayList<>(List.of("netcfg", "listen", "users", "web-xml", "switch", "events"));
        if (extension != null) {
            needed.addAll(extension.arguments());
        }
        for (String need : needed) {
            if (!args.containsKey(need)) {
                usage("--" + need + " is required");
            }
        }
        try {
            new PodController(args, extension).run();
        } catch (Exception e) {
            LOG.error("bngpod controller: {}", e.toString(), e);
            // the last line of the log, where `bngpod up` quotes it from
            System.err.println("bngpod controller: " + e);
            System.exit(1);
        }
    }

    private static void usage(String why) {
        System.err.println("bngpod controller: " + why + "\nusage: PodController --netcfg FILE --listen ADDR:PORT "
                                   + "--users FILE --web-xml FILE --switch OVS-OFCTL-TARGET --events FILE");
        System.exit(2);
    }

    private void run() throws Exception {
        events = Files.newBufferedWriter(Paths.get(args.get("events")), StandardCharsets.UTF_8,
                                         StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        JsonNode netcfg = MAPPER.readTree(Paths.get(args.get("netcfg")).toFile());
        JsonNode podJson = netcfg.path("apps").path(BngPodConfig.APP_NAME).path(BngPodConfig.CONFIG_KEY);
        Testbed.FakeNetcfg registry = new Testbed.FakeNetcfg();
        registry.push(podJson);
        // the reader's check, as ONOS's netcfg does before it stores a config
        Pod pod = configOf(podJson).pod();
        DeviceId device = pod.deviceId();
        String target = args.get("switch");

        OvsSwitch.Ofctl ofctl = PodController::ofctl;
        OvsSwitch ovs = new OvsSwitch(device, target, ofctl, this::pushed);
        OvsPorts ports = new OvsPorts(device, target, ofctl,
                                      // with a miss length, ovs-ofctl sets the connection's config and the
                                      // switch sends it port status (table misses are dropped: no packet-in)
                                      List.of("ovs-ofctl", "-O", "OpenFlow13", "monitor", target, "128"),
                                      (n, up) -> event(MAPPER.createObjectNode().put("event", "port")
                                                               .put("port", n).put("enabled", up)));
        ports.start();

        StorageService storage = AppComponents.atomixLikeStorage();
        AppComponents.Services services = new AppComponents.Services();
        services.core = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return new TestApplicationId(name);
            }
        };
        services.netcfg = registry;
        services.storage = storage;
        services.leadership = new Testbed.FakeLeadership();
        NodeId local = NodeId.nodeId("local");
        services.cluster = new ClusterServiceAdapter() {
            @Override
            public ControllerNode getLocalNode() {
                return new DefaultControllerNode(local, IpAddress.valueOf("127.0.0.1"));
            }
        };
        services.devices = ports;
        Driver driver = OnosDrivers.named("default");
        services.drivers = new DriverServiceAdapter() {
            @Override
            public Driver getDriver(DeviceId deviceId) {
                if (!device.equals(deviceId)) {
                    throw new ItemNotFoundException("no driver for " + deviceId);
                }
                return driver;
            }
        };
        services.objectives = ovs;
        AppComponents app = new AppComponents(services);
        app.placement.addListener(this::placementEvent);
        if (extension != null) {
            extension.start(new AppServices(app, services), args, this::event);
        }

        Server rest = serve(app);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // as an ONOS node stopping: the switch keeps the steering it has
            try {
                rest.stop();
            } catch (Exception e) {
                LOG.warn("stopping the REST server: {}", e.toString());
            }
            if (extension != null) {
                extension.stop();
            }
            ports.stop();
            ovs.stop();
            AppComponents.storeThreadProblems(storage).forEach(p -> LOG.error("store thread: {}", p.toString(), p));
            stop.countDown();
        }, "shutdown"));

        waitReady(app, ovs);
        event(MAPPER.createObjectNode().put("event", "ready").put("rules", ovs.rules())
                      .put("version", app.placement.placement().version()));
        LOG.info("bngpod controller ready: pod {}, switch {} ({} rules), REST on http://{}/onos/bngpod",
                 pod.name(), target, ovs.rules(), args.get("listen"));
        long reported = 0;
        while (!stop.await(1, TimeUnit.SECONDS)) {
            List<Throwable> problems = AppComponents.storeThreadProblems(storage);
            for (long i = reported; i < problems.size(); i++) {
                LOG.error("store thread: {}", problems.get((int) i).toString(), problems.get((int) i));
            }
            reported = problems.size();
        }
    }

    private static BngPodConfig configOf(JsonNode pod) {
        BngPodConfig config = new BngPodConfig();
        config.init(new TestApplicationId(BngPodConfig.APP_NAME), BngPodConfig.CONFIG_KEY, pod, MAPPER, c -> { });
        return config;
    }

    /** Until the stated placement is stored and its steering has gone to the switch. */
    private static void waitReady(AppComponents app, OvsSwitch ovs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_TIMEOUT_SECONDS);
        while (app.placement.placement().version() == 0 || ovs.counters().get("flowMods") < ovs.rules()
                || ovs.rules() == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no placement steered within " + READY_TIMEOUT_SECONDS + " s ("
                                                        + ovs.counters() + ", " + ovs.rules() + " rules)");
            }
            Thread.sleep(20);
        }
    }

    private Server serve(AppComponents app) throws IOException {
        Path webXml = Paths.get(args.get("web-xml"));
        List<WebContext> contexts = new ArrayList<>(List.of(
                new WebContext(RestServer.WEB_CONTEXT, org.bngpod.app.rest.BngPodWebApplication.class,
                               ContainerLogin.webXmlRoles(webXml, "security-constraint"))));
        ServiceDirectory services = app.webServices();
        if (extension != null) {
            contexts.addAll(extension.webContexts());
            services = new Directory(extension.services(), services);
        }
        return RestServer.start(args.get("listen"), services, KarafUsers.read(Paths.get(args.get("users"))),
                                contexts,
                                (method, path) -> {
                                    if (!method.equals("GET")) {
                                        event(MAPPER.createObjectNode().put("event", "request").put("method", method)
                                                      .put("path", path));
                                    }
                                });
    }

    private void placementEvent(PlacementEvent e) {
        ObjectNode n = MAPPER.createObjectNode().put("event", "placement").put("type", e.type().name())
                .put("version", e.subject().version());
        ObjectNode groups = n.putObject("groups");
        e.subject().groups().forEach(g -> {
            if (g.instance().isPresent()) {
                groups.put(g.lineGroup(), g.instance().get());
            } else {
                groups.putNull(g.lineGroup());
            }
        });
        event(n);
    }

    private void pushed(OvsSwitch.Push p) {
        event(MAPPER.createObjectNode().put("event", "push").put("added", p.added).put("removed", p.removed)
                      .put("ms", p.tookMillis).put("start", p.startMillis).put("audit", p.audit));
    }

    private synchronized void event(ObjectNode n) {
        n.put("t", System.currentTimeMillis());
        try {
            events.write(MAPPER.writeValueAsString(n));
            events.newLine();
            events.flush();
        } catch (IOException e) {
            LOG.warn("events file: {}", e.toString());
        }
    }

    /** ovs-ofctl -O OpenFlow13 ARGS, with stdin; its standard output, or an error with its standard error. */
    private static String ofctl(String stdin, String... ofctlArgs) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("ovs-ofctl", "-O", "OpenFlow13"));
        cmd.addAll(List.of(ofctlArgs));
        Path err = Files.createTempFile("ovs-ofctl", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
            try (OutputStream in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            String out;
            try (InputStream o = p.getInputStream()) {
                out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": no answer within 30 s");
            }
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": "
                                              + Files.readString(err).trim());
            }
            return out;
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /** The extension's services first, then the app's. */
    private static final class Directory implements ServiceDirectory {
        private final Map<Class<?>, Object> own;
        private final ServiceDirectory rest;

        Directory(Map<Class<?>, Object> own, ServiceDirectory rest) {
            this.own = Map.copyOf(own);
            this.rest = rest;
        }

        @Override
        public <T> T get(Class<T> serviceClass) {
            Object o = own.get(serviceClass);
            return o != null ? serviceClass.cast(o) : rest.get(serviceClass);
        }
    }
}
