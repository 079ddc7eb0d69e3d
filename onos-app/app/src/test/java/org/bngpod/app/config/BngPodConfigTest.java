package org.bngpod.app.config;

import org.onosproject.net.PortNumber;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableList;
import org.bngpod.api.AccessLine;
import org.bngpod.api.ControlPlane;
import org.bngpod.api.CoreUplink;
import org.bngpod.api.DpInstance;
import org.bngpod.api.LineGroup;
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
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;

import java.util.Optional;
import java.util.OptionalInt;

import static org.bngpod.app.config.NetcfgFixtures.APP_ID;
import static org.bngpod.app.config.NetcfgFixtures.config;
import static org.bngpod.app.config.NetcfgFixtures.fixturePod;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

/**
 * Tests of {@link BngPodConfig} on valid configurations.
 */
public class BngPodConfigTest {

    private final NetcfgFixtures.RecordingDelegate delegate = new NetcfgFixtures.RecordingDelegate();

    private static IpAddress ip(String text) {
        return IpAddress.valueOf(text);
    }

    private static MacAddress mac(String text) {
        return MacAddress.valueOf(text);
    }

    /** The pod the fixture describes, built by hand. */
    private static Pod expectedFixturePod() {
        Vf vf1 = Vf.of(1, mac("02:00:00:00:01:01"), 12_500_000_000L);
        Vf vf2 = Vf.of(2, mac("02:00:00:00:01:02"), 12_500_000_000L);
        return Pod.builder()
                .name("lab")
                .deviceId(DeviceId.deviceId("of:0000000000000001"))
                .ports(ImmutableList.of(
                        SwitchPort.builder().name("access1").number(1).role(PortRole.ACCESS).tpid(0x8100)
                                .rate(10_000_000_000L).build(),
                        SwitchPort.builder().name("access3").number(3).role(PortRole.ACCESS).tpid(0x88a8)
                                .rate(10_000_000_000L).build(),
                        SwitchPort.builder().name("uplink1").number(10).role(PortRole.UPLINK)
                                .rate(100_000_000_000L).build(),
                        SwitchPort.builder().name("srv1").number(49).role(PortRole.SERVER)
                                .rate(25_000_000_000L).build()))
                .servers(ImmutableList.of(Server.of("server1", ImmutableList.of(
                        ServerPort.of("p1", "srv1", ImmutableList.of(vf1, vf2))))))
                .core(CoreUplink.builder()
                              .uplink("uplink1")
                              .subnet(IpPrefix.valueOf("100.64.0.0/24"))
                              .routerAddress(ip("100.64.0.1"))
                              .routerMac(mac("02:ee:00:00:00:01"))
                              .vlan(VlanId.NONE)
                              .build())
                .controlPlane(ControlPlane.of(ip("10.200.0.1"), 8805, 4789))
                .pools(ImmutableList.of(
                        Pool.of("pool1", IpPrefix.valueOf("100.80.0.0/22"), ImmutableList.of(ip("198.51.100.53"))),
                        Pool.of("pool2", IpPrefix.valueOf("100.80.4.0/22"),
                                ImmutableList.of(ip("198.51.100.53"), ip("198.51.100.54")))))
                .qosProfiles(ImmutableList.of(
                        QosProfile.builder().name("gold").downRate(100_000_000L).upPir(50_000_000L)
                                .upCir(20_000_000L)
                                .classes(ImmutableList.of(
                                        TrafficClass.builder().tc(0).name("voice").dscp(ImmutableList.of(46))
                                                .rate(2_000_000L).build(),
                                        TrafficClass.builder().tc(2).name("video").dscp(ImmutableList.of(34, 36))
                                                .rate(100_000_000L).build(),
                                        TrafficClass.builder().tc(12).name("best-effort").rate(100_000_000L)
                                                .weights(ImmutableList.of(4, 2, 1, 1)).build()))
                                .build(),
                        QosProfile.builder().name("silver").downRate(20_000_000L).upPir(10_000_000L)
                                .upCir(10_000_000L).upDscp(0).build()))
                .lineGroups(ImmutableList.of(
                        LineGroup.builder().name("lg1").acMac(mac("02:bb:00:00:00:01"))
                                .coreAddress(ip("100.64.0.11")).coreMac(mac("02:cc:00:00:00:01"))
                                .pools(ImmutableList.of("pool1")).qosProfile("silver")
                                .lines(ImmutableList.of(AccessLine.of("access1", VlanRange.of(100, 149))))
                                .build(),
                        LineGroup.builder().name("lg2").acMac(mac("02:bb:00:00:00:02"))
                                .coreAddress(ip("100.64.0.12")).coreMac(mac("02:cc:00:00:00:02"))
                                .pools(ImmutableList.of("pool2")).qosProfile("gold")
                                .lines(ImmutableList.of(
                                        AccessLine.of("access3", VlanRange.single(300), VlanRange.of(2000, 4094)),
                                        AccessLine.of("access1", VlanRange.of(150, 159))))
                                .build()))
                .instances(ImmutableList.of(
                        DpInstance.builder().id(1).name("dp1").server("server1").port("p1").vf(1)
                                .mac(vf1.mac()).cores(ImmutableList.of(1)).controlAddress(ip("10.200.0.11"))
                                .lineGroups(ImmutableList.of("lg1")).build(),
                        DpInstance.builder().id(2).name("dp2").server("server1").port("p1").vf(2)
                                .mac(vf2.mac()).cores(ImmutableList.of(2, 3)).controlAddress(ip("10.200.0.12"))
                                .lineGroups(ImmutableList.of("lg2")).build()))
                .build();
    }

