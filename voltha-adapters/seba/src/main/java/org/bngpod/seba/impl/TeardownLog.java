package org.bngpod.seba.impl;

import org.bngpod.seba.api.TeardownRequest;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The teardown requests made so far, numbered from 1, the latest
 * {@link #MAX} kept (control planes read them by version; one that fell
 * behind by more reads from the oldest kept).
 */
final class TeardownLog {

    static final int MAX = 100_000;

    private final Deque<TeardownRequest> log = new ArrayDeque<>();
    private final Clock clock;
    private long version;

    TeardownLog(Clock clock) {
        this.clock = clock;
    }

    synchronized TeardownRequest add(String accessPort, int stag, int ctag, String uni, String cause) {
        TeardownRequest r = new TeardownRequest(++version, accessPort, stag, ctag, uni, cause, clock.instant());
        log.addLast(r);
        if (log.size() > MAX) {
            log.removeFirst();
        }
        return r;
    }

    synchronized long version() {
        return version;
    }

    synchronized List<TeardownRequest> after(long after) {
        List<TeardownRequest> out = new ArrayList<>();
        for (TeardownRequest r : log) {
            if (r.version() > after) {
                out.add(r);
            }
        }
        return out;
    }
}
