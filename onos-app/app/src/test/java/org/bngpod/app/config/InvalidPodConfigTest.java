package org.bngpod.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;
import org.onosproject.net.config.InvalidFieldException;

import java.util.function.Consumer;

import static org.bngpod.app.config.NetcfgFixtures.MAPPER;
import static org.bngpod.app.config.NetcfgFixtures.config;
import static org.bngpod.app.config.NetcfgFixtures.fixturePod;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

/**
 * Tests of {@link BngPodConfig} on malformed configurations: each breaks the
 * valid fixture in one place and expects the path-named message, from both
 * {@link BngPodConfig#isValid()} and {@link BngPodConfig#pod()}.
 */
public class InvalidPodConfigTest {

    private static ObjectNode at(ObjectNode pod, String pointer) {
        JsonNode node = pod.at(pointer);
        if (!node.isObject()) {
            throw new AssertionError("fixture has no object at " + pointer);
        }
        return (ObjectNode) node;
    }

    /**
     * Breaks the fixture and checks the message and path of the error.
     *
     * @param path     expected field path
     * @param message  expected message, "path: reason"
     * @param breakage how to break the fixture's pod object
     */
    private static void assertInvalid(String path, String message, Consumer<ObjectNode> breakage) {
        ObjectNode pod = fixturePod();
        breakage.accept(pod);
        assertInvalid(pod, path, message);
    }

    private static void assertInvalid(JsonNode pod, String path, String message) {
        BngPodConfig config = config(pod, new NetcfgFixtures.RecordingDelegate());
        InvalidPodConfigException e = assertThrows(InvalidPodConfigException.class, config::isValid);
        assertThat(e.getMessage(), is(message));
        assertThat(e.path(), is(path));
        InvalidPodConfigException again = assertThrows(InvalidPodConfigException.class, config::pod);
        assertThat(again.getMessage(), is(message));
    }

    // --- Shape: missing and unknown fields, JSON types -----------------------

    @Test
    public void instanceSwitchPortMustBeANumber() {
        assertInvalid("instances[0].switchPort", "instances[0].switchPort: expected an integer, got \"4901\"",
                      pod -> at(pod, "/instances/0").put("switchPort", "4901"));
    }

    @Test
    public void instanceSwitchPortOutOfRange() {
        assertInvalid("instances[0].switchPort",
                      "instances[0].switchPort: 0 is not a switch port number (1..4294967040)",
                      pod -> at(pod, "/instances/0").put("switchPort", 0));
    }

    @Test
    public void instanceSwitchPortIsNotAnAccessOrUplinkPort() {
        assertInvalid("instances[1].switchPort",
                      "instances[1].switchPort: 3 is switch port \"access3\", an access port, not a server port",
                      pod -> at(pod, "/instances/1").put("switchPort", 3));
        assertInvalid("instances[0].switchPort",
                      "instances[0].switchPort: 10 is switch port \"uplink1\", an uplink port, not a server port",
                      pod -> at(pod, "/instances/0").put("switchPort", 10));
    }

    @Test
    public void missingTopLevelField() {
        assertInvalid("controlPlane", "controlPlane: required field is missing",
                      pod -> pod.remove("controlPlane"));
    }

    @Test
    public void missingNestedField() {
        assertInvalid("lineGroups[0].acMac", "lineGroups[0].acMac: required field is missing",
                      pod -> at(pod, "/lineGroups/0").remove("acMac"));
    }

    @Test
    public void missingRateOfAccessPort() {
        assertInvalid("ports[1].rate",
                      "ports[1].rate: required field is missing: an access port needs its rate",
                      pod -> at(pod, "/ports/1").remove("rate"));
    }

    @Test
    public void missingTpidOfAccessPort() {
        assertInvalid("ports[1].tpid",
                      "ports[1].tpid: required field is missing: an access port needs the TPID of its outer tag",
                      pod -> at(pod, "/ports/1").remove("tpid"));
    }

    @Test
    public void unknownTopLevelField() {
        assertInvalid("colour", "colour: unknown field (allowed: name, deviceId, ports, servers, core, "
                              + "controlPlane, pools, qosProfiles, lineGroups, instances)",
                      pod -> pod.put("colour", "blue"));
    }

