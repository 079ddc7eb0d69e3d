package org.bngpod.api;

import com.google.common.collect.ImmutableList;
import com.google.common.testing.EqualsTester;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static org.bngpod.api.TestPods.ACCESS1;
import static org.bngpod.api.TestPods.DP1;
import static org.bngpod.api.TestPods.DP2;
import static org.bngpod.api.TestPods.GOLD;
import static org.bngpod.api.TestPods.LG1;
import static org.bngpod.api.TestPods.LG2;
import static org.bngpod.api.TestPods.POOL2;
import static org.bngpod.api.TestPods.SILVER;
import static org.bngpod.api.TestPods.SRV1;
import static org.bngpod.api.TestPods.VF2;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.onlab.junit.ImmutableClassChecker.assertThatClassIsImmutable;

/**
 * Tests of the pod model: immutability, equality, the invariants each class
 * keeps and the references a {@link Pod} resolves.
 */
public class ModelTest {

    @Test
    public void classesAreImmutable() {
        for (Class<?> c : ImmutableList.of(Pod.class, SwitchPort.class, Server.class, ServerPort.class, Vf.class,
                                           VlanRange.class, AccessLine.class, LineGroup.class, DpInstance.class,
                                           Pool.class, QosProfile.class, TrafficClass.class, CoreUplink.class,
                                           ControlPlane.class)) {
            assertThatClassIsImmutable(c);
        }
    }

    @Test
    public void listsAreUnmodifiable() {
        List<Integer> cores = new ArrayList<>(ImmutableList.of(1, 2));
        DpInstance dp = TestPods.dp2Like().cores(cores).build();
        cores.add(3);
        assertEquals(ImmutableList.of(1, 2), dp.cores());
        assertThrows(UnsupportedOperationException.class, () -> dp.cores().add(4));
        assertThrows(UnsupportedOperationException.class, () -> TestPods.lab().build().lineGroups().clear());
    }

