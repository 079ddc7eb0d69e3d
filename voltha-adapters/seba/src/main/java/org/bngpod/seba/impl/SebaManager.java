package org.bngpod.seba.impl;

import org.bngpod.api.Pod;
import org.bngpod.api.PodEvent;
import org.bngpod.api.PodListener;
import org.bngpod.api.PodService;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.SebaSubscriberService;
import org.bngpod.seba.api.TeardownRequest;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.net.AnnotationKeys;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.Port;
import org.onosproject.net.config.ConfigFactory;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistry;
import org.onosproject.net.config.basics.SubjectFactories;
import org.opencord.olt.AccessDeviceEvent;
import org.opencord.olt.AccessDeviceListener;
import org.opencord.olt.AccessDeviceService;
import org.opencord.olt.OltFlowServiceInterface;
import org.opencord.olt.ServiceKey;
import org.opencord.sadis.SadisService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.onlab.util.Tools.groupedThreads;

/**
 * SADIS subscribers on the pod's lines. Keeps the UNI index from the olt
 * app's UNI_ADDED/UNI_REMOVED events and, every {@code resync} seconds of the
 * config (60 by default), from its programmed subscribers (OltFlowServiceInterface), then
 * maps every UNI's SADIS services ({@link SubscriberMapper}). Every event is
 * handed to one thread of its own: SADIS look-ups may go to a remote server
 * and never run on ONOS's event threads.
 */
@Component(immediate = true, service = SebaSubscriberService.class)
public class SebaManager implements SebaSubscriberService {

    /** Name of this application. */
    public static final String APP_NAME = "org.bngpod.seba";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected NetworkConfigRegistry netcfgRegistry;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PodService podService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected SadisService sadisService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected AccessDeviceService accessDeviceService;
    /** The olt app's programmed subscribers; optional: the UNI events suffice. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    protected volatile OltFlowServiceInterface oltFlowService;

    private final ConfigFactory<ApplicationId, SebaConfig> factory =
            new ConfigFactory<>(SubjectFactories.APP_SUBJECT_FACTORY, SebaConfig.class, SebaConfig.CONFIG_KEY) {
                @Override
                public SebaConfig createConfig() {
                    return new SebaConfig();
                }
            };

    private final UniIndex unis = new UniIndex();
    /** Teardown requests for the control planes (UNI_REMOVED after the hold-down, provisioning removed). */
    final TeardownLog teardowns = new TeardownLog(java.time.Clock.systemUTC());
    /** The UNIs the olt app had programmed at the last reading; null before the first (only on the executor). */
    private Set<ConnectPoint> lastProgrammed;
    /** UNIs removed (UNI_REMOVED) and not added since, with the number of their removal (only on the executor). */
    private final Map<ConnectPoint, Long> removed = new java.util.HashMap<>();
    private long removals;
    /**
     * UNIs whose port went down (UNI_REMOVED) and that no reading has listed
     * since they came back (only on the executor). olt 5.2.8 removes a UNI's
     * subscriber flows when its port goes down and programs them again only
     * after it posted UNI_ADDED, so their absence meanwhile is no unprovisioning.
     */
    private final Set<ConnectPoint> portDown = new HashSet<>();
    private final AccessDeviceListener oltListener = this::oltEvent;
    private final PodListener podListener = e -> submit(this::remap);
    private final NetworkConfigListener netcfgListener = new NetcfgListener();

