package org.bngpod.app.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.After;
import org.junit.Test;

import javax.ws.rs.client.WebTarget;
import javax.ws.rs.core.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * GET /placement as a long poll ({@code after}, {@code wait}): the answer
 * comes when the version moves on, or when the wait ends; bad parameters are
 * a 400, and nothing waits longer than asked.
 */
public class PlacementWaitTest extends TestbedResourceTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final ExecutorService clients = Executors.newCachedThreadPool();

    /** Every request as bng-cp sends it: a user with the control plane's role alone. */
    public PlacementWaitTest() {
        super("cp1");
    }

    @After
    public void stopClients() {
        clients.shutdownNow();
    }

    private WebTarget placement(String after, String wait) {
        WebTarget t = target("placement");
        if (after != null) {
            t = t.queryParam("after", after);
        }
        if (wait != null) {
            t = t.queryParam("wait", wait);
        }
        return t;
    }

    private static long version(Response r) throws Exception {
        String body = r.readEntity(String.class);
        assertEquals(body, 200, r.getStatus());
        return MAPPER.readTree(body).path("version").asLong();
    }

    @Test
    public void anOlderVersionIsAnsweredAtOnce() throws Exception {
        long t0 = System.nanoTime();
        assertEquals(1, version(placement("0", "30").request().get()));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    public void theAnswerComesWhenTheVersionMovesOn() throws Exception {
        Future<Response> poll = clients.submit(() -> placement("1", "30").request().get());
        waitUntil(() -> bed.placement.placementAfterWaiting() == 1);
        assertFalse(poll.isDone());
        long t0 = System.nanoTime();
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        assertEquals(2, version(poll.get(10, TimeUnit.SECONDS)));
        assertTrue("answered within 2 s of the change", System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2));
    }

    @Test
    public void theWaitEndsWithTheCurrentPlacement() throws Exception {
        long t0 = System.nanoTime();
        assertEquals(1, version(placement("1", "1").request().get()));
        long took = System.nanoTime() - t0;
        assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(950));
        assertTrue(took < TimeUnit.SECONDS.toNanos(10));
        // wait=0 (or none): no waiting at all
        t0 = System.nanoTime();
        assertEquals(1, version(placement("1", "0").request().get()));
        assertEquals(1, version(placement("1", null).request().get()));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    public void theRemovalOfThePodWakesTheWaiters() throws Exception {
        Future<Response> poll = clients.submit(() -> placement("1", "30").request().get());
        waitUntil(() -> bed.placement.placementAfterWaiting() == 1);
        bed.netcfg.push(null);
        assertEquals(0, version(poll.get(10, TimeUnit.SECONDS)));
    }

    @Test
    public void badParametersAreRefused() throws Exception {
        String[][] bad = {
            {"-1", "5", "after: expected an integer"},
            {"x", null, "after: expected an integer"},
            {"99999999999999999999", null, "after: 99999999999999999999 is out of range"},
            {"1", "61", "wait: 61 is out of range 0..60"},
            {"1", "1.5", "wait: expected an integer 0..60, got \"1.5\""},
            {"1", "", "wait: expected an integer"},
            {null, "5", "wait: only with after"},
        };
        for (String[] b : bad) {
            Response r = placement(b[0], b[1]).request().get();
            String body = r.readEntity(String.class);
            assertEquals(body, 400, r.getStatus());
            JsonNode json = MAPPER.readTree(body);
            assertThat(json.path("error").asText(), containsString(b[2]));
        }
        assertEquals(1, bed.placement.placement().version());
    }

    /** A node lets a bounded number wait; the next one is answered at once, not turned away. */
    @Test
    public void beyondTheWaitersANodeAnswersAtOnce() throws Exception {
        int max = bed.placement.placementAfterMaxWaiters();
        CompletableFuture<?>[] waiting = new CompletableFuture<?>[max];
        for (int i = 0; i < max; i++) {
            waiting[i] = CompletableFuture.supplyAsync(() -> {
                try {
                    return bed.placement.placementAfter(1, 30_000).version();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1L;
                }
            }, clients);
        }
        waitUntil(() -> bed.placement.placementAfterWaiting() == max);
        long t0 = System.nanoTime();
        assertEquals(1, bed.placement.placementAfter(1, 30_000).version());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2));
        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        CompletableFuture.allOf(waiting).get(10, TimeUnit.SECONDS);
        for (CompletableFuture<?> w : waiting) {
            assertEquals(2L, w.get());
        }
        assertEquals(0, bed.placement.placementAfterWaiting());
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue("condition not met within 10 s", System.nanoTime() < deadline);
            Thread.sleep(10);
        }
    }
}