    @Test
    public void fixtureIsValid() {
        BngPodConfig config = config(fixturePod(), delegate);
        assertTrue(config.isValid());
        assertEquals(APP_ID, config.subject());
        assertEquals("pod", config.key());
    }

    @Test
    public void fixtureReadsIntoTheModel() {
        Pod pod = config(fixturePod(), delegate).pod();
        assertEquals(expectedFixturePod(), pod);
    }

    @Test
    public void fixtureModelDetails() {
        Pod pod = config(fixturePod(), delegate).pod();
        assertEquals("lab", pod.name());
        assertEquals(DeviceId.deviceId("of:0000000000000001"), pod.deviceId());

        SwitchPort access3 = pod.port("access3").orElseThrow();
        assertEquals(PortRole.ACCESS, access3.role());
        assertEquals(OptionalInt.of(SwitchPort.TPID_8021AD), access3.tpid());
        assertEquals(OptionalInt.empty(), pod.port("uplink1").orElseThrow().tpid());
        assertEquals(2, pod.ports(PortRole.ACCESS).size());

        assertEquals(VlanId.NONE, pod.core().vlan());
        assertEquals(ip("100.64.0.1"), pod.core().routerAddress());

        LineGroup lg2 = pod.lineGroup("lg2").orElseThrow();
        AccessLine split = lg2.lines().get(0);
        assertEquals("access3", split.port());
        assertEquals(VlanRange.single(300), split.stag());
        assertEquals(Optional.of(VlanRange.of(2000, 4094)), split.ctag());
        assertTrue(split.matches(300, 2000));
        assertFalse(split.matches(300, 1999));
        assertEquals(Optional.empty(), pod.lineGroup("lg1").orElseThrow().lines().get(0).ctag());

        QosProfile gold = pod.qosProfile(lg2.qosProfile()).orElseThrow();
        assertEquals(Optional.of(2), gold.classOfDscp(34).map(TrafficClass::tc));
        assertEquals(ImmutableList.of(4, 2, 1, 1), gold.trafficClass(12).orElseThrow().weights());

        DpInstance dp2 = pod.instanceOf("lg2").orElseThrow();
        assertEquals("dp2", dp2.name());
        assertEquals(ImmutableList.of(lg2), pod.lineGroupsOf(dp2));
        assertEquals(ImmutableList.of(pod.pool("pool2").orElseThrow()), pod.poolsOf(lg2));
        assertEquals(12_500_000_000L, pod.vfOf(dp2).rate());
        assertEquals("srv1", pod.switchPortOf(dp2).name());
        assertEquals(Optional.of(dp2), pod.instance(2));
    }

    @Test
    public void instanceSwitchPortIsOptional() {
        ObjectNode json = fixturePod();
        ((ObjectNode) json.at("/instances/0")).put("switchPort", 4901);
        ((ObjectNode) json.at("/instances/1")).put("switchPort", 49);
        Pod pod = config(json, delegate).pod();
        assertEquals(Optional.of(PortNumber.portNumber(4901)), pod.instance("dp1").orElseThrow().switchPort());
        assertEquals(Optional.of(PortNumber.portNumber(49)), pod.instance("dp2").orElseThrow().switchPort());
        Pod plain = config(fixturePod(), delegate).pod();
        assertEquals(Optional.empty(), plain.instance("dp1").orElseThrow().switchPort());
    }

