package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A line group: the unit a DP instance serves. Its subscribers' sessions end
 * on the group's access-concentrator MAC, take addresses from its pools and
 * reach the core through the group's own core address and MAC.
 */
public final class LineGroup {

    private final String name;
    private final MacAddress acMac;
    private final IpAddress coreAddress;
    private final MacAddress coreMac;
    private final List<String> pools;
    private final String qosProfile;
    private final List<AccessLine> lines;
    private final IpAddress coreAddress6;  // null: no IPv6 on the core side

    private LineGroup(Builder builder) {
        this.name = Checks.name(builder.name, "line group");
        this.acMac = checkNotNull(builder.acMac, "line group %s: acMac is null", name);
        checkArgument(Macs.isUnicast(acMac), "line group %s: acMac %s is not unicast", name,
                      Macs.format(acMac));
        this.coreAddress = checkNotNull(builder.coreAddress, "line group %s: coreAddress is null", name);
        this.coreMac = checkNotNull(builder.coreMac, "line group %s: coreMac is null", name);
        checkArgument(Macs.isUnicast(coreMac), "line group %s: coreMac %s is not unicast", name,
                      Macs.format(coreMac));
        this.pools = ImmutableList.copyOf(checkNotNull(builder.pools, "line group %s: pools is null", name));
        pools.forEach(p -> Checks.name(p, "pool"));
        Checks.unique(pools, p -> p, "pool in line group " + name + ":");
        this.qosProfile = Checks.name(builder.qosProfile, "QoS profile");
        this.lines = ImmutableList.copyOf(checkNotNull(builder.lines, "line group %s: lines is null", name));
        this.coreAddress6 = builder.coreAddress6;
        if (coreAddress6 != null) {
            Ipv6.unicastProblem(coreAddress6).ifPresent(p -> {
                throw new IllegalArgumentException("line group " + name + ": coreAddress6 " + p);
            });
        }
    }

    /**
     * Returns a builder; pools and lines default to none.
     *
     * @return new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the group's name.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the MAC address the group's PPPoE sessions end on.
     *
     * @return access-concentrator MAC
     */
    public MacAddress acMac() {
        return acMac;
    }

    /**
     * Returns the group's address on the core subnet.
     *
     * @return core address
     */
    public IpAddress coreAddress() {
        return coreAddress;
    }

    /**
     * Returns the group's IPv6 address on the core subnet6: the router's
     * Neighbor Solicitations for it are steered to the group's instance.
     *
     * @return core IPv6 address, empty when the group has none
     */
    public Optional<IpAddress> coreAddress6() {
        return Optional.ofNullable(coreAddress6);
    }

    /**
     * Returns the group's MAC address on the core side.
     *
     * @return core MAC
     */
    public MacAddress coreMac() {
        return coreMac;
    }

    /**
     * Returns the names of the group's address pools.
     *
     * @return pool names, in configuration order
     */
    public List<String> pools() {
        return pools;
    }

    /**
     * Returns the name of the default QoS profile of the group's subscribers.
     *
     * @return QoS profile name
     */
    public String qosProfile() {
        return qosProfile;
    }

    /**
     * Returns the group's access lines.
     *
     * @return lines, in configuration order
     */
    public List<AccessLine> lines() {
        return lines;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof LineGroup)) {
            return false;
        }
        LineGroup that = (LineGroup) obj;
        return name.equals(that.name) && acMac.equals(that.acMac) && coreAddress.equals(that.coreAddress)
                && coreMac.equals(that.coreMac) && pools.equals(that.pools)
                && qosProfile.equals(that.qosProfile) && lines.equals(that.lines)
                && Objects.equals(coreAddress6, that.coreAddress6);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, acMac, coreAddress, coreMac, pools, qosProfile, lines, coreAddress6);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("name", name).add("acMac", acMac).add("coreAddress", coreAddress)
                .add("coreMac", coreMac).add("pools", pools).add("qosProfile", qosProfile)
                .add("lines", lines).add("coreAddress6", coreAddress6).toString();
    }

    /**
     * Builds a {@link LineGroup}.
     */
    public static final class Builder {
        private String name;
        private MacAddress acMac;
        private IpAddress coreAddress;
        private MacAddress coreMac;
        private List<String> pools = ImmutableList.of();
        private String qosProfile;
        private List<AccessLine> lines = ImmutableList.of();
        private IpAddress coreAddress6;

        private Builder() {
        }

        /**
         * Sets the core IPv6 address.
         *
         * @param coreAddress6 IPv6 unicast address on the core subnet6, or null for none
         * @return this builder
         */
        public Builder coreAddress6(IpAddress coreAddress6) {
            this.coreAddress6 = coreAddress6;
            return this;
        }

        /**
         * Sets the name.
         *
         * @param name group name
         * @return this builder
         */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * Sets the access-concentrator MAC.
         *
         * @param acMac unicast MAC address
         * @return this builder
         */
        public Builder acMac(MacAddress acMac) {
            this.acMac = acMac;
            return this;
        }

        /**
         * Sets the core address.
         *
         * @param coreAddress address on the core subnet
         * @return this builder
         */
        public Builder coreAddress(IpAddress coreAddress) {
            this.coreAddress = coreAddress;
            return this;
        }

        /**
         * Sets the core MAC.
         *
         * @param coreMac unicast MAC address
         * @return this builder
         */
        public Builder coreMac(MacAddress coreMac) {
            this.coreMac = coreMac;
            return this;
        }

        /**
         * Sets the pools.
         *
         * @param pools distinct pool names
         * @return this builder
         */
        public Builder pools(List<String> pools) {
            this.pools = pools;
            return this;
        }

        /**
         * Sets the default QoS profile.
         *
         * @param qosProfile profile name
         * @return this builder
         */
        public Builder qosProfile(String qosProfile) {
            this.qosProfile = qosProfile;
            return this;
        }

        /**
         * Sets the access lines.
         *
         * @param lines lines
         * @return this builder
         */
        public Builder lines(List<AccessLine> lines) {
            this.lines = lines;
            return this;
        }

        /**
         * Builds the line group.
         *
         * @return the line group
         * @throws NullPointerException     if a value is missing
         * @throws IllegalArgumentException if a value is invalid
         */
        public LineGroup build() {
            return new LineGroup(this);
        }
    }
}
