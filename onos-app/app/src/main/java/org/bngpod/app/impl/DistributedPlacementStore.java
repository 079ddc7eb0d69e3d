package org.bngpod.app.impl;

import org.bngpod.app.config.BngPodConfig;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.store.AbstractStore;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.MapEvent;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;

/**
 * {@link PlacementStore} in two ONOS consistent maps (Kryo serializer,
 * {@link StoreSerializers}): {@value #PLACEMENT_MAP} holds the one placement
 * record under {@value #KEY}, {@value #HEALTH_MAP} the declarations per
 * instance id.
 */
@Component(immediate = true, service = PlacementStore.class)
public class DistributedPlacementStore extends AbstractStore<PlacementStoreEvent, PlacementStoreDelegate>
        implements PlacementStore {

    static final String PLACEMENT_MAP = "bngpod-placement";
    static final String HEALTH_MAP = "bngpod-health";
    static final String KEY = "placement";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    // Both listeners run on the store's threads: they only turn the map event
    // into a store event, from the values the event carries, and never call a map.
    private final MapEventListener<String, PlacementRecord> placementListener = this::placementChanged;
    private final MapEventListener<Integer, HealthRecord> healthListener =
            event -> notifyDelegate(PlacementStoreEvent.healthUpdated(event.key()));

    private ConsistentMap<String, PlacementRecord> placements;
    private ConsistentMap<Integer, HealthRecord> health;

    @Activate
    protected void activate() {
        ApplicationId appId = coreService.registerApplication(BngPodConfig.APP_NAME);
        placements = StoreSerializers.consistentMap(storageService, PLACEMENT_MAP, appId);
        health = StoreSerializers.consistentMap(storageService, HEALTH_MAP, appId);
        placements.addListener(placementListener);
        health.addListener(healthListener);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        placements.removeListener(placementListener);
        health.removeListener(healthListener);
        log.info("Stopped");
    }

    @Override
    public PlacementRecord placement() {
        return Versioned.valueOrNull(placements.get(KEY));
    }

    @Override
    public void setPlacement(PlacementRecord record) {
        placements.put(KEY, record);
    }

    @Override
    public HealthRecord health(int instance) {
        return Versioned.valueOrNull(health.get(instance));
    }

    @Override
    public boolean declareDead(int instance, String declaredBy, String reason) {
        HealthRecord before = health(instance);
        if (before != null && reason.equals(before.deadBy.get(declaredBy))) {
            return false;
        }
        health.compute(instance, (id, h) -> (h == null ? new HealthRecord(Map.of()) : h).with(declaredBy, reason));
        return true;
    }

    @Override
    public boolean declareAlive(int instance, String declaredBy) {
        HealthRecord before = health(instance);
        if (before == null || !before.deadBy.containsKey(declaredBy)) {
            return false;
        }
        HealthRecord next = before.without(declaredBy);
        if (next.dead()) {
            health.put(instance, next);
        } else {
            health.remove(instance);
        }
        return true;
    }

    @Override
    public boolean clearDeclarations(int instance) {
        return health.remove(instance) != null;
    }

    private void placementChanged(MapEvent<String, PlacementRecord> event) {
        if (event.newValue() == null) {
            return;
        }
        notifyDelegate(PlacementStoreEvent.placementUpdated(event.newValue().value(),
                                                            Versioned.valueOrNull(event.oldValue())));
    }
}
