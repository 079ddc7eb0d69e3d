package org.bngpod.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.collect.ImmutableList;
import org.bngpod.api.AccessLine;
import org.bngpod.api.ControlPlane;
import org.bngpod.api.CoreUplink;
import org.bngpod.api.Ipv6;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Macs;
import org.bngpod.api.Pod;
import org.bngpod.api.Pool;
import org.bngpod.api.PortRole;
import org.bngpod.api.QosProfile;
import org.bngpod.api.Server;
import org.bngpod.api.ServerPort;
import org.bngpod.api.SwitchPort;
import org.bngpod.api.TrafficClass;
import org.bngpod.api.Vf;
import org.bngpod.api.VlanRange;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

import static org.bngpod.app.config.ConfigNode.quote;

/**
 * Reads the {@code pod} configuration (docs/config-formats.md, "ONOS network
 * configuration") into a {@link Pod}.
 *
 * <p>The pod file was validated upstream, but the reader trusts nothing: it
 * checks the shape of every object (required fields, no unknown fields, JSON
 * types), every value (ranges, MAC and IP syntax, prefixes without host bits),
 * the uniqueness of names and ids, and that every reference resolves to an
 * object of the right kind. The first problem found is thrown as an
 * {@link InvalidPodConfigException} naming the field's path. Semantic checks
 * beyond that (overlapping lines, addresses outside subnets, rate budgets)
 * are the pod validator's.</p>
 *
 * <p>A reader reads one configuration; it is not thread-safe.</p>
 */
final class PodConfigReader {

    // Fields of each object: required, then optional.
    private static final ImmutableList<String> POD = ImmutableList.of(
            "name", "deviceId", "ports", "servers", "core", "controlPlane",
            "pools", "qosProfiles", "lineGroups", "instances");
    private static final ImmutableList<String> PORT = ImmutableList.of("name", "number", "role");
    private static final ImmutableList<String> PORT_OPT = ImmutableList.of("tpid", "rate");
    private static final ImmutableList<String> SERVER = ImmutableList.of("name", "ports");
    private static final ImmutableList<String> SERVER_PORT = ImmutableList.of("name", "switchPort", "vfs");
    private static final ImmutableList<String> VF = ImmutableList.of("vf", "mac", "rate");
    private static final ImmutableList<String> CORE = ImmutableList.of(
            "uplink", "subnet", "routerAddress", "routerMac");
    private static final ImmutableList<String> CORE_OPT = ImmutableList.of("vlan", "subnet6", "routerAddress6");
    private static final ImmutableList<String> CONTROL_PLANE = ImmutableList.of("address");
    private static final ImmutableList<String> CONTROL_PLANE_OPT = ImmutableList.of("pfcpPort", "vxlanPort");
    private static final ImmutableList<String> POOL = ImmutableList.of("name", "prefix");
    private static final ImmutableList<String> POOL_OPT = ImmutableList.of("dns");
    private static final ImmutableList<String> PROFILE = ImmutableList.of("name", "downRate", "upPir");
    private static final ImmutableList<String> PROFILE_OPT = ImmutableList.of("upCir", "upDscp", "classes", "downGuaranteed");
    private static final ImmutableList<String> CLASS = ImmutableList.of("tc", "name");
    private static final ImmutableList<String> CLASS_OPT = ImmutableList.of("dscp", "rate", "weights");
    private static final ImmutableList<String> LINE_GROUP = ImmutableList.of(
            "name", "acMac", "coreAddress", "coreMac", "pools", "qosProfile", "lines");
    private static final ImmutableList<String> LINE_GROUP_OPT = ImmutableList.of("coreAddress6");
    private static final ImmutableList<String> LINE = ImmutableList.of("port", "stag");
    private static final ImmutableList<String> LINE_OPT = ImmutableList.of("ctag");
    private static final ImmutableList<String> RANGE = ImmutableList.of("min", "max");
    private static final ImmutableList<String> INSTANCE = ImmutableList.of(
            "id", "name", "server", "port", "vf", "mac", "cores", "controlAddress", "lineGroups");
    private static final ImmutableList<String> INSTANCE_OPT = ImmutableList.of("switchPort");
    private static final ImmutableList<String> NONE = ImmutableList.of();

