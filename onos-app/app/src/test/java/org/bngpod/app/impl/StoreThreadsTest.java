package org.bngpod.app.impl;

import org.bngpod.api.PlacementEvent;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The managers on maps that behave as Atomix's do (events on the store's own
 * thread, later than the write): no listener calls back into a map on that
 * thread, and every placement change is still posted and steered.
 */
public class StoreThreadsTest {

    private Testbed bed;
    private final List<PlacementEvent> events = new CopyOnWriteArrayList<>();

    @Before
    public void setUp() {
        bed = Testbed.withStoreThreads(Testbed.fixturePod());
        bed.settle();
        bed.placement.addListener(events::add);
    }

    @After
    public void tearDown() {
        bed.close();
    }

    private void assertNoStoreThreadProblems() {
        List<Throwable> problems = bed.storeThreadProblems();
        if (!problems.isEmpty()) {
            AssertionError e = new AssertionError(problems.size() + " problem(s) on the store's event thread; first: "
                                                          + problems.get(0).getMessage(), problems.get(0));
            problems.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    @Test
    public void failoverAndBackWithoutBlockingTheStoreThread() {
        assertEquals(Set.of(1, 2), bed.steeredInstances());

        bed.placement.declareDead(2, "cp1", "PFCP heartbeat lost");
        bed.settle();
        assertNoStoreThreadProblems();
        assertEquals(Integer.valueOf(1), bed.instanceOf("lg2"));
        assertEquals(Set.of(1), bed.steeredInstances());
        assertEquals(List.of(PlacementEvent.Type.INSTANCE_DOWN, PlacementEvent.Type.PLACEMENT_CHANGED),
                     Testbed.types(events));
        assertEquals(2, events.get(1).subject().version());

        events.clear();
        bed.placement.declareAlive(2, "cp1");
        bed.devices.port(49, false);
        bed.settle();
        assertNoStoreThreadProblems();
        assertEquals(List.of(PlacementEvent.Type.INSTANCE_UP, PlacementEvent.Type.INSTANCE_DOWN,
                             PlacementEvent.Type.INSTANCE_DOWN, PlacementEvent.Type.PLACEMENT_CHANGED),
                     Testbed.types(events));
        assertTrue(bed.steeredInstances().isEmpty());
    }
}
