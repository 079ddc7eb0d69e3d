package org.bngpod.api;

import com.google.common.base.MoreObjects;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;

import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The pod's side of the core: the uplink port, the transfer subnet the line
 * groups' core addresses live in, and the core router; optionally the IPv6
 * transfer subnet and the router's IPv6 address (absent: no IPv6 on the core side).
 */
public final class CoreUplink {

    private final String uplink;
    private final IpPrefix subnet;
    private final IpAddress routerAddress;
    private final MacAddress routerMac;
    private final VlanId vlan;
    private final IpPrefix subnet6;          // null: no IPv6 on the core side
    private final IpAddress routerAddress6;  // null: none stated

    private CoreUplink(Builder builder) {
        this.uplink = Checks.name(builder.uplink, "uplink port");
        this.subnet = checkNotNull(builder.subnet, "core subnet is null");
        this.routerAddress = checkNotNull(builder.routerAddress, "core router address is null");
        this.routerMac = checkNotNull(builder.routerMac, "core router MAC is null");
        checkArgument(Macs.isUnicast(routerMac), "core router MAC %s is not unicast", Macs.format(routerMac));
        this.vlan = checkNotNull(builder.vlan, "core VLAN is null");
        checkArgument(VlanId.NONE.equals(vlan) || VlanRange.isVlanId(vlan.toShort()),
                      "core VLAN %s is neither untagged nor 1..4094", vlan);
        this.subnet6 = builder.subnet6;
        this.routerAddress6 = builder.routerAddress6;
        if (subnet6 != null) {
            checkArgument(subnet6.isIp6(), "core subnet6 %s is not an IPv6 prefix", subnet6);
        }
        if (routerAddress6 != null) {
            checkArgument(subnet6 != null, "core router address6 %s needs a core subnet6", routerAddress6);
            Ipv6.hostProblem(routerAddress6, subnet6).ifPresent(p -> {
                throw new IllegalArgumentException("core router address6: " + p);
            });
        }
    }

    /**
     * Returns a builder; the VLAN defaults to untagged.
     *
     * @return new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the name of the switch's uplink port.
     *
     * @return port name
     */
    public String uplink() {
        return uplink;
    }

    /**
     * Returns the core transfer subnet.
     *
     * @return subnet
     */
    public IpPrefix subnet() {
        return subnet;
    }

    /**
     * Returns the core router's address, the next hop of the line groups.
     *
     * @return address
     */
    public IpAddress routerAddress() {
        return routerAddress;
    }

    /**
     * Returns the core router's MAC address.
     *
     * @return MAC address
     */
    public MacAddress routerMac() {
        return routerMac;
    }

    /**
     * Returns the core side's VLAN, {@link VlanId#NONE} when untagged.
     *
     * @return VLAN id
     */
    public VlanId vlan() {
        return vlan;
    }

    /**
     * Returns the core's IPv6 transfer subnet, the line groups' core IPv6
     * addresses live in.
     *
     * @return IPv6 subnet, empty when the core side has no IPv6
     */
    public Optional<IpPrefix> subnet6() {
        return Optional.ofNullable(subnet6);
    }

    /**
     * Returns the core router's IPv6 address, the line groups' IPv6 next hop.
     *
     * @return IPv6 address, empty when none is stated
     */
    public Optional<IpAddress> routerAddress6() {
        return Optional.ofNullable(routerAddress6);
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof CoreUplink)) {
            return false;
        }
        CoreUplink that = (CoreUplink) obj;
        return uplink.equals(that.uplink) && subnet.equals(that.subnet)
                && routerAddress.equals(that.routerAddress) && routerMac.equals(that.routerMac)
                && vlan.equals(that.vlan) && Objects.equals(subnet6, that.subnet6)
                && Objects.equals(routerAddress6, that.routerAddress6);
    }

    @Override
    public int hashCode() {
        return Objects.hash(uplink, subnet, routerAddress, routerMac, vlan, subnet6, routerAddress6);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("uplink", uplink).add("subnet", subnet).add("routerAddress", routerAddress)
                .add("routerMac", routerMac).add("vlan", vlan).add("subnet6", subnet6)
                .add("routerAddress6", routerAddress6).toString();
    }

    /**
     * Builds a {@link CoreUplink}.
     */
    public static final class Builder {
        private String uplink;
        private IpPrefix subnet;
        private IpAddress routerAddress;
        private MacAddress routerMac;
        private VlanId vlan = VlanId.NONE;
        private IpPrefix subnet6;
        private IpAddress routerAddress6;

        private Builder() {
        }

        /**
         * Sets the core's IPv6 subnet.
         *
         * @param subnet6 IPv6 prefix, or null for none
         * @return this builder
         */
        public Builder subnet6(IpPrefix subnet6) {
            this.subnet6 = subnet6;
            return this;
        }

        /**
         * Sets the core router's IPv6 address.
         *
         * @param routerAddress6 IPv6 unicast address inside the subnet6, or null for none
         * @return this builder
         */
        public Builder routerAddress6(IpAddress routerAddress6) {
            this.routerAddress6 = routerAddress6;
            return this;
        }

        /**
         * Sets the uplink port name.
         *
         * @param uplink switch port name
         * @return this builder
         */
        public Builder uplink(String uplink) {
            this.uplink = uplink;
            return this;
        }

        /**
         * Sets the core subnet.
         *
         * @param subnet subnet
         * @return this builder
         */
        public Builder subnet(IpPrefix subnet) {
            this.subnet = subnet;
            return this;
        }

        /**
         * Sets the core router's address.
         *
         * @param routerAddress address
         * @return this builder
         */
        public Builder routerAddress(IpAddress routerAddress) {
            this.routerAddress = routerAddress;
            return this;
        }

        /**
         * Sets the core router's MAC address.
         *
         * @param routerMac MAC address
         * @return this builder
         */
        public Builder routerMac(MacAddress routerMac) {
            this.routerMac = routerMac;
            return this;
        }

        /**
         * Sets the core VLAN.
         *
         * @param vlan VLAN id 1..4094, or {@link VlanId#NONE} for untagged
         * @return this builder
         */
        public Builder vlan(VlanId vlan) {
            this.vlan = vlan;
            return this;
        }

        /**
         * Builds the core uplink.
         *
         * @return the core uplink
         * @throws NullPointerException     if a value is missing
         * @throws IllegalArgumentException if a value is invalid
         */
        public CoreUplink build() {
            return new CoreUplink(this);
        }
    }
}
