package org.bngpod.app.impl;

import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.PodEvent;
import org.bngpod.api.PodListener;
import org.bngpod.api.PodService;
import org.bngpod.app.config.BngPodConfig;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.net.config.ConfigFactory;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistry;
import org.onosproject.net.config.basics.SubjectFactories;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;

/**
 * Keeps the pod from ONOS's network configuration (apps/org.bngpod.app/pod).
 *
 * <p>A configuration the reader rejects is logged with the reader's message,
 * which names the field, and the running pod is kept. Every node of a cluster
 * reads the same (distributed) network configuration.</p>
 */
@Component(immediate = true, service = PodService.class)
public class PodManager extends AbstractListenerManager<PodEvent, PodListener> implements PodService {

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected NetworkConfigRegistry netcfgRegistry;

    private final ConfigFactory<ApplicationId, BngPodConfig> factory =
            new ConfigFactory<>(SubjectFactories.APP_SUBJECT_FACTORY, BngPodConfig.class, BngPodConfig.CONFIG_KEY) {
                @Override
                public BngPodConfig createConfig() {
                    return new BngPodConfig();
                }
            };

    private final NetworkConfigListener netcfgListener = new InternalNetcfgListener();

    private ApplicationId appId;
    private volatile Pod pod;
    private volatile String lastRejection;

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(BngPodConfig.APP_NAME);
        eventDispatcher.addSink(PodEvent.class, listenerRegistry);
        netcfgRegistry.registerConfigFactory(factory);
        netcfgRegistry.addListener(netcfgListener);
        BngPodConfig config = netcfgRegistry.getConfig(appId, BngPodConfig.class);
        if (config != null) {
            accept(config);
        }
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        netcfgRegistry.removeListener(netcfgListener);
        netcfgRegistry.unregisterConfigFactory(factory);
        eventDispatcher.removeSink(PodEvent.class);
        pod = null;
        log.info("Stopped");
    }

    @Override
    public Optional<Pod> pod() {
        return Optional.ofNullable(pod);
    }

    @Override
    public Optional<String> lastRejection() {
        return Optional.ofNullable(lastRejection);
    }

    @Override
    public List<DpInstance> instances() {
        Pod p = pod;
        return p == null ? List.of() : p.instances();
    }

    @Override
    public List<LineGroup> lineGroups() {
        Pod p = pod;
        return p == null ? List.of() : p.lineGroups();
    }

    /** Reads a configuration; a rejected one leaves the running pod in place. */
    private synchronized void accept(BngPodConfig config) {
        Pod next;
        try {
            next = config.pod();
        } catch (RuntimeException e) {
            // InvalidPodConfigException (names the field), or anything a hostile JSON provokes
            lastRejection = e.getMessage() == null ? e.toString() : e.getMessage();
            log.error("bngpod: network config apps/{}/{} rejected, keeping the running pod{}: {}",
                      BngPodConfig.APP_NAME, BngPodConfig.CONFIG_KEY,
                      pod == null ? " (none)" : " " + pod.name(), lastRejection);
            post(new PodEvent(PodEvent.Type.CONFIG_REJECTED, pod));
            return;
        }
        lastRejection = null;
        Pod before = pod;
        if (next.equals(before)) {
            return;
        }
        pod = next;
        log.info("bngpod: pod {} configured ({} line groups, {} instances)", next.name(),
                 next.lineGroups().size(), next.instances().size());
        post(new PodEvent(before == null ? PodEvent.Type.POD_ADDED : PodEvent.Type.POD_UPDATED, next));
    }

    private synchronized void removed() {
        Pod before = pod;
        lastRejection = null;
        if (before == null) {
            return;
        }
        pod = null;
        log.info("bngpod: pod {} removed from the network config", before.name());
        post(new PodEvent(PodEvent.Type.POD_REMOVED, before));
    }

    private class InternalNetcfgListener implements NetworkConfigListener {
        @Override
        public boolean isRelevant(NetworkConfigEvent event) {
            return event.configClass().equals(BngPodConfig.class);
        }

        @Override
        public void event(NetworkConfigEvent event) {
            switch (event.type()) {
                case CONFIG_ADDED:
                case CONFIG_UPDATED:
                    event.config().filter(BngPodConfig.class::isInstance).map(BngPodConfig.class::cast)
                            .ifPresent(PodManager.this::accept);
                    break;
                case CONFIG_REMOVED:
                    removed();
                    break;
                default:
                    break;
            }
        }
    }
}
