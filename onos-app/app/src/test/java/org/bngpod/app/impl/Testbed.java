package org.bngpod.app.impl;

import org.bngpod.api.GroupPlacement;
import org.bngpod.api.PlacementEvent;
import org.onlab.osgi.ServiceDirectory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.app.config.BngPodConfig;
import org.bngpod.app.steering.OnosDrivers;
import org.bngpod.app.steering.Steer;
import org.onlab.packet.IpAddress;
import org.onosproject.TestApplicationId;
import org.onosproject.cluster.ClusterServiceAdapter;
import org.onosproject.cluster.ControllerNode;
import org.onosproject.cluster.DefaultControllerNode;
import org.onosproject.cluster.LeadershipServiceAdapter;
import org.onosproject.cluster.NodeId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.ConfigFactory;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistryAdapter;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.driver.Driver;
import org.onosproject.net.driver.DriverServiceAdapter;
import org.onlab.util.ItemNotFoundException;
import org.onosproject.net.flowobjective.FlowObjectiveServiceAdapter;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.provider.ProviderId;
import org.onosproject.store.service.TestStorageService;
import org.onlab.packet.ChassisId;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import static org.junit.Assume.assumeTrue;

/**
 * The application's components (pod, placement store, placement, steering and
 * session managers) wired to ONOS's test adapters: a network config registry
 * holding the bngpod config, a test storage service (its maps serialize
 * through the stores' Kryo serializer), a leadership service that makes this
 * node the leader, ONOS's own drivers, a flow objective service that keeps
 * what it was sent, and a device service whose events the tests send. Events
 * are handled on the calling thread ({@link InlineExecutor}), except with
 * {@link #withStoreThreads}.
 */
public final class Testbed {

    public static final ApplicationId APP_ID = new TestApplicationId(BngPodConfig.APP_NAME);
    public static final ObjectMapper MAPPER = new ObjectMapper();
    public static final DeviceId SWITCH = DeviceId.deviceId("of:0000000000000001");
    /** The system property naming the lab pod's golden netcfg. */
    public static final String GOLDEN_PROPERTY = "bngpod.golden.netcfg";
    private static final String GOLDEN_DEFAULT = "../../topology/tests/golden/lab/onos-netcfg.json";

    public final FakeNetcfg netcfg = new FakeNetcfg();
    public final FakeDevices devices = new FakeDevices();
    public final FakeLeadership leadership = new FakeLeadership();
    public final FakeDrivers drivers = new FakeDrivers();
    public final PodManager pods;
    public final DistributedPlacementStore store;
    public final PlacementManager placement;
    public final SteeringManager steering;
    public final SessionManager sessions;
    public final FakeObjectives objectives = new FakeObjectives();
    private final AppComponents components;
    private final TestStorageService storage;
    private final ClusterServiceAdapter cluster = new ClusterServiceAdapter() {
        @Override
        public ControllerNode getLocalNode() {
            return new DefaultControllerNode(FakeLeadership.LOCAL, IpAddress.valueOf("127.0.0.1"));
        }
    };

    /**
     * Wires and activates the managers; the netcfg holds the given pod JSON (or none).
     *
     * @param pod the pod object of apps/org.bngpod.app/pod, or null
     */
    public Testbed(JsonNode pod) {
        this(pod, "ovs");
    }

    /**
     * Wires and activates the managers with the switch's driver known as the given name.
     *
     * @param pod    the pod object of apps/org.bngpod.app/pod, or null
     * @param driver the switch's driver name, or null for a switch whose driver ONOS does not know yet
     */
    public Testbed(JsonNode pod, String driver) {
        this(pod, driver, new TestStorageService(), true);
    }

    /**
     * Wires and activates the managers on maps that deliver their events on
     * a store thread of their own, as Atomix does, and with the managers'
     * own executors; {@link #settle()} waits for the work to finish.
     *
     * @param pod the pod object of apps/org.bngpod.app/pod
     * @return the testbed
     */
    public static Testbed withStoreThreads(JsonNode pod) {
        return new Testbed(pod, "ovs", new StoreThreadStorageService(), false);
    }

