package org.bngpod.seba.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.PodListener;
import org.bngpod.api.PodService;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.TeardownRequest;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.VlanId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.AnnotationKeys;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistryAdapter;
import org.onosproject.net.provider.ProviderId;
import org.onlab.packet.ChassisId;
import org.opencord.olt.AccessDeviceEvent;
import org.opencord.olt.AccessDeviceListener;
import org.opencord.olt.AccessDevicePort;
import org.opencord.olt.AccessDeviceService;
import org.opencord.olt.DiscoveredSubscriber;
import org.opencord.olt.FlowOperation;
import org.opencord.olt.OltFlowServiceInterface;
import org.opencord.olt.OltPortStatus;
import org.opencord.olt.ServiceKey;
import org.opencord.sadis.UniTagInformation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static org.bngpod.seba.impl.TestPod.OLT1;
import static org.bngpod.seba.impl.TestPod.OLT2;
import static org.bngpod.seba.impl.TestPod.uni;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * SebaManager on ONOS's test kit: the olt app's UNI events and programmed
 * subscribers build the UNI index, SADIS (the HTTP stand-in) is asked off the
 * event threads, netcfg and pod changes re-map.
 */
public class SebaManagerTest {

    static final ApplicationId APP = new DefaultApplicationId(7, SebaManager.APP_NAME);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    static final String OLTS_CONFIG = "{'olts':[{'deviceId':'of:00000000000000a1','accessPort':'access1'},"
            + "{'deviceId':'of:00000000000000a2','accessPort':'access3'}]}";

    private SadisStandIn server;
    private RemoteSadis sadis;
    private SebaManager manager;
    private final FakeNetcfg netcfg = new FakeNetcfg();
    private final FakePods pods = new FakePods();
    private final FakeOlt olt = new FakeOlt();
    private final FakeFlows flows = new FakeFlows();

