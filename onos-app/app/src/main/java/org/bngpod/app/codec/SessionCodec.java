package org.bngpod.app.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.DpInstance;
import org.bngpod.api.Session;
import org.bngpod.api.Usage;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.MacAddress;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

import static org.bngpod.app.codec.JsonFields.at;
import static org.bngpod.app.codec.JsonFields.integer;
import static org.bngpod.app.codec.JsonFields.object;
import static org.bngpod.app.codec.JsonFields.optInteger;
import static org.bngpod.app.codec.JsonFields.optText;
import static org.bngpod.app.codec.JsonFields.text;

/**
 * Contract B's Session object. Unknown fields are ignored; "cp" is written
 * by ONOS (the reporting control plane) and, on input, taken from the
 * request (PUT ?cp=, the events' "cp") when the object has none.
 * "throughput" is ONOS's own (measured between two usage readings): written,
 * never read.
 */
public final class SessionCodec extends JsonCodec<Session> {

    private static final int MAX_NAME = 63;
    private static final int MAX_TEXT = 253;
    private static final long MAX_COUNTER = Long.MAX_VALUE;
    /** Highest session rate accepted, bit/s (1 Tbit/s: more than any access line). */
    static final long MAX_RATE = 1_000_000_000_000L;

    @Override
    public ObjectNode encode(Session s, CodecContext context) {
        ObjectNode n = context.mapper().createObjectNode()
                .put("id", s.id())
                .put("cp", s.cp())
                .put("lineGroup", s.lineGroup())
                .put("instance", s.instance())
                .put("accessPort", s.accessPort())
                .put("stag", s.stag())
                .put("ctag", s.ctag())
                .put("pppoeId", s.pppoeId())
                .put("mac", s.mac().toString().toLowerCase(java.util.Locale.ROOT));
        if (s.ipv4().isPresent()) {
            n.put("ipv4", s.ipv4().get().toString());
        } else {
            n.putNull("ipv4");
        }
        n.put("username", s.username());
        if (s.qosProfile().isPresent()) {
            n.put("qosProfile", s.qosProfile().get());
        } else {
            n.putNull("qosProfile");
        }
        if (s.downRate() != 0) {
            n.put("downRate", s.downRate());
        }
        if (s.upRate() != 0) {
            n.put("upRate", s.upRate());
        }
        n.put("since", s.since().toString());
        ObjectNode usage = n.putObject("usage")
                .put("upBytes", s.usage().upBytes())
                .put("downBytes", s.usage().downBytes())
                .put("upPackets", s.usage().upPackets())
                .put("downPackets", s.usage().downPackets())
                .put("upDropPackets", s.usage().upDropPackets())
                .put("downDropPackets", s.usage().downDropPackets())
                .put("upDropBytes", s.usage().upDropBytes())
                .put("downDropBytes", s.usage().downDropBytes())
                .put("controlPackets", s.usage().controlPackets());
        s.usage().at().ifPresent(at -> usage.put("at", at.toString()));
        s.throughput().ifPresent(t -> n.putObject("throughput")
                .put("upBitsPerSecond", t.upBitsPerSecond())
                .put("downBitsPerSecond", t.downBitsPerSecond())
                .put("periodMillis", t.periodMillis()));
        s.cause().ifPresent(c -> n.put("cause", c));
        return n;
    }

    @Override
    public Session decode(ObjectNode json, CodecContext context) {
        return decode(json, null, "");
    }

