package org.bngpod.api;

import com.google.common.collect.ImmutableList;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DeviceId;

/**
 * A small consistent pod for the model tests: one server with two VFs, two
 * instances, two line groups (one with a C-tag range).
 */
final class TestPods {

    static final SwitchPort ACCESS1 = SwitchPort.builder()
            .name("access1").number(1).role(PortRole.ACCESS).tpid(SwitchPort.TPID_8021Q).rate(10_000_000_000L)
            .build();
    static final SwitchPort ACCESS3 = SwitchPort.builder()
            .name("access3").number(3).role(PortRole.ACCESS).tpid(SwitchPort.TPID_8021AD).rate(10_000_000_000L)
            .build();
    static final SwitchPort UPLINK1 = SwitchPort.builder()
            .name("uplink1").number(10).role(PortRole.UPLINK).rate(100_000_000_000L).build();
    static final SwitchPort SRV1 = SwitchPort.builder()
            .name("srv1").number(49).role(PortRole.SERVER).rate(25_000_000_000L).build();

    static final Vf VF1 = Vf.of(1, MacAddress.valueOf("02:00:00:00:01:01"), 12_500_000_000L);
    static final Vf VF2 = Vf.of(2, MacAddress.valueOf("02:00:00:00:01:02"), 12_500_000_000L);
    static final Server SERVER1 = Server.of("server1",
                                            ImmutableList.of(ServerPort.of("p1", "srv1", ImmutableList.of(VF1, VF2))));

    static final CoreUplink CORE = CoreUplink.builder()
            .uplink("uplink1")
            .subnet(IpPrefix.valueOf("100.64.0.0/24"))
            .routerAddress(IpAddress.valueOf("100.64.0.1"))
            .routerMac(MacAddress.valueOf("02:ee:00:00:00:01"))
            .build();
    static final ControlPlane CONTROL_PLANE = ControlPlane.of(IpAddress.valueOf("10.200.0.1"), 8805, 4789);

    static final Pool POOL1 = Pool.of("pool1", IpPrefix.valueOf("100.80.0.0/22"),
                                      ImmutableList.of(IpAddress.valueOf("198.51.100.53")));
    static final Pool POOL2 = Pool.of("pool2", IpPrefix.valueOf("100.80.4.0/22"), ImmutableList.of());

    static final QosProfile GOLD = QosProfile.builder()
            .name("gold").downRate(100_000_000L).upPir(50_000_000L).upCir(20_000_000L)
            .classes(ImmutableList.of(
                    TrafficClass.builder().tc(0).name("voice").dscp(ImmutableList.of(46)).rate(2_000_000L).build(),
                    TrafficClass.builder().tc(2).name("video").dscp(ImmutableList.of(34, 36))
                            .rate(100_000_000L).build(),
                    TrafficClass.builder().tc(12).name("best-effort").rate(100_000_000L)
                            .weights(ImmutableList.of(4, 2, 1, 1)).build()))
            .build();
    static final QosProfile SILVER = QosProfile.builder()
            .name("silver").downRate(20_000_000L).upPir(10_000_000L).build();

    static final LineGroup LG1 = LineGroup.builder()
            .name("lg1")
            .acMac(MacAddress.valueOf("02:bb:00:00:00:01"))
            .coreAddress(IpAddress.valueOf("100.64.0.11"))
            .coreMac(MacAddress.valueOf("02:cc:00:00:00:01"))
            .pools(ImmutableList.of("pool1"))
            .qosProfile("silver")
            .lines(ImmutableList.of(AccessLine.of("access1", VlanRange.of(100, 149))))
            .build();
    static final LineGroup LG2 = LineGroup.builder()
            .name("lg2")
            .acMac(MacAddress.valueOf("02:bb:00:00:00:02"))
            .coreAddress(IpAddress.valueOf("100.64.0.12"))
            .coreMac(MacAddress.valueOf("02:cc:00:00:00:02"))
            .pools(ImmutableList.of("pool2"))
            .qosProfile("gold")
            .lines(ImmutableList.of(AccessLine.of("access3", VlanRange.single(300), VlanRange.of(2000, 4094)),
                                    AccessLine.of("access1", VlanRange.of(150, 159))))
            .build();

    static final DpInstance DP1 = DpInstance.builder()
            .id(1).name("dp1").server("server1").port("p1").vf(1).mac(VF1.mac())
            .cores(ImmutableList.of(1)).controlAddress(IpAddress.valueOf("10.200.0.11"))
            .lineGroups(ImmutableList.of("lg1")).build();
    static final DpInstance DP2 = DpInstance.builder()
            .id(2).name("dp2").server("server1").port("p1").vf(2).mac(VF2.mac())
            .cores(ImmutableList.of(2, 3)).controlAddress(IpAddress.valueOf("10.200.0.12"))
            .lineGroups(ImmutableList.of("lg2")).build();

    private TestPods() {
    }

    /**
     * Returns a builder filled with the test pod.
     *
     * @return pod builder
     */
    static Pod.Builder lab() {
        return Pod.builder()
                .name("lab")
                .deviceId(DeviceId.deviceId("of:0000000000000001"))
                .ports(ImmutableList.of(ACCESS1, ACCESS3, UPLINK1, SRV1))
                .servers(ImmutableList.of(SERVER1))
                .core(CORE)
                .controlPlane(CONTROL_PLANE)
                .pools(ImmutableList.of(POOL1, POOL2))
                .qosProfiles(ImmutableList.of(GOLD, SILVER))
                .lineGroups(ImmutableList.of(LG1, LG2))
                .instances(ImmutableList.of(DP1, DP2));
    }

    /**
     * Returns a builder filled with DP2's values, to vary one of them.
     *
     * @return builder of an instance like DP2
     */
    static DpInstance.Builder dp2Like() {
        return DpInstance.builder()
                .id(2).name("dp2").server("server1").port("p1").vf(2).mac(VF2.mac())
                .cores(ImmutableList.of(2, 3)).controlAddress(IpAddress.valueOf("10.200.0.12"))
                .lineGroups(ImmutableList.of("lg2"));
    }
}
