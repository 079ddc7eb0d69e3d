package org.bngpod.app.impl;

import org.bngpod.api.Failover;
import org.bngpod.app.placement.Placement;
import org.bngpod.app.placement.Reason;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The placement as the distributed store keeps it: plain collections, so the
 * store's Kryo serializer needs nothing but registration.
 */
public final class PlacementRecord {

    final String pod;
    final long version;
    final HashMap<String, Integer> instances;
    final HashMap<String, String> kinds;
    final HashMap<String, String> texts;
    final HashSet<Integer> available;
    final long moves;
    final Failover lastFailover;

    PlacementRecord(String pod, long version, Placement placement, Set<Integer> available, long moves,
                    Failover lastFailover) {
        this.pod = pod;
        this.version = version;
        this.instances = new HashMap<>(placement.instances());
        this.kinds = new HashMap<>();
        this.texts = new HashMap<>();
        placement.reasons().forEach((group, reason) -> {
            kinds.put(group, reason.kind().name());
            texts.put(group, reason.text());
        });
        this.available = new HashSet<>(available);
        this.moves = moves;
        this.lastFailover = lastFailover;
    }

    Placement placement() {
        Map<String, Reason> reasons = new HashMap<>();
        kinds.forEach((group, kind) -> reasons.put(group, Reason.of(Reason.Kind.valueOf(kind), texts.get(group))));
        return Placement.of(instances, reasons);
    }
}