    private static final Pattern OPENFLOW_DPID = Pattern.compile("[0-9a-f]{16}");

    private final Registry<String, SwitchPort> ports = new Registry<>("switch port");
    private final Registry<Long, SwitchPort> portNumbers = new Registry<>("switch port number");
    private final Registry<String, Server> servers = new Registry<>("server");
    private final Ownership cabling = new Ownership("switch port", "is already cabled to");
    private final Registry<MacAddress, Vf> vfMacs = new Registry<>("VF MAC");
    private final Registry<String, Pool> pools = new Registry<>("pool");
    private final Registry<String, QosProfile> profiles = new Registry<>("QoS profile");
    private final Registry<String, LineGroup> lineGroups = new Registry<>("line group");
    private final Ownership poolOwners = new Ownership("pool", "already belongs to line group");
    private final Registry<String, DpInstance> instances = new Registry<>("instance");
    private final Registry<Long, DpInstance> instanceIds = new Registry<>("instance id");
    private final Ownership vfUsers = new Ownership("VF", "is already used by instance");
    private final Ownership groupOwners = new Ownership("line group", "is already served by instance");
    private final Registry<IpAddress, String> addresses6 = new Registry<>("core IPv6 address");
    private IpPrefix subnet6;  // the core's, once read; null: no IPv6 on the core side

    private PodConfigReader() {
    }

    /**
     * Reads a pod configuration.
     *
     * @param json the JSON of the {@code pod} config
     * @return the pod
     * @throws InvalidPodConfigException if the configuration is invalid
     */
    static Pod read(JsonNode json) {
        return new PodConfigReader().pod(ConfigNode.root(json));
    }

    private Pod pod(ConfigNode node) {
        node.checkObject(POD, NONE);
        String name = node.field("name").name();
        DeviceId deviceId = deviceId(node.field("deviceId"));
        // Referenced objects first: ports, servers, pools, profiles, line groups.
        List<SwitchPort> portList = list(node.field("ports"), this::port);
        List<Server> serverList = list(node.field("servers"), this::server);
        CoreUplink core = core(node.field("core"));
        ControlPlane controlPlane = controlPlane(node.field("controlPlane"));
        List<Pool> poolList = list(node.field("pools"), this::pool);
        List<QosProfile> profileList = list(node.field("qosProfiles"), this::qosProfile);
        List<LineGroup> groupList = list(node.field("lineGroups"), this::lineGroup);
        List<DpInstance> instanceList = list(node.field("instances"), this::instance);
        return node.build(() -> Pod.builder()
                .name(name)
                .deviceId(deviceId)
                .ports(portList)
                .servers(serverList)
                .core(core)
                .controlPlane(controlPlane)
                .pools(poolList)
                .qosProfiles(profileList)
                .lineGroups(groupList)
                .instances(instanceList)
                .build());
    }

    private static DeviceId deviceId(ConfigNode node) {
        String text = node.text();
        DeviceId deviceId;
        try {
            deviceId = DeviceId.deviceId(text);
        } catch (IllegalArgumentException e) {
            throw node.error(quote(text) + " is not a device id (scheme:id)");
        }
        String scheme = deviceId.uri().getScheme();
        if (scheme == null || deviceId.uri().getSchemeSpecificPart() == null
                || deviceId.uri().getSchemeSpecificPart().isEmpty()) {
            throw node.error(quote(text) + " is not a device id (scheme:id)");
        }
        if ("of".equals(scheme) && !OPENFLOW_DPID.matcher(deviceId.uri().getSchemeSpecificPart()).matches()) {
            throw node.error(quote(text) + " is not an OpenFlow device id (of: and 16 lower-case hex digits)");
        }
        return deviceId;
    }

