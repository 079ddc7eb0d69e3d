package org.bngpod.app.placement;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.Lists;
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
import org.onosproject.net.DeviceId;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Pods for the placement tests, built with the api model: the lab pod of
 * topology/examples/lab.yaml, and a builder for pods of any shape.
 */
final class TestPods {

    static final long G = 1_000_000_000L;
    static final long M = 1_000_000L;

    private TestPods() {
    }

    /**
     * The lab pod (topology/examples/lab.yaml): two servers with two 12.5G
     * VFs each, instances 1..4 on them, line groups lg1..lg4 with one /22
     * pool each (1,022 usable addresses), lg1 and lg3 silver (20M), lg2 and
     * lg4 gold (100M), lg<i> on instance i.
     *
     * @return lab pod
     */
    static Pod lab() {
        return labBuilder().build();
    }

    /**
     * Returns a builder filled with the lab pod, to extend.
     *
     * @return builder
     */
    static Builder labBuilder() {
        return new Builder()
                .group("lg1", "silver", "100.80.0.0/22")
                .group("lg2", "gold", "100.80.4.0/22")
                .group("lg3", "silver", "100.80.8.0/22")
                .group("lg4", "gold", "100.80.12.0/22")
                .instance(1, "server1", 12_500 * M, "lg1")
                .instance(2, "server1", 12_500 * M, "lg2")
                .instance(3, "server2", 12_500 * M, "lg3")
                .instance(4, "server2", 12_500 * M, "lg4");
    }

    /** Builds pods: line groups with their profile and pools, instances with their VF rate and groups. */
    static final class Builder {
        private final Map<String, String> profiles = new LinkedHashMap<>();
        private final Map<String, List<String>> prefixes = new LinkedHashMap<>();
        private final List<Object[]> instances = new ArrayList<>();
        private final Map<String, List<AccessLine>> lines = new LinkedHashMap<>();
        private boolean reversed;

        Builder lines(String group, AccessLine... groupLines) {
            lines.put(group, ImmutableList.copyOf(groupLines));
            return this;
        }

        /**
         * Adds a line group.
         *
         * @param name     group name
         * @param profile  "gold" (100M down) or "silver" (20M down)
         * @param prefixes its pools' prefixes
         * @return this builder
         */
        Builder group(String name, String profile, String... prefixes) {
            this.profiles.put(name, profile);
            this.prefixes.put(name, ImmutableList.copyOf(prefixes));
            return this;
        }

        /**
         * Adds an instance.
         *
         * @param id     instance id (also its VF number and the dp name's suffix)
         * @param server server name
         * @param vfRate its VF's rate, bit/s
         * @param groups the line groups the pod file places on it
         * @return this builder
         */
        Builder instance(int id, String server, long vfRate, String... groups) {
            instances.add(new Object[] {id, server, vfRate, ImmutableList.copyOf(groups)});
            return this;
        }

        /**
         * Lists every object of the pod in reverse order (the same pod, written differently).
         *
         * @return this builder
         */
        Builder reversed() {
            reversed = true;
            return this;
        }

        private <T> List<T> order(List<T> list) {
            return reversed ? Lists.reverse(list) : list;
        }

