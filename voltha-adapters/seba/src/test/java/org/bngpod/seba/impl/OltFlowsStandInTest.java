package org.bngpod.seba.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.opencord.olt.AccessDevicePort;
import org.opencord.olt.ServiceKey;
import org.opencord.sadis.UniTagInformation;

import java.util.Map;

import static org.bngpod.seba.impl.TestPod.OLT1;
import static org.bngpod.seba.impl.TestPod.uni;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/** The controller mode's olt flow service: the lab's list as the olt app keys it; bad lists refused. */
public class OltFlowsStandInTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static Map<ServiceKey, UniTagInformation> parse(String json) throws Exception {
        return SebaPodController.OltFlowsStandIn.parse(MAPPER.readTree(json.replace('\'', '"')));
    }

    @Test
    public void programmedSubscribersAsTheOltAppKeysThem() throws Exception {
        Map<ServiceKey, UniTagInformation> got = parse(
                "[{'deviceId':'of:00000000000000a1','port':256,'name':'BBSM00000001-1','sTag':100,'cTag':900,"
                        + "'tpId':64,'serviceName':'hsia','upstreamBandwidthProfile':'User_Bandwidth1',"
                        + "'downstreamBandwidthProfile':'User_Bandwidth2','isPppoeRequired':true},"
                        + "{'deviceId':'of:00000000000000a1','port':256,'name':'BBSM00000001-1','sTag':101,'cTag':901}]");
        assertEquals(2, got.size());
        UniTagInformation hsia = new UniTagInformation.Builder().setPonSTag(VlanId.vlanId((short) 100))
                .setPonCTag(VlanId.vlanId((short) 900)).setTechnologyProfileId(64).setServiceName("hsia")
                .setUpstreamBandwidthProfile("User_Bandwidth1").setDownstreamBandwidthProfile("User_Bandwidth2")
                .setIsPppoeRequired(true).build();
        ServiceKey key = new ServiceKey(new AccessDevicePort(uni(OLT1, 256), "BBSM00000001-1"), hsia);
        assertEquals(hsia, got.get(key));

        SebaPodController.OltFlowsStandIn flows = new SebaPodController.OltFlowsStandIn();
        assertTrue(flows.getProgrammedSubscribers().isEmpty());
        flows.set(got);
        Map<ServiceKey, UniTagInformation> read = flows.getProgrammedSubscribers();
        assertEquals(got, read);
        assertThrows(UnsupportedOperationException.class, () -> read.remove(key));
        flows.set(parse("[]"));
        assertEquals("a reader keeps the list it got", 2, read.size());
        assertTrue(flows.getProgrammedSubscribers().isEmpty());
        // what SebaManager never calls is refused, as strictly as an absent olt app would be
        assertThrows(UnsupportedOperationException.class, flows::getConnectPointStatus);
        assertThrows(UnsupportedOperationException.class, () -> flows.purgeDeviceFlows(DeviceId.deviceId("of:1")));
    }

    private static void refused(String json, String why) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(json));
        assertTrue(json + ": " + e.getMessage(), e.getMessage().contains(why));
    }

    @Test
    public void badListsAreRefusedNamingTheEntry() {
        String ok = "'deviceId':'of:a1','port':256,'name':'U-1','sTag':100,'cTag':900";
        refused("{}", "not a JSON list");
        refused("[1]", "[0]: not an object");
        refused("[{" + ok + ",'colour':1}]", "[0].colour: unknown field");
        refused("[{'port':256,'name':'U-1','sTag':100,'cTag':900}]", "[0].deviceId");
        refused("[{" + ok.replace("'of:a1'", "'a1'") + "}]", "not a device id");
        refused("[{" + ok.replace("256", "0") + "}]", "[0].port: an integer in 1..");
        refused("[{" + ok.replace("256", "'256'") + "}]", "[0].port");
        refused("[{" + ok.replace("'U-1'", "''") + "}]", "[0].name");
        refused("[{" + ok.replace("100", "4095") + "}]", "[0].sTag: an integer in 1..4094");
        refused("[{" + ok.replace("900", "1.5") + "}]", "[0].cTag");
        refused("[{" + ok + ",'tpId':7}]", "[0].tpId: an integer in 64..255");
        refused("[{" + ok + ",'isPppoeRequired':'yes'}]", "[0].isPppoeRequired");
        refused("[{" + ok + "},{" + ok.replace("'U-1'", "'U-2'").replace("900", "901") + "}]",
                "[1].name: of:a1/256 is named U-1 already");
        refused("[{" + ok + "},{" + ok + ",'serviceName':'other'}]", "[1]: of:a1/256 has S-tag 100 C-tag 900 twice");
    }
}
