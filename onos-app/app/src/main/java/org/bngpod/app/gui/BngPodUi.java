package org.bngpod.app.gui;

import com.google.common.collect.ImmutableList;
import org.onosproject.ui.GlyphConstants;
import org.onosproject.ui.UiExtension;
import org.onosproject.ui.UiExtensionService;
import org.onosproject.ui.UiMessageHandlerFactory;
import org.onosproject.ui.UiView;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Adds the "BNG Pod" view to ONOS's legacy GUI (app {@code org.onosproject.gui};
 * in ONOS 2.5 only the legacy GUI takes views from applications): the view
 * {@value #VIEW_ID} under the navigation's Network category, its html, js and
 * css (resources {@code app/view/bngpod/}, included through
 * {@code bngpod/css.html} and {@code bngpod/js.html}), and a
 * {@link BngPodViewMessageHandler} for each GUI connection. Registered while
 * the application is active and a GUI provides the {@link UiExtensionService};
 * without one the rest of the application runs as before.
 */
@Component(immediate = true)
public class BngPodUi {

    /** The view's id: its route (#/bngpod), resource folder and Angular module (ovBngpod). */
    public static final String VIEW_ID = "bngpod";
    /** The navigation's label. */
    public static final String LABEL = "BNG Pod";

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected UiExtensionService uiExtensionService;

    private final UiExtension extension = extension();

    /**
     * Returns the view's UI extension: what this component registers, and
     * what the tests serve to a browser.
     *
     * @return a new extension
     */
    public static UiExtension extension() {
        List<UiView> views = ImmutableList.of(
                new UiView(UiView.Category.NETWORK, VIEW_ID, LABEL, GlyphConstants.ROUTER));
        UiMessageHandlerFactory handlers = () -> ImmutableList.of(new BngPodViewMessageHandler());
        return new UiExtension.Builder(BngPodUi.class.getClassLoader(), views)
                .resourcePath(VIEW_ID)
                .messageHandlerFactory(handlers)
                .build();
    }

    @Activate
    protected void activate() {
        uiExtensionService.register(extension);
        log.info("Started: GUI view {}", VIEW_ID);
    }

    @Deactivate
    protected void deactivate() {
        uiExtensionService.unregister(extension);
        log.info("Stopped");
    }
}
