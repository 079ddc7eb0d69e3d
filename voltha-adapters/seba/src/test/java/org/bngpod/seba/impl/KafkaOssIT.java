package org.bngpod.seba.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.bngpod.api.Session;
import org.bngpod.api.SessionEvent;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.SebaSubscriberService;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.onlab.packet.Ip4Address;
import org.onosproject.common.event.impl.TestEventDispatcher;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.bngpod.seba.impl.BngApiProvidersTest.LINE;
import static org.bngpod.seba.impl.BngApiProvidersTest.session;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/**
 * The adapter's own Kafka publisher against a real broker: Apache Kafka 4.1
 * in KRaft mode, started by kafka-broker/kafka-broker.sh on 127.0.0.1 for this
 * test and stopped after it, read with a real Kafka consumer. Session events go
 * through the real components (PppoeEventProvider, BngStatsProvider,
 * KafkaOssPublisher); a broker that is not there costs counted drops only.
 */
public class KafkaOssIT {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static Path dir;
    private static int port;

    @BeforeClass
    public static void startBroker() throws Exception {
        String script = System.getProperty("bngpod.kafka.broker");
        dir = Paths.get(System.getProperty("bngpod.kafka.dir", "target/kafka"), UUID.randomUUID().toString());
        Files.createDirectories(dir);
        port = freePortPair();
        run(script, "start", dir.toString(), String.valueOf(port));
    }

