package org.bngpod.api;

import com.google.common.base.MoreObjects;
import org.onlab.packet.IpAddress;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The session control plane (accel-ppp-glue) as the DP instances reach it.
 */
public final class ControlPlane {

    /** IANA port of PFCP. */
    public static final int DEFAULT_PFCP_PORT = 8805;
    /** IANA port of VXLAN. */
    public static final int DEFAULT_VXLAN_PORT = 4789;

    private final IpAddress address;
    private final int pfcpPort;
    private final int vxlanPort;

    private ControlPlane(IpAddress address, int pfcpPort, int vxlanPort) {
        this.address = checkNotNull(address, "control plane address is null");
        this.pfcpPort = Checks.inRange(pfcpPort, 1, 65535, "PFCP port");
        this.vxlanPort = Checks.inRange(vxlanPort, 1, 65535, "VXLAN port");
    }

    /**
     * Returns a control plane.
     *
     * @param address   its address on the management network
     * @param pfcpPort  UDP port of PFCP
     * @param vxlanPort UDP port of the VXLAN control redirect
     * @return the control plane
     */
    public static ControlPlane of(IpAddress address, int pfcpPort, int vxlanPort) {
        return new ControlPlane(address, pfcpPort, vxlanPort);
    }

    /**
     * Returns the control plane's address.
     *
     * @return address
     */
    public IpAddress address() {
        return address;
    }

    /**
     * Returns the UDP port of PFCP.
     *
     * @return port
     */
    public int pfcpPort() {
        return pfcpPort;
    }

    /**
     * Returns the UDP port of the VXLAN control redirect.
     *
     * @return port
     */
    public int vxlanPort() {
        return vxlanPort;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof ControlPlane)) {
            return false;
        }
        ControlPlane that = (ControlPlane) obj;
        return pfcpPort == that.pfcpPort && vxlanPort == that.vxlanPort && address.equals(that.address);
    }

    @Override
    public int hashCode() {
        return Objects.hash(address, pfcpPort, vxlanPort);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("address", address).add("pfcpPort", pfcpPort).add("vxlanPort", vxlanPort)
                .toString();
    }
}
