package org.bngpod.api;

import com.google.common.base.MoreObjects;
import org.onlab.packet.MacAddress;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * An SR-IOV virtual function of a server port: the data interface of one DP
 * instance.
 */
public final class Vf {

    /** Highest VF number accepted. */
    public static final int MAX_VF = 65535;

    private final int vf;
    private final MacAddress mac;
    private final long rate;

    private Vf(int vf, MacAddress mac, long rate) {
        this.vf = Checks.inRange(vf, 0, MAX_VF, "VF number");
        this.mac = checkNotNull(mac, "VF %s: mac is null", vf);
        checkArgument(Macs.isUnicast(mac), "VF %s: %s is not a unicast MAC address", vf, Macs.format(mac));
        this.rate = Checks.positive(rate, "VF " + vf + " rate");
    }

    /**
     * Returns a VF.
     *
     * @param vf   VF number on its port, 0..65535
     * @param mac  the VF's (unicast) MAC address
     * @param rate the VF's share of the port, bit/s
     * @return the VF
     */
    public static Vf of(int vf, MacAddress mac, long rate) {
        return new Vf(vf, mac, rate);
    }

    /**
     * Returns the VF number on its port.
     *
     * @return VF number
     */
    public int vf() {
        return vf;
    }

    /**
     * Returns the VF's MAC address.
     *
     * @return MAC address
     */
    public MacAddress mac() {
        return mac;
    }

    /**
     * Returns the VF's share of the port rate (the HQoS port rate of its
     * instance).
     *
     * @return rate in bit/s
     */
    public long rate() {
        return rate;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Vf)) {
            return false;
        }
        Vf that = (Vf) obj;
        return vf == that.vf && rate == that.rate && mac.equals(that.mac);
    }

    @Override
    public int hashCode() {
        return Objects.hash(vf, mac, rate);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("vf", vf).add("mac", mac).add("rate", rate).toString();
    }
}
