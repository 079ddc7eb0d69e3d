package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import org.onlab.packet.IpAddress;
import org.onlab.packet.MacAddress;
import org.onosproject.net.PortNumber;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A data-plane instance: one bng-dp process on one VF of a server port,
 * serving its line groups.
 */
public final class DpInstance {

    /** Highest instance id: the id is also the VXLAN VNI of its control redirect. */
    public static final int MAX_ID = 0xffffff;
    /** Highest worker lcore id accepted. */
    public static final int MAX_CORE = 1023;

    private final int id;
    private final String name;
    private final String server;
    private final String port;
    private final int vf;
    private final MacAddress mac;
    private final List<Integer> cores;
    private final IpAddress controlAddress;
    private final List<String> lineGroups;
    private final Optional<PortNumber> switchPort;

    private DpInstance(Builder builder) {
        this.id = Checks.inRange(builder.id, 1, MAX_ID, "instance id");
        this.name = Checks.name(builder.name, "instance");
        this.server = Checks.name(builder.server, "server");
        this.port = Checks.name(builder.port, "server port");
        this.vf = Checks.inRange(builder.vf, 0, Vf.MAX_VF, "instance " + name + " VF number");
        this.mac = checkNotNull(builder.mac, "instance %s: mac is null", name);
        checkArgument(Macs.isUnicast(mac), "instance %s: mac %s is not unicast", name, Macs.format(mac));
        this.cores = ImmutableList.copyOf(checkNotNull(builder.cores, "instance %s: cores is null", name));
        checkArgument(!cores.isEmpty(), "instance %s has no worker cores", name);
        cores.forEach(c -> Checks.inRange(c, 0, MAX_CORE, "instance " + name + " core"));
        Checks.unique(cores, c -> c, "core of instance " + name + ":");
        this.controlAddress = checkNotNull(builder.controlAddress, "instance %s: controlAddress is null", name);
        this.lineGroups = ImmutableList.copyOf(
                checkNotNull(builder.lineGroups, "instance %s: lineGroups is null", name));
        lineGroups.forEach(g -> Checks.name(g, "line group"));
        Checks.unique(lineGroups, g -> g, "line group of instance " + name + ":");
        this.switchPort = Optional.ofNullable(builder.switchPort);
        switchPort.ifPresent(p -> checkArgument(
                !p.isLogical() && p.toLong() >= 1 && p.toLong() <= SwitchPort.MAX_PORT_NUMBER,
                "instance %s: switchPort %s is not a physical switch port number", name, p));
    }

    /**
     * Returns a builder; line groups default to none.
     *
     * @return new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the instance's id, also the VNI of its VXLAN control redirect.
     *
     * @return id, 1..2^24-1
     */
    public int id() {
        return id;
    }

    /**
     * Returns the instance's name.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the name of the server the instance runs on.
     *
     * @return server name
     */
    public String server() {
        return server;
    }

    /**
     * Returns the name of the server port whose VF the instance uses.
     *
     * @return server port name
     */
    public String port() {
        return port;
    }

    /**
     * Returns the number of the VF the instance uses.
     *
     * @return VF number
     */
    public int vf() {
        return vf;
    }

    /**
     * Returns the instance's data MAC, its VF's MAC.
     *
     * @return MAC address
     */
    public MacAddress mac() {
        return mac;
    }

    /**
     * Returns the instance's worker lcores.
     *
     * @return distinct lcore ids, in configuration order
     */
    public List<Integer> cores() {
        return cores;
    }

    /**
     * Returns the instance's address on the management network.
     *
     * @return control address
     */
    public IpAddress controlAddress() {
        return controlAddress;
    }

    /**
     * Returns the names of the line groups the instance serves.
     *
     * @return line group names, in configuration order
     */
    public List<String> lineGroups() {
        return lineGroups;
    }

    /**
     * Returns the switch port where the instance's VF is reached, when the
     * configuration states one. Without it the instance is reached through the
     * server switch port its server port is cabled to ({@link Pod#switchPortOf});
     * the emulated pod gives every VF a port of its own (server port number
     * times 100 plus the VF number).
     *
     * @return the stated switch port, or empty
     */
    public Optional<PortNumber> switchPort() {
        return switchPort;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof DpInstance)) {
            return false;
        }
        DpInstance that = (DpInstance) obj;
        return id == that.id && vf == that.vf && name.equals(that.name) && server.equals(that.server)
                && port.equals(that.port) && mac.equals(that.mac) && cores.equals(that.cores)
                && controlAddress.equals(that.controlAddress) && lineGroups.equals(that.lineGroups)
                && switchPort.equals(that.switchPort);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, name, server, port, vf, mac, cores, controlAddress, lineGroups, switchPort);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("id", id).add("name", name).add("server", server).add("port", port)
                .add("vf", vf).add("mac", mac).add("cores", cores)
                .add("controlAddress", controlAddress).add("lineGroups", lineGroups)
                .add("switchPort", switchPort.orElse(null)).toString();
    }

    /**
     * Builds a {@link DpInstance}.
     */
    public static final class Builder {
        private int id;
        private String name;
        private String server;
        private String port;
        private int vf;
        private MacAddress mac;
        private List<Integer> cores;
        private IpAddress controlAddress;
        private List<String> lineGroups = ImmutableList.of();
        private PortNumber switchPort;

        private Builder() {
        }

        /**
         * Sets the id.
         *
         * @param id 1..2^24-1
         * @return this builder
         */
        public Builder id(int id) {
            this.id = id;
            return this;
        }

        /**
         * Sets the name.
         *
         * @param name instance name
         * @return this builder
         */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * Sets the server.
         *
         * @param server server name
         * @return this builder
         */
        public Builder server(String server) {
            this.server = server;
            return this;
        }

        /**
         * Sets the server port.
         *
         * @param port server port name
         * @return this builder
         */
        public Builder port(String port) {
            this.port = port;
            return this;
        }

        /**
         * Sets the VF number.
         *
         * @param vf VF number
         * @return this builder
         */
        public Builder vf(int vf) {
            this.vf = vf;
            return this;
        }

        /**
         * Sets the data MAC.
         *
         * @param mac the VF's MAC address
         * @return this builder
         */
        public Builder mac(MacAddress mac) {
            this.mac = mac;
            return this;
        }

        /**
         * Sets the worker lcores.
         *
         * @param cores at least one distinct lcore id
         * @return this builder
         */
        public Builder cores(List<Integer> cores) {
            this.cores = cores;
            return this;
        }

        /**
         * Sets the control address.
         *
         * @param controlAddress address on the management network
         * @return this builder
         */
        public Builder controlAddress(IpAddress controlAddress) {
            this.controlAddress = controlAddress;
            return this;
        }

        /**
         * Sets the line groups.
         *
         * @param lineGroups distinct line group names
         * @return this builder
         */
        public Builder lineGroups(List<String> lineGroups) {
            this.lineGroups = lineGroups;
            return this;
        }

        /**
         * Sets the switch port where the instance's VF is reached.
         *
         * @param switchPort physical port number, or null for the server
         *                   port's switch port
         * @return this builder
         */
        public Builder switchPort(PortNumber switchPort) {
            this.switchPort = switchPort;
            return this;
        }

        /**
         * Builds the instance.
         *
         * @return the instance
         * @throws NullPointerException     if a value is missing
         * @throws IllegalArgumentException if a value is invalid
         */
        public DpInstance build() {
            return new DpInstance(this);
        }
    }
}