    private SwitchPort port(ConfigNode node) {
        node.checkObject(PORT, PORT_OPT);
        ConfigNode nameNode = node.field("name");
        String name = nameNode.name();
        ConfigNode numberNode = node.field("number");
        long number = numberNode.integer(1, SwitchPort.MAX_PORT_NUMBER, "a switch port number");
        ConfigNode roleNode = node.field("role");
        String roleName = roleNode.text();
        PortRole role = PortRole.fromConfigName(roleName).orElseThrow(() -> roleNode.error(
                quote(roleName) + " is not a port role (access, uplink, server)"));
        ConfigNode tpidNode = node.field("tpid");
        Integer tpid = null;
        if (tpidNode.isPresent()) {
            int value = tpidNode.intValue(0, 0xffff, "a TPID");
            if (!SwitchPort.isOuterTpid(value)) {
                throw tpidNode.error(value + " is not an outer TPID (" + SwitchPort.TPID_8021Q + " = 0x8100 or "
                                             + SwitchPort.TPID_8021AD + " = 0x88a8)");
            }
            tpid = value;
        } else if (role == PortRole.ACCESS) {
            throw tpidNode.error("required field is missing: an access port needs the TPID of its outer tag");
        }
        // The pod file states every access and server port's rate; an uplink's is optional.
        ConfigNode rateNode = node.field("rate");
        if (!rateNode.isPresent() && role != PortRole.UPLINK) {
            throw rateNode.error("required field is missing: an " + role.configName() + " port needs its rate");
        }
        long rate = rateNode.isPresent() ? rateNode.rate() : SwitchPort.RATE_NOT_STATED;
        Integer portTpid = tpid;
        SwitchPort port = node.build(() -> SwitchPort.builder()
                .name(name).number(number).role(role).tpid(portTpid).rate(rate).build());
        ports.add(name, port, nameNode, node);
        portNumbers.add(number, port, numberNode, node);
        return port;
    }

    /**
     * Reads a reference to a switch port of a given role.
     */
    private String switchPort(ConfigNode node, PortRole role) {
        String name = node.name();
        SwitchPort port = ports.get(name);
        if (port == null) {
            throw node.error("unknown switch port " + quote(name));
        }
        if (port.role() != role) {
            throw node.error("switch port " + quote(name) + " is " + article(port.role()) + " port, not "
                                     + article(role) + " port");
        }
        return name;
    }

    private static String article(PortRole role) {
        return (role == PortRole.ACCESS || role == PortRole.UPLINK ? "an " : "a ") + role.configName();
    }

    private Server server(ConfigNode node) {
        node.checkObject(SERVER, NONE);
        ConfigNode nameNode = node.field("name");
        String name = nameNode.name();
        Registry<String, ServerPort> serverPorts = new Registry<>("port of server " + quote(name));
        List<ServerPort> portList = list(node.field("ports"), n -> serverPort(n, name, serverPorts));
        Server server = node.build(() -> Server.of(name, portList));
        servers.add(name, server, nameNode, node);
        return server;
    }

    private ServerPort serverPort(ConfigNode node, String server, Registry<String, ServerPort> serverPorts) {
        node.checkObject(SERVER_PORT, NONE);
        ConfigNode nameNode = node.field("name");
        String name = nameNode.name();
        ConfigNode switchPortNode = node.field("switchPort");
        String switchPort = switchPort(switchPortNode, PortRole.SERVER);
        Registry<Long, Vf> vfs = new Registry<>("VF number on " + server + "/" + name);
        List<Vf> vfList = list(node.field("vfs"), n -> vf(n, vfs));
        ServerPort port = node.build(() -> ServerPort.of(name, switchPort, vfList));
        serverPorts.add(name, port, nameNode, node);
        cabling.take(switchPort, server + "/" + name, switchPortNode, node);
        return port;
    }

    private Vf vf(ConfigNode node, Registry<Long, Vf> vfs) {
        node.checkObject(VF, NONE);
        ConfigNode vfNode = node.field("vf");
        int number = vfNode.intValue(0, Vf.MAX_VF, "a VF number");
        ConfigNode macNode = node.field("mac");
        MacAddress mac = macNode.mac();
        long rate = node.field("rate").rate();
        Vf vf = node.build(() -> Vf.of(number, mac, rate));
        vfs.add((long) number, vf, vfNode, node);
        vfMacs.add(mac, vf, macNode, node);
        return vf;
    }