    @AfterClass
    public static void stopBroker() throws Exception {
        if (dir == null) {
            return;
        }
        String pid = Files.exists(dir.resolve("broker.pid"))
                ? Files.readString(dir.resolve("broker.pid")).trim() : null;
        run(System.getProperty("bngpod.kafka.broker"), "stop", dir.toString());
        assertFalse("broker.pid removed", Files.exists(dir.resolve("broker.pid")));
        if (pid != null) {
            assertFalse("the broker process " + pid + " is gone",
                        ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false));
        }
    }

    private static void run(String... cmd) throws Exception {
        List<String> args = new ArrayList<>(List.of("bash"));
        args.addAll(List.of(cmd));
        Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
        if (!p.waitFor(150, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(args + " did not finish in 150 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(args + ": " + out, 0, p.exitValue());
    }

    /** A port P with P+1 free too (the controller listener), on the loopback. */
    private static int freePortPair() throws IOException {
        for (int i = 0; i < 50; i++) {
            int p = ThreadLocalRandom.current().nextInt(20000, 30000);
            try (ServerSocket a = new ServerSocket(p, 1, InetAddress.getLoopbackAddress());
                 ServerSocket b = new ServerSocket(p + 1, 1, InetAddress.getLoopbackAddress())) {
                return a.getLocalPort() + 1 == b.getLocalPort() ? p : -1;
            } catch (IOException busy) {
                // try another
            }
        }
        throw new IOException("no free port pair");
    }

    private static KafkaConsumer<String, String> consumer(String... topics) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        KafkaConsumer<String, String> c = new KafkaConsumer<>(p);
        c.subscribe(List.of(topics));
        return c;
    }

    private static List<ConsumerRecord<String, String>> consume(KafkaConsumer<String, String> c, int want,
                                                                Duration limit) {
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        long end = System.nanoTime() + limit.toNanos();
        while (got.size() < want && System.nanoTime() < end) {
            c.poll(Duration.ofMillis(500)).forEach(got::add);
        }
        return got;
    }

    /** Session up and down through the components: bng.pppoe and bng.stats as kafka-onos writes them. */
    @Test
    public void sessionEventsReachTheTopics() throws Exception {
        FakeSessions sessions = new FakeSessions();
        SebaSubscriberService subscribers = new SebaSubscriberService() {
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
        CoreServiceAdapter core = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return SebaManagerTest.APP;
            }
        };
        SebaManagerTest.FakeNetcfg netcfg = new SebaManagerTest.FakeNetcfg();
        netcfg.set("{'olts':[{'deviceId':'of:00000000000000a1','accessPort':'access1'}],"
                           + "'kafka':{'bootstrapServers':'127.0.0.1:" + port + "','queue':1000}}");
        FakeCluster.Leadership leadership = new FakeCluster.Leadership();
        leadership.leader = FakeCluster.OTHER;   // no periodic readings: postStats() below
        PppoeEventProvider pppoe = new PppoeEventProvider();
        pppoe.sessionService = sessions;
        pppoe.subscriberService = subscribers;
        injectEventDispatcher(pppoe, new TestEventDispatcher());
        pppoe.activate();
        BngStatsProvider stats = new BngStatsProvider();
        stats.coreService = core;
        stats.netcfgService = netcfg;
        stats.leadershipService = leadership;
        stats.clusterService = new FakeCluster.Cluster();
        stats.sessionService = sessions;
        stats.subscriberService = subscribers;
        injectEventDispatcher(stats, new TestEventDispatcher());
        stats.activate();
        KafkaOssPublisher publisher = new KafkaOssPublisher();
        publisher.coreService = core;
        publisher.netcfgService = netcfg;
        publisher.applicationService = new org.onosproject.app.ApplicationServiceAdapter();
        publisher.pppoeHandler = pppoe;
        publisher.statsService = stats;
        publisher.activate();
        try (KafkaConsumer<String, String> c = consumer(OssJson.TOPIC_PPPOE, OssJson.TOPIC_STATS)) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (publisher.publisher() == null && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            OssPublisher out = publisher.publisher();
            assertTrue("the publisher started from the netcfg", out != null);

            Session s = session("acct-1", 100, 900, 17, Ip4Address.valueOf("100.80.0.2"));
            // bng-cp's reported steps (POST /pppoe-events), then the session's reports
            assertTrue(pppoe.report(org.opencord.bng.PppoeEvent.EventType.SESSION_INIT, "access1", 100, 900,
                                    s.mac(), 0));
            assertTrue(pppoe.report(org.opencord.bng.PppoeEvent.EventType.AUTH_SUCCESS, "access1", 100, 900,
                                    s.mac(), 17));
            sessions.post(SessionEvent.Type.SESSION_UP, s);
            assertEquals(1, stats.postStats());
            sessions.post(SessionEvent.Type.SESSION_DOWN, s);

            List<ConsumerRecord<String, String>> got = consume(c, 6, Duration.ofSeconds(90));
            assertEquals(got.toString(), 6, got.size());
            List<String> types = new ArrayList<>();
            JsonNode statsRecord = null;
            for (ConsumerRecord<String, String> r : got) {
                assertEquals("no key, as kafka-onos", null, r.key());
                JsonNode j = MAPPER.readTree(r.value());
                if (r.topic().equals(OssJson.TOPIC_PPPOE)) {
                    String type = j.get("eventType").asText();
                    types.add(type);
                    assertEquals("of:00000000000000a1", j.get("deviceId").asText());
                    assertEquals("256", j.get("portNumber").asText());
                    assertEquals("02:00:00:00:00:01", j.get("macAddress").asText());
                    boolean addressed = !type.equals("SESSION_INIT") && !type.equals("AUTH_SUCCESS");
                    assertEquals(type, addressed ? "100.80.0.2" : "0.0.0.0", j.get("ipAddress").asText());
                    assertEquals("BBSM00000001", j.get("serialNumber").asText());
                    assertEquals(type, type.equals("SESSION_INIT") ? "" : "17", j.get("sessionId").asText());
                    assertTrue(j.get("timestamp").isTextual());
                } else {
                    statsRecord = j;
                }
            }
            assertEquals(List.of("SESSION_INIT", "AUTH_SUCCESS", "SESSION_CONFIRMATION", "IPCP_CONF_ACK",
                                 "SESSION_TERMINATION"), types);
            assertTrue("a bng.stats record", statsRecord != null);
            assertEquals(1000, statsRecord.get("upTxBytes").asLong());
            assertEquals(20, statsRecord.get("downTxPackets").asLong());
            // the session's control frames (bng-cp's count) and the DP's drops of it, with their octets
            assertEquals(14, statsRecord.get("controlPackets").asLong());
            assertEquals(3, statsRecord.get("upDropPackets").asLong());
            assertEquals(2, statsRecord.get("downDropPackets").asLong());
            assertEquals(300, statsRecord.get("upDropBytes").asLong());
            assertEquals(3000, statsRecord.get("downDropBytes").asLong());
            // what the BNG received for it: forwarded plus dropped
            assertEquals(13, statsRecord.get("upRxPackets").asLong());
            assertEquals(1300, statsRecord.get("upRxBytes").asLong());
            assertEquals(22, statsRecord.get("downRxPackets").asLong());
            assertEquals(23000, statsRecord.get("downRxBytes").asLong());
            assertEquals(6, out.sent());
            assertEquals(0, out.dropped());
        } finally {
            publisher.deactivate();
            stats.deactivate();
            pppoe.deactivate();
        }
    }

    /**
     * Records per second the publisher sustains to this broker (queue to
     * acknowledged), printed for docs/seba.md; nothing dropped with a queue
     * as large as the burst.
     */
    @Test
    public void publisherThroughput() throws Exception {
        int n = 20_000;
        String json = "{\"timestamp\":\"2026-12-06T08:00:00.123Z\",\"eventType\":\"IPCP_CONF_ACK\","
                + "\"deviceId\":\"of:00000000000000a1\",\"portNumber\":\"256\",\"macAddress\":\"02:00:00:00:00:01\","
                + "\"ipAddress\":\"100.80.0.2\",\"serialNumber\":\"BBSM00000001\",\"sessionId\":\"17\"}";
        OssPublisher out = new OssPublisher("127.0.0.1:" + port, n, "it-throughput");
        try {
            // the first record creates the topic: not timed
            out.offer("bng.throughput", json);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (out.sent() < 1 && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assertEquals(1, out.sent());
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                assertTrue(out.offer("bng.throughput", json));
            }
            long offered = System.nanoTime() - t0;
            end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (out.sent() < n + 1 && System.nanoTime() < end) {
                Thread.sleep(5);
            }
            long total = System.nanoTime() - t0;
            assertEquals(n + 1, out.sent());
            assertEquals(0, out.dropped());
            double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            System.out.printf("KafkaOssIT: %d records in %.3f s: %.0f records/s acknowledged; offer %.2f us each;"
                                      + " load average %.2f%n", n, total / 1e9, n / (total / 1e9),
                              offered / 1e3 / n, load);
        } finally {
            out.close(Duration.ofSeconds(5));
        }
    }

    /** No broker: offers never block, the overflow is counted, close is bounded. */
    @Test
    public void aMissingBrokerCostsCountedDropsOnly() throws Exception {
        int dead;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = s.getLocalPort();
        }
        OssPublisher out = new OssPublisher("127.0.0.1:" + dead, 10, "it-dead");
        long t0 = System.nanoTime();
        int accepted = 0;
        for (int i = 0; i < 1000; i++) {
            if (out.offer("bng.pppoe", "{}")) {
                accepted++;
            }
        }
        long took = System.nanoTime() - t0;
        assertTrue("1000 offers took " + took / 1e6 + " ms", took < TimeUnit.SECONDS.toNanos(2));
        assertEquals(1000, out.offered());
        assertEquals(1000 - accepted, out.dropped());
        assertTrue("the queue of 10 overflowed: accepted " + accepted, accepted <= 12);
        long c0 = System.nanoTime();
        out.close(Duration.ofSeconds(2));
        long closing = System.nanoTime() - c0;
        assertTrue("close took " + closing / 1e6 + " ms", closing < TimeUnit.SECONDS.toNanos(10));
        assertEquals("every record not sent is counted", 1000, out.sent() + out.dropped() + out.failed());
        assertFalse(out.offer("bng.pppoe", "{}"));
    }
}
