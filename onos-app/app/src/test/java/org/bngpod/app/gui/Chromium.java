package org.bngpod.app.gui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Debian's chromium, headless, driven over the DevTools protocol (a
 * websocket of JDK's HttpClient): pages to navigate, JavaScript to
 * evaluate, screenshots; console errors and uncaught exceptions of a page
 * are kept. Started with the flags this machine needs (no sandbox as root,
 * no GPU, no network of its own: /work/.library/env/machines, "Known to
 * work") and a profile of its own, removed on close.
 */
final class Chromium implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern DEVTOOLS = Pattern.compile("DevTools listening on (ws://\\S+)");

    private final Process process;
    private final Path profile;
    private final WebSocket socket;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, CompletableFuture<JsonNode>> calls = new ConcurrentHashMap<>();
    private final Map<String, Page> pages = new ConcurrentHashMap<>();

    /**
     * Returns the browser: $BNGPOD_CHROMIUM, else /usr/bin/chromium.
     *
     * @return its path, if it is there
     */
    static Optional<Path> find() {
        String env = System.getenv("BNGPOD_CHROMIUM");
        Path exe = Paths.get(env == null || env.isEmpty() ? "/usr/bin/chromium" : env);
        return Files.isExecutable(exe) ? Optional.of(exe) : Optional.empty();
    }

    /**
     * Starts the browser.
     *
     * @param exe the browser
     * @param log where its own output goes
     * @throws IOException if it does not start or does not offer DevTools within 30 s
     */
    Chromium(Path exe, Path log) throws IOException {
        profile = Files.createTempDirectory("bngpod-chromium-");
        process = new ProcessBuilder(exe.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                                     "--disable-quic", "--no-first-run", "--disable-background-networking",
                                     "--disable-component-update", "--disable-sync", "--disable-extensions",
                                     "--user-data-dir=" + profile, "--remote-debugging-address=127.0.0.1",
                                     "--remote-debugging-port=0", "about:blank")
                .redirectErrorStream(true).start();
        CompletableFuture<String> endpoint = new CompletableFuture<>();
        Thread reader = new Thread(() -> drain(log, endpoint), "chromium-output");
        reader.setDaemon(true);
        reader.start();
        try {
            String url = endpoint.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            socket = HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create(url), new Listener()).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IOException("interrupted while chromium started", e);
        } catch (ExecutionException | TimeoutException e) {
            close();
            throw new IOException("chromium offered no DevTools endpoint within " + TIMEOUT.toSeconds()
                                          + " s (its output: " + log + ")", e);
        }
    }

    /** Copies the browser's output to the log and picks the DevTools endpoint from it. */
    private void drain(Path log, CompletableFuture<String> endpoint) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                                                                          StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                out.println(line);
                Matcher m = DEVTOOLS.matcher(line);
                if (m.find()) {
                    endpoint.complete(m.group(1));
                }
            }
        } catch (IOException e) {
            endpoint.completeExceptionally(e);
        }
        endpoint.completeExceptionally(new IOException("chromium exited"));
    }

    /** Collects the protocol's messages (a large one comes in parts) and routes them. */
    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                String message = text.toString();
                text.setLength(0);
                route(message);
            }
            ws.request(1);
            return null;
        }
    }

    private void route(String message) {
        JsonNode m;
        try {
            m = MAPPER.readTree(message);
        } catch (IOException e) {
            return;
        }
        if (m.has("id")) {
            CompletableFuture<JsonNode> call = calls.remove(m.path("id").asLong());
            if (call != null) {
                call.complete(m);
            }
            return;
        }
        Page page = pages.get(m.path("sessionId").asText(""));
        if (page != null) {
            page.event(m.path("method").asText(), m.path("params"));
        }
    }

    /** Sends one command (to a page's session, or the browser's when null) and waits for its result. */
    JsonNode call(String sessionId, String method, ObjectNode params) {
        long id = ids.incrementAndGet();
        ObjectNode m = MAPPER.createObjectNode().put("id", id).put("method", method);
        m.set("params", params == null ? MAPPER.createObjectNode() : params);
        if (sessionId != null) {
            m.put("sessionId", sessionId);
        }
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        calls.put(id, answer);
        try {
            socket.sendText(m.toString(), true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            JsonNode r = answer.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (r.has("error")) {
                throw new IllegalStateException(method + ": " + r.path("error"));
            }
            return r.path("result");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(method + ": interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(method + ": no answer", e);
        } finally {
            calls.remove(id);
        }
    }

    /**
     * Opens a page (a tab) of the given size.
     *
     * @param width  CSS pixels
     * @param height CSS pixels
     * @return the page
     */
    Page newPage(int width, int height) {
        String target = call(null, "Target.createTarget", MAPPER.createObjectNode().put("url", "about:blank"))
                .path("targetId").asText();
        String session = call(null, "Target.attachToTarget", MAPPER.createObjectNode()
                .put("targetId", target).put("flatten", true)).path("sessionId").asText();
        Page page = new Page(session, target);
        pages.put(session, page);
        call(session, "Runtime.enable", null);
        call(session, "Page.enable", null);
        page.size(width, height);
        return page;
    }

    @Override
    public void close() {
        try {
            if (socket != null) {
                call(null, "Browser.close", null);
            }
        } catch (IllegalStateException e) {
            // it is going anyway
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One tab: navigation, evaluation, screenshots, what went wrong in it. */
    final class Page {
        private final String session;
        private final String target;
        private final List<String> problems = new ArrayList<>();
        private int width;

        private Page(String session, String target) {
            this.session = session;
            this.target = target;
        }

        private void event(String method, JsonNode params) {
            if ("Runtime.exceptionThrown".equals(method)) {
                synchronized (problems) {
                    problems.add("uncaught: " + params.path("exceptionDetails"));
                }
            } else if ("Runtime.consoleAPICalled".equals(method) && "error".equals(params.path("type").asText())) {
                StringBuilder text = new StringBuilder("console.error:");
                params.path("args").forEach(a -> text.append(' ').append(a.path("value").asText(a.toString())));
                synchronized (problems) {
                    problems.add(text.toString());
                }
            }
        }

        /**
         * Returns the uncaught exceptions and console errors so far.
         *
         * @return what went wrong in the page
         */
        List<String> problems() {
            synchronized (problems) {
                return List.copyOf(problems);
            }
        }

        void size(int w, int h) {
            width = w;
            call(session, "Emulation.setDeviceMetricsOverride", MAPPER.createObjectNode()
                    .put("width", w).put("height", h).put("deviceScaleFactor", 1).put("mobile", false));
        }

        /**
         * Loads a URL and waits until its document is complete.
         *
         * @param url the address
         */
        void navigate(String url) {
            String frame = call(session, "Page.navigate", MAPPER.createObjectNode().put("url", url))
                    .path("loaderId").asText();
            waitFor("document.readyState === 'complete' && location.href !== 'about:blank'", Duration.ofSeconds(20));
            if (frame.isEmpty()) {
                throw new IllegalStateException("navigation to " + url + " did not start");
            }
        }

        /**
         * Evaluates an expression in the page.
         *
         * @param expression JavaScript
         * @return its value, as JSON
         * @throws IllegalStateException if it throws
         */
        JsonNode eval(String expression) {
            JsonNode r = call(session, "Runtime.evaluate", MAPPER.createObjectNode()
                    .put("expression", expression).put("returnByValue", true).put("awaitPromise", true));
            if (r.has("exceptionDetails")) {
                throw new IllegalStateException(expression + ": " + r.path("exceptionDetails"));
            }
            return r.path("result").path("value");
        }

        /**
         * Evaluates an expression until its value is true (JavaScript's truth).
         *
         * @param expression JavaScript
         * @param timeout    how long to try
         * @return the last value
         * @throws AssertionError if it never was
         */
        JsonNode waitFor(String expression, Duration timeout) {
            long end = System.nanoTime() + timeout.toNanos();
            JsonNode v = null;
            while (System.nanoTime() < end) {
                v = eval("(function () { try { return (" + expression + ") || false; } catch (e) { return false; } })()");
                if (!v.isMissingNode() && !v.isNull() && !(v.isBoolean() && !v.asBoolean())
                        && !(v.isNumber() && v.asDouble() == 0) && !(v.isTextual() && v.asText().isEmpty())) {
                    return v;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            throw new AssertionError("not within " + timeout.toSeconds() + " s: " + expression + " (last: " + v
                                             + "; page problems: " + problems() + ")");
        }

        /**
         * Takes a PNG of the whole page, as tall as its content.
         *
         * @param file where to write it
         * @throws IOException if it cannot be written
         */
        void screenshot(Path file) throws IOException {
            JsonNode size = call(session, "Page.getLayoutMetrics", null).path("cssContentSize");
            int h = (int) Math.ceil(size.path("height").asDouble());
            ObjectNode clip = MAPPER.createObjectNode().put("x", 0).put("y", 0).put("width", width)
                    .put("height", h).put("scale", 1);
            ObjectNode params = MAPPER.createObjectNode().put("format", "png").put("captureBeyondViewport", true);
            params.set("clip", clip);
            byte[] png = Base64.getDecoder().decode(call(session, "Page.captureScreenshot", params)
                                                            .path("data").asText());
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.write(file, png);
        }

        /** Closes the tab. */
        void close() {
            call(null, "Target.closeTarget", MAPPER.createObjectNode().put("targetId", target));
            pages.remove(session);
        }
    }
}
