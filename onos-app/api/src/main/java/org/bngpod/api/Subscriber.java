package org.bngpod.api;

import com.google.common.base.MoreObjects;
import org.onlab.packet.MacAddress;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A subscriber as the pod sees it: who (user name) behind which line (access
 * port, S-tag, C-tag) with which CPE MAC address.
 */
public final class Subscriber {

    private final String username;
    private final String accessPort;
    private final int stag;
    private final int ctag;
    private final MacAddress mac;

    private Subscriber(String username, String accessPort, int stag, int ctag, MacAddress mac) {
        this.username = checkNotNull(username, "username is null");
        this.accessPort = Checks.name(accessPort, "access port");
        checkArgument(VlanRange.isVlanId(stag), "stag %s is not a VLAN id (1..4094)", stag);
        checkArgument(VlanRange.isVlanId(ctag), "ctag %s is not a VLAN id (1..4094)", ctag);
        this.stag = stag;
        this.ctag = ctag;
        this.mac = checkNotNull(mac, "mac is null");
    }

    /**
     * Returns a subscriber.
     *
     * @param username   user name the subscriber authenticated with ("" if none)
     * @param accessPort access port name
     * @param stag       S-tag, 1..4094
     * @param ctag       C-tag, 1..4094
     * @param mac        CPE MAC address
     * @return the subscriber
     */
    public static Subscriber of(String username, String accessPort, int stag, int ctag, MacAddress mac) {
        return new Subscriber(username, accessPort, stag, ctag, mac);
    }

    /**
     * Returns the user name.
     *
     * @return user name, "" if none
     */
    public String username() {
        return username;
    }

    /**
     * Returns the access port the subscriber's line is on.
     *
     * @return access port name
     */
    public String accessPort() {
        return accessPort;
    }

    /**
     * Returns the line's S-tag.
     *
     * @return S-tag
     */
    public int stag() {
        return stag;
    }

    /**
     * Returns the line's C-tag.
     *
     * @return C-tag
     */
    public int ctag() {
        return ctag;
    }

    /**
     * Returns the CPE's MAC address.
     *
     * @return MAC address
     */
    public MacAddress mac() {
        return mac;
    }

    /**
     * Returns the line in the pod's text form, port/S-tag/C-tag.
     *
     * @return e.g. "access1/150/7"
     */
    public String line() {
        return accessPort + "/" + stag + "/" + ctag;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Subscriber)) {
            return false;
        }
        Subscriber that = (Subscriber) obj;
        return stag == that.stag && ctag == that.ctag && username.equals(that.username)
                && accessPort.equals(that.accessPort) && mac.equals(that.mac);
    }

    @Override
    public int hashCode() {
        return Objects.hash(username, accessPort, stag, ctag, mac);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("username", username).add("line", line())
                .add("mac", mac).toString();
    }
}
