package org.bngpod.api;

import com.google.common.base.MoreObjects;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A session's traffic counters as the control plane last reported them (the
 * DP's usage reports, totals since the session came up), and when the DP
 * measured them, if the control plane said: two such readings give the
 * session's traffic rate ({@link Throughput#between}).
 *
 * <p>The time is kept as seconds and nanoseconds (the store's serializer
 * needs no java.time support).</p>
 */
public final class Usage {

    /** No traffic yet. */
    public static final Usage ZERO = new Usage(0, 0, 0, 0, null);

    private final long upBytes;
    private final long downBytes;
    private final long upPackets;
    private final long downPackets;
    private final boolean measured;
    private final long atSeconds;
    private final int atNanos;
    private final long upDropPackets;
    private final long downDropPackets;
    private final long upDropBytes;
    private final long downDropBytes;
    private final long controlPackets;

    private Usage(long upBytes, long downBytes, long upPackets, long downPackets, Instant at) {
        this(upBytes, downBytes, upPackets, downPackets, at, 0, 0, 0, 0, 0);
    }

    private Usage(long upBytes, long downBytes, long upPackets, long downPackets, Instant at,
                  long upDropPackets, long downDropPackets, long upDropBytes, long downDropBytes,
                  long controlPackets) {
        checkArgument(upBytes >= 0 && downBytes >= 0 && upPackets >= 0 && downPackets >= 0
                              && upDropPackets >= 0 && downDropPackets >= 0 && upDropBytes >= 0
                              && downDropBytes >= 0 && controlPackets >= 0,
                      "usage counters must not be negative");
        this.upDropPackets = upDropPackets;
        this.downDropPackets = downDropPackets;
        this.upDropBytes = upDropBytes;
        this.downDropBytes = downDropBytes;
        this.controlPackets = controlPackets;
        this.upBytes = upBytes;
        this.downBytes = downBytes;
        this.upPackets = upPackets;
        this.downPackets = downPackets;
        this.measured = at != null;
        this.atSeconds = at == null ? 0 : at.getEpochSecond();
        this.atNanos = at == null ? 0 : at.getNano();
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
        return new Usage(upBytes, downBytes, upPackets, downPackets, null);
    }

    /**
     * Returns usage counters the DP measured at a known time.
     *
     * @param upBytes     bytes from the subscriber
     * @param downBytes   bytes to the subscriber
     * @param upPackets   packets from the subscriber
     * @param downPackets packets to the subscriber
     * @param at          when the DP measured them
     * @return the usage
     * @throws IllegalArgumentException if a counter is negative
     */
    public static Usage of(long upBytes, long downBytes, long upPackets, long downPackets, Instant at) {
        return new Usage(upBytes, downBytes, upPackets, downPackets, checkNotNull(at, "at is null"));
    }

    /**
     * Returns these counters with the session's drops and control frames.
     *
     * @param upDropPackets   packets from the subscriber the DP dropped
     * @param downDropPackets packets to the subscriber the DP dropped
     * @param controlPackets  PPPoE/PPP control frames of the session the control plane received and sent
     * @return the usage
     * @throws IllegalArgumentException if a counter is negative
     */
    public Usage withDropsAndControl(long upDropPackets, long downDropPackets, long controlPackets) {
        return new Usage(upBytes, downBytes, upPackets, downPackets, at().orElse(null), upDropPackets,
                         downDropPackets, upDropBytes, downDropBytes, controlPackets);
    }

    /**
     * Returns these counters with the octets of the session's dropped packets.
     *
     * @param upDropBytes   octets of the packets from the subscriber the DP dropped
     * @param downDropBytes octets of the packets to the subscriber the DP dropped
     * @return the usage
     * @throws IllegalArgumentException if a counter is negative
     */
    public Usage withDropBytes(long upDropBytes, long downDropBytes) {
        return new Usage(upBytes, downBytes, upPackets, downPackets, at().orElse(null), upDropPackets,
                         downDropPackets, upDropBytes, downDropBytes, controlPackets);
    }

    /**
     * Returns the packets from the subscriber the DP dropped (anti-spoofing,
     * ACL, policer, no route, TTL), both families.
     *
     * @return upstream dropped packets
     */
    public long upDropPackets() {
        return upDropPackets;
    }

    /**
     * Returns the packets to the subscriber the DP dropped (HQoS, no
     * neighbour, ...), both families.
     *
     * @return downstream dropped packets
     */
    public long downDropPackets() {
        return downDropPackets;
    }

    /**
     * Returns the octets of the packets from the subscriber the DP dropped
     * (IP packets, header included, as {@link #upBytes()}); 0 from a DP or
     * control plane that reports dropped packets only.
     *
     * @return upstream dropped octets
     */
    public long upDropBytes() {
        return upDropBytes;
    }

    /**
     * Returns the octets of the packets to the subscriber the DP dropped
     * (IP packets, header included, as {@link #downBytes()}); 0 from a DP or
     * control plane that reports dropped packets only.
     *
     * @return downstream dropped octets
     */
    public long downDropBytes() {
        return downDropBytes;
    }

    /**
     * Returns the session's PPPoE/PPP control frames the control plane
     * received and sent (from its PADR on; the DP's LCP echo offload not
     * included).
     *
     * @return control packets
     */
    public long controlPackets() {
        return controlPackets;
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

    /**
     * Returns when the DP measured the counters (the end of its last usage
     * report), as the control plane reported it.
     *
     * @return measurement time, or empty if the control plane did not say
     */
    public Optional<Instant> at() {
        return measured ? Optional.of(Instant.ofEpochSecond(atSeconds, atNanos)) : Optional.empty();
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
                && downPackets == that.downPackets && measured == that.measured && atSeconds == that.atSeconds
                && atNanos == that.atNanos && upDropPackets == that.upDropPackets
                && downDropPackets == that.downDropPackets && upDropBytes == that.upDropBytes
                && downDropBytes == that.downDropBytes && controlPackets == that.controlPackets;
    }

    @Override
    public int hashCode() {
        return Objects.hash(upBytes, downBytes, upPackets, downPackets, measured, atSeconds, atNanos, upDropPackets,
                            downDropPackets, upDropBytes, downDropBytes, controlPackets);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).omitNullValues().add("upBytes", upBytes).add("downBytes", downBytes)
                .add("upPackets", upPackets).add("downPackets", downPackets).add("upDropPackets", upDropPackets)
                .add("downDropPackets", downDropPackets).add("upDropBytes", upDropBytes)
                .add("downDropBytes", downDropBytes).add("controlPackets", controlPackets).add("at", at().orElse(null))
                .toString();
    }
}
