import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A real Kafka client (kafka-clients from the broker's class path) for the pod's broker:
 * produces the given records to a topic, then reads the topic from its start with a consumer
 * group and prints each value on a line. Run as a single source file:
 * java -cp CLASSPATH KafkaRoundTrip.java BOOTSTRAP TOPIC VALUE...
 */
public final class KafkaRoundTrip {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("acks", "all");
        p.put("max.block.ms", "30000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 2; i < args.length; i++) {
                producer.send(new ProducerRecord<>(topic, args[i])).get();
            }
        }
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("group.id", "bngpod-test");
        c.put("auto.offset.reset", "earliest");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        List<String> got = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            consumer.subscribe(List.of(topic));
            long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (got.size() < args.length - 2 && System.nanoTime() < end) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    got.add(r.value());
                }
            }
        }
        got.forEach(System.out::println);
        System.exit(got.size() == args.length - 2 ? 0 : 1);
    }
}
