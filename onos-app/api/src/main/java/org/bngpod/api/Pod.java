package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import org.onlab.packet.IpAddress;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A whole pod: one switch, its servers, the core and control plane, and the
 * pools, QoS profiles, line groups and DP instances.
 *
 * <p>A pod is consistent by construction: names are unique within their kind,
 * instance ids and switch port numbers are unique, and every reference
 * resolves to an object of the right kind (a line's port is an access port, a
 * server port is cabled to a server switch port, an instance's MAC is its
 * VF's). A line group is served by at most one instance, a VF used by at most
 * one instance, a pool bound to at most one line group. Whether the pod makes
 * sense beyond that (overlapping lines, addresses outside subnets, rates) is
 * the pod validator's business upstream.</p>
 */
public final class Pod {

    private final String name;
    private final DeviceId deviceId;
    private final List<SwitchPort> ports;
    private final List<Server> servers;
    private final CoreUplink core;
    private final ControlPlane controlPlane;
    private final List<Pool> pools;
    private final List<QosProfile> qosProfiles;
    private final List<LineGroup> lineGroups;
    private final List<DpInstance> instances;

    private final Map<String, SwitchPort> portsByName;
    private final Map<PortNumber, SwitchPort> portsByNumber;
    private final Map<String, Server> serversByName;
    private final Map<String, Pool> poolsByName;
    private final Map<String, QosProfile> profilesByName;
    private final Map<String, LineGroup> groupsByName;
    private final Map<String, DpInstance> instancesByName;
    private final Map<Integer, DpInstance> instancesById;
    private final Map<String, DpInstance> instancesByGroup;

    private Pod(Builder b) {
        this.name = Checks.name(b.name, "pod");
        this.deviceId = checkNotNull(b.deviceId, "pod %s: deviceId is null", name);
        this.ports = ImmutableList.copyOf(b.ports);
        this.servers = ImmutableList.copyOf(b.servers);
        this.core = checkNotNull(b.core, "pod %s: core is null", name);
        this.controlPlane = checkNotNull(b.controlPlane, "pod %s: controlPlane is null", name);
        this.pools = ImmutableList.copyOf(b.pools);
        this.qosProfiles = ImmutableList.copyOf(b.qosProfiles);
        this.lineGroups = ImmutableList.copyOf(b.lineGroups);
        this.instances = ImmutableList.copyOf(b.instances);

        portsByName = index(ports, SwitchPort::name, "switch port");
        portsByNumber = index(ports, SwitchPort::number, "switch port number");
        serversByName = index(servers, Server::name, "server");
        poolsByName = index(pools, Pool::name, "pool");
        profilesByName = index(qosProfiles, QosProfile::name, "QoS profile");
        groupsByName = index(lineGroups, LineGroup::name, "line group");
        instancesByName = index(instances, DpInstance::name, "instance");
        instancesById = index(instances, DpInstance::id, "instance id");

        checkSwitchSide();
        checkLineGroups();
        instancesByGroup = checkInstances();
    }

    private static <K, V> Map<K, V> index(List<V> values, Function<V, K> key, String what) {
        Checks.unique(values, key, what);
        ImmutableMap.Builder<K, V> map = ImmutableMap.builder();
        values.forEach(v -> map.put(key.apply(v), v));
        return map.build();
    }

    private void requireRole(String port, PortRole role, String user) {
        SwitchPort p = portsByName.get(port);
        checkArgument(p != null, "%s: unknown switch port %s", user, port);
        checkArgument(p.role() == role, "%s: switch port %s is not %s %s port", user, port,
                      role == PortRole.SERVER ? "a" : "an", role.configName());
    }

    private void checkSwitchSide() {
        requireRole(core.uplink(), PortRole.UPLINK, "core");
        Map<String, String> cabled = new HashMap<>();
        Map<Object, String> macs = new HashMap<>();
        for (Server server : servers) {
            for (ServerPort port : server.ports()) {
                String where = server.name() + "/" + port.name();
                requireRole(port.switchPort(), PortRole.SERVER, where);
                String other = cabled.putIfAbsent(port.switchPort(), where);
                checkArgument(other == null, "%s: switch port %s is already cabled to %s",
                              where, port.switchPort(), other);
                for (Vf vf : port.vfs()) {
                    String vfName = where + " VF " + vf.vf();
                    String prev = macs.putIfAbsent(vf.mac(), vfName);
                    checkArgument(prev == null, "%s: MAC %s is also %s's", vfName, Macs.format(vf.mac()), prev);
                }
            }
        }
    }

    private void checkLineGroups() {
        Map<String, String> poolOwners = new HashMap<>();
        Map<IpAddress, String> addresses6 = new HashMap<>();
        core.routerAddress6().ifPresent(a -> addresses6.put(a, "the core router"));
        for (LineGroup group : lineGroups) {
            String where = "line group " + group.name();
            if (group.coreAddress6().isPresent()) {
                IpAddress a6 = group.coreAddress6().get();
                checkArgument(core.subnet6().isPresent(), "%s: coreAddress6 %s needs a core subnet6", where, a6);
                Ipv6.hostProblem(a6, core.subnet6().get()).ifPresent(p -> {
                    throw new IllegalArgumentException(where + ": coreAddress6 " + p);
                });
                String other = addresses6.putIfAbsent(a6, where);
                checkArgument(other == null, "%s: coreAddress6 %s is also %s's", where, a6, other);
            }
            for (String pool : group.pools()) {
                checkArgument(poolsByName.containsKey(pool), "%s: unknown pool %s", where, pool);
                String other = poolOwners.putIfAbsent(pool, group.name());
                checkArgument(other == null, "%s: pool %s already belongs to line group %s",
                              where, pool, other);
            }
            checkArgument(profilesByName.containsKey(group.qosProfile()), "%s: unknown QoS profile %s",
                          where, group.qosProfile());
            group.lines().forEach(line -> requireRole(line.port(), PortRole.ACCESS, where));
        }
    }

    private Map<String, DpInstance> checkInstances() {
        Map<String, DpInstance> byGroup = new HashMap<>();
        Map<String, String> vfUsers = new HashMap<>();
        for (DpInstance instance : instances) {
            String where = "instance " + instance.name();
            Server server = serversByName.get(instance.server());
            checkArgument(server != null, "%s: unknown server %s", where, instance.server());
            ServerPort port = server.port(instance.port()).orElse(null);
            checkArgument(port != null, "%s: server %s has no port %s", where, server.name(), instance.port());
            Vf vf = port.vf(instance.vf()).orElse(null);
            String vfName = server.name() + "/" + port.name() + " VF " + instance.vf();
            checkArgument(vf != null, "%s: unknown VF %s", where, vfName);
            checkArgument(vf.mac().equals(instance.mac()), "%s: mac %s is not the MAC %s of %s",
                          where, Macs.format(instance.mac()), Macs.format(vf.mac()), vfName);
            String other = vfUsers.putIfAbsent(vfName, instance.name());
            checkArgument(other == null, "%s: %s is already used by instance %s", where, vfName, other);
            for (String group : instance.lineGroups()) {
                checkArgument(groupsByName.containsKey(group), "%s: unknown line group %s", where, group);
                DpInstance owner = byGroup.putIfAbsent(group, instance);
                checkArgument(owner == null, "%s: line group %s is already served by instance %s",
                              where, group, owner == null ? null : owner.name());
            }
        }
        return ImmutableMap.copyOf(byGroup);
    }

    /**
     * Returns a builder; every list defaults to empty.
     *
     * @return new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the pod's name.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the ONOS device id of the pod's switch.
     *
     * @return device id
     */
    public DeviceId deviceId() {
        return deviceId;
    }

    /**
     * Returns the switch's ports.
     *
     * @return ports, in configuration order
     */
    public List<SwitchPort> ports() {
        return ports;
    }

    /**
     * Returns the servers.
     *
     * @return servers, in configuration order
     */
    public List<Server> servers() {
        return servers;
    }

    /**
     * Returns the core uplink.
     *
     * @return core uplink
     */
    public CoreUplink core() {
        return core;
    }

    /**
     * Returns the control plane.
     *
     * @return control plane
     */
    public ControlPlane controlPlane() {
        return controlPlane;
    }

    /**
     * Returns the address pools.
     *
     * @return pools, in configuration order
     */
    public List<Pool> pools() {
        return pools;
    }

    /**
     * Returns the QoS profiles.
     *
     * @return profiles, in configuration order
     */
    public List<QosProfile> qosProfiles() {
        return qosProfiles;
    }

    /**
     * Returns the line groups.
     *
     * @return line groups, in configuration order
     */
    public List<LineGroup> lineGroups() {
        return lineGroups;
    }

    /**
     * Returns the DP instances.
     *
     * @return instances, in configuration order
     */
    public List<DpInstance> instances() {
        return instances;
    }

    /**
     * Returns a switch port by name.
     *
     * @param name port name
     * @return the port, or empty
     */
    public Optional<SwitchPort> port(String name) {
        return Optional.ofNullable(portsByName.get(name));
    }

    /**
     * Returns a switch port by number.
     *
     * @param number port number
     * @return the port, or empty
     */
    public Optional<SwitchPort> port(PortNumber number) {
        return Optional.ofNullable(portsByNumber.get(number));
    }

    /**
     * Returns the switch ports of a role.
     *
     * @param role port role
     * @return ports of the role, in configuration order
     */
    public List<SwitchPort> ports(PortRole role) {
        return ports.stream().filter(p -> p.role() == role).collect(ImmutableList.toImmutableList());
    }

    /**
     * Returns a server by name.
     *
     * @param name server name
     * @return the server, or empty
     */
    public Optional<Server> server(String name) {
        return Optional.ofNullable(serversByName.get(name));
    }

    /**
     * Returns a pool by name.
     *
     * @param name pool name
     * @return the pool, or empty
     */
    public Optional<Pool> pool(String name) {
        return Optional.ofNullable(poolsByName.get(name));
    }

    /**
     * Returns a QoS profile by name.
     *
     * @param name profile name
     * @return the profile, or empty
     */
    public Optional<QosProfile> qosProfile(String name) {
        return Optional.ofNullable(profilesByName.get(name));
    }

    /**
     * Returns a line group by name.
     *
     * @param name line group name
     * @return the line group, or empty
     */
    public Optional<LineGroup> lineGroup(String name) {
        return Optional.ofNullable(groupsByName.get(name));
    }

    /**
     * Returns an instance by name.
     *
     * @param name instance name
     * @return the instance, or empty
     */
    public Optional<DpInstance> instance(String name) {
        return Optional.ofNullable(instancesByName.get(name));
    }

    /**
     * Returns an instance by id.
     *
     * @param id instance id
     * @return the instance, or empty
     */
    public Optional<DpInstance> instance(int id) {
        return Optional.ofNullable(instancesById.get(id));
    }

    /**
     * Returns the instance that serves a line group.
     *
     * @param lineGroup line group name
     * @return the instance, or empty if no instance serves the group
     */
    public Optional<DpInstance> instanceOf(String lineGroup) {
        return Optional.ofNullable(instancesByGroup.get(lineGroup));
    }

    /**
     * Returns the line groups an instance of this pod serves.
     *
     * @param instance instance of this pod
     * @return its line groups, in the instance's order
     */
    public List<LineGroup> lineGroupsOf(DpInstance instance) {
        return instance.lineGroups().stream().map(groupsByName::get).collect(ImmutableList.toImmutableList());
    }

    /**
     * Returns the pools a line group of this pod takes addresses from.
     *
     * @param group line group of this pod
     * @return its pools, in the group's order
     */
    public List<Pool> poolsOf(LineGroup group) {
        return group.pools().stream().map(poolsByName::get).collect(ImmutableList.toImmutableList());
    }

    /**
     * Returns the VF an instance of this pod uses.
     *
     * @param instance instance of this pod
     * @return its VF
     */
    public Vf vfOf(DpInstance instance) {
        return serversByName.get(instance.server()).port(instance.port())
                .flatMap(p -> p.vf(instance.vf())).orElseThrow();
    }

    /**
     * Returns the switch port an instance of this pod is reached through.
     *
     * @param instance instance of this pod
     * @return the server switch port cabled to the instance's server port
     */
    public SwitchPort switchPortOf(DpInstance instance) {
        ServerPort port = serversByName.get(instance.server()).port(instance.port()).orElseThrow();
        return portsByName.get(port.switchPort());
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Pod)) {
            return false;
        }
        Pod that = (Pod) obj;
        return name.equals(that.name) && deviceId.equals(that.deviceId) && ports.equals(that.ports)
                && servers.equals(that.servers) && core.equals(that.core)
                && controlPlane.equals(that.controlPlane) && pools.equals(that.pools)
                && qosProfiles.equals(that.qosProfiles) && lineGroups.equals(that.lineGroups)
                && instances.equals(that.instances);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, deviceId, ports, servers, core, controlPlane, pools, qosProfiles,
                            lineGroups, instances);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("name", name).add("deviceId", deviceId).add("ports", ports)
                .add("servers", servers).add("core", core).add("controlPlane", controlPlane)
                .add("pools", pools).add("qosProfiles", qosProfiles).add("lineGroups", lineGroups)
                .add("instances", instances).toString();
    }

    /**
     * Builds a {@link Pod}.
     */
    public static final class Builder {
        private String name;
        private DeviceId deviceId;
        private List<SwitchPort> ports = ImmutableList.of();
        private List<Server> servers = ImmutableList.of();
        private CoreUplink core;
        private ControlPlane controlPlane;
        private List<Pool> pools = ImmutableList.of();
        private List<QosProfile> qosProfiles = ImmutableList.of();
        private List<LineGroup> lineGroups = ImmutableList.of();
        private List<DpInstance> instances = ImmutableList.of();

        private Builder() {
        }

        /**
         * Sets the name.
         *
         * @param name pod name
         * @return this builder
         */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /**
         * Sets the switch's device id.
         *
         * @param deviceId device id
         * @return this builder
         */
        public Builder deviceId(DeviceId deviceId) {
            this.deviceId = deviceId;
            return this;
        }

        /**
         * Sets the switch ports.
         *
         * @param ports ports
         * @return this builder
         */
        public Builder ports(List<SwitchPort> ports) {
            this.ports = ports;
            return this;
        }

        /**
         * Sets the servers.
         *
         * @param servers servers
         * @return this builder
         */
        public Builder servers(List<Server> servers) {
            this.servers = servers;
            return this;
        }

        /**
         * Sets the core uplink.
         *
         * @param core core uplink
         * @return this builder
         */
        public Builder core(CoreUplink core) {
            this.core = core;
            return this;
        }

        /**
         * Sets the control plane.
         *
         * @param controlPlane control plane
         * @return this builder
         */
        public Builder controlPlane(ControlPlane controlPlane) {
            this.controlPlane = controlPlane;
            return this;
        }

        /**
         * Sets the pools.
         *
         * @param pools pools
         * @return this builder
         */
        public Builder pools(List<Pool> pools) {
            this.pools = pools;
            return this;
        }

        /**
         * Sets the QoS profiles.
         *
         * @param qosProfiles profiles
         * @return this builder
         */
        public Builder qosProfiles(List<QosProfile> qosProfiles) {
            this.qosProfiles = qosProfiles;
            return this;
        }

        /**
         * Sets the line groups.
         *
         * @param lineGroups line groups
         * @return this builder
         */
        public Builder lineGroups(List<LineGroup> lineGroups) {
            this.lineGroups = lineGroups;
            return this;
        }

        /**
         * Sets the instances.
         *
         * @param instances instances
         * @return this builder
         */
        public Builder instances(List<DpInstance> instances) {
            this.instances = instances;
            return this;
        }

        /**
         * Builds the pod.
         *
         * @return the pod
         * @throws NullPointerException     if a value is missing
         * @throws IllegalArgumentException if a value is invalid or a reference
         *                                  does not resolve
         */
        public Pod build() {
            return new Pod(this);
        }
    }
}