    private CoreUplink core(ConfigNode node) {
        node.checkObject(CORE, CORE_OPT);
        String uplink = switchPort(node.field("uplink"), PortRole.UPLINK);
        IpPrefix subnet = node.field("subnet").prefix();
        IpAddress routerAddress = node.field("routerAddress").ip();
        MacAddress routerMac = node.field("routerMac").mac();
        ConfigNode vlanNode = node.field("vlan");
        int vlan = vlanNode.isPresent() ? vlanNode.intValue(0, VlanRange.MAX_VLAN, "a core VLAN id (0 = untagged)") : 0;
        ConfigNode subnet6Node = node.field("subnet6");
        if (subnet6Node.isPresent()) {
            subnet6 = subnet6Node.prefix();
            if (!subnet6.isIp6()) {
                throw subnet6Node.error(subnet6 + " is not an IPv6 prefix");
            }
        }
        ConfigNode router6Node = node.field("routerAddress6");
        IpAddress routerAddress6 = router6Node.isPresent() ? address6(router6Node, node) : null;
        return node.build(() -> CoreUplink.builder()
                .uplink(uplink)
                .subnet(subnet)
                .routerAddress(routerAddress)
                .routerMac(routerMac)
                .vlan(vlan == 0 ? VlanId.NONE : VlanId.vlanId((short) vlan))
                .subnet6(subnet6)
                .routerAddress6(routerAddress6)
                .build());
    }

    /**
     * Reads a host's IPv6 address on the core subnet6 (the router's, a line
     * group's core address): IPv6 unicast, inside subnet6, not its
     * Subnet-Router anycast address, and taken once in the pod.
     */
    private IpAddress address6(ConfigNode node, ConfigNode owner) {
        IpAddress address = node.ip();
        if (subnet6 == null) {
            throw node.error(address + " needs core.subnet6 (the core has no IPv6 subnet)");
        }
        Optional<String> problem = Ipv6.hostProblem(address, subnet6);
        if (problem.isPresent()) {
            throw node.error(problem.get());
        }
        addresses6.add(address, owner.path(), node, owner);
        return address;
    }

    private static ControlPlane controlPlane(ConfigNode node) {
        node.checkObject(CONTROL_PLANE, CONTROL_PLANE_OPT);
        IpAddress address = node.field("address").ip();
        int pfcpPort = udpPort(node.field("pfcpPort"), ControlPlane.DEFAULT_PFCP_PORT);
        int vxlanPort = udpPort(node.field("vxlanPort"), ControlPlane.DEFAULT_VXLAN_PORT);
        return node.build(() -> ControlPlane.of(address, pfcpPort, vxlanPort));
    }

    private static int udpPort(ConfigNode node, int defaultPort) {
        return node.isPresent() ? node.intValue(1, 65535, "a UDP port") : defaultPort;
    }

    private Pool pool(ConfigNode node) {
        node.checkObject(POOL, POOL_OPT);
        ConfigNode nameNode = node.field("name");
        String name = nameNode.name();
        IpPrefix prefix = node.field("prefix").prefix();
        List<IpAddress> dns = new ArrayList<>();
        for (ConfigNode server : node.field("dns").optionalElements()) {
            dns.add(server.ip());
        }
        Pool pool = node.build(() -> Pool.of(name, prefix, dns));
        pools.add(name, pool, nameNode, node);
        return pool;
    }