        @SuppressWarnings("unchecked")
        Pod build() {
            List<Pool> pools = new ArrayList<>();
            List<LineGroup> groups = new ArrayList<>();
            int g = 0;
            for (Map.Entry<String, List<String>> e : prefixes.entrySet()) {
                g++;
                List<String> poolNames = new ArrayList<>();
                for (int i = 0; i < e.getValue().size(); i++) {
                    String pool = e.getKey() + "-pool" + i;
                    poolNames.add(pool);
                    pools.add(Pool.of(pool, IpPrefix.valueOf(e.getValue().get(i)), ImmutableList.of()));
                }
                groups.add(LineGroup.builder()
                        .name(e.getKey())
                        .acMac(MacAddress.valueOf(String.format(Locale.ROOT, "02:bb:00:00:00:%02x", g)))
                        .coreAddress(IpAddress.valueOf("100.64.0." + (10 + g)))
                        .coreMac(MacAddress.valueOf(String.format(Locale.ROOT, "02:cc:00:00:00:%02x", g)))
                        .pools(order(poolNames))
                        .qosProfile(profiles.get(e.getKey()))
                        .lines(lines.getOrDefault(e.getKey(), ImmutableList.of(
                                AccessLine.of("access1", VlanRange.of(g * 10, g * 10 + 9)))))
                        .build());
            }

            Map<String, List<Vf>> vfs = new LinkedHashMap<>();
            List<DpInstance> dps = new ArrayList<>();
            for (Object[] spec : instances) {
                int id = (Integer) spec[0];
                String server = (String) spec[1];
                MacAddress mac = MacAddress.valueOf(String.format(Locale.ROOT, "02:00:00:00:00:%02x", id));
                vfs.computeIfAbsent(server, s -> new ArrayList<>()).add(Vf.of(id, mac, (Long) spec[2]));
                dps.add(DpInstance.builder()
                        .id(id).name("dp" + id).server(server).port("p1").vf(id).mac(mac)
                        .cores(ImmutableList.of(1)).controlAddress(IpAddress.valueOf("10.200.0." + (10 + id)))
                        .lineGroups((List<String>) spec[3]).build());
            }
            List<SwitchPort> ports = new ArrayList<>();
            ports.add(SwitchPort.builder().name("access1").number(1).role(PortRole.ACCESS)
                              .tpid(SwitchPort.TPID_8021Q).rate(10 * G).build());
            for (int n = 2; n <= 3; n++) {
                String name = "access" + n;
                if (lines.values().stream().flatMap(List::stream).anyMatch(l -> l.port().equals(name))) {
                    ports.add(SwitchPort.builder().name(name).number(n).role(PortRole.ACCESS)
                                      .tpid(n == 2 ? SwitchPort.TPID_8021AD : SwitchPort.TPID_8021Q).rate(10 * G)
                                      .build());
                }
            }
            ports.add(SwitchPort.builder().name("uplink1").number(10).role(PortRole.UPLINK).rate(100 * G).build());
            List<Server> servers = new ArrayList<>();
            int s = 0;
            for (Map.Entry<String, List<Vf>> e : vfs.entrySet()) {
                s++;
                String switchPort = "srv" + s;
                ports.add(SwitchPort.builder().name(switchPort).number(48 + s).role(PortRole.SERVER)
                                  .rate(25 * G).build());
                servers.add(Server.of(e.getKey(), ImmutableList.of(
                        ServerPort.of("p1", switchPort, order(e.getValue())))));
            }
            List<QosProfile> qos = ImmutableList.of(
                    QosProfile.builder().name("gold").downRate(100 * M).upPir(50 * M).upCir(20 * M).build(),
                    QosProfile.builder().name("silver").downRate(20 * M).upPir(10 * M).upDscp(0).build(),
                    // a profile that states its guaranteed downstream rate: 20M a session
                    QosProfile.builder().name("business").downRate(100 * M).upPir(50 * M)
                            .downGuaranteed(20 * M).build());
            return Pod.builder()
                    .name("lab")
                    .deviceId(DeviceId.deviceId("of:0000000000000001"))
                    .ports(order(ports))
                    .servers(order(servers))
                    .core(CoreUplink.builder()
                                  .uplink("uplink1")
                                  .subnet(IpPrefix.valueOf("100.64.0.0/24"))
                                  .routerAddress(IpAddress.valueOf("100.64.0.1"))
                                  .routerMac(MacAddress.valueOf("02:ee:00:00:00:01"))
                                  .build())
                    .controlPlane(ControlPlane.of(IpAddress.valueOf("10.200.0.1"), 8805, 4789))
                    .pools(order(pools))
                    .qosProfiles(order(qos))
                    .lineGroups(order(groups))
                    .instances(order(dps))
                    .build();
        }
    }
}
