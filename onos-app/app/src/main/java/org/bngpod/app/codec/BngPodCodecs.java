package org.bngpod.app.codec;

import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.PlacementState;
import org.bngpod.api.Pod;
import org.bngpod.api.PodStats;
import org.bngpod.api.Session;
import org.onosproject.codec.CodecService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;

/**
 * Registers the application's JSON codecs with ONOS's codec service (used by
 * the REST resources, and by anyone else who asks the codec service).
 */
@Component(immediate = true)
public class BngPodCodecs {

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CodecService codecService;

    @Activate
    protected void activate() {
        register(codecService);
    }

    @Deactivate
    protected void deactivate() {
        unregister(codecService);
    }

    /**
     * Registers every codec.
     *
     * @param service codec service
     */
    public static void register(CodecService service) {
        service.registerCodec(Pod.class, new PodCodec());
        service.registerCodec(DpInstance.class, new InstanceCodec());
        service.registerCodec(LineGroup.class, new LineGroupCodec());
        service.registerCodec(Session.class, new SessionCodec());
        service.registerCodec(PlacementState.class, new PlacementCodec());
        service.registerCodec(PodStats.class, new StatsCodec());
    }

    /**
     * Unregisters every codec.
     *
     * @param service codec service
     */
    public static void unregister(CodecService service) {
        service.unregisterCodec(Pod.class);
        service.unregisterCodec(DpInstance.class);
        service.unregisterCodec(LineGroup.class);
        service.unregisterCodec(Session.class);
        service.unregisterCodec(PlacementState.class);
        service.unregisterCodec(PodStats.class);
    }
}
