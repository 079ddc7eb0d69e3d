import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * make bench-seba's reader of the pod's broker (a real Kafka consumer, kafka-clients from the
 * broker's class path): for each topic, every record from its start to its end offsets at the
 * call, counted, and counted by the value's "eventType" (bng.pppoe). One JSON line per topic:
 * {"topic": T, "records": N, "eventTypes": {...}}; a topic that does not exist has 0 records.
 * Run as a single source file: java -cp CLASSPATH KafkaCount.java BOOTSTRAP TOPIC...
 */
public final class KafkaCount {
    private static final Pattern TYPE = Pattern.compile("\"eventType\"\\s*:\\s*\"([A-Za-z_]+)\"");

    public static void main(String[] args) {
        Properties c = new Properties();
        c.put("bootstrap.servers", args[0]);
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        c.put("enable.auto.commit", "false");
        c.put("allow.auto.create.topics", "false");
        c.put("max.poll.records", "5000");
        boolean complete = true;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            for (int i = 1; i < args.length; i++) {
                String topic = args[i];
                Map<String, List<PartitionInfo>> topics = consumer.listTopics(Duration.ofSeconds(30));
                List<TopicPartition> parts = topics.getOrDefault(topic, List.of()).stream()
                        .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
                long records = 0;
                Map<String, Long> types = new TreeMap<>();
                if (!parts.isEmpty()) {
                    consumer.assign(parts);
                    consumer.seekToBeginning(parts);
                    Map<TopicPartition, Long> end = consumer.endOffsets(parts);
                    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (parts.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                        if (System.nanoTime() > deadline) {
                            complete = false;
                            break;
                        }
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                            if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) {
                                continue;
                            }
                            records++;
                            Matcher m = TYPE.matcher(r.value() == null ? "" : r.value());
                            if (m.find()) {
                                types.merge(m.group(1), 1L, Long::sum);
                            }
                        }
                    }
                }
                StringBuilder b = new StringBuilder("{\"topic\": \"").append(topic).append("\", \"records\": ")
                        .append(records).append(", \"eventTypes\": {");
                String sep = "";
                for (Map.Entry<String, Long> e : types.entrySet()) {
                    b.append(sep).append('"').append(e.getKey()).append("\": ").append(e.getValue());
                    sep = ", ";
                }
                System.out.println(b.append("}}"));
            }
        }
        System.exit(complete ? 0 : 1);
    }
}
