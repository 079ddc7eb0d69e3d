package org.bngpod.seba.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.bngpod.app.emu.PodController;
import org.bngpod.app.rest.ContainerLogin;
import org.bngpod.seba.api.CpPppoeEventService;
import org.bngpod.seba.api.SebaSubscriberService;
import org.bngpod.seba.rest.PppoeEventsWebResource;
import org.bngpod.seba.rest.SubscribersWebResource;
import org.bngpod.seba.rest.TeardownsWebResource;
import org.onlab.packet.ChassisId;
import org.onosproject.app.ApplicationState;
import org.onosproject.common.event.impl.TestEventDispatcher;
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
import org.onosproject.net.PortNumber;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistryAdapter;
import org.onosproject.net.provider.ProviderId;
import org.opencord.olt.AccessDeviceEvent;
import org.opencord.olt.AccessDeviceListener;
import org.opencord.olt.AccessDeviceService;
import org.onlab.packet.VlanId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import javax.ws.rs.Path;
import javax.ws.rs.core.Application;

import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/**
 * The emulated pod's controller with org.bngpod.seba ({@code bngpod up --controller}
 * with a pod file's {@code seba} section, docs/seba.md): onos-app's
 * {@link PodController} (org.bngpod.app's components, its REST API) and this
 * app's SebaManager, PppoeEventProvider, BngStatsProvider and KafkaOssPublisher beside them, its
 * REST resources under {@code /onos/bngpod-seba} on the same server and realm
 * (the resources of SebaWebApplication, their service look-up pointed at these
 * components instead of OSGi's registry). In place of SEBA's apps:
 *
 * <ul>
 * <li>SADIS: {@link RemoteSadis} (SADIS's remote mode: HTTP, %s replaced by the id,
 * sadis-api's classes, unknown id or bad document: null) against
 * {@link SadisStandIn}, a SADIS server whose documents the lab puts;</li>
 * <li>the olt app: an AccessDeviceService whose UNI_ADDED and UNI_REMOVED the lab
 * posts (delivered on an event thread of their own, as ONOS's dispatcher does);
 * no OltFlowServiceInterface (optional for SebaManager: the UNI events suffice);</li>
 * <li>netcfg: this app's {@code seba} config as the lab puts it (none at start); its
 * {@code kafka} section starts KafkaOssPublisher as in ONOS;</li>
 * <li>ONOS's ApplicationService: {@link ApplicationsStandIn} with this app active and
 * SEBA's kafka-onos not installed (so this app's publisher is the one).</li>
 * </ul>
 *
 * <p>The lab's side (HTTP on {@code --seba-control}, loopback of the management
 * namespace): {@code PUT /sadis/subscribers/{id}}, {@code PUT /sadis/bandwidthprofiles/{id}}
 * (the document, stored byte for byte), {@code POST /netcfg} (this app's config
 * object), {@code POST /olt/events} ({@code {"type":"UNI_ADDED"|"UNI_REMOVED",
 * "deviceId":"of:...","port":256,"name":"BBSM00000001-1"}}); 204, or 400 with the
 * reason. Events: {@code seba} (what the lab did).</p>
 */
public final class SebaPodController implements PodController.Extension {

