package org.bngpod.seba.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.bngpod.api.Session;
import org.bngpod.api.SessionEvent;
import org.bngpod.api.Usage;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.SebaSubscriberService;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.MacAddress;
import org.onosproject.common.event.impl.TestEventDispatcher;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.net.behaviour.BngProgrammable.BngCounterType;
import org.onosproject.net.pi.runtime.PiCounterCellData;
import org.opencord.bng.BngStatsEvent;
import org.opencord.bng.BngStatsEventListener;
import org.opencord.bng.BngStatsService;
import org.opencord.bng.PppoeBngControlHandler;
import org.opencord.bng.PppoeEvent;
import org.opencord.bng.PppoeEventListener;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static org.bngpod.seba.impl.TestPod.OLT1;
import static org.bngpod.seba.impl.TestPod.uni;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/**
 * bng-api's PppoeBngControlHandler and BngStatsService fed by bngpod's
 * sessions, used as opencord/kafka-onos uses them (bind, add a listener, read
 * the subject; getStats; the JSON it writes), on ONOS's test kit.
 */
public class BngApiProvidersTest {

    static final Instant T = Instant.parse("2026-12-06T08:00:00.123Z");
    static final LineSubscriber LINE = new LineSubscriber("access1", 100, 900, "lg1", uni(OLT1, 256),
                                                          "BBSM00000001-1", "hsia", "c", "r", "n", null, null);

    private final FakeSessions sessions = new FakeSessions();
    private final SebaSubscriberService subscribers = new SebaSubscriberService() {
        @Override
        public Optional<LineSubscriber> subscriber(String accessPort, int stag, int ctag) {
            return LINE.line().equals(LineSubscriber.key(accessPort, stag, ctag)) ? Optional.of(LINE)
                    : Optional.empty();
        }

        @Override
        public Collection<LineSubscriber> subscribers() {
            return List.of(LINE);
        }

        @Override
        public List<String> problems() {
            return List.of();
        }
    };
    /** Another node leads unless a test says otherwise: postStats() is called directly. */
    private final FakeCluster.Leadership leadership = new FakeCluster.Leadership();
    {
        leadership.leader = FakeCluster.OTHER;
    }
    private SebaManagerTest.FakeNetcfg netcfg;
    private PppoeEventProvider pppoe;
    private BngStatsProvider stats;
    private final List<PppoeEvent> pppoeEvents = new ArrayList<>();
    /** Filled by the stats thread too (periodic test). */
    private final List<BngStatsEvent> statsEvents = new java.util.concurrent.CopyOnWriteArrayList<>();

    static Session session(String id, int stag, int ctag, int pppoeId, Ip4Address ip) {
        return Session.builder().id(id).cp("cp1").lineGroup("lg1").instance(1).accessPort("access1")
                .stag(stag).ctag(ctag).pppoeId(pppoeId).mac(MacAddress.valueOf("02:00:00:00:00:01")).ipv4(ip)
                .username("user1").since(T).usage(Usage.of(1000, 20000, 10, 20, T).withDropsAndControl(3, 2, 14).withDropBytes(300, 3000)).build();
    }

