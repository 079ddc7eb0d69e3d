package org.bngpod.api;

import com.google.common.testing.EqualsTester;
import org.junit.Test;

import java.time.Instant;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

/**
 * A session's rate between two usage readings, and the reading's time in
 * {@link Usage}.
 */
public class ThroughputTest {

    private static final Instant T0 = Instant.parse("2026-01-02T03:05:00Z");

    @Test
    public void bitsOverTheTimeBetweenTheReadings() {
        Usage first = Usage.of(0, 0, 0, 0, T0);
        Usage second = Usage.of(15_000, 250_000, 120, 300, T0.plusSeconds(300));
        assertEquals(Optional.of(Throughput.of(400, 6667, 300_000)), Throughput.between(first, second));
        // 10 Gbit/s for an hour: no overflow on bytes * 8, exact to the bit
        long hour = 10_000_000_000L / 8 * 3600;
        assertEquals(Optional.of(Throughput.of(0, 10_000_000_000L, 3_600_000)),
                     Throughput.between(first, Usage.of(0, hour, 0, 0, T0.plusSeconds(3600))));
        // sub-second readings
        assertEquals(Optional.of(Throughput.of(16_000, 0, 500)),
                     Throughput.between(first, Usage.of(1000, 0, 1, 0, T0.plusMillis(500))));
    }

    @Test
    public void readingsThatMakeNoSeriesGiveNoRate() {
        Usage timed = Usage.of(100, 100, 1, 1, T0);
        assertEquals(Optional.empty(), Throughput.between(Usage.of(0, 0, 0, 0), timed));
        assertEquals(Optional.empty(), Throughput.between(timed, Usage.of(200, 200, 2, 2)));
        assertEquals(Optional.empty(), Throughput.between(timed, Usage.of(200, 200, 2, 2, T0)));
        assertEquals(Optional.empty(), Throughput.between(timed, Usage.of(200, 200, 2, 2, T0.minusSeconds(1))));
        assertEquals(Optional.empty(), Throughput.between(timed, Usage.of(99, 200, 2, 2, T0.plusSeconds(1))));
        assertEquals(Optional.empty(), Throughput.between(timed, Usage.of(200, 99, 2, 2, T0.plusSeconds(1))));
    }

    @Test
    public void valuesAndEquality() {
        assertThrows(IllegalArgumentException.class, () -> Throughput.of(-1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> Throughput.of(0, 0, 0));
        new EqualsTester()
                .addEqualityGroup(Throughput.of(1, 2, 3), Throughput.of(1, 2, 3))
                .addEqualityGroup(Throughput.of(1, 2, 4))
                .testEquals();
        new EqualsTester()
                .addEqualityGroup(Usage.of(1, 2, 3, 4), Usage.of(1, 2, 3, 4))
                .addEqualityGroup(Usage.of(1, 2, 3, 4, T0), Usage.of(1, 2, 3, 4, T0))
                .addEqualityGroup(Usage.of(1, 2, 3, 4, T0.plusNanos(1)))
                .addEqualityGroup(Usage.of(1, 2, 3, 4, Instant.EPOCH))
                .testEquals();
        assertEquals(Optional.of(T0.plusNanos(1)), Usage.of(1, 2, 3, 4, T0.plusNanos(1)).at());
        assertEquals(Optional.empty(), Usage.ZERO.at());
    }
}
