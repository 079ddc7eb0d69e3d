package org.bngpod.app.gui;

import org.junit.Test;
import org.onosproject.ui.UiExtension;
import org.onosproject.ui.UiExtensionServiceAdapter;
import org.onosproject.ui.UiMessageHandler;
import org.onosproject.ui.UiView;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * The view's extension: registered while the component is active, removed
 * when it stops, and everything ONOS's legacy GUI loads from it is there
 * (its css.html and js.html, the view's html, js and css; ONOS's
 * UiExtension marks an extension invalid when one is missing).
 */
public class BngPodUiTest {

    /** ONOS's adapter, keeping what is registered. */
    private static final class Extensions extends UiExtensionServiceAdapter {
        final List<UiExtension> registered = new ArrayList<>();

        @Override
        public void register(UiExtension extension) {
            registered.add(extension);
        }

        @Override
        public void unregister(UiExtension extension) {
            assertTrue(registered.remove(extension));
        }
    }

    private static String text(InputStream in) throws IOException {
        assertNotNull(in);
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    public void registeredWhileActive() {
        Extensions service = new Extensions();
        BngPodUi ui = new BngPodUi();
        ui.uiExtensionService = service;
        ui.activate();
        assertEquals(1, service.registered.size());
        UiExtension ext = service.registered.get(0);
        assertEquals(1, ext.views().size());
        UiView view = ext.views().get(0);
        assertEquals("bngpod", view.id());
        assertEquals("BNG Pod", view.label());
        assertEquals(UiView.Category.NETWORK, view.category());
        Collection<UiMessageHandler> handlers = ext.messageHandlerFactory().newHandlers();
        assertEquals(1, handlers.size());
        assertTrue(handlers.iterator().next() instanceof BngPodViewMessageHandler);
        ui.deactivate();
        assertEquals(List.of(), service.registered);
    }

    @Test
    public void resourcesAsTheLegacyGuiLoadsThem() throws IOException {
        UiExtension ext = BngPodUi.extension();
        assertEquals("<link rel=\"stylesheet\" href=\"app/view/bngpod/bngpod.css\">\n", text(ext.css()));
        assertEquals("<script src=\"app/view/bngpod/bngpod.js\"></script>\n", text(ext.js()));
        assertTrue(text(ext.resource("bngpod", "bngpod.html")).contains("<div id=\"ov-bngpod\">"));
        // the Angular module and controller names ONOS's router derives from the view id
        String js = text(ext.resource("bngpod", "bngpod.js"));
        assertTrue(js.contains("angular.module('ovBngpod', [])"));
        assertTrue(js.contains(".controller('OvBngpodCtrl',"));
        assertTrue(text(ext.resource("bngpod", "bngpod.css")).contains("#ov-bngpod"));
        // every resource was found: ONOS lists the extension's views only then
        assertEquals(1, ext.views().size());

        UiExtension broken = BngPodUi.extension();
        assertNull(broken.resource("bngpod", "missing.js"));
        assertEquals(List.of(), broken.views());
    }
}
