package org.bngpod.app.config;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.api.Pod;
import org.junit.Test;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;

import java.util.Optional;
import java.util.function.Consumer;

import static org.bngpod.app.config.NetcfgFixtures.config;
import static org.bngpod.app.config.NetcfgFixtures.fixturePod;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/**
 * The dual-stack fields of the netcfg: core {@code subnet6} and
 * {@code routerAddress6}, line group {@code coreAddress6}, all optional.
 */
public class Ipv6ConfigTest {

    /** The fixture with IPv6 on the core side: subnet6, the router's address and lg1's. */
    static ObjectNode dualStackPod() {
        ObjectNode pod = fixturePod();
        core(pod).put("subnet6", "2001:db8:64::/64").put("routerAddress6", "2001:db8:64::1");
        group(pod, 0).put("coreAddress6", "2001:db8:64::11");
        return pod;
    }

    private static ObjectNode core(ObjectNode pod) {
        return (ObjectNode) pod.get("core");
    }

    private static ObjectNode group(ObjectNode pod, int i) {
        return (ObjectNode) pod.get("lineGroups").get(i);
    }

    private static Pod read(ObjectNode pod) {
        BngPodConfig config = config(pod, new NetcfgFixtures.RecordingDelegate());
        assertTrue(config.isValid());
        return config.pod();
    }

    private static void assertInvalid(String path, String message, Consumer<ObjectNode> breakage) {
        ObjectNode pod = dualStackPod();
        breakage.accept(pod);
        BngPodConfig config = config(pod, new NetcfgFixtures.RecordingDelegate());
        InvalidPodConfigException e = assertThrows(InvalidPodConfigException.class, config::isValid);
        assertThat(e.getMessage(), is(path + ": " + message));
        assertThat(e.path(), is(path));
        assertThat(assertThrows(InvalidPodConfigException.class, config::pod).getMessage(), is(e.getMessage()));
    }

    @Test
    public void absentFieldsMeanNoIpv6() {
        Pod pod = read(fixturePod());
        assertEquals(Optional.empty(), pod.core().subnet6());
        assertEquals(Optional.empty(), pod.core().routerAddress6());
        pod.lineGroups().forEach(g -> assertEquals(Optional.empty(), g.coreAddress6()));
    }

    @Test
    public void dualStackFieldsReadIntoTheModel() {
        Pod pod = read(dualStackPod());
        assertEquals(Optional.of(IpPrefix.valueOf("2001:db8:64::/64")), pod.core().subnet6());
        assertEquals(Optional.of(IpAddress.valueOf("2001:db8:64::1")), pod.core().routerAddress6());
        assertEquals(Optional.of(IpAddress.valueOf("2001:db8:64::11")), pod.lineGroup("lg1").get().coreAddress6());
        assertEquals(Optional.empty(), pod.lineGroup("lg2").get().coreAddress6());
    }

    @Test
    public void subnet6AloneAndGroupsWithoutRouterAddress6() {
        ObjectNode pod = dualStackPod();
        core(pod).remove("routerAddress6");
        group(pod, 1).put("coreAddress6", "2001:db8:64::12");
        Pod read = read(pod);
        assertEquals(Optional.empty(), read.core().routerAddress6());
        assertEquals(Optional.of(IpAddress.valueOf("2001:db8:64::12")), read.lineGroup("lg2").get().coreAddress6());
    }

    @Test
    public void subnet6MustBeAnIpv6PrefixWithoutHostBits() {
        assertInvalid("core.subnet6", "100.64.1.0/24 is not an IPv6 prefix",
                      pod -> core(pod).put("subnet6", "100.64.1.0/24"));
        assertInvalid("core.subnet6", "\"2001:db8:64::1/64\" has host bits set (the prefix is 2001:db8:64::/64)",
                      pod -> core(pod).put("subnet6", "2001:db8:64::1/64"));
        assertInvalid("core.subnet6", "\"2001:db8:64::\" is not an IP prefix (address/length)",
                      pod -> core(pod).put("subnet6", "2001:db8:64::"));
        assertInvalid("core.subnet6", "expected a string, got 64", pod -> core(pod).put("subnet6", 64));
    }

    @Test
    public void addresses6NeedSubnet6() {
        assertInvalid("core.routerAddress6", "2001:db8:64::1 needs core.subnet6 (the core has no IPv6 subnet)",
                      pod -> core(pod).remove("subnet6"));
        assertInvalid("lineGroups[0].coreAddress6",
                      "2001:db8:64::11 needs core.subnet6 (the core has no IPv6 subnet)",
                      pod -> core(pod).without(java.util.List.of("subnet6", "routerAddress6")));
    }

    @Test
    public void addresses6MustBeIpv6UnicastInsideSubnet6() {
        String g = "lineGroups[0].coreAddress6";
        assertInvalid(g, "100.64.0.11 is not an IPv6 address", pod -> group(pod, 0).put("coreAddress6", "100.64.0.11"));
        assertInvalid(g, "\"2001:db8:64::zz\" is not an IP address",
                      pod -> group(pod, 0).put("coreAddress6", "2001:db8:64::zz"));
        assertInvalid(g, "2001:db8:65::11 is outside 2001:db8:64::/64",
                      pod -> group(pod, 0).put("coreAddress6", "2001:db8:65::11"));
        assertInvalid(g, "ff02::1 is a multicast address", pod -> group(pod, 0).put("coreAddress6", "ff02::1"));
        assertInvalid(g, "fe80::11 is a link-local address", pod -> group(pod, 0).put("coreAddress6", "fe80::11"));
        assertInvalid(g, ":: is the unspecified address", pod -> group(pod, 0).put("coreAddress6", "::"));
        assertInvalid(g, "2001:db8:64:: is the Subnet-Router anycast address of 2001:db8:64::/64",
                      pod -> group(pod, 0).put("coreAddress6", "2001:db8:64::"));
        assertInvalid(g, "expected a string, got an array", pod -> group(pod, 0).putArray("coreAddress6"));
        assertInvalid("core.routerAddress6", "2001:db8:99::1 is outside 2001:db8:64::/64",
                      pod -> core(pod).put("routerAddress6", "2001:db8:99::1"));
    }

    @Test
    public void addresses6AreUnique() {
        assertInvalid("lineGroups[1].coreAddress6",
                      "duplicate core IPv6 address 2001:db8:64::11 (also in lineGroups[0])",
                      pod -> group(pod, 1).put("coreAddress6", "2001:db8:64::11"));
        assertInvalid("lineGroups[0].coreAddress6", "duplicate core IPv6 address 2001:db8:64::1 (also in core)",
                      pod -> group(pod, 0).put("coreAddress6", "2001:db8:64::1"));
    }

    @Test
    public void unknownIpv6FieldsAreRefused() {
        assertInvalid("lineGroups[0].coreAddress66",
                      "unknown field (allowed: name, acMac, coreAddress, coreMac, pools, qosProfile, lines, "
                              + "coreAddress6)",
                      pod -> group(pod, 0).put("coreAddress66", "2001:db8:64::11"));
    }
}
