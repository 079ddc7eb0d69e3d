package org.bngpod.app.impl;

import com.google.common.util.concurrent.MoreExecutors;
import org.onosproject.store.primitives.ConsistentMapBackedJavaMap;
import org.onosproject.store.service.AsyncConsistentMap;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.ConsistentMapBuilder;
import org.onosproject.store.service.ConsistentMapException;
import org.onosproject.store.service.MapEvent;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.TestConsistentMap;
import org.onosproject.store.service.TestStorageService;
import org.onosproject.store.service.Versioned;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A storage service whose consistent maps treat threads as Atomix does, which
 * {@link TestStorageService}'s maps do not: a map event reaches its listeners
 * on the store's own event thread (through the executor the listener was
 * added with; directly by default), later than the write that caused it. A
 * map call made on that thread would wait for a reply only that thread can
 * deliver: Atomix times out ({@code ConsistentMapException.Timeout}) after
 * seconds, and events queued behind it are late or lost. Here such a call
 * throws the same exception at once and is recorded with its stack, so a test
 * fails on it even when the caller caught the exception. Unlike
 * TestStorageService's, its maps may be called from several threads at once
 * (each call holds the map's lock; collections come back as copies), so that
 * the emulated pod's controller (org.bngpod.app.emu) runs the app on them.
 */
final class StoreThreadStorageService extends TestStorageService {

    private final List<Throwable> problems = new CopyOnWriteArrayList<>();
    private final AtomicLong relayed = new AtomicLong();
    private volatile Thread eventThread;
    private final ThreadPoolExecutor events = new ThreadPoolExecutor(
            1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "store-events");
                t.setDaemon(true);
                eventThread = t;
                return t;
            });

    @Override
    public <K, V> ConsistentMapBuilder<K, V> consistentMapBuilder() {
        return new ConsistentMapBuilder<>() {
            @Override
            public ConsistentMap<K, V> build() {
                ConsistentMapBuilder<K, V> inner = new TestConsistentMap.Builder<>();
                inner.withName(name()).withSerializer(serializer());
                return new EventThreadMap<>(name(), inner.build());
            }

            @Override
            public AsyncConsistentMap<K, V> buildAsyncMap() {
                throw new UnsupportedOperationException("only the synchronous map in this test");
            }
        };
    }

    /**
     * Returns what went wrong on the event thread: map calls made on it, and
     * exceptions listeners threw.
     *
     * @return the problems, each with the stack where it happened
     */
    List<Throwable> problems() {
        return List.copyOf(problems);
    }

    /**
     * Returns how many map events were delivered or are waiting.
     *
     * @return events queued since the service was made
     */
    long eventsQueued() {
        return relayed.get();
    }

    /** Waits until every event queued so far was delivered. */
    void flush() {
        Testbed.flush(events);
    }

    /** Stops the event thread. */
    void shutdown() {
        events.shutdownNow();
    }

    /** A map whose listeners hear it on the event thread and must not call it there. */
    private final class EventThreadMap<K, V> implements ConsistentMap<K, V> {
        private final String name;
        private final ConsistentMap<K, V> inner;
        private final List<Map.Entry<MapEventListener<K, V>, Executor>> listeners = new CopyOnWriteArrayList<>();
        private final MapEventListener<K, V> relay = this::relay;

        EventThreadMap(String name, ConsistentMap<K, V> inner) {
            this.name = name;
            this.inner = inner;
            inner.addListener(relay);
        }

        private void relay(MapEvent<K, V> event) {
            relayed.incrementAndGet();
            events.execute(() -> listeners.forEach(l -> l.getValue().execute(() -> {
                try {
                    l.getKey().event(event);
                } catch (RuntimeException e) {
                    problems.add(new AssertionError("a listener of " + name() + " threw on " + event, e));
                }
            })));
        }

        /** Fails a call made on the event thread as Atomix would, after recording it. */
        private void check() {
            if (Thread.currentThread() == eventThread) {
                ConsistentMapException.Timeout timeout = new ConsistentMapException.Timeout(name());
                problems.add(new AssertionError("map " + name() + " called on the store's event thread "
                                                        + "(Atomix would time out)", timeout));
                throw timeout;
            }
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public synchronized Type primitiveType() {
            return inner.primitiveType();
        }

        @Override
        public synchronized int size() {
            check();
            return inner.size();
        }

        @Override
        public synchronized boolean isEmpty() {
            check();
            return inner.isEmpty();
        }

        @Override
        public synchronized boolean containsKey(K key) {
            check();
            return inner.containsKey(key);
        }

        @Override
        public synchronized boolean containsValue(V value) {
            check();
            return inner.containsValue(value);
        }

        @Override
        public synchronized Versioned<V> get(K key) {
            check();
            return inner.get(key);
        }

        @Override
        public synchronized Versioned<V> getOrDefault(K key, V defaultValue) {
            check();
            Versioned<V> v = inner.get(key);
            return v != null ? v : new Versioned<>(defaultValue, 0);
        }

        @Override
        public synchronized Versioned<V> computeIfAbsent(K key, Function<? super K, ? extends V> fn) {
            check();
            return inner.computeIfAbsent(key, fn);
        }

        @Override
        public synchronized Versioned<V> compute(K key, BiFunction<? super K, ? super V, ? extends V> fn) {
            check();
            return inner.compute(key, fn);
        }

        @Override
        public synchronized Versioned<V> computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> fn) {
            check();
            return inner.computeIfPresent(key, fn);
        }

        @Override
        public synchronized Versioned<V> computeIf(K key, Predicate<? super V> condition,
                                      BiFunction<? super K, ? super V, ? extends V> fn) {
            check();
            return inner.computeIf(key, condition, fn);
        }

        @Override
        public synchronized Versioned<V> put(K key, V value) {
            check();
            return inner.put(key, value);
        }

        @Override
        public synchronized Versioned<V> putAndGet(K key, V value) {
            check();
            return inner.putAndGet(key, value);
        }

        @Override
        public synchronized Versioned<V> remove(K key) {
            check();
            return inner.remove(key);
        }

        @Override
        public synchronized void clear() {
            check();
            inner.clear();
        }

        @Override
        public synchronized Set<K> keySet() {
            check();
            return Set.copyOf(inner.keySet());
        }

        @Override
        public synchronized Collection<Versioned<V>> values() {
            check();
            return List.copyOf(inner.values());
        }

        @Override
        public synchronized Set<Map.Entry<K, Versioned<V>>> entrySet() {
            check();
            return Set.copyOf(inner.entrySet());
        }

        @Override
        public synchronized Versioned<V> putIfAbsent(K key, V value) {
            check();
            return inner.putIfAbsent(key, value);
        }

        @Override
        public synchronized boolean remove(K key, V value) {
            check();
            return inner.remove(key, value);
        }

        @Override
        public synchronized boolean remove(K key, long version) {
            check();
            return inner.remove(key, version);
        }

        @Override
        public synchronized Versioned<V> replace(K key, V value) {
            check();
            return inner.replace(key, value);
        }

        @Override
        public synchronized boolean replace(K key, V oldValue, V newValue) {
            check();
            return inner.replace(key, oldValue, newValue);
        }

        @Override
        public synchronized boolean replace(K key, long oldVersion, V newValue) {
            check();
            return inner.replace(key, oldVersion, newValue);
        }

        @Override
        public synchronized Iterator<Map.Entry<K, Versioned<V>>> iterator() {
            check();
            return new ArrayList<>(inner.entrySet()).iterator();
        }

        @Override
        public synchronized void addListener(MapEventListener<K, V> listener) {
            addListener(listener, MoreExecutors.directExecutor());
        }

        @Override
        public synchronized void addListener(MapEventListener<K, V> listener, Executor executor) {
            listeners.add(Map.entry(listener, executor));
        }

        @Override
        public synchronized void removeListener(MapEventListener<K, V> listener) {
            listeners.removeIf(l -> l.getKey() == listener);
        }

        @Override
        public synchronized Map<K, V> asJavaMap() {
            check();
            // backed by this map, so that its reads go through the lock
            return new ConsistentMapBackedJavaMap<>(this);
        }
    }
}