    private static final Logger LOG = LoggerFactory.getLogger(SebaPodController.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();
    static final ApplicationId APP = new DefaultApplicationId(2, SebaManager.APP_NAME);

    /** The components the resources find (ONOS's registry does it in a pod). */
    private static volatile Map<Class<?>, Object> directory = Map.of();

    private final SebaNetcfg netcfg = new SebaNetcfg();
    private final OltStandIn olt = new OltStandIn();
    private SadisStandIn sadisServer;
    private SebaManager manager;
    private PppoeEventProvider pppoe;
    private BngStatsProvider stats;
    private KafkaOssPublisher kafka;
    private HttpServer control;
    private Consumer<ObjectNode> events;
    private Set<String> webXmlRoles = Set.of();

    /**
     * Runs the controller until it is stopped (SIGTERM).
     *
     * @param argv PodController's arguments and --seba-control ADDR:PORT, --seba-web-xml FILE
     */
    public static void main(String[] argv) {
        PodController.run(argv, new SebaPodController());
    }

    @Override
    public List<String> arguments() {
        return List.of("seba-control", "seba-web-xml");
    }

    @Override
    public void start(PodController.AppServices app, Map<String, String> args, Consumer<ObjectNode> events)
            throws Exception {
        this.events = events;
        webXmlRoles = ContainerLogin.webXmlRoles(Paths.get(args.get("seba-web-xml")), "security-constraint");
        sadisServer = new SadisStandIn();
        CoreServiceAdapter core = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return APP;
            }
        };
        manager = new SebaManager();
        manager.coreService = core;
        manager.netcfgRegistry = netcfg;
        manager.podService = app.pods;
        manager.sadisService = new RemoteSadis(sadisServer.subscriberUrl(), sadisServer.profileUrl());
        manager.accessDeviceService = olt;
        manager.activate();
        pppoe = new PppoeEventProvider();
        pppoe.sessionService = app.sessions;
        pppoe.subscriberService = manager;
        // their listeners (kafka-onos or KafkaOssPublisher in a pod; the latter here) on the poster's thread
        injectEventDispatcher(pppoe, new TestEventDispatcher());
        pppoe.activate();
        stats = new BngStatsProvider();
        stats.coreService = core;
        stats.netcfgService = netcfg;
        stats.leadershipService = app.leadership;
        stats.clusterService = app.cluster;
        stats.sessionService = app.sessions;
        stats.subscriberService = manager;
        injectEventDispatcher(stats, new TestEventDispatcher());
        stats.activate();
        // this app's own publisher: kafka-onos is not installed here, so it runs whenever
        // the seba netcfg the lab posts has a kafka section (and stops without one)
        kafka = new KafkaOssPublisher();
        kafka.coreService = core;
        kafka.netcfgService = netcfg;
        kafka.applicationService = new ApplicationsStandIn(Map.of(APP, ApplicationState.ACTIVE));
        kafka.pppoeHandler = pppoe;
        kafka.statsService = stats;
        kafka.activate();
        directory = Map.of(SebaSubscriberService.class, manager, CpPppoeEventService.class, pppoe);
        control = lab(args.get("seba-control"));
        LOG.info("org.bngpod.seba: SADIS stand-in on {}, the lab's side on http://{}", sadisServer.subscriberUrl(),
                 args.get("seba-control"));
    }

    @Override
    public Map<Class<?>, Object> services() {
        return directory;
    }

    @Override
    public List<PodController.WebContext> webContexts() {
        return List.of(new PodController.WebContext("/onos/bngpod-seba", WebApp.class, webXmlRoles));
    }

    @Override
    public void stop() {
        if (control != null) {
            control.stop(0);
        }
        if (kafka != null) {
            kafka.deactivate();
        }
        if (stats != null) {
            stats.deactivate();
        }
        if (pppoe != null) {
            pppoe.deactivate();
        }
        if (manager != null) {
            manager.deactivate();
        }
        olt.executor.shutdownNow();
        if (sadisServer != null) {
            sadisServer.close();
        }
    }

    private HttpServer lab(String listen) throws IOException {
        URI uri = URI.create("http://" + listen);
        HttpServer server = HttpServer.create(new InetSocketAddress(uri.getHost(), uri.getPort()), 16);
        server.createContext("/", ex -> {
            try {
                String why = labRequest(ex.getRequestMethod(), ex.getRequestURI().getPath(), body(ex));
                reply(ex, why == null ? 204 : 400, why);
            } catch (RuntimeException e) {
                reply(ex, 400, e.toString());
            }
        });
        server.start();
        return server;
    }

    private static byte[] body(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            return in.readNBytes(1 << 20);
        }
    }

    private static void reply(HttpExchange ex, int status, String why) throws IOException {
        byte[] b = why == null ? new byte[0] : (why + "\n").getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    /** One request of the lab's side: null, or why it is refused. */
    private String labRequest(String method, String path, byte[] body) throws IOException {
        String text = new String(body, StandardCharsets.UTF_8);
        ObjectNode event = MAPPER.createObjectNode().put("event", "seba").put("method", method).put("path", path);
        if (method.equals("PUT") && path.startsWith("/sadis/subscribers/") && path.length() > 19) {
            sadisServer.subscriber(path.substring(19), text);
        } else if (method.equals("PUT") && path.startsWith("/sadis/bandwidthprofiles/") && path.length() > 25) {
            sadisServer.profile(path.substring(25), text);
        } else if (method.equals("POST") && path.equals("/netcfg")) {
            String why = netcfg.push(MAPPER.readTree(text));
            if (why != null) {
                return why;
            }
        } else if (method.equals("POST") && path.equals("/olt/events")) {
            JsonNode e = MAPPER.readTree(text);
            AccessDeviceEvent.Type type = AccessDeviceEvent.Type.valueOf(e.path("type").asText());
            DeviceId device = DeviceId.deviceId(e.path("deviceId").asText());
            if (!e.path("port").canConvertToLong() || !e.path("name").isTextual()) {
                return "an olt event needs type, deviceId, port (a number) and name";
            }
            Device d = new DefaultDevice(ProviderId.NONE, device, Device.Type.OLT, "voltha", "1", "1", "sn",
                                         new ChassisId(1));
            DefaultPort port = new DefaultPort(d, PortNumber.portNumber(e.path("port").asLong()), true,
                                               DefaultAnnotations.builder()
                                                       .set(AnnotationKeys.PORT_NAME, e.path("name").asText()).build());
            olt.post(new AccessDeviceEvent(type, device, port));
            event.put("uni", new ConnectPoint(device, port.number()).toString()).put("type", type.name());
        } else {
            return method + " " + path + ": not a request of the lab's side";
        }
        events.accept(event);
        return null;
    }

    /** SebaWebApplication's resources, their services from this controller. */
    public static final class WebApp extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Subscribers.class, Teardowns.class, PppoeEvents.class);
        }
    }

    /** SubscribersWebResource. */
    @Path("subscribers")
    public static final class Subscribers extends SubscribersWebResource {
        @Override
        protected SebaSubscriberService service() {
            return (SebaSubscriberService) directory.get(SebaSubscriberService.class);
        }
    }

    /** TeardownsWebResource. */
    @Path("teardowns")
    public static final class Teardowns extends TeardownsWebResource {
        @Override
        protected SebaSubscriberService service() {
            return (SebaSubscriberService) directory.get(SebaSubscriberService.class);
        }
    }

    /** PppoeEventsWebResource. */
    @Path("pppoe-events")
    public static final class PppoeEvents extends PppoeEventsWebResource {
        @Override
        protected CpPppoeEventService service() {
            return (CpPppoeEventService) directory.get(CpPppoeEventService.class);
        }
    }

    /** The olt app: the UNI events the lab posts, on an event thread, as ONOS's dispatcher delivers them. */
    static final class OltStandIn implements AccessDeviceService {
        final List<AccessDeviceListener> listeners = new CopyOnWriteArrayList<>();
        final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "olt-events"));

        void post(AccessDeviceEvent event) {
            executor.execute(() -> listeners.forEach(l -> l.event(event)));
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
            throw new UnsupportedOperationException("the olt stand-in only posts UNI events");
        }

        @Override
        public boolean removeSubscriber(ConnectPoint port) {
            throw new UnsupportedOperationException("the olt stand-in only posts UNI events");
        }

        @Override
        public boolean provisionSubscriber(ConnectPoint cp, VlanId cTag, VlanId sTag, Integer tpId) {
            throw new UnsupportedOperationException("the olt stand-in only posts UNI events");
        }

        @Override
        public boolean removeSubscriber(ConnectPoint cp, VlanId cTag, VlanId sTag, Integer tpId) {
            throw new UnsupportedOperationException("the olt stand-in only posts UNI events");
        }

        @Override
        public List<DeviceId> getConnectedOlts() {
            return List.of();
        }

        @Override
        public ConnectPoint findSubscriberConnectPoint(String id) {
            return null;
        }
    }

    /** This app's config, as the lab pushes it; ONOS's check before it is stored (SebaConfig.isValid). */
    static final class SebaNetcfg extends NetworkConfigRegistryAdapter {
        private volatile SebaConfig config;
        private final List<NetworkConfigListener> listeners = new CopyOnWriteArrayList<>();

        synchronized String push(JsonNode node) {
            SebaConfig next = new SebaConfig();
            next.init(APP, SebaConfig.CONFIG_KEY, node, MAPPER, c -> { });
            if (!next.isValid()) {
                return "the seba config is not valid (SebaConfig.isValid)";
            }
            SebaConfig prev = config;
            config = next;
            NetworkConfigEvent event = new NetworkConfigEvent(
                    prev == null ? NetworkConfigEvent.Type.CONFIG_ADDED : NetworkConfigEvent.Type.CONFIG_UPDATED, APP,
                    next, prev, SebaConfig.class);
            listeners.stream().filter(l -> l.isRelevant(event)).forEach(l -> l.event(event));
            return null;
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
            return APP.equals(subject) && configClass == SebaConfig.class ? (C) config : null;
        }
    }
}
