package org.bngpod.api;

import com.google.common.base.MoreObjects;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * A session's traffic counters as the control plane last reported them (the
 * DP's usage reports, totals since the session came up).
 */
public final class Usage {

    /** No traffic yet. */
    public static final Usage ZERO = new Usage(0, 0, 0, 0);

    private final long upBytes;
    private final long downBytes;
    private final long upPackets;
    private final long downPackets;

    private Usage(long upBytes, long downBytes, long upPackets, long downPackets) {
        checkArgument(upBytes >= 0 && downBytes >= 0 && upPackets >= 0 && downPackets >= 0,
                      "usage counters must not be negative");
        this.upBytes = upBytes;
        this.downBytes = downBytes;
        this.upPackets = upPackets;
        this.downPackets = downPackets;
    }

    /**
     * Returns usage counters.
     *
     * @param upBytes     bytes from the subscriber
     * @param downBytes   bytes to the subscriber
     * @param upPackets   packets from the subscriber
     * @param downPackets packets to the subscriber
     * @return the usage
     * @throws IllegalArgumentException if a counter is negative
     */
    public static Usage of(long upBytes, long downBytes, long upPackets, long downPackets) {
        return new Usage(upBytes, downBytes, upPackets, downPackets);
    }

    /**
     * Returns the bytes from the subscriber.
     *
     * @return upstream bytes
     */
    public long upBytes() {
        return upBytes;
    }

    /**
     * Returns the bytes to the subscriber.
     *
     * @return downstream bytes
     */
    public long downBytes() {
        return downBytes;
    }

    /**
     * Returns the packets from the subscriber.
     *
     * @return upstream packets
     */
    public long upPackets() {
        return upPackets;
    }

    /**
     * Returns the packets to the subscriber.
     *
     * @return downstream packets
     */
    public long downPackets() {
        return downPackets;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Usage)) {
            return false;
        }
        Usage that = (Usage) obj;
        return upBytes == that.upBytes && downBytes == that.downBytes && upPackets == that.upPackets
                && downPackets == that.downPackets;
    }

    @Override
    public int hashCode() {
        return Objects.hash(upBytes, downBytes, upPackets, downPackets);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("upBytes", upBytes).add("downBytes", downBytes)
                .add("upPackets", upPackets).add("downPackets", downPackets).toString();
    }
}
