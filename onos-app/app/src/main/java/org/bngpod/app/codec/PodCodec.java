package org.bngpod.app.codec;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.SwitchPort;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

/**
 * GET /pod: the pod in brief (switch, ports, core, control plane, line group
 * and instance names). The full pod is the network configuration itself.
 */
public final class PodCodec extends JsonCodec<Pod> {

    @Override
    public ObjectNode encode(Pod pod, CodecContext context) {
        ObjectNode n = context.mapper().createObjectNode().put("name", pod.name())
                .put("deviceId", pod.deviceId().toString());
        ArrayNode ports = n.putArray("ports");
        for (SwitchPort p : pod.ports()) {
            ObjectNode o = ports.addObject().put("name", p.name()).put("number", p.number().toLong())
                    .put("role", p.role().configName());
            if (p.rate() != SwitchPort.RATE_NOT_STATED) {
                o.put("rate", p.rate());
            }
            p.tpid().ifPresent(t -> o.put("tpid", String.format("0x%04x", t)));
        }
        ObjectNode core = n.putObject("core").put("uplink", pod.core().uplink())
                .put("subnet", pod.core().subnet().toString())
                .put("routerAddress", pod.core().routerAddress().toString())
                .put("routerMac", pod.core().routerMac().toString().toLowerCase(java.util.Locale.ROOT));
        pod.core().subnet6().ifPresent(p -> core.put("subnet6", p.toString()));
        pod.core().routerAddress6().ifPresent(a -> core.put("routerAddress6", a.toString()));
        n.putObject("controlPlane").put("address", pod.controlPlane().address().toString());
        ArrayNode groups = n.putArray("lineGroups");
        pod.lineGroups().stream().map(LineGroup::name).forEach(groups::add);
        ArrayNode instances = n.putArray("instances");
        pod.instances().stream().map(DpInstance::name).forEach(instances::add);
        n.put("servers", pod.servers().size()).put("pools", pod.pools().size())
                .put("qosProfiles", pod.qosProfiles().size());
        return n;
    }
}
