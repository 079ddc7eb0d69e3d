package org.bngpod.app.impl;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who declared an instance dead and why, per declarer (a control plane,
 * "switch", "operator"): the instance is available again once every declarer
 * took its word back, or when the operator declares it alive.
 */
public final class HealthRecord {

    final LinkedHashMap<String, String> deadBy;

    HealthRecord(Map<String, String> deadBy) {
        this.deadBy = new LinkedHashMap<>(deadBy);
    }

    HealthRecord with(String declaredBy, String reason) {
        LinkedHashMap<String, String> next = new LinkedHashMap<>(deadBy);
        next.put(declaredBy, reason);
        return new HealthRecord(next);
    }

    HealthRecord without(String declaredBy) {
        LinkedHashMap<String, String> next = new LinkedHashMap<>(deadBy);
        next.remove(declaredBy);
        return new HealthRecord(next);
    }

    boolean dead() {
        return !deadBy.isEmpty();
    }

    Map.Entry<String, String> first() {
        return deadBy.entrySet().iterator().next();
    }
}
