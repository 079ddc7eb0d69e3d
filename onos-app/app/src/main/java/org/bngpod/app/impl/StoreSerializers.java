package org.bngpod.app.impl;

import org.bngpod.api.Failover;
import org.bngpod.api.Session;
import org.bngpod.api.Throughput;
import org.bngpod.api.Usage;
import org.onlab.util.KryoNamespace;
import org.onosproject.core.ApplicationId;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;

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
            .register(Throughput.class)
            .build("bngpod"));

    private StoreSerializers() {
    }

    /**
     * Returns one of the application's consistent maps, serialized with {@link #SERIALIZER}.
     *
     * @param storage the storage service
     * @param name    the map's name
     * @param appId   the application
     * @param <K>     key type
     * @param <V>     value type
     * @return the map
     */
    static <K, V> ConsistentMap<K, V> consistentMap(StorageService storage, String name, ApplicationId appId) {
        return storage.<K, V>consistentMapBuilder().withName(name).withSerializer(SERIALIZER)
                .withApplicationId(appId).build();
    }
}
