package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A physical NIC port of a server, cabled to a switch port, with its VFs.
 */
public final class ServerPort {

    private final String name;
    private final String switchPort;
    private final List<Vf> vfs;

    private ServerPort(String name, String switchPort, List<Vf> vfs) {
        this.name = Checks.name(name, "server port");
        this.switchPort = Checks.name(switchPort, "switch port");
        this.vfs = ImmutableList.copyOf(vfs);
        Checks.unique(this.vfs, Vf::vf, "VF number on port " + name + ":");
    }

    /**
     * Returns a server port.
     *
     * @param name       port name on its server, e.g. "p1"
     * @param switchPort name of the switch port it is cabled to
     * @param vfs        its VFs, with distinct VF numbers
     * @return the server port
     */
    public static ServerPort of(String name, String switchPort, List<Vf> vfs) {
        return new ServerPort(name, switchPort, vfs);
    }

    /**
     * Returns the port's name on its server.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the name of the switch port the port is cabled to.
     *
     * @return switch port name
     */
    public String switchPort() {
        return switchPort;
    }

    /**
     * Returns the port's VFs.
     *
     * @return VFs, in configuration order
     */
    public List<Vf> vfs() {
        return vfs;
    }

    /**
     * Returns a VF by number.
     *
     * @param vf VF number
     * @return the VF, or empty if the port has no such VF
     */
    public Optional<Vf> vf(int vf) {
        return vfs.stream().filter(v -> v.vf() == vf).findFirst();
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof ServerPort)) {
            return false;
        }
        ServerPort that = (ServerPort) obj;
        return name.equals(that.name) && switchPort.equals(that.switchPort) && vfs.equals(that.vfs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, switchPort, vfs);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("name", name).add("switchPort", switchPort).add("vfs", vfs).toString();
    }
}
