package org.bngpod.api;

import org.onlab.packet.MacAddress;

import java.util.Locale;

/**
 * MAC address predicates.
 */
public final class Macs {

    /** The I/G bit of the first octet: set in group (multicast, broadcast) addresses. */
    private static final int GROUP_BIT = 0x01;

    private Macs() {
    }

    /**
     * Tells whether a MAC address may be an interface's own address: the
     * group bit is clear (so neither multicast nor broadcast) and it is not
     * all zeros.
     *
     * @param mac MAC address
     * @return true if it is a unicast address
     */
    public static boolean isUnicast(MacAddress mac) {
        return mac != null && (mac.toBytes()[0] & GROUP_BIT) == 0 && !MacAddress.ZERO.equals(mac);
    }

    /**
     * Formats a MAC address as the configuration writes it, lower-case
     * aa:bb:cc:dd:ee:ff.
     *
     * @param mac MAC address
     * @return text form
     */
    public static String format(MacAddress mac) {
        return String.valueOf(mac).toLowerCase(Locale.ROOT);
    }
}