    private QosProfile qosProfile(ConfigNode node) {
        node.checkObject(PROFILE, PROFILE_OPT);
        ConfigNode nameNode = node.field("name");
        String name = nameNode.name();
        long downRate = node.field("downRate").rate();
        long upPir = node.field("upPir").rate();
        ConfigNode upCirNode = node.field("upCir");
        Long upCir = null;
        if (upCirNode.isPresent()) {
            upCir = upCirNode.rate();
            if (upCir > upPir) {
                throw upCirNode.error(upCir + " exceeds upPir " + upPir);
            }
        }
        ConfigNode guaranteedNode = node.field("downGuaranteed");
        Long downGuaranteed = null;
        if (guaranteedNode.isPresent()) {
            downGuaranteed = guaranteedNode.rate();
            if (downGuaranteed > downRate) {
                throw guaranteedNode.error(downGuaranteed + " exceeds downRate " + downRate);
            }
        }
        Long profileGuaranteed = downGuaranteed;
        ConfigNode upDscpNode = node.field("upDscp");
        Integer upDscp = upDscpNode.isPresent() ? upDscpNode.intValue(0, TrafficClass.MAX_DSCP, "a DSCP") : null;
        Registry<Long, TrafficClass> tcs = new Registry<>("traffic class");
        Registry<Long, TrafficClass> dscps = new Registry<>("DSCP");
        List<TrafficClass> classes = new ArrayList<>();
        for (ConfigNode classNode : node.field("classes").optionalElements()) {
            classes.add(trafficClass(classNode, downRate, tcs, dscps));
        }
        Long profileUpCir = upCir;
        QosProfile profile = node.build(() -> QosProfile.builder()
                .name(name)
                .downRate(downRate)
                .upPir(upPir)
                .upCir(profileUpCir)
                .upDscp(upDscp)
                .classes(classes)
                .downGuaranteed(profileGuaranteed)
                .build());
        profiles.add(name, profile, nameNode, node);
        return profile;
    }

    private static TrafficClass trafficClass(ConfigNode node, long downRate,
                                             Registry<Long, TrafficClass> tcs,
                                             Registry<Long, TrafficClass> dscps) {
        node.checkObject(CLASS, CLASS_OPT);
        ConfigNode tcNode = node.field("tc");
        int tc = tcNode.intValue(0, TrafficClass.MAX_TC, "a traffic class");
        String name = node.field("name").name();
        List<ConfigNode> dscpNodes = node.field("dscp").optionalElements();
        List<Integer> dscp = new ArrayList<>();
        for (ConfigNode d : dscpNodes) {
            dscp.add(d.intValue(0, TrafficClass.MAX_DSCP, "a DSCP"));
        }
        ConfigNode rateNode = node.field("rate");
        long rate = rateNode.isPresent() ? rateNode.rate() : downRate;
        ConfigNode weightsNode = node.field("weights");
        List<Integer> weights = new ArrayList<>();
        for (ConfigNode w : weightsNode.optionalElements()) {
            weights.add(w.intValue(1, TrafficClass.MAX_WEIGHT, "a WRR weight"));
        }
        if (!weights.isEmpty() && tc != TrafficClass.BEST_EFFORT_TC) {
            throw weightsNode.error("only the best-effort class " + TrafficClass.BEST_EFFORT_TC + " has weights");
        }
        if (!weights.isEmpty() && weights.size() != TrafficClass.BEST_EFFORT_QUEUES) {
            throw weightsNode.error(weights.size() + " weights, not one for each of the "
                                            + TrafficClass.BEST_EFFORT_QUEUES + " best-effort queues");
        }
        TrafficClass trafficClass = node.build(() -> TrafficClass.builder()
                .tc(tc).name(name).dscp(dscp).rate(rate).weights(weights).build());
        tcs.add((long) tc, trafficClass, tcNode, node);
        for (int i = 0; i < dscp.size(); i++) {
            dscps.add((long) dscp.get(i), trafficClass, dscpNodes.get(i), node);
        }
        return trafficClass;
    }

