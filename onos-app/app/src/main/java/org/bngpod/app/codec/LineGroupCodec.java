package org.bngpod.app.codec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.AccessLine;
import org.bngpod.api.LineGroup;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.util.Locale;

/**
 * A line group with its access lines (GET /lines adds where it is placed and why).
 */
public final class LineGroupCodec extends JsonCodec<LineGroup> {

    @Override
    public ObjectNode encode(LineGroup g, CodecContext context) {
        ObjectNode n = context.mapper().createObjectNode().put("lineGroup", g.name())
                .put("acMac", g.acMac().toString().toLowerCase(Locale.ROOT))
                .put("coreMac", g.coreMac().toString().toLowerCase(Locale.ROOT))
                .put("coreAddress", g.coreAddress().toString()).put("qosProfile", g.qosProfile());
        g.coreAddress6().ifPresent(a -> n.put("coreAddress6", a.toString()));
        ArrayNode pools = n.putArray("pools");
        g.pools().forEach(pools::add);
        ArrayNode lines = n.putArray("lines");
        for (AccessLine l : g.lines()) {
            ObjectNode o = lines.addObject().put("port", l.port()).put("stag", l.stag().toString());
            if (l.ctag().isPresent()) {
                o.put("ctag", l.ctag().get().toString());
            } else {
                o.put("ctag", "any");
            }
        }
        return n;
    }
}