    @Test
    public void unknownNestedField() {
        assertInvalid("lineGroups[1].lines[0].stag.step",
                      "lineGroups[1].lines[0].stag.step: unknown field (allowed: min, max)",
                      pod -> at(pod, "/lineGroups/1/lines/0/stag").put("step", 1));
    }

    @Test
    public void numberWrittenAsString() {
        assertInvalid("ports[0].number", "ports[0].number: expected an integer, got \"1\"",
                      pod -> at(pod, "/ports/0").put("number", "1"));
    }

    @Test
    public void fractionalNumber() {
        assertInvalid("servers[0].ports[0].vfs[1].rate",
                      "servers[0].ports[0].vfs[1].rate: expected an integer, got 1.5E10",
                      pod -> at(pod, "/servers/0/ports/0/vfs/1").put("rate", 1.5e10));
    }

    @Test
    public void nullRequiredField() {
        assertInvalid("instances[0].controlAddress", "instances[0].controlAddress: expected a string, got null",
                      pod -> at(pod, "/instances/0").putNull("controlAddress"));
    }

    @Test
    public void objectInsteadOfArray() {
        assertInvalid("pools", "pools: expected an array, got an object", pod -> pod.putObject("pools"));
    }

    @Test
    public void podIsNotAnObject() {
        assertInvalid(MAPPER.createArrayNode(), "", "expected an object, got an array");
    }

    // --- Values -------------------------------------------------------------

    @Test
    public void badMac() {
        assertInvalid("instances[1].mac",
                      "instances[1].mac: \"02:00:00:00:01:zz\" is not a MAC address (aa:bb:cc:dd:ee:ff)",
                      pod -> at(pod, "/instances/1").put("mac", "02:00:00:00:01:zz"));
    }

    @Test
    public void multicastMac() {
        assertInvalid("lineGroups[0].acMac", "lineGroups[0].acMac: 01:00:5e:00:00:01 is not a unicast MAC address",
                      pod -> at(pod, "/lineGroups/0").put("acMac", "01:00:5e:00:00:01"));
    }

    @Test
    public void badIp() {
        assertInvalid("lineGroups[1].coreAddress",
                      "lineGroups[1].coreAddress: \"100.64.0.300\" is not an IP address",
                      pod -> at(pod, "/lineGroups/1").put("coreAddress", "100.64.0.300"));
    }

    @Test
    public void badPrefix() {
        assertInvalid("core.subnet", "core.subnet: \"100.64.0.0\" is not an IP prefix (address/length)",
                      pod -> at(pod, "/core").put("subnet", "100.64.0.0"));
    }

    @Test
    public void prefixLengthTooLong() {
        assertInvalid("pools[0].prefix", "pools[0].prefix: \"100.80.0.0/33\" has a prefix length above 32",
                      pod -> at(pod, "/pools/0").put("prefix", "100.80.0.0/33"));
    }

    @Test
    public void prefixWithHostBits() {
        assertInvalid("pools[0].prefix",
                      "pools[0].prefix: \"100.80.0.1/22\" has host bits set (the prefix is 100.80.0.0/22)",
                      pod -> at(pod, "/pools/0").put("prefix", "100.80.0.1/22"));
    }

    @Test
    public void vlanOutOfRange() {
        assertInvalid("lineGroups[1].lines[0].stag.max",
                      "lineGroups[1].lines[0].stag.max: 5000 is not a VLAN id (1..4094)",
                      pod -> at(pod, "/lineGroups/1/lines/0/stag").put("max", 5000));
    }

    @Test
    public void vlanZero() {
        assertInvalid("lineGroups[1].lines[0].ctag.min",
                      "lineGroups[1].lines[0].ctag.min: 0 is not a VLAN id (1..4094)",
                      pod -> at(pod, "/lineGroups/1/lines/0/ctag").put("min", 0));
    }

    @Test
    public void vlanRangeMinAboveMax() {
        assertInvalid("lineGroups[0].lines[0].stag", "lineGroups[0].lines[0].stag: min 149 > max 100",
                      pod -> at(pod, "/lineGroups/0/lines/0/stag").put("min", 149).put("max", 100));
    }

    @Test
    public void coreVlanOutOfRange() {
        assertInvalid("core.vlan", "core.vlan: 4095 is not a core VLAN id (0 = untagged) (0..4094)",
                      pod -> at(pod, "/core").put("vlan", 4095));
    }