    @Test
    public void instanceSwitchPortIsOptionalAndPhysical() {
        assertEquals(Optional.empty(), DP2.switchPort());
        assertEquals(Optional.of(PortNumber.portNumber(4902)),
                     TestPods.dp2Like().switchPort(PortNumber.portNumber(4902)).build().switchPort());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TestPods.dp2Like().switchPort(PortNumber.CONTROLLER).build());
        assertThat(e.getMessage(), is("instance dp2: switchPort CONTROLLER is not a physical switch port number"));
        assertThrows(IllegalArgumentException.class,
                () -> TestPods.dp2Like().switchPort(PortNumber.portNumber(0)).build());
    }

    @Test
    public void equality() {
        new EqualsTester()
                .addEqualityGroup(TestPods.lab().build(), TestPods.lab().build())
                .addEqualityGroup(TestPods.lab().name("other").build())
                .addEqualityGroup(TestPods.lab().instances(ImmutableList.of(DP1)).build())
                .testEquals();
        new EqualsTester()
                .addEqualityGroup(DP2, TestPods.dp2Like().build())
                .addEqualityGroup(TestPods.dp2Like().cores(ImmutableList.of(3, 2)).build())
                .addEqualityGroup(TestPods.dp2Like().controlAddress(IpAddress.valueOf("10.200.0.99")).build())
                .addEqualityGroup(TestPods.dp2Like().switchPort(PortNumber.portNumber(4902)).build(),
                                  TestPods.dp2Like().switchPort(PortNumber.portNumber(4902)).build())
                .testEquals();
        new EqualsTester()
                .addEqualityGroup(AccessLine.of("access1", VlanRange.of(1, 2)),
                                  AccessLine.of("access1", VlanRange.of(1, 2), null))
                .addEqualityGroup(AccessLine.of("access1", VlanRange.of(1, 2), VlanRange.ALL))
                .addEqualityGroup(AccessLine.of("access2", VlanRange.of(1, 2)))
                .testEquals();
    }

    @Test
    public void switchPort() {
        assertEquals(PortNumber.portNumber(1), ACCESS1.number());
        assertEquals(OptionalInt.of(0x8100), ACCESS1.tpid());
        assertEquals(OptionalInt.empty(), SRV1.tpid());
        assertTrue(SwitchPort.isOuterTpid(0x88a8));
        assertFalse(SwitchPort.isOuterTpid(0x9100));
        assertMessage("access port access9 has no TPID", () -> SwitchPort.builder()
                .name("access9").number(9).role(PortRole.ACCESS).rate(1).build());
        assertMessage("port access9: 0x9100 is not an outer TPID", () -> SwitchPort.builder()
                .name("access9").number(9).role(PortRole.ACCESS).tpid(0x9100).rate(1).build());
        assertMessage("port p: 0 is not a physical port number", () -> SwitchPort.builder()
                .name("p").number(0).role(PortRole.UPLINK).rate(1).build());
        assertMessage("port p rate must be positive: 0", () -> SwitchPort.builder()
                .name("p").number(5).role(PortRole.SERVER).build());
        assertMessage("port p rate must be positive: -1", () -> SwitchPort.builder()
                .name("p").number(5).role(PortRole.UPLINK).rate(-1).build());
        // Only an uplink may leave its rate unstated (the pod file's rule).
        assertEquals(SwitchPort.RATE_NOT_STATED, SwitchPort.builder()
                .name("p").number(5).role(PortRole.UPLINK).build().rate());
        assertEquals(Optional.of(PortRole.SERVER), PortRole.fromConfigName("server"));
        assertEquals(Optional.empty(), PortRole.fromConfigName("SERVER"));
        assertEquals("uplink", PortRole.UPLINK.configName());
    }

    @Test
    public void names() {
        assertTrue(Names.isValid("best-effort"));
        assertTrue(Names.isValid("lg_1.a"));
        assertTrue(Names.isValid("1"));
        assertFalse(Names.isValid(""));
        assertFalse(Names.isValid("-x"));
        assertFalse(Names.isValid("a b"));
        assertFalse(Names.isValid("a/b"));
        assertFalse(Names.isValid("x".repeat(Names.MAX_LENGTH + 1)));
        assertTrue(Names.isValid("x".repeat(Names.MAX_LENGTH)));
        assertFalse(Names.isValid(null));
        assertMessage("pool name \"a b\" is not a valid name",
                      () -> Pool.of("a b", IpPrefix.valueOf("10.0.0.0/8"), ImmutableList.of()));
    }

    @Test
    public void unicastMacsOnly() {
        assertTrue(Macs.isUnicast(MacAddress.valueOf("02:00:00:00:00:01")));
        assertFalse(Macs.isUnicast(MacAddress.valueOf("01:00:5e:00:00:01")));
        assertFalse(Macs.isUnicast(MacAddress.BROADCAST));
        assertFalse(Macs.isUnicast(MacAddress.ZERO));
        assertMessage("VF 1: ff:ff:ff:ff:ff:ff is not a unicast MAC address",
                      () -> Vf.of(1, MacAddress.BROADCAST, 1));
    }

    @Test
    public void trafficClasses() {
        assertEquals(Optional.of(2), GOLD.classOfDscp(36).map(TrafficClass::tc));
        assertEquals(Optional.empty(), GOLD.classOfDscp(0));
        assertEquals(ImmutableList.of(4, 2, 1, 1), GOLD.trafficClass(12).orElseThrow().weights());
        assertEquals(Optional.empty(), GOLD.trafficClass(5));
        assertEquals(SILVER.upPir(), SILVER.upCir());
        assertMessage("traffic class 13 is not in 0..12",
                      () -> TrafficClass.builder().tc(13).name("x").rate(1).build());
        assertMessage("class 0 DSCP 64 is not in 0..63",
                      () -> TrafficClass.builder().tc(0).name("x").dscp(ImmutableList.of(64)).rate(1).build());
        assertMessage("class 0: only the best-effort class 12 has weights", () -> TrafficClass.builder()
                .tc(0).name("x").rate(1).weights(ImmutableList.of(1, 1, 1, 1)).build());
        assertMessage("class 12: 3 weights, not 4", () -> TrafficClass.builder()
                .tc(12).name("x").rate(1).weights(ImmutableList.of(1, 1, 1)).build());
        assertMessage("profile p: upCir 2 > upPir 1",
                      () -> QosProfile.builder().name("p").downRate(1).upPir(1).upCir(2L).build());
        assertMessage("profile p upDscp 64 is not in 0..63",
                      () -> QosProfile.builder().name("p").downRate(1).upPir(1).upDscp(64).build());
        TrafficClass voice = GOLD.trafficClass(0).orElseThrow();
        TrafficClass voice2 = TrafficClass.builder().tc(1).name("voice2").dscp(ImmutableList.of(46)).rate(1).build();
        assertMessage("duplicate DSCP in profile p: 46", () -> QosProfile.builder()
                .name("p").downRate(1).upPir(1).classes(ImmutableList.of(voice, voice2)).build());
        assertMessage("duplicate traffic class in profile p: 0", () -> QosProfile.builder()
                .name("p").downRate(1).upPir(1).classes(ImmutableList.of(voice, voice)).build());
    }

    @Test
    public void accessLines() {
        AccessLine any = LG2.lines().get(1);
        AccessLine split = LG2.lines().get(0);
        assertEquals(Optional.empty(), any.ctag());
        assertEquals(Optional.of(VlanRange.of(2000, 4094)), split.ctag());
        assertTrue(any.matches(150, 1));
        assertTrue(any.matches(159, 4094));
        assertFalse(any.matches(160, 1));
        assertFalse(any.matches(150, 0));
        assertTrue(split.matches(300, 2000));
        assertFalse(split.matches(300, 1999));
        AccessLine low = AccessLine.of("access3", VlanRange.single(300), VlanRange.of(1, 1999));
        assertFalse(low.overlaps(split));
        assertTrue(low.overlaps(AccessLine.of("access3", VlanRange.of(290, 310))));
        assertFalse(low.overlaps(AccessLine.of("access1", VlanRange.single(300))));
        assertEquals("AccessLine{port=access1, stag=150-159, ctag=any}", any.toString());
    }

    @Test
    public void instanceChecks() {
        assertMessage("instance id 0 is not in 1..16777215", () -> TestPods.dp2Like().id(0).build());
        assertMessage("instance id 16777216 is not in 1..16777215",
                      () -> TestPods.dp2Like().id(1 << 24).build());
        assertMessage("instance dp2 has no worker cores",
                      () -> TestPods.dp2Like().cores(ImmutableList.of()).build());
        assertMessage("duplicate core of instance dp2: 2",
                      () -> TestPods.dp2Like().cores(ImmutableList.of(2, 2)).build());
        assertThrows(NullPointerException.class, () -> TestPods.dp2Like().mac(null).build());
    }

    @Test
    public void coreVlan() {
        assertEquals(VlanId.NONE, TestPods.CORE.vlan());
        CoreUplink tagged = CoreUplink.builder().uplink("uplink1").subnet(IpPrefix.valueOf("100.64.0.0/24"))
                .routerAddress(IpAddress.valueOf("100.64.0.1")).routerMac(MacAddress.valueOf("02:ee:00:00:00:01"))
                .vlan(VlanId.vlanId((short) 42)).build();
        assertEquals(VlanId.vlanId((short) 42), tagged.vlan());
        assertMessage("core VLAN Any is neither untagged nor 1..4094", () -> CoreUplink.builder()
                .uplink("uplink1").subnet(IpPrefix.valueOf("100.64.0.0/24"))
                .routerAddress(IpAddress.valueOf("100.64.0.1")).routerMac(MacAddress.valueOf("02:ee:00:00:00:01"))
                .vlan(VlanId.ANY).build());
    }

    @Test
    public void podLookups() {
        Pod pod = TestPods.lab().build();
        assertEquals(DeviceId.deviceId("of:0000000000000001"), pod.deviceId());
        assertEquals(Optional.of(SRV1), pod.port("srv1"));
        assertEquals(Optional.of(SRV1), pod.port(PortNumber.portNumber(49)));
        assertEquals(Optional.empty(), pod.port("srv2"));
        assertEquals(ImmutableList.of(ACCESS1, TestPods.ACCESS3), pod.ports(PortRole.ACCESS));
        assertEquals(Optional.of(TestPods.SERVER1), pod.server("server1"));
        assertEquals(Optional.of(POOL2), pod.pool("pool2"));
        assertEquals(Optional.of(GOLD), pod.qosProfile("gold"));
        assertEquals(Optional.of(LG2), pod.lineGroup("lg2"));
        assertEquals(Optional.of(DP2), pod.instance("dp2"));
        assertEquals(Optional.of(DP2), pod.instance(2));
        assertEquals(Optional.empty(), pod.instance(3));
        assertEquals(Optional.of(DP1), pod.instanceOf("lg1"));
        assertEquals(ImmutableList.of(LG2), pod.lineGroupsOf(DP2));
        assertEquals(ImmutableList.of(POOL2), pod.poolsOf(LG2));
        assertEquals(VF2, pod.vfOf(DP2));
        assertEquals(SRV1, pod.switchPortOf(DP2));
        // A line group no instance serves is allowed.
        Pod unserved = TestPods.lab().instances(ImmutableList.of(DP1)).build();
        assertEquals(Optional.empty(), unserved.instanceOf("lg2"));
    }

    @Test
    public void podRejectsDuplicates() {
        assertMessage("duplicate line group lg1", () -> TestPods.lab()
                .lineGroups(ImmutableList.of(LG1, LG1)).instances(ImmutableList.of()).build());
        assertMessage("duplicate instance id 2", () -> TestPods.lab()
                .instances(ImmutableList.of(DP1, TestPods.dp2Like().name("dp3").vf(1).mac(TestPods.VF1.mac())
                        .id(2).lineGroups(ImmutableList.of()).build(), DP2)).build());
        assertMessage("duplicate switch port number 1", () -> TestPods.lab().ports(ImmutableList.of(
                ACCESS1, SwitchPort.builder().name("x").number(1).role(PortRole.UPLINK).rate(1).build())).build());
    }

    @Test
    public void podRejectsDanglingReferences() {
        assertMessage("line group lg1: unknown QoS profile silver",
                      () -> TestPods.lab().qosProfiles(ImmutableList.of(GOLD)).build());
        assertMessage("line group lg2: unknown pool pool2",
                      () -> TestPods.lab().pools(ImmutableList.of(TestPods.POOL1)).build());
        assertMessage("instance dp1: unknown line group lg1",
                      () -> TestPods.lab().lineGroups(ImmutableList.of(LG2)).build());
        assertMessage("instance dp2: unknown VF server1/p1 VF 7",
                      () -> TestPods.lab().instances(ImmutableList.of(TestPods.dp2Like().vf(7).build())).build());
        assertMessage("instance dp2: server server1 has no port p2",
                      () -> TestPods.lab().instances(ImmutableList.of(TestPods.dp2Like().port("p2").build())).build());
        assertMessage("instance dp2: unknown server server9", () -> TestPods.lab()
                .instances(ImmutableList.of(TestPods.dp2Like().server("server9").build())).build());
        assertMessage("line group lg1: switch port uplink1 is not an access port", () -> TestPods.lab()
                .lineGroups(ImmutableList.of(LineGroup.builder().name("lg1").acMac(LG1.acMac())
                        .coreAddress(LG1.coreAddress()).coreMac(LG1.coreMac()).qosProfile("gold")
                        .lines(ImmutableList.of(AccessLine.of("uplink1", VlanRange.ALL))).build(), LG2))
                .build());
        assertMessage("core: unknown switch port uplink1",
                      () -> TestPods.lab().ports(ImmutableList.of(ACCESS1, TestPods.ACCESS3, SRV1)).build());
    }

    @Test
    public void podRejectsConflicts() {
        assertMessage("instance dp2: mac 02:00:00:00:01:01 is not the MAC 02:00:00:00:01:02 of server1/p1 VF 2",
                      () -> TestPods.lab().instances(ImmutableList.of(
                              DP1, TestPods.dp2Like().mac(TestPods.VF1.mac()).build())).build());
        assertMessage("instance dp2: server1/p1 VF 1 is already used by instance dp1",
                      () -> TestPods.lab().instances(ImmutableList.of(
                              DP1, TestPods.dp2Like().vf(1).mac(TestPods.VF1.mac()).build())).build());
        assertMessage("instance dp2: line group lg1 is already served by instance dp1",
                      () -> TestPods.lab().instances(ImmutableList.of(
                              DP1, TestPods.dp2Like().lineGroups(ImmutableList.of("lg2", "lg1")).build())).build());
    }

    private static void assertMessage(String message, Runnable runnable) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, runnable::run);
        assertThat(e.getMessage(), is(message));
    }
}
