package org.bngpod.app.gui;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.ui.UiConnection;
import org.onosproject.ui.model.topo.UiTopoLayout;

/**
 * A GUI connection of one user as ONOS's websocket is one: the current view
 * and layout it keeps, and a message put on the wire as {"event", "payload"};
 * where the message goes is the subclass's.
 */
abstract class TestUiConnection implements UiConnection {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private String view;
    private UiTopoLayout layout;

    @Override
    public UiTopoLayout currentLayout() {
        return layout;
    }

    @Override
    public void setCurrentLayout(UiTopoLayout topoLayout) {
        layout = topoLayout;
    }

    @Override
    public String currentView() {
        return view;
    }

    @Override
    public void setCurrentView(String viewId) {
        view = viewId;
    }

    @Override
    public void sendMessage(String type, ObjectNode payload) {
        ObjectNode m = MAPPER.createObjectNode().put("event", type);
        m.set("payload", payload == null ? MAPPER.createObjectNode() : payload);
        sendMessage(m);
    }
}