    @Test
    public void badTpid() {
        assertInvalid("ports[0].tpid", "ports[0].tpid: 37120 is not an outer TPID (33024 = 0x8100 or 34984 = 0x88a8)",
                      pod -> at(pod, "/ports/0").put("tpid", 0x9100));
    }

    @Test
    public void badRole() {
        assertInvalid("ports[2].role", "ports[2].role: \"trunk\" is not a port role (access, uplink, server)",
                      pod -> at(pod, "/ports/2").put("role", "trunk"));
    }

    @Test
    public void portNumberZero() {
        assertInvalid("ports[0].number", "ports[0].number: 0 is not a switch port number (1..4294967040)",
                      pod -> at(pod, "/ports/0").put("number", 0));
    }

    @Test
    public void zeroRate() {
        assertInvalid("qosProfiles[1].downRate", "qosProfiles[1].downRate: 0 is not a rate in bit/s (>= 1)",
                      pod -> at(pod, "/qosProfiles/1").put("downRate", 0));
    }

    @Test
    public void hugeInteger() {
        assertInvalid("ports[0].rate", "ports[0].rate: 100000000000000000000 is not a rate in bit/s (>= 1)",
                      pod -> at(pod, "/ports/0").put("rate", new java.math.BigInteger("100000000000000000000")));
    }

    @Test
    public void badName() {
        assertInvalid("name", "name: \"lab pod\" is not a valid name (1..63 letters, digits, '_', '.', '-', "
                              + "not starting with a symbol)",
                      pod -> pod.put("name", "lab pod"));
    }

    @Test
    public void badDeviceId() {
        assertInvalid("deviceId",
                      "deviceId: \"of:1\" is not an OpenFlow device id (of: and 16 lower-case hex digits)",
                      pod -> pod.put("deviceId", "of:1"));
        assertInvalid("deviceId", "deviceId: \"leaf1\" is not a device id (scheme:id)",
                      pod -> pod.put("deviceId", "leaf1"));
    }

    @Test
    public void instanceIdOutOfRange() {
        assertInvalid("instances[0].id", "instances[0].id: 16777216 is not an instance id (1..16777215)",
                      pod -> at(pod, "/instances/0").put("id", 1 << 24));
    }

    @Test
    public void noWorkerCores() {
        assertInvalid("instances[0].cores", "instances[0].cores: an instance needs at least one worker core",
                      pod -> at(pod, "/instances/0").putArray("cores"));
    }

    @Test
    public void upCirAbovePir() {
        assertInvalid("qosProfiles[0].upCir", "qosProfiles[0].upCir: 60000000 exceeds upPir 50000000",
                      pod -> at(pod, "/qosProfiles/0").put("upCir", 60_000_000L));
    }

    @Test
    public void downGuaranteedAboveDownRate() {
        assertInvalid("qosProfiles[0].downGuaranteed",
                      "qosProfiles[0].downGuaranteed: 200000000 exceeds downRate 100000000",
                      pod -> at(pod, "/qosProfiles/0").put("downGuaranteed", 200_000_000L));
    }

    @Test
    public void downGuaranteedReadAsARate() {
        ObjectNode pod = fixturePod();
        at(pod, "/qosProfiles/0").put("downGuaranteed", 40_000_000L);
        BngPodConfig config = config(pod, new NetcfgFixtures.RecordingDelegate());
        assertEquals(40_000_000L, config.pod().qosProfiles().get(0).downGuaranteed().getAsLong());
        assertEquals(false, fixtureProfileHasGuaranteed());
    }

    private static boolean fixtureProfileHasGuaranteed() {
        return config(fixturePod(), new NetcfgFixtures.RecordingDelegate()).pod().qosProfiles().get(0)
                .downGuaranteed().isPresent();
    }

    @Test
    public void upDscpOutOfRange() {
        assertInvalid("qosProfiles[1].upDscp", "qosProfiles[1].upDscp: 64 is not a DSCP (0..63)",
                      pod -> at(pod, "/qosProfiles/1").put("upDscp", 64));
    }

    @Test
    public void upDscpAsString() {
        assertInvalid("qosProfiles[1].upDscp", "qosProfiles[1].upDscp: expected an integer, got \"keep\"",
                      pod -> at(pod, "/qosProfiles/1").put("upDscp", "keep"));
    }

