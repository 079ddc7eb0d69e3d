package org.bngpod.seba.impl;

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
import org.bngpod.api.Vf;
import org.bngpod.api.VlanRange;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;

import java.util.Map;

/**
 * A small pod: lg1 takes S100-149 of access1 (every C-tag), lg2 takes S300
 * C2000-4094 of access3 and S150-159 of access1. Two OLTs are cabled to the
 * pod (olt1 to access1, olt2 to access3), olt3 to nothing.
 */
final class TestPod {

    static final DeviceId OLT1 = DeviceId.deviceId("of:00000000000000a1");
    static final DeviceId OLT2 = DeviceId.deviceId("of:00000000000000a2");
    static final DeviceId OLT3 = DeviceId.deviceId("of:00000000000000a3");
    static final Map<DeviceId, String> OLTS = Map.of(OLT1, "access1", OLT2, "access3");

    private TestPod() {
    }

    static ConnectPoint uni(DeviceId olt, long port) {
        return new ConnectPoint(olt, PortNumber.portNumber(port));
    }

    static Pod pod() {
        SwitchPort access1 = SwitchPort.builder().name("access1").number(1).role(PortRole.ACCESS)
                .tpid(SwitchPort.TPID_8021Q).rate(10_000_000_000L).build();
        SwitchPort access3 = SwitchPort.builder().name("access3").number(3).role(PortRole.ACCESS)
                .tpid(SwitchPort.TPID_8021AD).rate(10_000_000_000L).build();
        SwitchPort uplink = SwitchPort.builder().name("uplink1").number(10).role(PortRole.UPLINK)
                .rate(100_000_000_000L).build();
        SwitchPort srv = SwitchPort.builder().name("srv1").number(49).role(PortRole.SERVER)
                .rate(25_000_000_000L).build();
        Vf vf1 = Vf.of(1, MacAddress.valueOf("02:00:00:00:01:01"), 12_500_000_000L);
        Vf vf2 = Vf.of(2, MacAddress.valueOf("02:00:00:00:01:02"), 12_500_000_000L);
        Server server = Server.of("server1", ImmutableList.of(ServerPort.of("p1", "srv1", ImmutableList.of(vf1, vf2))));
        LineGroup lg1 = LineGroup.builder().name("lg1")
                .acMac(MacAddress.valueOf("02:bb:00:00:00:01")).coreAddress(IpAddress.valueOf("100.64.0.11"))
                .coreMac(MacAddress.valueOf("02:cc:00:00:00:01")).pools(ImmutableList.of("pool1"))
                .qosProfile("silver")
                .lines(ImmutableList.of(AccessLine.of("access1", VlanRange.of(100, 149)))).build();
        LineGroup lg2 = LineGroup.builder().name("lg2")
                .acMac(MacAddress.valueOf("02:bb:00:00:00:02")).coreAddress(IpAddress.valueOf("100.64.0.12"))
                .coreMac(MacAddress.valueOf("02:cc:00:00:00:02")).pools(ImmutableList.of("pool2"))
                .qosProfile("silver")
                .lines(ImmutableList.of(AccessLine.of("access3", VlanRange.single(300), VlanRange.of(2000, 4094)),
                                        AccessLine.of("access1", VlanRange.of(150, 159)))).build();
        return Pod.builder()
                .name("lab")
                .deviceId(DeviceId.deviceId("of:0000000000000001"))
                .ports(ImmutableList.of(access1, access3, uplink, srv))
                .servers(ImmutableList.of(server))
                .core(CoreUplink.builder().uplink("uplink1").subnet(IpPrefix.valueOf("100.64.0.0/24"))
                              .routerAddress(IpAddress.valueOf("100.64.0.1"))
                              .routerMac(MacAddress.valueOf("02:ee:00:00:00:01")).build())
                .controlPlane(ControlPlane.of(IpAddress.valueOf("10.200.0.1"), 8805, 4789))
                .pools(ImmutableList.of(Pool.of("pool1", IpPrefix.valueOf("100.80.0.0/22"), ImmutableList.of()),
                                        Pool.of("pool2", IpPrefix.valueOf("100.80.4.0/22"), ImmutableList.of())))
                .qosProfiles(ImmutableList.of(QosProfile.builder().name("silver").downRate(20_000_000L)
                                                      .upPir(10_000_000L).build()))
                .lineGroups(ImmutableList.of(lg1, lg2))
                .instances(ImmutableList.of(
                        DpInstance.builder().id(1).name("dp1").server("server1").port("p1").vf(1).mac(vf1.mac())
                                .cores(ImmutableList.of(1)).controlAddress(IpAddress.valueOf("10.200.0.11"))
                                .lineGroups(ImmutableList.of("lg1")).build(),
                        DpInstance.builder().id(2).name("dp2").server("server1").port("p1").vf(2).mac(vf2.mac())
                                .cores(ImmutableList.of(2)).controlAddress(IpAddress.valueOf("10.200.0.12"))
                                .lineGroups(ImmutableList.of("lg2")).build()))
                .build();
    }
}
