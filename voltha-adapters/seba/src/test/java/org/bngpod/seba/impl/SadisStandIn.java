package org.bngpod.seba.impl;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A SADIS server as BBSim runs one: {@code GET /v2/subscribers/{id}} and
 * {@code GET /v2/bandwidthprofiles/{id}} answer the stored document with 200,
 * an unknown id with 404 and {@code {}}. Documents come from
 * src/test/resources/sadis (BBSim's shapes) or are put by a test, byte for byte,
 * so that bad documents reach the client as they are. Loopback only.
 */
final class SadisStandIn implements AutoCloseable {

    private final HttpServer server;
    private final Map<String, String> subscribers = new ConcurrentHashMap<>();
    private final Map<String, String> profiles = new ConcurrentHashMap<>();
    final AtomicInteger requests = new AtomicInteger();

    SadisStandIn() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/v2/subscribers/", ex -> answer(ex, subscribers, "/v2/subscribers/"));
        server.createContext("/v2/bandwidthprofiles/", ex -> answer(ex, profiles, "/v2/bandwidthprofiles/"));
        server.start();
    }

    private void answer(com.sun.net.httpserver.HttpExchange ex, Map<String, String> docs, String prefix)
            throws IOException {
        requests.incrementAndGet();
        String id = ex.getRequestURI().getPath().substring(prefix.length());
        String doc = "GET".equals(ex.getRequestMethod()) ? docs.get(id) : null;
        byte[] body = (doc == null ? "{}" : doc).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(doc == null ? 404 : 200, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    /**
     * Returns SADIS's {@code integration.url} for subscribers.
     *
     * @return URL with %s for the id
     */
    String subscriberUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v2/subscribers/%s";
    }

    /**
     * Returns SADIS's {@code integration.url} for bandwidth profiles.
     *
     * @return URL with %s for the id
     */
    String profileUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v2/bandwidthprofiles/%s";
    }

    void subscriber(String id, String json) {
        subscribers.put(id, json);
    }

    void profile(String id, String json) {
        profiles.put(id, json);
    }

    /**
     * Serves a document of src/test/resources/sadis.
     *
     * @param dir  subscribers, bp-mef or bp-ietf
     * @param id   the id (file name without .json)
     */
    void load(String dir, String id) throws IOException {
        String res = "/sadis/" + dir + "/" + id + ".json";
        try (InputStream in = SadisStandIn.class.getResourceAsStream(res)) {
            if (in == null) {
                throw new IOException("no test resource " + res);
            }
            String doc = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (dir.equals("subscribers")) {
                subscriber(id, doc);
            } else {
                profile(id, doc);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
