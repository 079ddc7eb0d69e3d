package org.bngpod.app.codec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.DpInstance;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.util.Locale;

/**
 * A DP instance as the pod file states it (GET /instances adds its
 * availability and the groups it serves now).
 */
public final class InstanceCodec extends JsonCodec<DpInstance> {

    @Override
    public ObjectNode encode(DpInstance i, CodecContext context) {
        ObjectNode n = context.mapper().createObjectNode().put("id", i.id()).put("name", i.name())
                .put("server", i.server()).put("port", i.port()).put("vf", i.vf())
                .put("mac", i.mac().toString().toLowerCase(Locale.ROOT))
                .put("controlAddress", i.controlAddress().toString());
        ArrayNode cores = n.putArray("cores");
        i.cores().forEach(cores::add);
        ArrayNode stated = n.putArray("statedLineGroups");
        i.lineGroups().forEach(stated::add);
        return n;
    }
}
