package org.bngpod.seba.impl;

import com.fasterxml.jackson.databind.JsonNode;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.InvalidFieldException;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The adapter's network configuration, {@code apps/org.bngpod.seba/seba}:
 *
 * <pre>
 * {"olts": [{"deviceId": "of:00000a0a0a0a0a0a", "accessPort": "access1"}],
 *  "statsPeriod": 10,
 *  "kafka": {"bootstrapServers": "127.0.0.1:9092", "queue": 10000}}
 * </pre>
 *
 * <p>{@code olts}: which access port of the pod's switch each OLT's NNI is
 * cabled to (required, at least one; an OLT once). {@code statsPeriod}: seconds
 * between {@code bng.stats} readings (default 10, 0 = none, at most 3600).
 * {@code kafka}: only where SEBA's kafka-onos is not running: this app's own
 * publisher of {@code bng.pppoe} and {@code bng.stats} (queue: events held
 * while the broker is slow, default 10000, 1..1000000). {@code holdDown}:
 * seconds after a UNI_REMOVED before the teardown of that UNI's sessions is
 * requested, unless the UNI came back (default 10, 0..3600). {@code resync}:
 * seconds between readings of the olt app's programmed subscribers (a
 * subscriber gone from them is torn down with Admin-Reset), each followed by a
 * SADIS look-up of every known UNI (default 60, 1..3600). Strict: unknown
 * fields and wrong JSON types are refused.</p>
 */
public final class SebaConfig extends Config<ApplicationId> {

    /** Config key under the application. */
    public static final String CONFIG_KEY = "seba";
    static final int DEFAULT_STATS_PERIOD = 10;
    static final int DEFAULT_QUEUE = 10_000;
    static final int DEFAULT_HOLD_DOWN = 10;
    static final int DEFAULT_RESYNC = 60;

    /** What the config says, checked. */
    static final class Settings {
        final Map<DeviceId, String> olts;
        final int statsPeriod;
        final String kafkaServers;
        final int kafkaQueue;

        /** Seconds a removed UNI's sessions are kept before their teardown is requested. */
        final int holdDown;

        /** Seconds between readings of the programmed subscribers (and SADIS look-ups of every UNI). */
        final int resync;

        Settings(Map<DeviceId, String> olts, int statsPeriod, String kafkaServers, int kafkaQueue) {
            this(olts, statsPeriod, kafkaServers, kafkaQueue, DEFAULT_HOLD_DOWN);
        }

        Settings(Map<DeviceId, String> olts, int statsPeriod, String kafkaServers, int kafkaQueue, int holdDown) {
            this(olts, statsPeriod, kafkaServers, kafkaQueue, holdDown, DEFAULT_RESYNC);
        }

        Settings(Map<DeviceId, String> olts, int statsPeriod, String kafkaServers, int kafkaQueue, int holdDown,
                 int resync) {
            this.holdDown = holdDown;
            this.resync = resync;
            this.olts = Map.copyOf(olts);
            this.statsPeriod = statsPeriod;
            this.kafkaServers = kafkaServers;
            this.kafkaQueue = kafkaQueue;
        }

        static Settings none() {
            return new Settings(Map.of(), DEFAULT_STATS_PERIOD, null, DEFAULT_QUEUE);
        }
    }

    @Override
    public boolean isValid() {
        settings();
        return true;
    }

    /**
     * Reads the configuration.
     *
     * @return settings
     * @throws InvalidFieldException naming the first bad field
     */
    Settings settings() {
        return read(node);
    }

    static Settings read(JsonNode root) {
        if (root == null || !root.isObject()) {
            throw new InvalidFieldException("seba", "not an object");
        }
        only(root, "", Set.of("olts", "statsPeriod", "kafka", "holdDown", "resync"));
        JsonNode olts = root.get("olts");
        if (olts == null || !olts.isArray() || olts.size() == 0) {
            throw new InvalidFieldException("olts", "a non-empty array is required");
        }
        Map<DeviceId, String> map = new LinkedHashMap<>();
        for (int i = 0; i < olts.size(); i++) {
            String at = "olts[" + i + "]";
            JsonNode olt = olts.get(i);
            if (!olt.isObject()) {
                throw new InvalidFieldException(at, "not an object");
            }
            only(olt, at + ".", Set.of("deviceId", "accessPort"));
            String device = text(olt, at + ".deviceId");
            DeviceId id;
            try {
                id = DeviceId.deviceId(device);
            } catch (IllegalArgumentException e) {
                throw new InvalidFieldException(at + ".deviceId", device + " is not a device id");
            }
            if (!device.contains(":")) {
                throw new InvalidFieldException(at + ".deviceId", device + " is not a device id (scheme:id)");
            }
            String port = text(olt, at + ".accessPort");
            if (!port.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")) {
                throw new InvalidFieldException(at + ".accessPort", port + " is not a port name");
            }
            if (map.put(id, port) != null) {
                throw new InvalidFieldException(at + ".deviceId", device + " is listed twice");
            }
        }
        int period = integer(root, "statsPeriod", DEFAULT_STATS_PERIOD, 0, 3600);
        String servers = null;
        int queue = DEFAULT_QUEUE;
        JsonNode kafka = root.get("kafka");
        if (kafka != null) {
            if (!kafka.isObject()) {
                throw new InvalidFieldException("kafka", "not an object");
            }
            only(kafka, "kafka.", Set.of("bootstrapServers", "queue"));
            servers = text(kafka, "kafka.bootstrapServers");
            if (!servers.matches("[A-Za-z0-9.:\\[\\]_-]+(,[A-Za-z0-9.:\\[\\]_-]+)*")) {
                throw new InvalidFieldException("kafka.bootstrapServers", servers + " is not host:port[,host:port...]");
            }
            queue = integer(kafka, "queue", DEFAULT_QUEUE, 1, 1_000_000);
        }
        int holdDown = integer(root, "holdDown", DEFAULT_HOLD_DOWN, 0, 3600);
        int resync = integer(root, "resync", DEFAULT_RESYNC, 1, 3600);
        return new Settings(map, period, servers, queue, holdDown, resync);
    }

    private static void only(JsonNode obj, String prefix, Set<String> allowed) {
        Iterator<String> names = obj.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new InvalidFieldException(prefix + name, "unknown field");
            }
        }
    }

    private static String text(JsonNode obj, String path) {
        JsonNode v = obj.get(path.substring(path.lastIndexOf('.') + 1));
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new InvalidFieldException(path, "a non-empty string is required");
        }
        return v.asText();
    }

    private static int integer(JsonNode obj, String field, int dflt, int min, int max) {
        JsonNode v = obj.get(field);
        if (v == null) {
            return dflt;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < min || v.asInt() > max) {
            throw new InvalidFieldException(field, v + " is not an integer in " + min + ".." + max);
        }
        return v.asInt();
    }
}
