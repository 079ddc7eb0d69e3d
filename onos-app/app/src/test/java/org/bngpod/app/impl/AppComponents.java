package org.bngpod.app.impl;

import org.bngpod.api.PlacementService;
import org.bngpod.api.PodService;
import org.bngpod.api.SessionService;
import org.bngpod.app.codec.BngPodCodecs;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.TestServiceDirectory;
import org.onosproject.cluster.ClusterService;
import org.onosproject.cluster.LeadershipService;
import org.onosproject.codec.CodecService;
import org.onosproject.codec.impl.CodecManager;
import org.onosproject.common.event.impl.TestEventDispatcher;
import org.onosproject.core.CoreService;
import org.onosproject.net.config.NetworkConfigRegistry;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.driver.DriverService;
import org.onosproject.net.flowobjective.FlowObjectiveService;
import org.onosproject.store.service.StorageService;

import java.util.List;
import java.util.concurrent.ExecutorService;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/**
 * The application's OSGi components (pod, placement store, placement,
 * steering and session managers) wired to the ONOS services they reference,
 * as OSGi would, and activated in OSGi's order. {@link Testbed} wires them to
 * test adapters; the emulated pod's controller (org.bngpod.app.emu) to an
 * Open vSwitch and a REST server.
 */
public final class AppComponents {

    /** The ONOS services the components reference. */
    public static final class Services {
        public CoreService core;
        public NetworkConfigRegistry netcfg;
        public StorageService storage;
        public LeadershipService leadership;
        public ClusterService cluster;
        public DeviceService devices;
        public DriverService drivers;
        public FlowObjectiveService objectives;
        /** Where the placement and steering managers work; null: their own single threads. */
        public ExecutorService placementExecutor;
        public ExecutorService steeringExecutor;
    }

    public final PodManager pods = new PodManager();
    public final DistributedPlacementStore store = new DistributedPlacementStore();
    public final PlacementManager placement = new PlacementManager();
    public final SteeringManager steering = new SteeringManager();
    public final SessionManager sessions = new SessionManager();

    /**
     * Wires and activates the components.
     *
     * @param s the services
     */
    public AppComponents(Services s) {
        pods.coreService = checkNotNull(s.core, "core");
        pods.netcfgRegistry = checkNotNull(s.netcfg, "netcfg");
        injectEventDispatcher(pods, new TestEventDispatcher());
        pods.activate();

        store.coreService = s.core;
        store.storageService = checkNotNull(s.storage, "storage");
        store.activate();

        placement.podService = pods;
        placement.store = store;
        placement.leadershipService = checkNotNull(s.leadership, "leadership");
        placement.clusterService = checkNotNull(s.cluster, "cluster");
        placement.deviceService = checkNotNull(s.devices, "devices");
        placement.executor = s.placementExecutor;
        injectEventDispatcher(placement, new TestEventDispatcher());
        placement.activate();

        steering.coreService = s.core;
        steering.podService = pods;
        steering.placementService = placement;
        steering.leadershipService = s.leadership;
        steering.clusterService = s.cluster;
        steering.deviceService = s.devices;
        steering.driverService = checkNotNull(s.drivers, "drivers");
        steering.flowObjectiveService = checkNotNull(s.objectives, "objectives");
        steering.executor = s.steeringExecutor;
        steering.activate();

        sessions.coreService = s.core;
        sessions.storageService = s.storage;
        injectEventDispatcher(sessions, new TestEventDispatcher());
        sessions.activate();
    }

    /**
     * Returns what the REST resources look up: the three services and a codec
     * service with the app's codecs registered.
     *
     * @return the service directory of the REST resources
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

    /**
     * Returns a storage service whose maps deliver their events on a store
     * thread of their own, as Atomix does, and may be called from any thread.
     *
     * @return the storage service
     */
    public static StorageService atomixLikeStorage() {
        return new StoreThreadStorageService();
    }

    /**
     * Returns what went wrong on the store thread of {@link #atomixLikeStorage()}:
     * map calls made on it (Atomix would time out), listeners that threw.
     *
     * @param storage a storage service of {@link #atomixLikeStorage()}
     * @return the problems, each with its stack
     */
    public static List<Throwable> storeThreadProblems(StorageService storage) {
        return ((StoreThreadStorageService) storage).problems();
    }

    /** Deactivates the components, in OSGi's order. */
    public void close() {
        sessions.deactivate();
        steering.deactivate();
        placement.deactivate();
        store.deactivate();
        pods.deactivate();
    }
}
