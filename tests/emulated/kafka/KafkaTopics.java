import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A real Kafka consumer (kafka-clients from the broker's class path) for the pod's broker:
 * reads every partition of the given topics from the start, without a consumer group, and
 * prints each record as a line "TOPIC<TAB>KEY<TAB>VALUE" (KEY "null" for a record without
 * a key), in the order of each partition. A topic given as TOPIC~TEXT is read until a record
 * whose value contains TEXT has arrived; any other topic until it has at least one record.
 * Exits 0 once every topic is done, 1 when SECONDS pass first (what arrived is printed either
 * way). Run as a single source file:
 * java -cp CLASSPATH KafkaTopics.java BOOTSTRAP SECONDS TOPIC[~TEXT]...
 */
public final class KafkaTopics {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        long end = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[1])).toNanos();
        Map<String, String> until = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i++) {
            int at = args[i].indexOf('~');
            until.put(at < 0 ? args[i] : args[i].substring(0, at), at < 0 ? "" : args[i].substring(at + 1));
        }
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("enable.auto.commit", "false");
        c.put("allow.auto.create.topics", "false");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        Map<String, Boolean> done = new HashMap<>();
        List<String> lines = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            // the topics' partitions (a topic nobody wrote yet has none: asked again)
            List<TopicPartition> parts = new ArrayList<>();
            for (String topic : until.keySet()) {
                List<PartitionInfo> infos = List.of();
                while (infos.isEmpty() && System.nanoTime() < end) {
                    infos = consumer.partitionsFor(topic, Duration.ofSeconds(5));
                    if (infos.isEmpty()) {
                        Thread.sleep(500);
                    }
                }
                infos.forEach(p -> parts.add(new TopicPartition(p.topic(), p.partition())));
            }
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            while (done.size() < until.size() && System.nanoTime() < end) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    lines.add(r.topic() + "\t" + r.key() + "\t" + r.value());
                    String text = until.get(r.topic());
                    if (text != null && (text.isEmpty() || r.value().contains(text))) {
                        done.put(r.topic(), true);
                    }
                }
            }
        }
        lines.forEach(System.out::println);
        System.exit(done.size() == until.size() ? 0 : 1);
    }
}
