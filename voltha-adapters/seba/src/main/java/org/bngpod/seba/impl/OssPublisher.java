package org.bngpod.seba.impl;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes JSON records on Kafka from a bounded queue: {@link #offer} never
 * blocks (a full queue drops the record and counts it), one thread of its own
 * takes records off the queue and hands them to the Kafka producer. A broker
 * that is down or slow costs queue space and counted drops, never a caller's
 * time. Records carry no key and the JSON as a string, as kafka-onos sends them.
 */
final class OssPublisher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OssPublisher.class);
    /**
     * How long the producer may wait for metadata or buffer space in send(): on
     * this publisher's own thread, so a long wait only fills the queue. Long
     * enough for a broker to create a topic on its first record.
     */
    static final int MAX_BLOCK_MS = 10_000;

    private static final class Rec {
        final String topic;
        final String json;

        Rec(String topic, String json) {
            this.topic = topic;
            this.json = json;
        }
    }

    private final BlockingQueue<Rec> queue;
    private final Producer<String, String> producer;
    private final Thread worker;
    private volatile boolean running = true;

    private final AtomicLong offered = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    /**
     * Starts a publisher.
     *
     * @param bootstrapServers Kafka's host:port list
     * @param capacity         records the queue holds
     * @param clientId         the producer's client.id
     */
    OssPublisher(String bootstrapServers, int capacity, String clientId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 5000);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        // One request in flight: without idempotence a retried batch (e.g. while the
        // broker auto-creates the topic) would otherwise land after later ones, and
        // the OSS would see a session's SESSION_TERMINATION before its confirmation.
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        // In OSGi the client loads its classes through the context class loader:
        // make it this bundle's (kafka-clients is embedded here).
        Thread current = Thread.currentThread();
        ClassLoader before = current.getContextClassLoader();
        current.setContextClassLoader(OssPublisher.class.getClassLoader());
        try {
            producer = new KafkaProducer<>(p);
        } finally {
            current.setContextClassLoader(before);
        }
        queue = new ArrayBlockingQueue<>(capacity);
        worker = new Thread(this::run, "bngpod-seba-kafka");
        worker.setDaemon(true);
        worker.start();
    }

    /**
     * Queues a record; never blocks.
     *
     * @param topic Kafka topic
     * @param json  the record's value
     * @return false if the queue was full (the record is dropped and counted) or closed
     */
    boolean offer(String topic, String json) {
        offered.incrementAndGet();
        if (!running || !queue.offer(new Rec(topic, json))) {
            dropped.incrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * Returns records offered.
     *
     * @return count
     */
    long offered() {
        return offered.get();
    }

    /**
     * Returns records dropped because the queue was full (or closed).
     *
     * @return count
     */
    long dropped() {
        return dropped.get();
    }

    /**
     * Returns records the broker acknowledged.
     *
     * @return count
     */
    long sent() {
        return sent.get();
    }

    /**
     * Returns records the producer failed to deliver (timeouts, errors).
     *
     * @return count
     */
    long failed() {
        return failed.get();
    }

    /**
     * Returns records waiting in the queue.
     *
     * @return count
     */
    int queued() {
        return queue.size();
    }

    private void run() {
        while (running || !queue.isEmpty()) {
            Rec rec;
            try {
                rec = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (rec == null) {
                continue;
            }
            try {
                // the callback counts the outcome; the Future adds nothing to it
                @SuppressWarnings("FutureReturnValueIgnored")
                Object unused = producer.send(new ProducerRecord<>(rec.topic, rec.json), (md, e) -> {
                    if (e == null) {
                        sent.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        LOG.debug("Kafka send to {} failed: {}", rec.topic, e.toString());
                    }
                });
            } catch (RuntimeException e) {
                // metadata or buffer wait beyond max.block.ms, or the producer closed
                failed.incrementAndGet();
                LOG.debug("Kafka send to {} failed: {}", rec.topic, e.toString());
            }
        }
    }

    /**
     * Stops taking records, sends what is queued for at most {@code timeout},
     * and closes the producer.
     *
     * @param timeout how long the queue and the producer may take to drain
     */
    void close(Duration timeout) {
        running = false;
        try {
            worker.join(timeout.toMillis());
            if (worker.isAlive()) {
                // blocked in send() (no broker): interrupt it; the record it holds counts as failed
                worker.interrupt();
                worker.join(timeout.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int left = queue.size();
        if (left > 0) {
            dropped.addAndGet(left);
            queue.clear();
        }
        producer.close(timeout);
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }
}
