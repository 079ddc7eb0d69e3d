package org.bngpod.app.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.PodStats;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

import static org.bngpod.app.codec.JsonFields.integer;
import static org.bngpod.app.codec.JsonFields.object;

/**
 * GET /stats: sessions in all, per instance and per line group; placement
 * version, line-group moves and the last failover.
 */
public final class StatsCodec extends JsonCodec<PodStats> {

    @Override
    public ObjectNode encode(PodStats s, CodecContext context) {
        ObjectNode n = context.mapper().createObjectNode().put("sessions", s.sessions());
        ObjectNode perInstance = n.putObject("sessionsPerInstance");
        s.sessionsPerInstance().forEach((id, count) -> perInstance.put(String.valueOf(id), count));
        ObjectNode perGroup = n.putObject("sessionsPerGroup");
        s.sessionsPerGroup().forEach(perGroup::put);
        n.put("placementVersion", s.placementVersion()).put("moves", s.moves());
        if (s.lastFailover().isPresent()) {
            n.set("lastFailover", PlacementCodec.encodeFailover(s.lastFailover().get(), context));
        } else {
            n.putNull("lastFailover");
        }
        return n;
    }

    @Override
    public PodStats decode(ObjectNode json, CodecContext context) {
        Map<Integer, Long> perInstance = new TreeMap<>();
        JsonNode pi = object(json.get("sessionsPerInstance"), "sessionsPerInstance");
        for (Iterator<String> it = pi.fieldNames(); it.hasNext();) {
            String key = it.next();
            try {
                perInstance.put(Integer.parseInt(key), integer(pi, key, "sessionsPerInstance", 0, Long.MAX_VALUE));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("sessionsPerInstance." + key + ": not an instance id", e);
            }
        }
        Map<String, Long> perGroup = new TreeMap<>();
        JsonNode pg = object(json.get("sessionsPerGroup"), "sessionsPerGroup");
        for (Iterator<String> it = pg.fieldNames(); it.hasNext();) {
            String key = it.next();
            perGroup.put(key, integer(pg, key, "sessionsPerGroup", 0, Long.MAX_VALUE));
        }
        return PodStats.of(integer(json, "sessions", "", 0, Long.MAX_VALUE), perInstance, perGroup,
                           integer(json, "placementVersion", "", 0, Long.MAX_VALUE),
                           integer(json, "moves", "", 0, Long.MAX_VALUE),
                           PlacementCodec.decodeFailover(json.get("lastFailover"), "lastFailover"));
    }
}
