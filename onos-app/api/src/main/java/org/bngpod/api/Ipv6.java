package org.bngpod.api;

import org.onlab.packet.Ip6Address;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;

import java.util.Optional;

/**
 * What the pod's IPv6 values must be: one rule, shared by the model, the
 * network configuration reader and the session checks.
 */
public final class Ipv6 {

    private static final IpPrefix LINK_LOCAL = IpPrefix.valueOf("fe80::/10");

    private Ipv6() {
    }

    /**
     * Returns why an address cannot be a host's own IPv6 unicast address (a
     * core address, the router's, a session's IA_NA address), or empty when
     * it can: it must be IPv6, and neither unspecified, loopback, multicast
     * nor link-local.
     *
     * @param address the address
     * @return the problem, or empty
     */
    public static Optional<String> unicastProblem(IpAddress address) {
        if (address == null) {
            return Optional.of("is null");
        }
        if (!address.isIp6()) {
            return Optional.of(address + " is not an IPv6 address");
        }
        Ip6Address a = address.getIp6Address();
        if (a.isZero()) {
            return Optional.of(address + " is the unspecified address");
        }
        if (a.equals(Ip6Address.valueOf("::1"))) {
            return Optional.of(address + " is the loopback address");
        }
        if (address.isMulticast()) {
            return Optional.of(address + " is a multicast address");
        }
        if (LINK_LOCAL.contains(address)) {
            return Optional.of(address + " is a link-local address");
        }
        return Optional.empty();
    }

    /**
     * Returns why an address cannot be a host's address inside a subnet, or
     * empty when it can: a unicast address ({@link #unicastProblem}) inside
     * the subnet and not its Subnet-Router anycast address (the subnet's own
     * address, RFC 4291 2.6.1).
     *
     * @param address the address
     * @param subnet  the subnet
     * @return the problem, or empty
     */
    public static Optional<String> hostProblem(IpAddress address, IpPrefix subnet) {
        Optional<String> problem = unicastProblem(address);
        if (problem.isPresent()) {
            return problem;
        }
        if (!subnet.contains(address)) {
            return Optional.of(address + " is outside " + subnet);
        }
        if (subnet.prefixLength() < IpPrefix.MAX_INET6_MASK_LENGTH && subnet.address().equals(address)) {
            return Optional.of(address + " is the Subnet-Router anycast address of " + subnet);
        }
        return Optional.empty();
    }
}