    /**
     * Decodes a session reported by a control plane.
     *
     * @param json session JSON
     * @param cp   the reporting control plane, or null to take the object's "cp"
     * @param path the object's path, for messages
     * @return the session
     * @throws IllegalArgumentException naming the field, for any bad value
     */
    public static Session decode(JsonNode json, String cp, String path) {
        object(json, path);
        String id = text(json, "id", path, Session.MAX_ID_LENGTH);
        String own = optText(json, "cp", path, Session.MAX_CP_LENGTH);
        if (cp != null && own != null && !own.equals(cp)) {
            throw new IllegalArgumentException(at(path, "cp") + ": \"" + own + "\" is not the reporting control plane "
                                                       + cp);
        }
        Session.Builder b = Session.builder()
                .id(id)
                .cp(cp != null ? cp : own)
                .lineGroup(text(json, "lineGroup", path, MAX_NAME))
                .instance((int) integer(json, "instance", path, 1, DpInstance.MAX_ID))
                .accessPort(text(json, "accessPort", path, MAX_NAME))
                .stag((int) integer(json, "stag", path, 1, 4094))
                .ctag((int) integer(json, "ctag", path, 1, 4094))
                .pppoeId((int) integer(json, "pppoeId", path, 0, 0xffff))
                .username(optText(json, "username", path, Session.MAX_USERNAME_LENGTH))
                .qosProfile(optText(json, "qosProfile", path, MAX_NAME))
                .downRate(orZero(optInteger(json, "downRate", path, 0, MAX_RATE)))
                .upRate(orZero(optInteger(json, "upRate", path, 0, MAX_RATE)))
                .cause(optText(json, "cause", path, MAX_TEXT));
        if (cp == null && own == null) {
            throw new IllegalArgumentException(at(path, "cp") + ": missing");
        }
        String mac = text(json, "mac", path, 17);
        try {
            b.mac(MacAddress.valueOf(mac));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(at(path, "mac") + ": \"" + mac + "\" is not a MAC address", e);
        }
        String ipv4 = optText(json, "ipv4", path, 15);
        if (ipv4 != null) {
            try {
                b.ipv4(Ip4Address.valueOf(ipv4));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(at(path, "ipv4") + ": \"" + ipv4 + "\" is not an IPv4 address", e);
            }
        }
        Instant since = time(json, "since", path);
        b.since(since == null ? Instant.now() : since);
        JsonNode usage = json.get("usage");
        if (usage != null && !usage.isNull()) {
            String u = at(path, "usage");
            object(usage, u);
            long upBytes = orZero(optInteger(usage, "upBytes", u, 0, MAX_COUNTER));
            long downBytes = orZero(optInteger(usage, "downBytes", u, 0, MAX_COUNTER));
            long upPackets = orZero(optInteger(usage, "upPackets", u, 0, MAX_COUNTER));
            long downPackets = orZero(optInteger(usage, "downPackets", u, 0, MAX_COUNTER));
            Instant measured = time(usage, "at", u);
            // issue 16's additions; a control plane before them leaves them out
            long upDrop = orZero(optInteger(usage, "upDropPackets", u, 0, MAX_COUNTER));
            long downDrop = orZero(optInteger(usage, "downDropPackets", u, 0, MAX_COUNTER));
            long control = orZero(optInteger(usage, "controlPackets", u, 0, MAX_COUNTER));
            // and the dropped packets' octets (a DP reporting dropped packets only: left out or 0)
            long upDropBytes = orZero(optInteger(usage, "upDropBytes", u, 0, MAX_COUNTER));
            long downDropBytes = orZero(optInteger(usage, "downDropBytes", u, 0, MAX_COUNTER));
            b.usage((measured == null ? Usage.of(upBytes, downBytes, upPackets, downPackets)
                             : Usage.of(upBytes, downBytes, upPackets, downPackets, measured))
                            .withDropsAndControl(upDrop, downDrop, control)
                            .withDropBytes(upDropBytes, downDropBytes));
        }
        try {
            return b.build();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException((path.isEmpty() ? "session" : path) + ": " + e.getMessage(), e);
        }
    }

    /** An optional RFC 3339 time field, or null. */
    private static Instant time(JsonNode json, String field, String path) {
        String text = optText(json, field, path, 40);
        if (text == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(at(path, field) + ": \"" + text + "\" is not an RFC 3339 time", e);
        }
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }
}