    private ApplicationId appId;
    private ScheduledExecutorService executor;
    /** The periodic resync (set on the executor) and its period in seconds (only on the executor). */
    private volatile java.util.concurrent.ScheduledFuture<?> resyncTask;
    private int resyncPeriod;
    private volatile SebaConfig.Settings settings = SebaConfig.Settings.none();
    private volatile SubscriberMapper.Mapping mapping = SubscriberMapper.Mapping.empty();
    /** Problems logged already (only on the executor). */
    private Set<String> logged = new HashSet<>();
    /** Each known UNI's SADIS look-up, so a UNI event asks SADIS for that UNI only (only on the executor). */
    private final Map<ConnectPoint, SubscriberMapper.UniResult> results = new java.util.HashMap<>();

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(APP_NAME);
        executor = Executors.newSingleThreadScheduledExecutor(groupedThreads("bngpod/seba", "subscribers", log));
        netcfgRegistry.registerConfigFactory(factory);
        netcfgRegistry.addListener(netcfgListener);
        podService.addListener(podListener);
        accessDeviceService.addListener(oltListener);
        // the config (which starts the periodic resync at its period), and the first resync at once
        executor.execute(this::readConfig);
        executor.execute(this::resync);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        accessDeviceService.removeListener(oltListener);
        podService.removeListener(podListener);
        netcfgRegistry.removeListener(netcfgListener);
        netcfgRegistry.unregisterConfigFactory(factory);
        java.util.concurrent.ScheduledFuture<?> task = resyncTask;
        if (task != null) {
            task.cancel(false);
        }
        executor.shutdownNow();
        log.info("Stopped");
    }

    @Override
    public Optional<LineSubscriber> subscriber(String accessPort, int stag, int ctag) {
        return Optional.ofNullable(mapping.byLine.get(LineSubscriber.key(accessPort, stag, ctag)));
    }

    @Override
    public Collection<LineSubscriber> subscribers() {
        return new java.util.TreeMap<>(mapping.byLine).values();
    }

    @Override
    public List<String> problems() {
        return mapping.problems;
    }

    /** Reads the programmed subscribers and maps again now (tests: the periodic resync). */
    void resyncNow() {
        submit(this::resync);
    }

    /**
     * Runs every task queued so far (tests: the executor's work, then return).
     *
     * @throws InterruptedException if interrupted while waiting
     */
    void drain() throws InterruptedException {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        executor.execute(done::countDown);
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the subscriber thread did not drain in 30 s");
        }
    }

    /**
     * The olt app's event: on the caller's (ONOS's) thread, only hand off.
     */
    private void oltEvent(AccessDeviceEvent event) {
        AccessDeviceEvent.Type type = event.type();
        if (type != AccessDeviceEvent.Type.UNI_ADDED && type != AccessDeviceEvent.Type.UNI_REMOVED) {
            return;
        }
        Optional<Port> port = event.port();
        if (port.isEmpty()) {
            return;
        }
        ConnectPoint cp = new ConnectPoint(event.subject(), port.get().number());
        String name = port.get().annotations().value(AnnotationKeys.PORT_NAME);
        submit(() -> {
            if (type == AccessDeviceEvent.Type.UNI_ADDED) {
                removed.remove(cp);
                if (unis.add(cp, name)) {
                    remapUni(cp);
                }
            } else {
                List<LineSubscriber> lines = linesOf(cp);
                if (unis.remove(cp)) {
                    results.remove(cp);
                    publish();
                }
                long seq = ++removals;
                removed.put(cp, seq);
                portDown.add(cp);
                if (!lines.isEmpty()) {
                    holdDown(cp, seq, lines);
                }
            }
        });
    }

    /** The lines the current mapping gives a UNI. */
    private List<LineSubscriber> linesOf(ConnectPoint cp) {
        List<LineSubscriber> out = new java.util.ArrayList<>();
        for (LineSubscriber l : mapping.byLine.values()) {
            if (l.uni().equals(cp)) {
                out.add(l);
            }
        }
        return out;
    }

    /**
     * After the hold-down (on the executor), requests the teardown of a
     * removed UNI's lines with Lost-Carrier, unless the UNI came back.
     */
    private void holdDown(ConnectPoint cp, long seq, List<LineSubscriber> lines) {
        Runnable expire = () -> {
            if (!Long.valueOf(seq).equals(removed.get(cp))) {
                // added again (its sessions stay), or removed again (that removal's hold-down decides)
                log.info("UNI {} came back within the hold-down", cp);
                return;
            }
            request(lines, TeardownRequest.LOST_CARRIER);
        };
        try {
            java.util.concurrent.ScheduledFuture<?> unused =
                    executor.schedule(expire, settings.holdDown, TimeUnit.SECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("stopping: hold-down of {} dropped", cp);
        }
    }

    private void request(List<LineSubscriber> lines, String cause) {
        for (LineSubscriber l : lines) {
            TeardownRequest r = teardowns.add(l.accessPort(), l.stag(), l.ctag(), l.uniName(), cause);
            log.info("teardown requested: {}", r);
        }
    }

    @Override
    public long teardownVersion() {
        return teardowns.version();
    }

    @Override
    public List<TeardownRequest> teardownsAfter(long after) {
        return teardowns.after(after);
    }

    private void submit(Runnable task) {
        try {
            executor.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("stopping: {} dropped", task);
        }
    }

    private void readConfig() {
        SebaConfig cfg = netcfgRegistry.getConfig(appId, SebaConfig.class);
        SebaConfig.Settings next = SebaConfig.Settings.none();
        if (cfg != null) {
            try {
                next = cfg.settings();
            } catch (RuntimeException e) {
                log.warn("seba config rejected, keeping the previous one: {}", e.getMessage());
                scheduleResync();
                return;
            }
        }
        settings = next;
        scheduleResync();
        remap();
    }

    /**
     * Starts the periodic resync or, when the config changed its period,
     * starts it again at the new period (on the executor).
     */
    private void scheduleResync() {
        int period = settings.resync;
        java.util.concurrent.ScheduledFuture<?> task = resyncTask;
        if (task != null && period == resyncPeriod) {
            return;
        }
        if (task != null) {
            task.cancel(false);
        }
        try {
            resyncTask = executor.scheduleWithFixedDelay(this::resync, period, period, TimeUnit.SECONDS);
            resyncPeriod = period;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("stopping: resync not scheduled");
        }
    }

    /** Reads the olt app's programmed subscribers into the index, then maps. */
    private void resync() {
        try {
            readProgrammed();
            remap();
        } catch (RuntimeException e) {
            // a failure must not end the periodic resync
            log.warn("subscriber resync failed: {}", e.toString());
        }
    }

    private void readProgrammed() {
        OltFlowServiceInterface flows = oltFlowService;
        if (flows != null) {
            try {
                Map<ServiceKey, ?> programmed = flows.getProgrammedSubscribers();
                Set<ConnectPoint> now = new HashSet<>();
                for (ServiceKey key : programmed.keySet()) {
                    if (key != null && key.getPort() != null && key.getPort().connectPoint() != null) {
                        ConnectPoint cp = key.getPort().connectPoint();
                        now.add(cp);
                        if (!removed.containsKey(cp)) {
                            // provisioned but its UNI is down (UNI_REMOVED): unmapped until UNI_ADDED
                            unis.add(cp, key.getPort().name());
                            portDown.remove(cp);
                        }
                    }
                }
                if (lastProgrammed != null) {
                    for (ConnectPoint gone : lastProgrammed) {
                        if (!now.contains(gone) && portDown.contains(gone)) {
                            log.info("UNI {} not programmed since its port went down: no Admin-Reset", gone);
                        } else if (!now.contains(gone)) {
                            // removed from provisioning: its sessions end with Admin-Reset
                            List<LineSubscriber> lines = linesOf(gone);
                            unis.remove(gone);
                            results.remove(gone);
                            request(lines, TeardownRequest.ADMIN_RESET);
                        }
                    }
                }
                lastProgrammed = now;
            } catch (RuntimeException e) {
                log.warn("reading the olt app's programmed subscribers failed: {}", e.toString());
            }
        }
    }

    /** Looks every known UNI up again (pod, netcfg, periodic resync), then publishes. */
    private void remap() {
        results.clear();
        Optional<Pod> pod = podService.pod();
        if (pod.isPresent()) {
            for (UniIndex.Uni uni : unis.snapshot().values()) {
                results.put(uni.connectPoint, lookUp(pod.get(), uni));
            }
        }
        publish();
    }

    /** Looks one UNI up (UNI_ADDED), then publishes. */
    private void remapUni(ConnectPoint cp) {
        Optional<Pod> pod = podService.pod();
        Optional<UniIndex.Uni> uni = unis.at(cp);
        if (pod.isEmpty() || uni.isEmpty()) {
            return;
        }
        results.put(cp, lookUp(pod.get(), uni.get()));
        publish();
    }

    private SubscriberMapper.UniResult lookUp(Pod pod, UniIndex.Uni uni) {
        return SubscriberMapper.lookUp(pod, settings.olts, uni,
                                       id -> sadisService.getSubscriberInfoService().get(id),
                                       id -> sadisService.getBandwidthProfileService().get(id));
    }

    private void publish() {
        SubscriberMapper.Mapping next = podService.pod().isEmpty() ? SubscriberMapper.Mapping.empty()
                : SubscriberMapper.assemble(results.values());
        mapping = next;
        Set<String> now = new HashSet<>(next.problems);
        for (String p : next.problems) {
            if (!logged.contains(p)) {
                log.warn("{}", p);
            }
        }
        logged = now;
    }

    /** The adapter's own config: on ONOS's thread, only hand off. */
    private final class NetcfgListener implements NetworkConfigListener {
        @Override
        public boolean isRelevant(NetworkConfigEvent event) {
            return event.configClass() == SebaConfig.class;
        }

        @Override
        public void event(NetworkConfigEvent event) {
            submit(SebaManager.this::readConfig);
        }
    }

    /**
     * Returns the settings in force (the bridges read the stats period and Kafka from here).
     *
     * @return the settings in force (the bridges read the stats period and Kafka from here)
     */
    SebaConfig.Settings settings() {
        return settings;
    }
}
