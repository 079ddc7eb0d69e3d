package org.bngpod.seba.impl;

import org.bngpod.api.Session;
import org.bngpod.api.SessionService;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.SebaSubscriberService;
import org.onosproject.cluster.ClusterService;
import org.onosproject.cluster.LeadershipService;
import org.onosproject.cluster.NodeId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.net.behaviour.BngProgrammable.BngCounterType;
import org.onosproject.net.config.NetworkConfigService;
import org.onosproject.net.pi.runtime.PiCounterCellData;
import org.opencord.bng.BngStatsEvent;
import org.opencord.bng.BngStatsEventListener;
import org.opencord.bng.BngStatsEventSubject;
import org.opencord.bng.BngStatsService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import static org.onlab.util.Tools.groupedThreads;

/**
 * SEBA's {@link BngStatsService} (bng-api 2.5.3) fed by bngpod's sessions:
 * every {@code statsPeriod} seconds (seba netcfg, default 10, 0 = never) one
 * STATS_UPDATED per session on a SADIS-mapped line, attachment key = the
 * session id (Acct-Session-Id), counters from the session's last usage
 * reading ({@link BngEvents#stats}). SEBA's kafka-onos publishes them on
 * {@code bng.stats}. Runs on a thread of its own, and posts only on the
 * leader of {@value #STATS_TOPIC} (every node sees every session: one reading
 * per session and period in the cluster, not one per node).
 */
@Component(immediate = true, service = BngStatsService.class)
public class BngStatsProvider extends AbstractListenerManager<BngStatsEvent, BngStatsEventListener>
        implements BngStatsService {

    /** The cluster topic whose leader posts the periodic statistics. */
    static final String STATS_TOPIC = "org.bngpod.seba.stats";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected NetworkConfigService netcfgService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LeadershipService leadershipService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterService clusterService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected SessionService sessionService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected SebaSubscriberService subscriberService;

    private ApplicationId appId;
    private ScheduledExecutorService executor;
    private ScheduledFuture<?> tick;
    private long lastPostNanos;

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(SebaManager.APP_NAME);
        eventDispatcher.addSink(BngStatsEvent.class, listenerRegistry);
        leadershipService.runForLeadership(STATS_TOPIC);
        executor = Executors.newSingleThreadScheduledExecutor(groupedThreads("bngpod/seba", "stats", log));
        lastPostNanos = System.nanoTime();
        tick = executor.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        tick.cancel(false);
        executor.shutdownNow();
        leadershipService.withdraw(STATS_TOPIC);
        eventDispatcher.removeSink(BngStatsEvent.class);
        log.info("Stopped");
    }

    @Override
    public Map<BngCounterType, PiCounterCellData> getStats(String attachmentKey) {
        if (attachmentKey == null) {
            return Map.of();
        }
        return sessionService.session(attachmentKey).map(BngEvents::stats).orElse(Map.of());
    }

    /**
     * The BNG's control-plane counter: the control frames of every session
     * bngpod knows, as bng-cp reported them (packets; octets not counted).
     * Frames of no session (PADIs, PADOs, refused PADRs) are not in it.
     */
    @Override
    public PiCounterCellData getControlStats() {
        long packets = 0;
        for (Session session : sessionService.sessions()) {
            packets += session.usage().controlPackets();
        }
        return new PiCounterCellData(packets, 0);
    }

    /**
     * Posts one STATS_UPDATED per mapped session now.
     *
     * @return events posted
     */
    int postStats() {
        int n = 0;
        for (Session session : sessionService.sessions()) {
            Optional<LineSubscriber> line =
                    subscriberService.subscriber(session.accessPort(), session.stag(), session.ctag());
            if (line.isEmpty()) {
                continue;
            }
            post(new BngStatsEvent(BngStatsEvent.EventType.STATS_UPDATED,
                                   new BngStatsEventSubject(session.id(),
                                                            BngEvents.attachment(appId, session, line.get()),
                                                            BngEvents.stats(session))));
            n++;
        }
        return n;
    }

    /**
     * Tells whether this node posts the periodic statistics.
     *
     * @return true on the leader of {@value #STATS_TOPIC}
     */
    boolean leader() {
        NodeId leader = leadershipService.getLeader(STATS_TOPIC);
        return leader != null && leader.equals(clusterService.getLocalNode().id());
    }

    private void tick() {
        try {
            if (!leader()) {
                return;
            }
            SebaConfig cfg = netcfgService.getConfig(appId, SebaConfig.class);
            int period = SebaConfig.DEFAULT_STATS_PERIOD;
            if (cfg != null) {
                period = cfg.settings().statsPeriod;
            }
            long now = System.nanoTime();
            if (period > 0 && now - lastPostNanos >= TimeUnit.SECONDS.toNanos(period)) {
                lastPostNanos = now;
                postStats();
            }
        } catch (RuntimeException e) {
            // a bad config or a failing store must not end the periodic task
            log.warn("stats tick failed: {}", e.toString());
        }
    }
}
