package org.bngpod.seba.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;
import org.onosproject.app.ApplicationEvent;
import org.onosproject.app.ApplicationListener;
import org.onosproject.app.ApplicationService;
import org.onosproject.app.ApplicationServiceAdapter;
import org.onosproject.app.ApplicationState;
import org.onosproject.common.event.impl.TestEventDispatcher;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.config.NetworkConfigService;
import org.onosproject.net.config.NetworkConfigServiceAdapter;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/**
 * The optional publisher runs only with a kafka section and never while SEBA's
 * kafka-onos is active (both would publish every event).
 */
public class KafkaOssPublisherTest {

    /** The publisher activated on this netcfg and application service, with fresh BNG providers. */
    private static KafkaOssPublisher publisher(ApplicationId app, NetworkConfigService netcfg,
                                               ApplicationService apps) {
        PppoeEventProvider pppoe = new PppoeEventProvider();
        pppoe.sessionService = new FakeSessions();
        injectEventDispatcher(pppoe, new TestEventDispatcher());
        BngStatsProvider stats = new BngStatsProvider();
        injectEventDispatcher(stats, new TestEventDispatcher());
        KafkaOssPublisher publisher = new KafkaOssPublisher();
        publisher.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return app;
            }
        };
        publisher.netcfgService = netcfg;
        publisher.applicationService = apps;
        publisher.pppoeHandler = pppoe;
        publisher.statsService = stats;
        publisher.activate();
        return publisher;
    }

    /** ONOS's applications: kafka-onos installed, active or not. */
    static final class FakeApps extends ApplicationServiceAdapter {
        static final ApplicationId KAFKA = new DefaultApplicationId(9, KafkaOssPublisher.KAFKA_ONOS);
        volatile ApplicationState kafka;
        final List<ApplicationListener> listeners = new ArrayList<>();

        @Override
        public ApplicationId getId(String name) {
            return kafka != null && name.equals(KAFKA.name()) ? KAFKA : null;
        }

        @Override
        public ApplicationState getState(ApplicationId id) {
            return KAFKA.equals(id) ? kafka : null;
        }

        @Override
        public void addListener(ApplicationListener listener) {
            listeners.add(listener);
        }

        @Override
        public void removeListener(ApplicationListener listener) {
            listeners.remove(listener);
        }

        void set(ApplicationState state) {
            kafka = state;
            ApplicationEvent e = new ApplicationEvent(state == ApplicationState.ACTIVE
                    ? ApplicationEvent.Type.APP_ACTIVATED : ApplicationEvent.Type.APP_DEACTIVATED, null);
            listeners.forEach(l -> l.event(e));
        }
    }

    @Test
    public void neverBesideKafkaOnos() throws Exception {
        int dead;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = s.getLocalPort();
        }
        SebaManagerTest.FakeNetcfg netcfg = new SebaManagerTest.FakeNetcfg();
        netcfg.set("{'olts':[{'deviceId':'of:1','accessPort':'access1'}],"
                           + "'kafka':{'bootstrapServers':'127.0.0.1:" + dead + "'}}");
        FakeApps apps = new FakeApps();
        apps.kafka = ApplicationState.ACTIVE;
        KafkaOssPublisher publisher = publisher(SebaManagerTest.APP, netcfg, apps);
        try {
            publisher.drain();
            assertNull("kafka-onos active: no publisher of ours", publisher.publisher());
            apps.set(ApplicationState.INSTALLED);
            publisher.drain();
            assertNotNull("kafka-onos deactivated: ours publishes", publisher.publisher());
            apps.set(ApplicationState.ACTIVE);
            publisher.drain();
            assertNull(publisher.publisher());
            apps.set(ApplicationState.INSTALLED);
            publisher.drain();
            OssPublisher running = publisher.publisher();
            assertNotNull(running);
            // without a kafka section: none
            netcfg.push("{'olts':[{'deviceId':'of:1','accessPort':'access1'}]}");
            publisher.drain();
            assertNull(publisher.publisher());
            assertEquals("the stopped publisher takes nothing more", false, running.offer("bng.pppoe", "{}"));
        } finally {
            publisher.deactivate();
        }
    }

    /**
     * As SebaPodController runs it: ONOS's ApplicationService without kafka-onos
     * (ApplicationsStandIn, strict), the seba netcfg as the lab's POST /netcfg
     * stores it; the kafka section starts the publisher, a config without one
     * stops it, deactivation removes every listener.
     */
    @Test
    public void inThePodController() throws Exception {
        int dead;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = s.getLocalPort();
        }
        ApplicationsStandIn apps = new ApplicationsStandIn(Map.of(SebaPodController.APP, ApplicationState.ACTIVE));
        assertNull("kafka-onos is not installed", apps.getId(KafkaOssPublisher.KAFKA_ONOS));
        assertEquals(SebaPodController.APP, apps.getId(SebaManager.APP_NAME));
        assertEquals(ApplicationState.ACTIVE, apps.getState(SebaPodController.APP));
        assertNull(apps.getState(FakeApps.KAFKA));
        assertThrows(NullPointerException.class, () -> apps.getId(null));
        assertThrows(NullPointerException.class, () -> apps.getState(null));
        assertThrows(NullPointerException.class, () -> apps.addListener(null));
        assertThrows(UnsupportedOperationException.class, apps::getApplications);
        assertThrows(UnsupportedOperationException.class, () -> apps.getApplication(SebaPodController.APP));
        assertThrows(UnsupportedOperationException.class,
                     () -> apps.registerDeactivateHook(SebaPodController.APP, () -> { }));

        ObjectMapper mapper = new ObjectMapper();
        SebaPodController.SebaNetcfg netcfg = new SebaPodController.SebaNetcfg();
        KafkaOssPublisher publisher = publisher(SebaPodController.APP, netcfg, apps);
        try {
            publisher.drain();
            assertNull("no seba config yet", publisher.publisher());
            assertNull(netcfg.push(mapper.readTree("{\"olts\":[{\"deviceId\":\"of:1\",\"accessPort\":\"access1\"}],"
                    + "\"kafka\":{\"bootstrapServers\":\"127.0.0.1:" + dead + "\"}}")));
            publisher.drain();
            OssPublisher running = publisher.publisher();
            assertNotNull("the kafka section starts it", running);
            assertNull(netcfg.push(mapper.readTree(
                    "{\"olts\":[{\"deviceId\":\"of:1\",\"accessPort\":\"access1\"}]}")));
            publisher.drain();
            assertNull("without a kafka section: none", publisher.publisher());
            assertEquals(1, apps.listeners().size());
        } finally {
            publisher.deactivate();
        }
        assertTrue("deactivated: its application listener is removed", apps.listeners().isEmpty());
    }
}