    private Testbed(JsonNode pod, String driver, TestStorageService storage, boolean direct) {
        this.storage = storage;
        drivers.name = driver;
        if (pod != null) {
            netcfg.config = config(pod);
        }
        AppComponents.Services services = new AppComponents.Services();
        services.core = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return APP_ID;
            }
        };
        services.netcfg = netcfg;
        services.storage = storage;
        services.leadership = leadership;
        services.cluster = cluster;
        services.devices = devices;
        services.drivers = drivers;
        services.objectives = objectives;
        if (direct) {
            services.placementExecutor = new InlineExecutor();
            services.steeringExecutor = new InlineExecutor();
        }
        components = new AppComponents(services);
        pods = components.pods;
        store = components.store;
        placement = components.placement;
        steering = components.steering;
        sessions = components.sessions;
    }

    /**
     * Returns the fixture's pod object (two instances on one server port, two line groups).
     *
     * @return pod JSON
     */
    public static ObjectNode fixturePod() {
        try (InputStream in = Testbed.class.getResourceAsStream("/pod-netcfg.json")) {
            return (ObjectNode) MAPPER.readTree(in).path("apps").path(BngPodConfig.APP_NAME)
                    .path(BngPodConfig.CONFIG_KEY);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Returns the lab pod's object as {@code bngpod generate} renders it for
     * ONOS (topology/tests/golden/lab/onos-netcfg.json, system property
     * {@value #GOLDEN_PROPERTY}); the calling test is skipped while the file is absent.
     *
     * @return pod JSON
     * @throws IOException if the file cannot be read
     */
    public static ObjectNode goldenLabPod() throws IOException {
        Path golden = Paths.get(System.getProperty(GOLDEN_PROPERTY, GOLDEN_DEFAULT));
        assumeTrue("no golden netcfg at " + golden + " yet", Files.isRegularFile(golden));
        return (ObjectNode) MAPPER.readTree(golden.toFile()).path("apps").path(BngPodConfig.APP_NAME)
                .path(BngPodConfig.CONFIG_KEY);
    }

    static BngPodConfig config(JsonNode pod) {
        BngPodConfig config = new BngPodConfig();
        config.init(APP_ID, BngPodConfig.CONFIG_KEY, pod, MAPPER, c -> { });
        return config;
    }

    /**
     * Makes the placement manager's clock stand still (failover times in
     * answers that tests compare byte for byte).
     *
     * @param at the instant the clock shows
     */
    public void fixClock(Instant at) {
        placement.clock = Clock.fixed(at, ZoneOffset.UTC);
    }

    /**
     * Moves the session manager's clock (staged resyncs expire by it).
     *
     * @param by how far forward
     */
    public void advanceSessionClock(Duration by) {
        sessions.clock = Clock.offset(sessions.clock, by);
    }

    /**
     * Lowers the session manager's staging bounds.
     *
     * @param perResync most sessions one paged resync stages
     * @param perNode   most sessions staged in all
     */
    public void limitStaging(int perResync, int perNode) {
        sessions.maxResync = perResync;
        sessions.maxStaged = perNode;
    }

    /**
     * Returns what the REST resources look up: the three services and a codec
     * service with the app's codecs registered.
     *
     * @return the service directory for ResourceTest
     */
    public ServiceDirectory webServices() {
        return components.webServices();
    }

    /**
     * Returns what went wrong on the store's event thread (only with
     * {@link #withStoreThreads}).
     *
     * @return problems, each with its stack; empty if none
     */
    public List<Throwable> storeThreadProblems() {
        return storage instanceof StoreThreadStorageService
                ? ((StoreThreadStorageService) storage).problems() : List.of();
    }

    /**
     * Waits until the store's events and the managers' executors have no work
     * left (a no-op when everything runs on the caller's thread).
     */
    public void settle() {
        if (!(storage instanceof StoreThreadStorageService)) {
            return;
        }
        StoreThreadStorageService threads = (StoreThreadStorageService) storage;
        for (int quiet = 0, rounds = 0; quiet < 2; rounds++) {
            if (rounds == 1000) {
                throw new AssertionError("the managers and the store never settle");
            }
            long queued = threads.eventsQueued();
            threads.flush();
            flush(placement.executor);
            flush(steering.executor);
            threads.flush();
            quiet = threads.eventsQueued() == queued ? quiet + 1 : 0;
        }
    }

    /**
     * Waits until an executor ran every task it was given so far.
     *
     * @param executor a single-threaded executor
     */
    static void flush(ExecutorService executor) {
        try {
            executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("an executor did not finish", e);
        }
    }

    /**
     * Returns the instance a line group is placed on.
     *
     * @param group line group name
     * @return instance id; null if unplaced
     */
    public Integer instanceOf(String group) {
        return placement.placementOf(group).flatMap(GroupPlacement::instance).orElse(null);
    }

    /**
     * Returns the instances the switch is steered to (the shared priority-0 drop belongs to none).
     *
     * @return instance ids
     */
    public Set<Integer> steeredInstances() {
        return steering.installer().installed(SWITCH).stream().map(Steer::instance)
                .filter(i -> i != Steer.SHARED).collect(Collectors.toSet());
    }

    /**
     * Returns the types of placement events, in order.
     *
     * @param events events a listener heard
     * @return their types
     */
    public static List<PlacementEvent.Type> types(List<PlacementEvent> events) {
        return events.stream().map(PlacementEvent::type).collect(Collectors.toList());
    }

    /** Stops the managers. */
    public void close() {
        components.close();
        if (storage instanceof StoreThreadStorageService) {
            ((StoreThreadStorageService) storage).shutdown();
        }
    }

    /**
     * Runs tasks on the caller's thread, but as a single-thread executor
     * would: one at a time, in order, a task submitted while one runs (an event
     * the running task caused) waiting until it finishes.
     */
    static final class InlineExecutor extends AbstractExecutorService {
        private final Deque<Runnable> queue = new ArrayDeque<>();
        private boolean running;
        private boolean shutdown;

        @Override
        public synchronized void execute(Runnable task) {
            queue.add(task);
            if (running) {
                return;
            }
            running = true;
            try {
                for (Runnable next = queue.poll(); next != null; next = queue.poll()) {
                    next.run();
                }
            } finally {
                running = false;
            }
        }

        @Override
        public synchronized void shutdown() {
            shutdown = true;
        }

        @Override
        public synchronized List<Runnable> shutdownNow() {
            shutdown = true;
            List<Runnable> left = new ArrayList<>(queue);
            queue.clear();
            return left;
        }

        @Override
        public synchronized boolean isShutdown() {
            return shutdown;
        }

        @Override
        public synchronized boolean isTerminated() {
            return shutdown && !running;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    /** A flow objective service that keeps every forwarding objective sent, in order. */
    public static final class FakeObjectives extends FlowObjectiveServiceAdapter {
        public final List<ForwardingObjective> forwards = new CopyOnWriteArrayList<>();

        @Override
        public void forward(DeviceId deviceId, ForwardingObjective objective) {
            forwards.add(objective);
        }
    }

    /** A network config registry with one bngpod config. */
    public static final class FakeNetcfg extends NetworkConfigRegistryAdapter {
        BngPodConfig config;
        final List<NetworkConfigListener> listeners = new ArrayList<>();
        final List<ConfigFactory<?, ?>> factories = new ArrayList<>();

        @Override
        @SuppressWarnings("rawtypes")
        public void registerConfigFactory(ConfigFactory configFactory) {
            factories.add(configFactory);
        }

        @Override
        @SuppressWarnings("rawtypes")
        public void unregisterConfigFactory(ConfigFactory configFactory) {
            factories.remove(configFactory);
        }

        @Override
        public void addListener(NetworkConfigListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeListener(NetworkConfigListener listener) {
            listeners.remove(listener);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <S, C extends Config<S>> C getConfig(S subject, Class<C> configClass) {
            return configClass == BngPodConfig.class ? (C) config : null;
        }

        /**
         * Posts a netcfg event for a new pod object (null: removed).
         *
         * @param pod pod JSON, or null
         */
        public void push(JsonNode pod) {
            BngPodConfig prev = config;
            config = pod == null ? null : config(pod);
            NetworkConfigEvent.Type type = pod == null ? NetworkConfigEvent.Type.CONFIG_REMOVED
                    : prev == null ? NetworkConfigEvent.Type.CONFIG_ADDED : NetworkConfigEvent.Type.CONFIG_UPDATED;
            NetworkConfigEvent event = new NetworkConfigEvent(type, APP_ID, config, prev, BngPodConfig.class);
            listeners.stream().filter(l -> l.isRelevant(event)).forEach(l -> l.event(event));
        }
    }

    /** A device service with the pod's switch and events on demand. */
    public static final class FakeDevices extends DeviceServiceAdapter {
        final List<DeviceListener> listeners = new ArrayList<>();
        public final Device device = new DefaultDevice(ProviderId.NONE, SWITCH, Device.Type.SWITCH, "bngpod",
                                                       "1", "1", "1", new ChassisId(1));
        boolean available = true;

        @Override
        public void addListener(DeviceListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeListener(DeviceListener listener) {
            listeners.remove(listener);
        }

        @Override
        public boolean isAvailable(DeviceId deviceId) {
            return available && SWITCH.equals(deviceId);
        }

        /**
         * Sends a port event.
         *
         * @param number  port number
         * @param enabled whether the port is up
         */
        public void port(long number, boolean enabled) {
            Port port = new DefaultPort(device, PortNumber.portNumber(number), enabled, DefaultAnnotations.EMPTY);
            DeviceEvent event = new DeviceEvent(DeviceEvent.Type.PORT_UPDATED, device, port);
            listeners.forEach(l -> l.event(event));
        }

        /**
         * Sends a device event.
         *
         * @param type event type
         */
        public void device(DeviceEvent.Type type) {
            DeviceEvent event = new DeviceEvent(type, device);
            listeners.forEach(l -> l.event(event));
        }
    }

    /** The switch's driver: one of ONOS's own, by name; null: not known (yet). */
    public static final class FakeDrivers extends DriverServiceAdapter {
        public volatile String name;

        @Override
        public Driver getDriver(DeviceId deviceId) {
            String n = name;
            Driver driver = n == null || !SWITCH.equals(deviceId) ? null : OnosDrivers.named(n);
            if (driver == null) {
                throw new ItemNotFoundException("no driver for " + deviceId);
            }
            return driver;
        }
    }

    /** Leadership where this node leads unless told otherwise. */
    public static final class FakeLeadership extends LeadershipServiceAdapter {
        static final NodeId LOCAL = NodeId.nodeId("local");
        public NodeId leader = LOCAL;

        @Override
        public NodeId getLeader(String path) {
            return leader;
        }
    }
}