    private LineGroup lineGroup(ConfigNode node) {
        node.checkObject(LINE_GROUP, LINE_GROUP_OPT);
        ConfigNode nameNode = node.field("name");
        String name = nameNode.name();
        MacAddress acMac = node.field("acMac").mac();
        IpAddress coreAddress = node.field("coreAddress").ip();
        ConfigNode address6Node = node.field("coreAddress6");
        IpAddress coreAddress6 = address6Node.isPresent() ? address6(address6Node, node) : null;
        MacAddress coreMac = node.field("coreMac").mac();
        List<String> poolNames = new ArrayList<>();
        for (ConfigNode poolNode : node.field("pools").elements()) {
            String pool = poolNode.name();
            if (pools.get(pool) == null) {
                throw poolNode.error("unknown pool " + quote(pool));
            }
            poolOwners.take(pool, name, poolNode, node);
            poolNames.add(pool);
        }
        ConfigNode profileNode = node.field("qosProfile");
        String profile = profileNode.name();
        if (profiles.get(profile) == null) {
            throw profileNode.error("unknown QoS profile " + quote(profile));
        }
        List<AccessLine> lines = list(node.field("lines"), this::line);
        LineGroup group = node.build(() -> LineGroup.builder()
                .name(name)
                .acMac(acMac)
                .coreAddress(coreAddress)
                .coreAddress6(coreAddress6)
                .coreMac(coreMac)
                .pools(poolNames)
                .qosProfile(profile)
                .lines(lines)
                .build());
        lineGroups.add(name, group, nameNode, node);
        return group;
    }

    private AccessLine line(ConfigNode node) {
        node.checkObject(LINE, LINE_OPT);
        String port = switchPort(node.field("port"), PortRole.ACCESS);
        VlanRange stag = range(node.field("stag"));
        ConfigNode ctagNode = node.field("ctag");
        VlanRange ctag = ctagNode.isPresent() ? range(ctagNode) : null;
        return node.build(() -> AccessLine.of(port, stag, ctag));
    }

    private static VlanRange range(ConfigNode node) {
        node.checkObject(RANGE, NONE);
        int min = node.field("min").intValue(VlanRange.MIN_VLAN, VlanRange.MAX_VLAN, "a VLAN id");
        int max = node.field("max").intValue(VlanRange.MIN_VLAN, VlanRange.MAX_VLAN, "a VLAN id");
        if (min > max) {
            throw node.error("min " + min + " > max " + max);
        }
        return node.build(() -> VlanRange.of(min, max));
    }

    private DpInstance instance(ConfigNode node) {
        node.checkObject(INSTANCE, INSTANCE_OPT);
        ConfigNode idNode = node.field("id");
        int id = idNode.intValue(1, DpInstance.MAX_ID, "an instance id");
        ConfigNode nameNode = node.field("name");
        String name = nameNode.name();

        ConfigNode serverNode = node.field("server");
        String serverName = serverNode.name();
        Server server = servers.get(serverName);
        if (server == null) {
            throw serverNode.error("unknown server " + quote(serverName));
        }
        ConfigNode portNode = node.field("port");
        String portName = portNode.name();
        ServerPort port = server.port(portName).orElseThrow(() -> portNode.error(
                "server " + quote(serverName) + " has no port " + quote(portName)));
        ConfigNode vfNode = node.field("vf");
        int vfNumber = vfNode.intValue(0, Vf.MAX_VF, "a VF number");
        String vfName = serverName + "/" + portName + " VF " + vfNumber;
        Vf vf = port.vf(vfNumber).orElseThrow(() -> vfNode.error("unknown VF " + vfName));
        ConfigNode macNode = node.field("mac");
        MacAddress mac = macNode.mac();
        if (!mac.equals(vf.mac())) {
            throw macNode.error(Macs.format(mac) + " is not the MAC of " + vfName
                                        + " (" + Macs.format(vf.mac()) + ")");
        }
        vfUsers.take(vfName, name, vfNode, node);

        ConfigNode coresNode = node.field("cores");
        List<ConfigNode> coreNodes = coresNode.elements();
        if (coreNodes.isEmpty()) {
            throw coresNode.error("an instance needs at least one worker core");
        }
        Registry<Long, Integer> coreIds = new Registry<>("core");
        List<Integer> cores = new ArrayList<>();
        for (ConfigNode coreNode : coreNodes) {
            int core = coreNode.intValue(0, DpInstance.MAX_CORE, "an lcore id");
            coreIds.add((long) core, core, coreNode, coreNode);
            cores.add(core);
        }
        IpAddress controlAddress = node.field("controlAddress").ip();

        List<String> groups = new ArrayList<>();
        for (ConfigNode groupNode : node.field("lineGroups").elements()) {
            String group = groupNode.name();
            if (lineGroups.get(group) == null) {
                throw groupNode.error("unknown line group " + quote(group));
            }
            groupOwners.take(group, name, groupNode, node);
            groups.add(group);
        }
        PortNumber switchPort = instanceSwitchPort(node.field("switchPort"));
        DpInstance instance = node.build(() -> DpInstance.builder()
                .id(id)
                .name(name)
                .server(serverName)
                .port(portName)
                .vf(vfNumber)
                .mac(mac)
                .cores(cores)
                .controlAddress(controlAddress)
                .lineGroups(groups)
                .switchPort(switchPort)
                .build());
        instances.add(name, instance, nameNode, node);
        instanceIds.add((long) id, instance, idNode, node);
        return instance;
    }

