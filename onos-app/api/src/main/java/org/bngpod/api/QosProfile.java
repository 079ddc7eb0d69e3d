package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A subscriber QoS profile: the downstream pipe and its traffic classes, and
 * the upstream trTCM policer and DSCP rewrite. Rates are Ethernet frame rates on
 * the access line.
 */
public final class QosProfile {

    private final String name;
    private final long downRate;
    private final long upPir;
    private final long upCir;
    private final Integer upDscp; // null: upstream packets keep their DSCP
    private final List<TrafficClass> classes;
    private final Long downGuaranteed; // null: not stated

    private QosProfile(Builder builder) {
        this.name = Checks.name(builder.name, "QoS profile");
        this.downRate = Checks.positive(builder.downRate, "profile " + name + " downRate");
        this.upPir = Checks.positive(builder.upPir, "profile " + name + " upPir");
        this.upCir = builder.upCir == null ? upPir : builder.upCir;
        Checks.positive(upCir, "profile " + name + " upCir");
        checkArgument(upCir <= upPir, "profile %s: upCir %s > upPir %s", name, upCir, upPir);
        this.upDscp = builder.upDscp;
        if (upDscp != null) {
            Checks.inRange(upDscp, 0, TrafficClass.MAX_DSCP, "profile " + name + " upDscp");
        }
        this.classes = ImmutableList.copyOf(checkNotNull(builder.classes, "profile %s: classes is null", name));
        this.downGuaranteed = builder.downGuaranteed;
        if (downGuaranteed != null) {
            Checks.positive(downGuaranteed, "profile " + name + " downGuaranteed");
            checkArgument(downGuaranteed <= downRate, "profile %s: downGuaranteed %s > downRate %s",
                          name, downGuaranteed, downRate);
        }
        Checks.unique(classes, TrafficClass::tc, "traffic class in profile " + name + ":");
        Checks.unique(classes.stream().flatMap(c -> c.dscp().stream()).collect(ImmutableList.toImmutableList()),
                      d -> d, "DSCP in profile " + name + ":");
    }

    /**
     * Returns a builder; upCir defaults to upPir, upDscp to keep, classes to none.
     *
     * @return new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the profile's name.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the downstream pipe rate.
     *
     * @return rate in bit/s
     */
    public long downRate() {
        return downRate;
    }

    /**
     * Returns the downstream rate contracted (guaranteed) per session: what
     * placement counts a session of the profile as, at most the pipe rate.
     *
     * @return rate in bit/s, or empty when the configuration does not state one
     */
    public OptionalLong downGuaranteed() {
        return downGuaranteed == null ? OptionalLong.empty() : OptionalLong.of(downGuaranteed);
    }

    /**
     * Returns the upstream policer's peak information rate.
     *
     * @return rate in bit/s
     */
    public long upPir() {
        return upPir;
    }

    /**
     * Returns the upstream policer's committed information rate, at most the PIR.
     *
     * @return rate in bit/s
     */
    public long upCir() {
        return upCir;
    }

    /**
     * Returns the DSCP the datapath writes into every upstream packet.
     *
     * @return DSCP 0..63, or empty when upstream packets keep their own
     */
    public OptionalInt upDscp() {
        return upDscp == null ? OptionalInt.empty() : OptionalInt.of(upDscp);
    }

    /**
     * Returns the traffic classes.
     *
     * @return classes with distinct numbers and disjoint DSCPs, in configuration order
     */
    public List<TrafficClass> classes() {
        return classes;
    }

    /**
     * Returns a traffic class by number.
     *
     * @param tc class number
     * @return the class, or empty
     */
    public Optional<TrafficClass> trafficClass(int tc) {
        return classes.stream().filter(c -> c.tc() == tc).findFirst();
    }

    /**
     * Returns the class a DSCP is mapped to.
     *
     * @param dscp DSCP
     * @return the class, or empty if no class lists the DSCP
     */
    public Optional<TrafficClass> classOfDscp(int dscp) {
        return classes.stream().filter(c -> c.dscp().contains(dscp)).findFirst();
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof QosProfile)) {
            return false;
        }
        QosProfile that = (QosProfile) obj;
        return downRate == that.downRate && upPir == that.upPir && upCir == that.upCir
                && Objects.equals(upDscp, that.upDscp) && name.equals(that.name) && classes.equals(that.classes)
                && Objects.equals(downGuaranteed, that.downGuaranteed);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, downRate, upPir, upCir, upDscp, classes, downGuaranteed);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("name", name).add("downRate", downRate).add("upPir", upPir)
                .add("upCir", upCir).add("upDscp", upDscp).add("classes", classes)
                .add("downGuaranteed", downGuaranteed).toString();
    }

    /**
     * Builds a {@link QosProfile}.
     */
    public static final class Builder {
        private String name;
        private long downRate;
        private long upPir;
        private Long upCir;
        private Integer upDscp;
        private List<TrafficClass> classes = ImmutableList.of();
        private Long downGuaranteed;

        private Builder() {
        }

        /**
         * Sets the downstream rate contracted per session.
         *
         * @param downGuaranteed rate in bit/s (1..downRate), or null for none stated
         * @return this builder
         */
        public Builder downGuaranteed(Long downGuaranteed) {
            this.downGuaranteed = downGuaranteed;
            return this;
        }

        /**
         * Sets the name.
         *
         * @param name profile name
         * @return this builder
         */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * Sets the downstream pipe rate.
         *
         * @param downRate rate in bit/s
         * @return this builder
         */
        public Builder downRate(long downRate) {
            this.downRate = downRate;
            return this;
        }

        /**
         * Sets the upstream peak information rate.
         *
         * @param upPir rate in bit/s
         * @return this builder
         */
        public Builder upPir(long upPir) {
            this.upPir = upPir;
            return this;
        }

        /**
         * Sets the upstream committed information rate.
         *
         * @param upCir rate in bit/s, or null for the PIR
         * @return this builder
         */
        public Builder upCir(Long upCir) {
            this.upCir = upCir;
            return this;
        }

        /**
         * Sets the upstream DSCP rewrite.
         *
         * @param upDscp DSCP 0..63, or null to keep the packets' own
         * @return this builder
         */
        public Builder upDscp(Integer upDscp) {
            this.upDscp = upDscp;
            return this;
        }

        /**
         * Sets the traffic classes.
         *
         * @param classes classes
         * @return this builder
         */
        public Builder classes(List<TrafficClass> classes) {
            this.classes = classes;
            return this;
        }

        /**
         * Builds the profile.
         *
         * @return the profile
         * @throws NullPointerException     if a value is missing
         * @throws IllegalArgumentException if a value is invalid
         */
        public QosProfile build() {
            return new QosProfile(this);
        }
    }
}