    @Before
    public void setUp() throws Exception {
        server = new SadisStandIn();
        for (String id : List.of("BBSM00000001-1", "BBSM00000002-1", "BBSM00000003-1")) {
            server.load("subscribers", id);
        }
        for (String id : List.of("User_Bandwidth1", "User_Bandwidth2", "Default")) {
            server.load("bp-mef", id);
        }
        sadis = new RemoteSadis(server.subscriberUrl(), server.profileUrl());
        netcfg.set(OLTS_CONFIG);
        manager = new SebaManager();
        manager.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return APP;
            }
        };
        manager.netcfgRegistry = netcfg;
        manager.podService = pods;
        manager.sadisService = sadis;
        manager.accessDeviceService = olt;
        manager.oltFlowService = flows;
    }

    @After
    public void tearDown() {
        if (manager != null) {
            manager.deactivate();
        }
        server.close();
    }

    static Port port(DeviceId olt, long number, String name) {
        Device device = new DefaultDevice(ProviderId.NONE, olt, Device.Type.OLT, "voltha", "1", "1", "sn",
                                          new ChassisId(1));
        return new DefaultPort(device, PortNumber.portNumber(number), true,
                               DefaultAnnotations.builder().set(AnnotationKeys.PORT_NAME, name).build());
    }

    /** UNI_ADDED brings a UNI's SADIS services; UNI_REMOVED takes them away. */
    @Test
    public void uniEventsMapAndUnmapSubscribers() throws Exception {
        manager.activate();
        manager.drain();
        assertTrue(manager.subscribers().isEmpty());

        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_ADDED, OLT1, port(OLT1, 256, "BBSM00000001-1")));
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_ADDED, OLT2, port(OLT2, 512, "BBSM00000002-1")));
        // events the olt app does not post (or that carry no port) change nothing
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.SUBSCRIBER_UNI_TAG_REGISTERED, OLT1,
                                       VlanId.vlanId((short) 100), VlanId.vlanId((short) 901), 64));
        manager.drain();
        Optional<LineSubscriber> s1 = manager.subscriber("access1", 100, 900);
        assertTrue(s1.isPresent());
        assertEquals(uni(OLT1, 256), s1.get().uni());
        assertEquals("lg1", s1.get().lineGroup());
        assertEquals("lg2", manager.subscriber("access3", 300, 2001).get().lineGroup());
        assertEquals(2, manager.subscribers().size());
        assertEquals(1, manager.problems().size());   // BBSM00000002-1's video service

        // a UNI event asks SADIS about that UNI only: its entry and its one profile
        int before = server.requests.get();
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_ADDED, OLT1, port(OLT1, 257, "BBSM00000003-1")));
        manager.drain();
        assertEquals(before + 2, server.requests.get());
        assertTrue(manager.subscriber("access1", 120, 120).isPresent());

        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_REMOVED, OLT1, port(OLT1, 256, "BBSM00000001-1")));
        manager.drain();
        assertEquals("a removal asks SADIS nothing", before + 2, server.requests.get());
        assertFalse(manager.subscriber("access1", 100, 900).isPresent());
        assertEquals(2, manager.subscribers().size());

        // SADIS was asked on the adapter's own thread only
        RemoteSadis.Remote<?> subs = (RemoteSadis.Remote<?>) sadis.getSubscriberInfoService();
        assertFalse(subs.callers.isEmpty());
        assertFalse(subs.callers.toString(), subs.callers.contains(Thread.currentThread().getName()));
    }

    /**
     * A removed UNI's lines: once the hold-down is over, one teardown request
     * each with Lost-Carrier; a UNI that comes back within it keeps them; a
     * removed UNI the olt app still has programmed stays unmapped.
     */
    @Test
    public void uniRemovedForTheHoldDownRequestsTeardowns() throws Exception {
        netcfg.set(OLTS_CONFIG.replace("]}", "],'holdDown':1}"));
        manager.activate();
        Port p256 = port(OLT1, 256, "BBSM00000001-1");
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_ADDED, OLT1, p256));
        manager.drain();
        assertTrue(manager.subscriber("access1", 100, 900).isPresent());

        java.time.Instant before = java.time.Instant.now();
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_REMOVED, OLT1, p256));
        manager.drain();
        assertEquals("nothing within the hold-down", 0, manager.teardownVersion());
        Thread.sleep(1600);
        manager.drain();
        List<TeardownRequest> t = manager.teardownsAfter(0);
        assertEquals(t.toString(), 1, t.size());
        TeardownRequest r = t.get(0);
        assertEquals(List.of(1L, "access1", 100, 900, "BBSM00000001-1", TeardownRequest.LOST_CARRIER),
                     List.of(r.version(), r.accessPort(), r.stag(), r.ctag(), r.uni(), r.cause()));
        assertFalse(r.at().isBefore(before.plusSeconds(1)));

        // removed and back within the hold-down: nothing more
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_ADDED, OLT1, p256));
        manager.drain();
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_REMOVED, OLT1, p256));
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_ADDED, OLT1, p256));
        manager.drain();
        Thread.sleep(1600);
        manager.drain();
        assertEquals(1, manager.teardownVersion());
        assertTrue(manager.subscriber("access1", 100, 900).isPresent());
        assertTrue(manager.teardownsAfter(1).isEmpty());

        // still programmed in the olt app but its UNI removed: the resync does not map it again
        UniTagInformation tag = new UniTagInformation.Builder().setPonSTag(VlanId.vlanId((short) 100))
                .setPonCTag(VlanId.vlanId((short) 900)).setServiceName("hsia").build();
        flows.programmed.put(new ServiceKey(new AccessDevicePort(uni(OLT1, 256), "BBSM00000001-1"), tag), tag);
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_REMOVED, OLT1, p256));
        manager.resyncNow();
        manager.drain();
        assertFalse(manager.subscriber("access1", 100, 900).isPresent());
    }

    /**
     * Activates the manager with BBSM00000003-1 (S120 C120 on OLT1's port 300)
     * programmed and mapped: its service key.
     */
    private ServiceKey activateWithOneProgrammed() throws Exception {
        UniTagInformation tag = new UniTagInformation.Builder().setPonSTag(VlanId.vlanId((short) 120))
                .setPonCTag(VlanId.vlanId((short) 120)).setServiceName("hsia").build();
        ServiceKey key = new ServiceKey(new AccessDevicePort(uni(OLT1, 300), "BBSM00000003-1"), tag);
        flows.programmed.put(key, tag);
        manager.activate();
        manager.drain();
        assertTrue(manager.subscriber("access1", 120, 120).isPresent());
        return key;
    }

    /** A subscriber the olt app no longer has programmed: its lines are torn down with Admin-Reset. */
    @Test
    public void subscriberRemovedFromProvisioningIsAdminReset() throws Exception {
        ServiceKey key = activateWithOneProgrammed();
        manager.resyncNow();
        manager.drain();
        assertEquals("still programmed: nothing", 0, manager.teardownVersion());

        flows.programmed.remove(key);
        manager.resyncNow();
        manager.drain();
        List<TeardownRequest> t = manager.teardownsAfter(0);
        assertEquals(t.toString(), 1, t.size());
        assertEquals(List.of("access1", 120, 120, "BBSM00000003-1", TeardownRequest.ADMIN_RESET),
                     List.of(t.get(0).accessPort(), t.get(0).stag(), t.get(0).ctag(), t.get(0).uni(),
                             t.get(0).cause()));
        assertFalse(manager.subscriber("access1", 120, 120).isPresent());
    }

    /**
     * A UNI's port that goes down and comes back within the hold-down is no
     * unprovisioning: olt 5.2.8 removes the UNI's subscriber flows when it posts
     * UNI_REMOVED and programs them again only after it posted UNI_ADDED, so a
     * reading in between misses the UNI. Its sessions stay; removed from
     * provisioning later, it is torn down with Admin-Reset as any other.
     */
    @Test
    public void portFlapIsNoAdminReset() throws Exception {
        netcfg.set(OLTS_CONFIG.replace("]}", "],'holdDown':10}"));
        UniTagInformation tag = new UniTagInformation.Builder().setPonSTag(VlanId.vlanId((short) 100))
                .setPonCTag(VlanId.vlanId((short) 900)).setServiceName("hsia").build();
        ServiceKey key = new ServiceKey(new AccessDevicePort(uni(OLT1, 256), "BBSM00000001-1"), tag);
        Port p256 = port(OLT1, 256, "BBSM00000001-1");
        flows.programmed.put(key, tag);
        manager.activate();
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_ADDED, OLT1, p256));
        manager.drain();
        assertTrue(manager.subscriber("access1", 100, 900).isPresent());

        // the port goes down (the olt app removes the flows) and comes back (flows not yet programmed again)
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_REMOVED, OLT1, p256));
        flows.programmed.remove(key);
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_ADDED, OLT1, p256));
        manager.resyncNow();
        manager.drain();
        assertEquals(manager.teardownsAfter(0).toString(), 0, manager.teardownVersion());
        assertTrue(manager.subscriber("access1", 100, 900).isPresent());

        // programmed again, then removed from provisioning: Admin-Reset
        flows.programmed.put(key, tag);
        manager.resyncNow();
        manager.drain();
        assertEquals(0, manager.teardownVersion());
        flows.programmed.remove(key);
        manager.resyncNow();
        manager.drain();
        List<TeardownRequest> t = manager.teardownsAfter(0);
        assertEquals(t.toString(), 1, t.size());
        assertEquals(TeardownRequest.ADMIN_RESET, t.get(0).cause());
    }

    /**
     * The programmed subscribers are read again every {@code resync} seconds of
     * the config (60 by default): a new period applies at once.
     */
    @Test
    public void resyncPeriodComesFromTheConfig() throws Exception {
        ServiceKey key = activateWithOneProgrammed();
        flows.programmed.remove(key);
        Thread.sleep(1600);
        manager.drain();
        assertEquals("the default period (60 s) is not over", 0, manager.teardownVersion());

        netcfg.push(OLTS_CONFIG.replace("]}", "],'resync':1}"));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (manager.teardownVersion() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        List<TeardownRequest> t = manager.teardownsAfter(0);
        assertEquals(t.toString(), 1, t.size());
        assertEquals(TeardownRequest.ADMIN_RESET, t.get(0).cause());
        assertFalse(manager.subscriber("access1", 120, 120).isPresent());
    }

    /** The olt app's programmed subscribers are read at start (and every resync period). */
    @Test
    public void programmedSubscribersFillTheIndex() throws Exception {
        UniTagInformation tag = new UniTagInformation.Builder().setPonSTag(VlanId.vlanId((short) 120))
                .setPonCTag(VlanId.vlanId((short) 120)).setServiceName("hsia").build();
        flows.programmed.put(new ServiceKey(new AccessDevicePort(uni(OLT1, 300), "BBSM00000003-1"), tag), tag);
        manager.activate();
        manager.drain();
        LineSubscriber s3 = manager.subscriber("access1", 120, 120).orElseThrow();
        assertEquals("BBSM00000003-1", s3.uniName());
        assertEquals(uni(OLT1, 300), s3.uni());
    }

    /** A new netcfg or pod re-maps; a bad netcfg keeps the one in force. */
    @Test
    public void netcfgAndPodChangesRemap() throws Exception {
        manager.activate();
        olt.post(new AccessDeviceEvent(AccessDeviceEvent.Type.UNI_ADDED, OLT1, port(OLT1, 256, "BBSM00000001-1")));
        manager.drain();
        assertTrue(manager.subscriber("access1", 100, 900).isPresent());

        netcfg.push("{'olts':[{'deviceId':'of:00000000000000a2','accessPort':'access3'}]}");
        manager.drain();
        assertTrue(manager.subscribers().isEmpty());
        assertEquals(List.of("UNI BBSM00000001-1@of:00000000000000a1/256: OLT of:00000000000000a1 is cabled to no "
                                     + "access port (seba netcfg olts)"), manager.problems());

        netcfg.push("{'olts':[],'colour':1}");   // ONOS would refuse it (isValid); the manager keeps the last one
        manager.drain();
        assertTrue(manager.subscribers().isEmpty());

        netcfg.push(OLTS_CONFIG);
        manager.drain();
        assertTrue(manager.subscriber("access1", 100, 900).isPresent());

        // the pod without lg1: the service is outside every line
        Pod pod = TestPod.pod();
        List<LineGroup> groups = new ArrayList<>(pod.lineGroups());
        groups.removeIf(g -> g.name().equals("lg1"));
        List<DpInstance> instances = new ArrayList<>(pod.instances());
        instances.removeIf(i -> i.name().equals("dp1"));
        pods.pod = Pod.builder().name(pod.name()).deviceId(pod.deviceId()).ports(pod.ports())
                .servers(pod.servers()).core(pod.core()).controlPlane(pod.controlPlane()).pools(pod.pools())
                .qosProfiles(pod.qosProfiles()).lineGroups(groups).instances(instances).build();
        pods.listeners.forEach(l -> l.event(null));
        manager.drain();
        assertTrue(manager.subscribers().isEmpty());
        assertTrue(manager.problems().toString(), manager.problems().get(0).contains("in no access line"));
    }

    /** The netcfg registry with the seba config. */
    static final class FakeNetcfg extends NetworkConfigRegistryAdapter {
        SebaConfig config;
        final List<NetworkConfigListener> listeners = new ArrayList<>();

        void set(String json) throws Exception {
            JsonNode node = MAPPER.readTree(json.replace('\'', '"'));
            config = new SebaConfig();
            config.init(APP, SebaConfig.CONFIG_KEY, node, MAPPER, null);
        }

        void push(String json) throws Exception {
            SebaConfig prev = config;
            set(json);
            NetworkConfigEvent event = new NetworkConfigEvent(NetworkConfigEvent.Type.CONFIG_UPDATED, APP, config,
                                                              prev, SebaConfig.class);
            listeners.stream().filter(l -> l.isRelevant(event)).forEach(l -> l.event(event));
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
            return configClass == SebaConfig.class ? (C) config : null;
        }
    }

    /** The pod service with the test pod. */
    static final class FakePods implements PodService {
        volatile Pod pod = TestPod.pod();
        final List<PodListener> listeners = new ArrayList<>();

        @Override
        public Optional<Pod> pod() {
            return Optional.ofNullable(pod);
        }

        @Override
        public Optional<String> lastRejection() {
            return Optional.empty();
        }

        @Override
        public List<DpInstance> instances() {
            return pod.instances();
        }

        @Override
        public List<LineGroup> lineGroups() {
            return pod.lineGroups();
        }

        @Override
        public void addListener(PodListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeListener(PodListener listener) {
            listeners.remove(listener);
        }
    }

    /** The olt app's AccessDeviceService: posts events to its listeners on the caller's thread. */
    static final class FakeOlt implements AccessDeviceService {
        final List<AccessDeviceListener> listeners = new ArrayList<>();

        void post(AccessDeviceEvent event) {
            listeners.forEach(l -> l.event(event));
        }

        @Override
        public void addListener(AccessDeviceListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeListener(AccessDeviceListener listener) {
            listeners.remove(listener);
        }

        @Override
        public boolean provisionSubscriber(ConnectPoint port) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean removeSubscriber(ConnectPoint port) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean provisionSubscriber(ConnectPoint cp, VlanId cTag, VlanId sTag, Integer tpId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean removeSubscriber(ConnectPoint cp, VlanId cTag, VlanId sTag, Integer tpId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<DeviceId> getConnectedOlts() {
            return List.of(OLT1, OLT2);
        }

        @Override
        public ConnectPoint findSubscriberConnectPoint(String id) {
            return null;
        }
    }

    /** The olt app's flow service: only its programmed subscribers. */
    static final class FakeFlows implements OltFlowServiceInterface {
        final Map<ServiceKey, UniTagInformation> programmed = new ConcurrentHashMap<>();

        @Override
        public Map<ServiceKey, UniTagInformation> getProgrammedSubscribers() {
            return Map.copyOf(programmed);
        }

        @Override
        public boolean handleBasicPortFlows(DiscoveredSubscriber sub, String defaultBpId, String oltBpId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean handleSubscriberFlows(DiscoveredSubscriber sub, String defaultBpId, String oltBpId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void handleNniFlows(Device device, Port port, FlowOperation action) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean hasDefaultEapol(Port port) {
            return false;
        }

        @Override
        public boolean hasDhcpFlows(Port port, UniTagInformation uti) {
            return false;
        }

        @Override
        public boolean hasPppoeFlows(Port port, UniTagInformation uti) {
            return false;
        }

        @Override
        public boolean hasSubscriberFlows(Port port, UniTagInformation uti) {
            return false;
        }

        @Override
        public void purgeDeviceFlows(DeviceId deviceId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<ServiceKey, OltPortStatus> getConnectPointStatus() {
            return Map.of();
        }

        @Override
        public Map<ServiceKey, Boolean> getRequestedSubscribers() {
            return Map.of();
        }

        @Override
        public boolean isSubscriberServiceProvisioned(AccessDevicePort cp) {
            return false;
        }

        @Override
        public boolean isSubscriberServiceProvisioned(ServiceKey sk) {
            return false;
        }

        @Override
        public void updateProvisionedSubscriberStatus(ServiceKey sk, Boolean status) {
        }
    }
}