    /**
     * Reads an instance's optional switch port: a number, which may name no
     * port of the pod (a VF with a port of its own, as in the emulated pod) but
     * never an access or uplink port.
     */
    private PortNumber instanceSwitchPort(ConfigNode node) {
        if (!node.isPresent()) {
            return null;
        }
        long number = node.integer(1, SwitchPort.MAX_PORT_NUMBER, "a switch port number");
        SwitchPort port = portNumbers.get(number);
        if (port != null && port.role() != PortRole.SERVER) {
            throw node.error(number + " is switch port " + quote(port.name()) + ", " + article(port.role())
                                     + " port, not a server port");
        }
        return PortNumber.portNumber(number);
    }

    private static <T> List<T> list(ConfigNode array, Function<ConfigNode, T> reader) {
        List<T> values = new ArrayList<>();
        for (ConfigNode element : array.elements()) {
            values.add(reader.apply(element));
        }
        return values;
    }

    /**
     * Objects of one kind by key, with the path of the object that holds each
     * key, to report duplicates and resolve references.
     *
     * @param <K> key type
     * @param <V> value type
     */
    private static final class Registry<K, V> {
        private final String what;
        private final Map<K, V> values = new HashMap<>();
        private final Map<K, String> paths = new HashMap<>();

        Registry(String what) {
            this.what = what;
        }

        V get(K key) {
            return values.get(key);
        }

        /**
         * Registers a key, which must be new.
         *
         * @param key     key
         * @param value   value
         * @param keyNode node the key was read from, where a duplicate is reported
         * @param owner   node of the object that holds the key
         */
        void add(K key, V value, ConfigNode keyNode, ConfigNode owner) {
            String previous = paths.putIfAbsent(key, owner.path());
            if (previous != null) {
                throw keyNode.error("duplicate " + what + " " + show(key) + " (also in " + previous + ")");
            }
            values.put(key, value);
        }
    }

    private static String show(Object key) {
        if (key instanceof MacAddress) {
            return Macs.format((MacAddress) key);
        }
        return key instanceof String ? quote((String) key) : String.valueOf(key);
    }

    /**
     * Which object has taken each key (a pool bound to a line group, a line
     * group served by an instance...): a key can be taken once.
     */
    private static final class Ownership {
        private final String what;
        private final String relation;
        private final Map<String, String> owners = new HashMap<>();
        private final Map<String, String> paths = new HashMap<>();

        /**
         * Creates an ownership.
         *
         * @param what     what the keys are, e.g. "pool"
         * @param relation how a key relates to its owner, e.g. "already belongs to line group"
         */
        Ownership(String what, String relation) {
            this.what = what;
            this.relation = relation;
        }

        /**
         * Records that an owner takes a key.
         *
         * @param key       key
         * @param owner     owner's name
         * @param keyNode   node the key was read from, where a conflict is reported
         * @param ownerNode node of the owner
         */
        void take(String key, String owner, ConfigNode keyNode, ConfigNode ownerNode) {
            String previous = paths.putIfAbsent(key, ownerNode.path());
            if (previous == null) {
                owners.put(key, owner);
            } else if (previous.equals(ownerNode.path())) {
                throw keyNode.error("duplicate " + what + " " + quote(key));
            } else {
                throw keyNode.error(what + " " + quote(key) + " " + relation + " "
                                            + quote(owners.get(key)) + " (" + previous + ")");
            }
        }
    }
}