    @Test
    public void weightsOnPriorityClass() {
        assertInvalid("qosProfiles[0].classes[0].weights",
                      "qosProfiles[0].classes[0].weights: only the best-effort class 12 has weights",
                      pod -> at(pod, "/qosProfiles/0/classes/0").putArray("weights").add(1).add(1).add(1).add(1));
    }

    @Test
    public void wrongWeightCount() {
        assertInvalid("qosProfiles[0].classes[2].weights",
                      "qosProfiles[0].classes[2].weights: 3 weights, not one for each of the 4 best-effort queues",
                      pod -> at(pod, "/qosProfiles/0/classes/2").putArray("weights").add(4).add(2).add(1));
    }

    @Test
    public void dscpOutOfRange() {
        assertInvalid("qosProfiles[0].classes[0].dscp[0]",
                      "qosProfiles[0].classes[0].dscp[0]: 64 is not a DSCP (0..63)",
                      pod -> at(pod, "/qosProfiles/0/classes/0").putArray("dscp").add(64));
    }

    // --- References ---------------------------------------------------------

    @Test
    public void unknownLineGroup() {
        assertInvalid("instances[0].lineGroups[0]", "instances[0].lineGroups[0]: unknown line group \"lg9\"",
                      pod -> at(pod, "/instances/0").putArray("lineGroups").add("lg9"));
    }

    @Test
    public void unknownQosProfile() {
        assertInvalid("lineGroups[0].qosProfile", "lineGroups[0].qosProfile: unknown QoS profile \"bronze\"",
                      pod -> at(pod, "/lineGroups/0").put("qosProfile", "bronze"));
    }

    @Test
    public void unknownPool() {
        assertInvalid("lineGroups[1].pools[0]", "lineGroups[1].pools[0]: unknown pool \"pool9\"",
                      pod -> at(pod, "/lineGroups/1").putArray("pools").add("pool9"));
    }

    @Test
    public void unknownSwitchPort() {
        assertInvalid("lineGroups[0].lines[0].port", "lineGroups[0].lines[0].port: unknown switch port \"access9\"",
                      pod -> at(pod, "/lineGroups/0/lines/0").put("port", "access9"));
    }

    @Test
    public void lineOnNonAccessPort() {
        assertInvalid("lineGroups[0].lines[0].port",
                      "lineGroups[0].lines[0].port: switch port \"uplink1\" is an uplink port, not an access port",
                      pod -> at(pod, "/lineGroups/0/lines/0").put("port", "uplink1"));
    }

    @Test
    public void coreUplinkOnServerPort() {
        assertInvalid("core.uplink", "core.uplink: switch port \"srv1\" is a server port, not an uplink port",
                      pod -> at(pod, "/core").put("uplink", "srv1"));
    }

    @Test
    public void unknownServer() {
        assertInvalid("instances[1].server", "instances[1].server: unknown server \"server9\"",
                      pod -> at(pod, "/instances/1").put("server", "server9"));
    }

    @Test
    public void unknownServerPort() {
        assertInvalid("instances[1].port", "instances[1].port: server \"server1\" has no port \"p2\"",
                      pod -> at(pod, "/instances/1").put("port", "p2"));
    }

    @Test
    public void unknownVf() {
        assertInvalid("instances[1].vf", "instances[1].vf: unknown VF server1/p1 VF 7",
                      pod -> at(pod, "/instances/1").put("vf", 7));
    }

    @Test
    public void instanceMacIsNotItsVfs() {
        assertInvalid("instances[1].mac",
                      "instances[1].mac: 02:00:00:00:01:01 is not the MAC of server1/p1 VF 2 (02:00:00:00:01:02)",
                      pod -> at(pod, "/instances/1").put("mac", "02:00:00:00:01:01"));
    }

    // --- Uniqueness ---------------------------------------------------------

    @Test
    public void duplicateName() {
        assertInvalid("lineGroups[1].name", "lineGroups[1].name: duplicate line group \"lg1\" (also in lineGroups[0])",
                      pod -> {
                          at(pod, "/lineGroups/1").put("name", "lg1");
                          at(pod, "/lineGroups/1").putArray("pools");
                      });
    }

    @Test
    public void duplicatePortNumber() {
        assertInvalid("ports[1].number", "ports[1].number: duplicate switch port number 1 (also in ports[0])",
                      pod -> at(pod, "/ports/1").put("number", 1));
    }

