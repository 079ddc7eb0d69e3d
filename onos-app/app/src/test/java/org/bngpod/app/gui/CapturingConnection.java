package org.bngpod.app.gui;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * A GUI connection of one user that keeps every message the handlers send,
 * as ONOS's websocket would put it on the wire ({"event", "payload"}).
 */
final class CapturingConnection extends TestUiConnection {

    private final String user;
    private final List<ObjectNode> sent = new ArrayList<>();

    CapturingConnection(String user) {
        this.user = user;
    }

    @Override
    public String userName() {
        return user;
    }

    @Override
    public synchronized void sendMessage(ObjectNode message) {
        sent.add(message);
    }

    /** Returns the messages sent so far and forgets them. */
    synchronized List<ObjectNode> take() {
        List<ObjectNode> out = new ArrayList<>(sent);
        sent.clear();
        return out;
    }
}
