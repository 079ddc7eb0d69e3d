package org.bngpod.seba.impl;

import org.onosproject.app.ApplicationListener;
import org.onosproject.app.ApplicationService;
import org.onosproject.app.ApplicationState;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigService;
import org.opencord.bng.BngStatsEvent;
import org.opencord.bng.BngStatsEventListener;
import org.opencord.bng.BngStatsService;
import org.opencord.bng.PppoeBngControlHandler;
import org.opencord.bng.PppoeEvent;
import org.opencord.bng.PppoeEventListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.onlab.util.Tools.groupedThreads;

/**
 * This app's own publisher of SEBA's topics, for pods without kafka-onos:
 * with a {@code kafka} section in the seba netcfg it listens to the same
 * {@link PppoeBngControlHandler} and {@link BngStatsService} kafka-onos would
 * bind, and writes the same JSON ({@link OssJson}) to {@code bng.pppoe} and
 * {@code bng.stats}. Never both: while SEBA's kafka-onos ({@value #KAFKA_ONOS})
 * is active the kafka section is ignored (logged as an error) and no publisher
 * runs; it starts when kafka-onos is deactivated. Listeners only build the
 * JSON and queue it ({@link OssPublisher}: bounded, counted drops).
 */
@Component(immediate = true)
public class KafkaOssPublisher {

    /** SEBA's kafka-onos application. */
    static final String KAFKA_ONOS = "org.opencord.kafka";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected NetworkConfigService netcfgService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ApplicationService applicationService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PppoeBngControlHandler pppoeHandler;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected BngStatsService statsService;

    private final PppoeEventListener pppoeListener = this::pppoeEvent;
    private final BngStatsEventListener statsListener = this::statsEvent;
    private final NetworkConfigListener netcfgListener = new NetcfgListener();
    private final ApplicationListener appListener = e -> reconfigure();
    private ApplicationId appId;
    private ExecutorService executor;
    private volatile OssPublisher publisher;
    /** The settings the running publisher was made from (only on the executor). */
    private String servers;
    private int queue;
    Clock clock = Clock.systemUTC();

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(SebaManager.APP_NAME);
        executor = Executors.newSingleThreadExecutor(groupedThreads("bngpod/seba", "kafka-config", log));
        netcfgService.addListener(netcfgListener);
        applicationService.addListener(appListener);
        pppoeHandler.addListener(pppoeListener);
        statsService.addListener(statsListener);
        executor.execute(this::configure);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        statsService.removeListener(statsListener);
        pppoeHandler.removeListener(pppoeListener);
        applicationService.removeListener(appListener);
        netcfgService.removeListener(netcfgListener);
        executor.shutdownNow();
        stop();
        log.info("Stopped");
    }

    /**
     * Returns the running publisher.
     *
     * @return the publisher, or null without a kafka section
     */
    OssPublisher publisher() {
        return publisher;
    }

    private void pppoeEvent(PppoeEvent event) {
        OssPublisher p = publisher;
        if (p != null) {
            p.offer(OssJson.TOPIC_PPPOE, OssJson.pppoe(event, clock.instant()).toString());
        }
    }

    private void statsEvent(BngStatsEvent event) {
        OssPublisher p = publisher;
        if (p != null) {
            p.offer(OssJson.TOPIC_STATS, OssJson.stats(event.subject(), clock.instant()).toString());
        }
    }

    private void configure() {
        SebaConfig cfg = netcfgService.getConfig(appId, SebaConfig.class);
        String nextServers = null;
        int nextQueue = SebaConfig.DEFAULT_QUEUE;
        if (cfg != null) {
            try {
                SebaConfig.Settings s = cfg.settings();
                nextServers = s.kafkaServers;
                nextQueue = s.kafkaQueue;
            } catch (RuntimeException e) {
                log.warn("seba config rejected, Kafka publisher unchanged: {}", e.getMessage());
                return;
            }
        }
        if (nextServers != null && kafkaOnosActive()) {
            log.error("{} is active and publishes bng.pppoe and bng.stats from this app's services: "
                              + "the seba netcfg's kafka section is ignored (remove it)", KAFKA_ONOS);
            nextServers = null;
        }
        if (Objects.equals(nextServers, servers) && nextQueue == queue && (publisher != null) == (nextServers != null)) {
            return;
        }
        stop();
        servers = nextServers;
        queue = nextQueue;
        if (nextServers != null) {
            try {
                publisher = new OssPublisher(nextServers, nextQueue, "bngpod-seba");
                log.info("publishing bng.pppoe and bng.stats to {}", nextServers);
            } catch (RuntimeException e) {
                log.error("Kafka publisher for {} not started: {}", nextServers, e.toString());
            }
        }
    }

    private boolean kafkaOnosActive() {
        ApplicationId id = applicationService.getId(KAFKA_ONOS);
        return id != null && applicationService.getState(id) == ApplicationState.ACTIVE;
    }

    /** Re-reads the config and kafka-onos's state on the executor (any thread). */
    private void reconfigure() {
        try {
            executor.execute(this::configure);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("stopping: change ignored");
        }
    }

    /**
     * Runs every task queued so far (tests).
     *
     * @throws InterruptedException if interrupted while waiting
     */
    void drain() throws InterruptedException {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        executor.execute(done::countDown);
        if (!done.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("the Kafka config thread did not drain in 30 s");
        }
    }

    private void stop() {
        OssPublisher p = publisher;
        publisher = null;
        if (p != null) {
            p.close(Duration.ofSeconds(2));
            log.info("Kafka publisher stopped: {} sent, {} dropped, {} failed", p.sent(), p.dropped(), p.failed());
        }
    }

    /** On ONOS's thread: only hand off. */
    private final class NetcfgListener implements NetworkConfigListener {
        @Override
        public boolean isRelevant(NetworkConfigEvent event) {
            return event.configClass() == SebaConfig.class;
        }

        @Override
        public void event(NetworkConfigEvent event) {
            reconfigure();
        }
    }
}
