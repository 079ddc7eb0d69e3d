package org.bngpod.api;

import com.google.common.base.MoreObjects;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * A session's traffic rate between two usage readings of the DP: the bits
 * that passed in each direction, divided by the time between the readings.
 * It is what the session carried on average over that period, not at one
 * instant; the period is the control plane's report interval (its
 * accounting interim), so it is as fresh as the last report.
 */
public final class Throughput {

    private final long upBitsPerSecond;
    private final long downBitsPerSecond;
    private final long periodMillis;

    private Throughput(long upBitsPerSecond, long downBitsPerSecond, long periodMillis) {
        checkArgument(upBitsPerSecond >= 0 && downBitsPerSecond >= 0, "rates must not be negative");
        checkArgument(periodMillis > 0, "period must be positive");
        this.upBitsPerSecond = upBitsPerSecond;
        this.downBitsPerSecond = downBitsPerSecond;
        this.periodMillis = periodMillis;
    }

    /**
     * Returns a throughput.
     *
     * @param upBitsPerSecond   bit/s from the subscriber
     * @param downBitsPerSecond bit/s to the subscriber
     * @param periodMillis      the period it is averaged over, in milliseconds
     * @return the throughput
     * @throws IllegalArgumentException if a rate is negative or the period not positive
     */
    public static Throughput of(long upBitsPerSecond, long downBitsPerSecond, long periodMillis) {
        return new Throughput(upBitsPerSecond, downBitsPerSecond, periodMillis);
    }

    /**
     * Returns the rate between two usage readings of one session.
     *
     * @param earlier the earlier reading
     * @param later   the later reading
     * @return the rate; empty unless both readings say when they were
     *         measured, the later one at least a millisecond after the earlier,
     *         and no byte counter went backwards (then the two do not belong
     *         to one series: nothing honest can be said)
     */
    public static Optional<Throughput> between(Usage earlier, Usage later) {
        if (earlier.at().isEmpty() || later.at().isEmpty()) {
            return Optional.empty();
        }
        Instant from = earlier.at().get();
        Instant to = later.at().get();
        long millis = Duration.between(from, to).toMillis();
        if (millis < 1 || later.upBytes() < earlier.upBytes() || later.downBytes() < earlier.downBytes()) {
            return Optional.empty();
        }
        double seconds = Duration.between(from, to).toNanos() / 1e9;
        return Optional.of(new Throughput(bitsPerSecond(later.upBytes() - earlier.upBytes(), seconds),
                                          bitsPerSecond(later.downBytes() - earlier.downBytes(), seconds),
                                          millis));
    }

    private static long bitsPerSecond(long bytes, double seconds) {
        // a double keeps 53 bits: exact for any rate a link carries, and no overflow on bytes * 8
        return Math.round(bytes * 8.0 / seconds);
    }

    /**
     * Returns the rate from the subscriber.
     *
     * @return bit/s upstream
     */
    public long upBitsPerSecond() {
        return upBitsPerSecond;
    }

    /**
     * Returns the rate to the subscriber.
     *
     * @return bit/s downstream
     */
    public long downBitsPerSecond() {
        return downBitsPerSecond;
    }

    /**
     * Returns the period the rates are averaged over.
     *
     * @return milliseconds between the two readings
     */
    public long periodMillis() {
        return periodMillis;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Throughput)) {
            return false;
        }
        Throughput that = (Throughput) obj;
        return upBitsPerSecond == that.upBitsPerSecond && downBitsPerSecond == that.downBitsPerSecond
                && periodMillis == that.periodMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(upBitsPerSecond, downBitsPerSecond, periodMillis);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("upBitsPerSecond", upBitsPerSecond)
                .add("downBitsPerSecond", downBitsPerSecond).add("periodMillis", periodMillis).toString();
    }
}
