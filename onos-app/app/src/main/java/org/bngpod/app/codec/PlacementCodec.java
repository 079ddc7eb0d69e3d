package org.bngpod.app.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.DpInstance;
import org.bngpod.api.Failover;
import org.bngpod.api.GroupPlacement;
import org.bngpod.api.InstanceStatus;
import org.bngpod.api.PlacementState;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.bngpod.app.codec.JsonFields.array;
import static org.bngpod.app.codec.JsonFields.bool;
import static org.bngpod.app.codec.JsonFields.integer;
import static org.bngpod.app.codec.JsonFields.object;
import static org.bngpod.app.codec.JsonFields.optInteger;
import static org.bngpod.app.codec.JsonFields.optText;
import static org.bngpod.app.codec.JsonFields.text;

/**
 * GET /placement (Contract B): version, groups with instance, state and
 * reason, instances with availability; also moves and the last failover.
 */
public final class PlacementCodec extends JsonCodec<PlacementState> {

    private static final int MAX = 100_000;

    @Override
    public ObjectNode encode(PlacementState p, CodecContext context) {
        ObjectNode n = context.mapper().createObjectNode().put("version", p.version());
        ArrayNode groups = n.putArray("groups");
        for (GroupPlacement g : p.groups()) {
            ObjectNode o = groups.addObject().put("lineGroup", g.lineGroup());
            if (g.placed()) {
                o.put("instance", g.instance().get());
            } else {
                o.putNull("instance");
            }
            o.put("state", g.placed() ? "placed" : "unplaced").put("reasonKind", g.reasonKind())
                    .put("reason", g.reason());
        }
        ArrayNode instances = n.putArray("instances");
        for (InstanceStatus i : p.instances()) {
            ObjectNode o = instances.addObject().put("id", i.id()).put("name", i.name())
                    .put("available", i.available());
            i.declaredBy().ifPresent(d -> o.put("declaredBy", d));
            i.reason().ifPresent(r -> o.put("reason", r));
        }
        n.put("moves", p.moves());
        if (p.lastFailover().isPresent()) {
            n.set("lastFailover", encodeFailover(p.lastFailover().get(), context));
        } else {
            n.putNull("lastFailover");
        }
        return n;
    }

    static ObjectNode encodeFailover(Failover f, CodecContext context) {
        ObjectNode o = context.mapper().createObjectNode().put("instance", f.instance())
                .put("declaredBy", f.declaredBy()).put("reason", f.reason()).put("at", f.at().toString());
        ArrayNode moved = o.putArray("moved");
        f.moved().forEach(moved::add);
        return o;
    }

    static Failover decodeFailover(JsonNode json, String path) {
        if (json == null || json.isNull()) {
            return null;
        }
        object(json, path);
        List<String> moved = new ArrayList<>();
        JsonNode list = array(json, "moved", path, MAX);
        for (int i = 0; i < list.size(); i++) {
            if (!list.get(i).isTextual()) {
                throw new IllegalArgumentException(path + ".moved[" + i + "]: expected a string");
            }
            moved.add(list.get(i).asText());
        }
        return Failover.of((int) integer(json, "instance", path, 1, DpInstance.MAX_ID),
                           text(json, "declaredBy", path, 253), text(json, "reason", path, 1000),
                           Instant.parse(text(json, "at", path, 40)), moved);
    }

    @Override
    public PlacementState decode(ObjectNode json, CodecContext context) {
        List<GroupPlacement> groups = new ArrayList<>();
        JsonNode g = array(json, "groups", "", MAX);
        for (int i = 0; i < g.size(); i++) {
            String path = "groups[" + i + "]";
            JsonNode o = object(g.get(i), path);
            Long id = optInteger(o, "instance", path, 1, DpInstance.MAX_ID);
            groups.add(GroupPlacement.of(text(o, "lineGroup", path, 63), id == null ? null : id.intValue(),
                                         text(o, "reasonKind", path, 63), text(o, "reason", path, 10_000)));
        }
        List<InstanceStatus> instances = new ArrayList<>();
        JsonNode in = array(json, "instances", "", MAX);
        for (int i = 0; i < in.size(); i++) {
            String path = "instances[" + i + "]";
            JsonNode o = object(in.get(i), path);
            int id = (int) integer(o, "id", path, 1, DpInstance.MAX_ID);
            String name = text(o, "name", path, 63);
            instances.add(bool(o, "available", path) ? InstanceStatus.available(id, name)
                    : InstanceStatus.unavailable(id, name, text(o, "declaredBy", path, 253),
                                                 text(o, "reason", path, 1000)));
        }
        return PlacementState.of(integer(json, "version", "", 0, Long.MAX_VALUE), groups, instances,
                                 integer(json, "moves", "", 0, Long.MAX_VALUE),
                                 decodeFailover(json.get("lastFailover"), "lastFailover"));
    }
}