    @Before
    public void setUp() {
        pppoe = new PppoeEventProvider();
        pppoe.sessionService = sessions;
        pppoe.subscriberService = subscribers;
        injectEventDispatcher(pppoe, new TestEventDispatcher());
        pppoe.activate();
        stats = new BngStatsProvider();
        stats.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return SebaManagerTest.APP;
            }
        };
        netcfg = new SebaManagerTest.FakeNetcfg();
        try {
            netcfg.set("{'olts':[{'deviceId':'of:1','accessPort':'access1'}],'statsPeriod':1}");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        stats.netcfgService = netcfg;
        stats.leadershipService = leadership;
        stats.clusterService = new FakeCluster.Cluster();
        stats.sessionService = sessions;
        stats.subscriberService = subscribers;
        injectEventDispatcher(stats, new TestEventDispatcher());
        stats.activate();
        // kafka-onos binds the services and adds its listeners
        PppoeBngControlHandler handler = pppoe;
        handler.addListener(pppoeEvents::add);
        BngStatsService statsService = stats;
        statsService.addListener(statsEvents::add);
    }

    @After
    public void tearDown() {
        pppoe.deactivate();
        stats.deactivate();
    }

    /** Up: SESSION_CONFIRMATION and IPCP_CONF_ACK; down: SESSION_TERMINATION; updates nothing. */
    @Test
    public void sessionEventsBecomePppoeEvents() {
        Session s = session("acct-1", 100, 900, 17, Ip4Address.valueOf("100.80.0.2"));
        sessions.post(SessionEvent.Type.SESSION_UP, s);
        sessions.post(SessionEvent.Type.SESSION_UPDATED, s);
        sessions.post(SessionEvent.Type.SESSION_DOWN, s);
        assertEquals(List.of(PppoeEvent.EventType.SESSION_CONFIRMATION, PppoeEvent.EventType.IPCP_CONF_ACK,
                             PppoeEvent.EventType.SESSION_TERMINATION),
                     pppoeEvents.stream().map(PppoeEvent::type).collect(Collectors.toList()));
        PppoeEvent e = pppoeEvents.get(1);
        assertEquals(uni(OLT1, 256), e.subject().getOltConnectPoint());
        assertEquals("BBSM00000001", e.subject().getOnuSerialNumber());
        assertEquals(17, e.subject().getSessionId());
        assertEquals(100, e.subject().getsTag().toShort());
        assertEquals(900, e.subject().getcTag().toShort());
        assertEquals(3, pppoe.posted());
    }

    /** The JSON kafka-onos (and this app's publisher) writes on bng.pppoe, byte for byte. */
    @Test
    public void pppoeJsonIsKafkaOnos() {
        sessions.post(SessionEvent.Type.SESSION_UP, session("acct-1", 100, 900, 17, Ip4Address.valueOf("100.80.0.2")));
        assertEquals("{\"timestamp\":\"2026-12-06T08:00:00.123Z\",\"eventType\":\"IPCP_CONF_ACK\","
                             + "\"deviceId\":\"of:00000000000000a1\",\"portNumber\":\"256\","
                             + "\"macAddress\":\"02:00:00:00:00:01\",\"ipAddress\":\"100.80.0.2\","
                             + "\"serialNumber\":\"BBSM00000001\",\"sessionId\":\"17\"}",
                     OssJson.pppoe(pppoeEvents.get(1), T).toString());
        // no address yet: 0.0.0.0, never null; PPPoE session id 0: ""
        pppoeEvents.clear();
        sessions.post(SessionEvent.Type.SESSION_UP, session("acct-2", 100, 900, 0, null));
        assertEquals(1, pppoeEvents.size());
        String json = OssJson.pppoe(pppoeEvents.get(0), T).toString();
        assertTrue(json, json.contains("\"ipAddress\":\"0.0.0.0\"") && json.endsWith("\"sessionId\":\"\"}"));
    }

    /**
     * bng-cp's reported steps (PADI answered, authentication) as kafka-onos gets them: the
     * OLT UNI, no address yet (0.0.0.0), the session id ("" before the PADS); unmapped lines
     * counted; a type the control plane does not report is refused.
     */
    @Test
    public void reportedStepsBecomePppoeEvents() {
        MacAddress mac = MacAddress.valueOf("02:00:00:00:00:01");
        org.bngpod.seba.api.CpPppoeEventService cp = pppoe;
        assertTrue(cp.report(PppoeEvent.EventType.SESSION_INIT, "access1", 100, 900, mac, 0));
        assertTrue(cp.report(PppoeEvent.EventType.AUTH_SUCCESS, "access1", 100, 900, mac, 40000));
        assertTrue(cp.report(PppoeEvent.EventType.AUTH_FAILURE, "access1", 100, 900, mac, 18));
        assertFalse(cp.report(PppoeEvent.EventType.AUTH_SUCCESS, "access1", 100, 901, mac, 18));
        assertEquals(1, pppoe.unmapped());
        assertEquals(3, pppoe.posted());
        assertEquals(List.of(PppoeEvent.EventType.SESSION_INIT, PppoeEvent.EventType.AUTH_SUCCESS,
                             PppoeEvent.EventType.AUTH_FAILURE),
                     pppoeEvents.stream().map(PppoeEvent::type).collect(Collectors.toList()));
        assertEquals("{\"timestamp\":\"2026-12-06T08:00:00.123Z\",\"eventType\":\"SESSION_INIT\","
                             + "\"deviceId\":\"of:00000000000000a1\",\"portNumber\":\"256\","
                             + "\"macAddress\":\"02:00:00:00:00:01\",\"ipAddress\":\"0.0.0.0\","
                             + "\"serialNumber\":\"BBSM00000001\",\"sessionId\":\"\"}",
                     OssJson.pppoe(pppoeEvents.get(0), T).toString());
        // a Java short in bng-api: 40000 reads negative, as with SEBA's own app
        assertTrue(OssJson.pppoe(pppoeEvents.get(1), T).toString(),
                   OssJson.pppoe(pppoeEvents.get(1), T).toString().endsWith("\"sessionId\":\"-25536\"}"));
        assertTrue(OssJson.pppoe(pppoeEvents.get(2), T).toString().contains("\"eventType\":\"AUTH_FAILURE\""));
        try {
            cp.report(PppoeEvent.EventType.SESSION_CONFIRMATION, "access1", 100, 900, mac, 1);
            fail("SESSION_CONFIRMATION reported by a control plane");
        } catch (IllegalArgumentException expected) {
            assertEquals(3, pppoeEvents.size());
        }
    }

    /** A session on a line SADIS does not map has no OLT UNI: not posted, counted. */
    @Test
    public void unmappedSessionsAreCountedNotPosted() {
        sessions.post(SessionEvent.Type.SESSION_UP, session("acct-9", 101, 900, 5, null));
        assertTrue(pppoeEvents.isEmpty());
        assertEquals(1, pppoe.unmapped());
        assertEquals(0, stats.postStats());
    }

    /** STATS_UPDATED per mapped session, getStats as kafka-onos reads it, and the bng.stats JSON. */
    @Test
    public void statsAsKafkaOnosReadsThem() throws Exception {
        sessions.post(SessionEvent.Type.SESSION_UP, session("acct-1", 100, 900, 40000, Ip4Address.valueOf("100.80.0.2")));
        sessions.post(SessionEvent.Type.SESSION_UP, session("acct-9", 101, 900, 5, null));
        assertEquals(1, stats.postStats());
        assertEquals(1, statsEvents.size());
        BngStatsEvent e = statsEvents.get(0);
        assertEquals(BngStatsEvent.EventType.STATS_UPDATED, e.type());
        assertEquals("acct-1", e.subject().getAttachmentKey());
        Map<BngCounterType, PiCounterCellData> got = stats.getStats("acct-1");
        assertEquals(new PiCounterCellData(10, 1000), got.get(BngCounterType.UPSTREAM_TX));
        assertEquals(new PiCounterCellData(20, 20000), got.get(BngCounterType.DOWNSTREAM_TX));
        assertEquals(new PiCounterCellData(3, 300), got.get(BngCounterType.UPSTREAM_DROPPED));
        assertEquals(new PiCounterCellData(2, 3000), got.get(BngCounterType.DOWNSTREAM_DROPPED));
        assertEquals(new PiCounterCellData(14, 0), got.get(BngCounterType.CONTROL_PLANE));
        // what the BNG received for the session: forwarded plus dropped
        assertEquals(new PiCounterCellData(13, 1300), got.get(BngCounterType.UPSTREAM_RX));
        assertEquals(new PiCounterCellData(22, 23000), got.get(BngCounterType.DOWNSTREAM_RX));
        assertEquals(7, got.size());
        assertEquals(Map.of(), stats.getStats("nope"));
        assertEquals(Map.of(), stats.getStats(null));
        assertEquals("both sessions' control frames", new PiCounterCellData(28, 0), stats.getControlStats());
        String json = OssJson.stats(e.subject(), T).toString();
        // PPPoE session 40000 is a negative short in bng-api, as SEBA's own app gives it
        assertEquals("{\"macAddress\":\"02:00:00:00:00:01\",\"ipAddress\":\"100.80.0.2\",\"pppoeSessionId\":-25536,"
                             + "\"sTag\":100,\"cTag\":900,\"onuSerialNumber\":\"BBSM00000001\","
                             + "\"attachmentType\":\"PPPoE\",\"deviceId\":\"of:00000000000000a1\",\"portNumber\":\"256\","
                             + "\"upRxBytes\":1300,\"upRxPackets\":13,"
                             + "\"upTxBytes\":1000,\"upTxPackets\":10,\"upDropBytes\":300,\"upDropPackets\":3,"
                             + "\"downRxBytes\":23000,\"downRxPackets\":22,"
                             + "\"downTxBytes\":20000,\"downTxPackets\":20,\"downDropBytes\":3000,\"downDropPackets\":2,"
                             + "\"controlPackets\":14,\"timestamp\":\"2026-12-06T08:00:00.123Z\"}", json);
        assertEquals(23, new ObjectMapper().readTree(json).size());
    }

    /** Every statsPeriod seconds on the leader only: one reading per session in the cluster. */
    @Test
    public void periodicStatsOnTheLeaderOnly() throws Exception {
        sessions.post(SessionEvent.Type.SESSION_UP, session("acct-1", 100, 900, 17, Ip4Address.valueOf("100.80.0.2")));
        leadership.leader = FakeCluster.OTHER;
        Thread.sleep(3500);
        assertTrue("not the leader: no statistics, got " + statsEvents.size(), statsEvents.isEmpty());
        leadership.leader = FakeCluster.LOCAL;
        long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(15);
        while (statsEvents.size() < 2 && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        assertTrue("the leader posts every second: got " + statsEvents.size(), statsEvents.size() >= 2);
        assertEquals("acct-1", statsEvents.get(0).subject().getAttachmentKey());
    }
}
