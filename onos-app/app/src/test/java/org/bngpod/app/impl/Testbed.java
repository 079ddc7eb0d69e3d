package org.bngpod.app.impl;

import org.bngpod.api.PlacementService;
import org.bngpod.api.PodService;
import org.bngpod.api.SessionService;
import org.bngpod.app.codec.BngPodCodecs;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.TestServiceDirectory;
import org.onosproject.codec.CodecService;
import org.onosproject.codec.impl.CodecManager;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.util.concurrent.MoreExecutors;
import org.bngpod.app.config.BngPodConfig;
import org.onlab.packet.IpAddress;
import org.onosproject.TestApplicationId;
import org.onosproject.cluster.ClusterServiceAdapter;
import org.onosproject.cluster.ControllerNode;
import org.onosproject.cluster.DefaultControllerNode;
import org.onosproject.cluster.LeadershipServiceAdapter;
import org.onosproject.cluster.NodeId;
import org.onosproject.common.event.impl.TestEventDispatcher;
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
import org.onosproject.net.driver.DriverAdapter;
import org.onosproject.net.driver.DriverServiceAdapter;
import org.onlab.util.ItemNotFoundException;
import org.onosproject.net.flowobjective.FlowObjectiveServiceAdapter;
import org.onosproject.net.provider.ProviderId;
import org.onosproject.store.service.TestStorageService;
import org.onlab.packet.ChassisId;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/**
 * The application's three managers wired to ONOS's test adapters: a network
 * config registry holding the bngpod config, a test storage service (its maps
 * serialize through the stores' Kryo serializer), a leadership service that
 * makes this node the leader, and a device service whose events the tests
 * send. Events are handled on the calling thread.
 */
public final class Testbed {

    public static final ApplicationId APP_ID = new TestApplicationId(BngPodConfig.APP_NAME);
    public static final ObjectMapper MAPPER = new ObjectMapper();
    public static final DeviceId SWITCH = DeviceId.deviceId("of:0000000000000001");

    public final FakeNetcfg netcfg = new FakeNetcfg();
    public final FakeDevices devices = new FakeDevices();
    public final FakeLeadership leadership = new FakeLeadership();
    public final FakeDrivers drivers = new FakeDrivers();
    public final PodManager pods = new PodManager();
    public final PlacementManager placement = new PlacementManager();
    public final SessionManager sessions = new SessionManager();
    private final TestStorageService storage = new TestStorageService();
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
        drivers.name = driver;
        CoreServiceAdapter core = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return APP_ID;
            }
        };
        if (pod != null) {
            netcfg.config = config(pod);
        }
        pods.coreService = core;
        pods.netcfgRegistry = netcfg;
        injectEventDispatcher(pods, new TestEventDispatcher());
        pods.activate();

        placement.coreService = core;
        placement.podService = pods;
        placement.storageService = storage;
        placement.leadershipService = leadership;
        placement.clusterService = cluster;
        placement.deviceService = devices;
        placement.driverService = drivers;
        placement.flowObjectiveService = new FlowObjectiveServiceAdapter();
        placement.executor = MoreExecutors.newDirectExecutorService();
        injectEventDispatcher(placement, new TestEventDispatcher());
        placement.activate();

        sessions.coreService = core;
        sessions.storageService = storage;
        injectEventDispatcher(sessions, new TestEventDispatcher());
        sessions.activate();
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
    public void advanceSessionClock(java.time.Duration by) {
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
        CodecManager codecs = new CodecManager();
        codecs.activate();
        BngPodCodecs.register(codecs);
        return new TestServiceDirectory()
                .add(PodService.class, pods)
                .add(PlacementService.class, placement)
                .add(SessionService.class, sessions)
                .add(CodecService.class, codecs);
    }

    /** Stops the managers. */
    public void close() {
        sessions.deactivate();
        placement.deactivate();
        pods.deactivate();
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

    /** The switch's driver, by name; null: not known (yet). */
    public static final class FakeDrivers extends DriverServiceAdapter {
        public volatile String name;

        @Override
        public Driver getDriver(DeviceId deviceId) {
            String n = name;
            if (n == null || !SWITCH.equals(deviceId)) {
                throw new ItemNotFoundException("no driver for " + deviceId);
            }
            return new DriverAdapter() {
                @Override
                public String name() {
                    return n;
                }
            };
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
