package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A downstream traffic class of a QoS profile: which DSCPs it carries and its
 * rate. Classes 0..11 are strict priority; class 12 is best effort, whose four
 * queues share it by WRR weights.
 */
public final class TrafficClass {

    /** Highest traffic class. */
    public static final int MAX_TC = 12;
    /** The best-effort class. */
    public static final int BEST_EFFORT_TC = 12;
    /** Number of queues, and so of WRR weights, of the best-effort class. */
    public static final int BEST_EFFORT_QUEUES = 4;
    /** Highest DSCP. */
    public static final int MAX_DSCP = 63;
    /** Highest WRR weight. */
    public static final int MAX_WEIGHT = 255;

    private final int tc;
    private final String name;
    private final List<Integer> dscp;
    private final long rate;
    private final List<Integer> weights;

    private TrafficClass(Builder builder) {
        this.tc = Checks.inRange(builder.tc, 0, MAX_TC, "traffic class");
        this.name = Checks.name(builder.name, "traffic class");
        this.dscp = ImmutableList.copyOf(checkNotNull(builder.dscp, "class %s: dscp is null", tc));
        this.dscp.forEach(d -> Checks.inRange(d, 0, MAX_DSCP, "class " + tc + " DSCP"));
        Checks.unique(this.dscp, d -> d, "DSCP in class " + tc + ":");
        this.rate = Checks.positive(builder.rate, "class " + tc + " rate");
        this.weights = ImmutableList.copyOf(checkNotNull(builder.weights, "class %s: weights is null", tc));
        if (!weights.isEmpty()) {
            checkArgument(tc == BEST_EFFORT_TC, "class %s: only the best-effort class %s has weights",
                          tc, BEST_EFFORT_TC);
            checkArgument(weights.size() == BEST_EFFORT_QUEUES, "class %s: %s weights, not %s",
                          tc, weights.size(), BEST_EFFORT_QUEUES);
            weights.forEach(w -> Checks.inRange(w, 1, MAX_WEIGHT, "class " + tc + " weight"));
        }
    }

    /**
     * Returns a builder; DSCPs and weights default to none.
     *
     * @return new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the traffic class number, 0..12.
     *
     * @return traffic class
     */
    public int tc() {
        return tc;
    }

    /**
     * Returns the class's name, e.g. "voice".
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the DSCPs mapped to the class.
     *
     * @return DSCPs, in configuration order
     */
    public List<Integer> dscp() {
        return dscp;
    }

    /**
     * Returns the class's rate.
     *
     * @return rate in bit/s
     */
    public long rate() {
        return rate;
    }

    /**
     * Returns the WRR weights of the best-effort queues: four weights for the
     * best-effort class, or none.
     *
     * @return weights
     */
    public List<Integer> weights() {
        return weights;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof TrafficClass)) {
            return false;
        }
        TrafficClass that = (TrafficClass) obj;
        return tc == that.tc && rate == that.rate && name.equals(that.name) && dscp.equals(that.dscp)
                && weights.equals(that.weights);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tc, name, dscp, rate, weights);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("tc", tc).add("name", name).add("dscp", dscp).add("rate", rate)
                .add("weights", weights).toString();
    }

    /**
     * Builds a {@link TrafficClass}.
     */
    public static final class Builder {
        private int tc;
        private String name;
        private List<Integer> dscp = ImmutableList.of();
        private long rate;
        private List<Integer> weights = ImmutableList.of();

        private Builder() {
        }

        /**
         * Sets the traffic class number.
         *
         * @param tc 0..12
         * @return this builder
         */
        public Builder tc(int tc) {
            this.tc = tc;
            return this;
        }

        /**
         * Sets the name.
         *
         * @param name class name
         * @return this builder
         */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * Sets the DSCPs.
         *
         * @param dscp distinct DSCPs 0..63
         * @return this builder
         */
        public Builder dscp(List<Integer> dscp) {
            this.dscp = dscp;
            return this;
        }

        /**
         * Sets the rate.
         *
         * @param rate rate in bit/s
         * @return this builder
         */
        public Builder rate(long rate) {
            this.rate = rate;
            return this;
        }

        /**
         * Sets the WRR weights.
         *
         * @param weights none, or four weights 1..255 for the best-effort class
         * @return this builder
         */
        public Builder weights(List<Integer> weights) {
            this.weights = weights;
            return this;
        }

        /**
         * Builds the traffic class.
         *
         * @return the traffic class
         * @throws NullPointerException     if a value is missing
         * @throws IllegalArgumentException if a value is invalid
         */
        public TrafficClass build() {
            return new TrafficClass(this);
        }
    }
}