    @Test
    public void duplicateInstanceId() {
        assertInvalid("instances[1].id", "instances[1].id: duplicate instance id 1 (also in instances[0])",
                      pod -> at(pod, "/instances/1").put("id", 1));
    }

    @Test
    public void duplicateVfMac() {
        assertInvalid("servers[0].ports[0].vfs[1].mac",
                      "servers[0].ports[0].vfs[1].mac: duplicate VF MAC 02:00:00:00:01:01 "
                              + "(also in servers[0].ports[0].vfs[0])",
                      pod -> at(pod, "/servers/0/ports/0/vfs/1").put("mac", "02:00:00:00:01:01"));
    }

    @Test
    public void dscpInTwoClasses() {
        assertInvalid("qosProfiles[0].classes[1].dscp[0]",
                      "qosProfiles[0].classes[1].dscp[0]: duplicate DSCP 46 (also in qosProfiles[0].classes[0])",
                      pod -> at(pod, "/qosProfiles/0/classes/1").putArray("dscp").add(46));
    }

    @Test
    public void vfUsedByTwoInstances() {
        assertInvalid("instances[1].vf",
                      "instances[1].vf: VF \"server1/p1 VF 1\" is already used by instance \"dp1\" (instances[0])",
                      pod -> at(pod, "/instances/1").put("vf", 1).put("mac", "02:00:00:00:01:01"));
    }

    @Test
    public void lineGroupServedTwice() {
        assertInvalid("instances[1].lineGroups[1]",
                      "instances[1].lineGroups[1]: line group \"lg1\" is already served by instance \"dp1\" "
                              + "(instances[0])",
                      pod -> at(pod, "/instances/1").putArray("lineGroups").add("lg2").add("lg1"));
    }

    @Test
    public void lineGroupListedTwiceByOneInstance() {
        assertInvalid("instances[0].lineGroups[1]", "instances[0].lineGroups[1]: duplicate line group \"lg1\"",
                      pod -> at(pod, "/instances/0").putArray("lineGroups").add("lg1").add("lg1"));
    }

    @Test
    public void poolBoundToTwoLineGroups() {
        assertInvalid("lineGroups[1].pools[1]",
                      "lineGroups[1].pools[1]: pool \"pool1\" already belongs to line group \"lg1\" (lineGroups[0])",
                      pod -> at(pod, "/lineGroups/1").putArray("pools").add("pool2").add("pool1"));
    }

    @Test
    public void switchPortCabledTwice() {
        assertInvalid("servers[1].ports[0].switchPort",
                      "servers[1].ports[0].switchPort: switch port \"srv1\" is already cabled to \"server1/p1\" "
                              + "(servers[0].ports[0])",
                      pod -> {
                          ObjectNode server2 = pod.withArray("servers").addObject();
                          server2.put("name", "server2");
                          ObjectNode port = server2.putArray("ports").addObject();
                          port.put("name", "p1").put("switchPort", "srv1").putArray("vfs");
                      });
    }

    // --- Reporting ----------------------------------------------------------

    @Test
    public void errorIsAnOnosFieldError() {
        ObjectNode pod = fixturePod();
        at(pod, "/lineGroups/1/lines/0/stag").put("max", 5000);
        InvalidFieldException e = assertThrows(InvalidFieldException.class, config(pod, null)::isValid);
        assertEquals("lineGroups[1].lines[0].stag.max", e.field());
        assertEquals("5000 is not a VLAN id (1..4094)", e.reason());
    }

    @Test
    public void longValuesAreCutInMessages() {
        String longName = "x".repeat(200);
        ObjectNode pod = fixturePod();
        at(pod, "/lineGroups/0").put("qosProfile", longName + " ");
        InvalidPodConfigException e = assertThrows(InvalidPodConfigException.class, config(pod, null)::pod);
        assertThat(e.getMessage(), startsWith("lineGroups[0].qosProfile: \"" + "x".repeat(64) + "...\" is not"));
    }

    @Test
    public void controlCharactersAreEscapedInMessages() {
        assertInvalid("lineGroups[0].qosProfile",
                      "lineGroups[0].qosProfile: \"a\\u000ab\\\"\" is not a valid name (1..63 letters, digits, "
                              + "'_', '.', '-', not starting with a symbol)",
                      pod -> at(pod, "/lineGroups/0").put("qosProfile", "a\nb\""));
    }
}