    @Test
    public void deviceEntryNamesTheSwitch() {
        JsonNode netcfg = NetcfgFixtures.netcfg(NetcfgFixtures.FIXTURE);
        Pod pod = config(NetcfgFixtures.podNode(netcfg), delegate).pod();
        assertTrue(netcfg.path("devices").has(pod.deviceId().toString()));
    }

    @Test
    public void applyNotifiesTheDelegate() {
        BngPodConfig config = config(fixturePod(), delegate);
        config.apply();
        assertEquals(1, delegate.applied.size());
        assertSame(config, delegate.applied.get(0));
    }

    @Test
    public void readingTwiceGivesEqualPods() {
        BngPodConfig config = config(fixturePod(), delegate);
        assertEquals(config.pod(), config.pod());
    }

    @Test
    public void optionalFieldsTakeTheirDefaults() {
        ObjectNode pod = fixturePod();
        ObjectNode silver = (ObjectNode) pod.at("/qosProfiles/1");
        silver.remove("upCir");
        silver.putNull("upDscp");
        silver.remove("classes");
        ObjectNode voice = (ObjectNode) pod.at("/qosProfiles/0/classes/0");
        voice.remove("rate");
        voice.remove("weights");
        ((ObjectNode) pod.at("/qosProfiles/0/classes/1")).remove("dscp");
        ((ObjectNode) pod.at("/qosProfiles/0/classes/1")).putNull("weights");
        ((ObjectNode) pod.at("/core")).remove("vlan");
        ((ObjectNode) pod.at("/controlPlane")).remove("pfcpPort");
        ((ObjectNode) pod.at("/controlPlane")).putNull("vxlanPort");
        ((ObjectNode) pod.at("/pools/0")).remove("dns");
        ((ObjectNode) pod.at("/lineGroups/0/lines/0")).remove("ctag");
        ((ObjectNode) pod.at("/ports/2")).putNull("tpid");

        Pod model = config(pod, delegate).pod();
        QosProfile silverProfile = model.qosProfile("silver").orElseThrow();
        assertEquals(silverProfile.upPir(), silverProfile.upCir());
        assertFalse(silverProfile.upDscp().isPresent());
        assertEquals(ImmutableList.of(), silverProfile.classes());
        QosProfile gold = model.qosProfile("gold").orElseThrow();
        assertEquals(gold.downRate(), gold.trafficClass(0).orElseThrow().rate());
        assertEquals(ImmutableList.of(), gold.trafficClass(0).orElseThrow().weights());
        assertEquals(ImmutableList.of(), gold.trafficClass(2).orElseThrow().dscp());
        assertEquals(VlanId.NONE, model.core().vlan());
        assertEquals(ControlPlane.DEFAULT_PFCP_PORT, model.controlPlane().pfcpPort());
        assertEquals(ControlPlane.DEFAULT_VXLAN_PORT, model.controlPlane().vxlanPort());
        assertEquals(ImmutableList.of(), model.pool("pool1").orElseThrow().dns());
        assertEquals(Optional.empty(), model.lineGroup("lg1").orElseThrow().lines().get(0).ctag());
        assertEquals(OptionalInt.empty(), model.port("uplink1").orElseThrow().tpid());
    }

    @Test
    public void taggedCoreAndIpv6Values() {
        ObjectNode pod = fixturePod();
        ((ObjectNode) pod.at("/core")).put("vlan", 42);
        ((ObjectNode) pod.at("/pools/1")).put("prefix", "2001:db8:100::/48");
        ((ObjectNode) pod.at("/pools/1")).putArray("dns").add("2001:db8::53");
        ((ObjectNode) pod.at("/controlPlane")).put("address", "fd00:200::1");
        Pod model = config(pod, delegate).pod();
        assertEquals(VlanId.vlanId((short) 42), model.core().vlan());
        assertEquals(IpPrefix.valueOf("2001:db8:100::/48"), model.pool("pool2").orElseThrow().prefix());
        assertEquals(ImmutableList.of(ip("2001:db8::53")), model.pool("pool2").orElseThrow().dns());
        assertEquals(ip("fd00:200::1"), model.controlPlane().address());
    }

    @Test
    public void emptyPodIsValid() {
        ObjectNode pod = fixturePod();
        for (String list : ImmutableList.of("servers", "pools", "qosProfiles", "lineGroups", "instances")) {
            pod.putArray(list);
        }
        Pod model = config(pod, delegate).pod();
        assertTrue(model.instances().isEmpty());
        assertEquals(4, model.ports().size());
    }
}
