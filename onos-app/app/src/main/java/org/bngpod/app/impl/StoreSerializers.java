package org.bngpod.app.impl;

import org.bngpod.api.Failover;
import org.bngpod.api.Session;
import org.bngpod.api.Usage;
import org.onlab.util.KryoNamespace;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.Serializer;

import java.util.LinkedHashMap;

/**
 * The Kryo serializer of the application's distributed stores.
 */
final class StoreSerializers {

    /** Everything the stores hold: ONOS's API types plus the application's records. */
    static final Serializer SERIALIZER = Serializer.using(KryoNamespace.newBuilder()
            .register(KryoNamespaces.API)
            .register(LinkedHashMap.class)
            .register(Usage.class, Session.class, Failover.class, PlacementRecord.class, HealthRecord.class)
            .build("bngpod"));

    private StoreSerializers() {
    }
}
