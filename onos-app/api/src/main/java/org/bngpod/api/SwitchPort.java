package org.bngpod.api;

import com.google.common.base.MoreObjects;
import org.onosproject.net.PortNumber;

import java.util.Objects;
import java.util.OptionalInt;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A port of the pod's switch.
 */
public final class SwitchPort {

    /** TPID of an IEEE 802.1Q tag. */
    public static final int TPID_8021Q = 0x8100;
    /** TPID of an IEEE 802.1ad service tag. */
    public static final int TPID_8021AD = 0x88a8;

    /** Highest OpenFlow physical port number. */
    public static final long MAX_PORT_NUMBER = 0xffffff00L;

    private final String name;
    private final PortNumber number;
    private final PortRole role;
    private final Integer tpid;
    /** The rate of an uplink the pod file states no rate for (only an uplink may). */
    public static final long RATE_NOT_STATED = 0;

    private final long rate;

    private SwitchPort(Builder builder) {
        this.name = Checks.name(builder.name, "port");
        checkNotNull(builder.number, "port %s: number is null", name);
        checkArgument(!builder.number.isLogical() && builder.number.toLong() >= 1
                              && builder.number.toLong() <= MAX_PORT_NUMBER,
                      "port %s: %s is not a physical port number", name, builder.number);
        this.number = builder.number;
        this.role = checkNotNull(builder.role, "port %s: role is null", name);
        if (builder.tpid != null) {
            checkArgument(isOuterTpid(builder.tpid), "port %s: 0x%s is not an outer TPID",
                          name, Integer.toHexString(builder.tpid));
        }
        checkArgument(role != PortRole.ACCESS || builder.tpid != null,
                      "access port %s has no TPID", name);
        this.tpid = builder.tpid;
        this.rate = role == PortRole.UPLINK && builder.rate == RATE_NOT_STATED
                ? RATE_NOT_STATED : Checks.positive(builder.rate, "port " + name + " rate");
    }

    /**
     * Tells whether a TPID may be the outer (S-)tag's of an access port:
     * 0x8100 or 0x88a8.
     *
     * @param tpid TPID
     * @return true if it may
     */
    public static boolean isOuterTpid(int tpid) {
        return tpid == TPID_8021Q || tpid == TPID_8021AD;
    }

    /**
     * Returns a builder.
     *
     * @return new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the port's name, e.g. "access1".
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the port's number on the switch.
     *
     * @return port number
     */
    public PortNumber number() {
        return number;
    }

    /**
     * Returns what the port connects to.
     *
     * @return role
     */
    public PortRole role() {
        return role;
    }

    /**
     * Returns the TPID of the outer tag of downstream frames; access ports
     * always have one, other ports may.
     *
     * @return TPID, or empty
     */
    public OptionalInt tpid() {
        return tpid == null ? OptionalInt.empty() : OptionalInt.of(tpid);
    }

    /**
     * Returns the port's rate.
     *
     * @return rate in bit/s; {@link #RATE_NOT_STATED} for an uplink whose rate the pod
     *         file does not state
     */
    public long rate() {
        return rate;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof SwitchPort)) {
            return false;
        }
        SwitchPort that = (SwitchPort) obj;
        return rate == that.rate && name.equals(that.name) && number.equals(that.number)
                && role == that.role && Objects.equals(tpid, that.tpid);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, number, role, tpid, rate);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).omitNullValues()
                .add("name", name)
                .add("number", number)
                .add("role", role)
                .add("tpid", tpid == null ? null : "0x" + Integer.toHexString(tpid))
                .add("rate", rate)
                .toString();
    }

    /**
     * Builds a {@link SwitchPort}.
     */
    public static final class Builder {
        private String name;
        private PortNumber number;
        private PortRole role;
        private Integer tpid;
        private long rate;

        private Builder() {
        }

        /**
         * Sets the name.
         *
         * @param name port name
         * @return this builder
         */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * Sets the port number.
         *
         * @param number port number
         * @return this builder
         */
        public Builder number(PortNumber number) {
            this.number = number;
            return this;
        }

        /**
         * Sets the port number.
         *
         * @param number port number, 1..0xffffff00
         * @return this builder
         */
        public Builder number(long number) {
            this.number = PortNumber.portNumber(number);
            return this;
        }

        /**
         * Sets the role.
         *
         * @param role port role
         * @return this builder
         */
        public Builder role(PortRole role) {
            this.role = role;
            return this;
        }

        /**
         * Sets the outer TPID.
         *
         * @param tpid TPID, or null for none
         * @return this builder
         */
        public Builder tpid(Integer tpid) {
            this.tpid = tpid;
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
         * Builds the port.
         *
         * @return the port
         * @throws NullPointerException     if a value is missing
         * @throws IllegalArgumentException if a value is invalid
         */
        public SwitchPort build() {
            return new SwitchPort(this);
        }
    }
}
