package org.bngpod.app.gui;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.ui.UiConnection;
import org.onosproject.ui.model.topo.UiTopoLayout;

import java.util.ArrayList;
import java.util.List;

/**
 * A GUI connection of one user that keeps every message the handlers send,
 * as ONOS's websocket would put it on the wire ({"event", "payload"}).
 */
final class CapturingConnection implements UiConnection {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final String user;
    private final List<ObjectNode> sent = new ArrayList<>();
    private String view;
    private UiTopoLayout layout;

    CapturingConnection(String user) {
        this.user = user;
    }

    @Override
    public String userName() {
        return user;
    }

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
    public synchronized void sendMessage(ObjectNode message) {
        sent.add(message);
    }

    @Override
    public synchronized void sendMessage(String type, ObjectNode payload) {
        ObjectNode m = MAPPER.createObjectNode().put("event", type);
        m.set("payload", payload == null ? MAPPER.createObjectNode() : payload);
        sent.add(m);
    }

    /** Returns the messages sent so far and forgets them. */
    synchronized List<ObjectNode> take() {
        List<ObjectNode> out = new ArrayList<>(sent);
        sent.clear();
        return out;
    }
}
