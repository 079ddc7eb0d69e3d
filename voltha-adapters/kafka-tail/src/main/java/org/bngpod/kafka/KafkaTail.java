package org.bngpod.kafka;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A streaming Kafka consumer, as an OSS reads SEBA's topics: subscribes to the topics it
 * is given (a consumer group of its own, from the topics' start), and prints each record
 * as one JSON line on stdout, flushed after every poll:
 *
 * <pre>
 * {"topic":"bng.pppoe","partition":0,"offset":3,"timestamp":1765000000123,"value":"{\"eventType\":...}"}
 * </pre>
 *
 * <p>The value is the record's value as a JSON string (UTF-8, invalid bytes replaced; null for
 * none), so that whatever a producer wrote cannot break the line; the reader parses it. When the
 * group gives it partitions it prints {@code {"assigned":["bng.pppoe-0",...]}}. Topics that do not
 * exist yet are created by the broker (auto-creation) and found within two seconds. Runs until
 * SIGTERM, then leaves the group and exits 0.
 *
 * <p>Usage: {@code KafkaTail BOOTSTRAP GROUP TOPIC...}
 */
public final class KafkaTail {

    private KafkaTail() {
    }

    /**
     * Consumes until stopped.
     *
     * @param args bootstrap servers, group id, topics
     */
    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println("usage: KafkaTail BOOTSTRAP GROUP TOPIC...");
            System.exit(2);
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", args[0]);
        p.put("group.id", args[1]);
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.put("metadata.max.age.ms", "2000");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        List<String> topics = Arrays.asList(args).subList(2, args.length);
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                                          false, StandardCharsets.UTF_8);
        AtomicBoolean stopping = new AtomicBoolean();
        Thread main = Thread.currentThread();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stopping.set(true);
                consumer.wakeup();
                try {
                    main.join(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            consumer.subscribe(topics, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    out.println("{\"assigned\":[" + partitions.stream().map(tp -> quote(tp.toString()))
                            .sorted().collect(Collectors.joining(",")) + "]}");
                    out.flush();
                }
            });
            while (!stopping.get()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    out.println(line(r));
                }
                out.flush();
            }
        } catch (WakeupException e) {
            if (!stopping.get()) {
                throw e;
            }
        } finally {
            out.flush();
        }
    }

    static String line(ConsumerRecord<byte[], byte[]> r) {
        String value = r.value() == null ? "null" : quote(new String(r.value(), StandardCharsets.UTF_8));
        return "{\"topic\":" + quote(r.topic()) + ",\"partition\":" + r.partition() + ",\"offset\":" + r.offset()
                + ",\"timestamp\":" + r.timestamp() + ",\"value\":" + value + "}";
    }

    /** s as a JSON string (RFC 8259: quote, backslash and control characters escaped). */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
