package org.bngpod.seba.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;
import org.onosproject.net.config.InvalidFieldException;

import java.util.Map;

import static org.bngpod.seba.impl.TestPod.OLT1;
import static org.bngpod.seba.impl.TestPod.OLT2;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

/** The seba netcfg: what it accepts and, path-named, what it refuses. */
public class SebaConfigTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    static JsonNode json(String s) throws Exception {
        return MAPPER.readTree(s.replace('\'', '"'));
    }

    @Test
    public void aFullConfigAndTheDefaults() throws Exception {
        SebaConfig.Settings s = SebaConfig.read(json(
                "{'olts':[{'deviceId':'of:00000000000000a1','accessPort':'access1'},"
                        + "{'deviceId':'of:00000000000000a2','accessPort':'access3'}],'statsPeriod':5,'holdDown':0,"
                        + "'resync':1,"
                        + "'kafka':{'bootstrapServers':'127.0.0.1:9092,[::1]:9093','queue':100}}"));
        assertEquals(Map.of(OLT1, "access1", OLT2, "access3"), s.olts);
        assertEquals(5, s.statsPeriod);
        assertEquals("127.0.0.1:9092,[::1]:9093", s.kafkaServers);
        assertEquals(100, s.kafkaQueue);
        assertEquals(0, s.holdDown);
        assertEquals(1, s.resync);
        SebaConfig.Settings d = SebaConfig.read(json("{'olts':[{'deviceId':'of:1','accessPort':'a'}]}"));
        assertEquals(10, d.statsPeriod);
        assertEquals(10, d.holdDown);
        assertEquals(60, d.resync);
        assertNull("no kafka section: no publisher", d.kafkaServers);
    }

    private static void refused(String config, String field, String reason) throws Exception {
        InvalidFieldException e = assertThrows(InvalidFieldException.class, () -> SebaConfig.read(json(config)));
        assertEquals(config, field, e.field());
        assertTrue(e.reason(), e.reason().contains(reason));
    }

    @Test
    public void badConfigsAreRefusedNamingTheField() throws Exception {
        refused("{}", "olts", "non-empty array");
        refused("{'olts':[]}", "olts", "non-empty array");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'colour':1}", "colour", "unknown field");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a','nni':1}]}", "olts[0].nni", "unknown field");
        refused("{'olts':[{'deviceId':1,'accessPort':'a'}]}", "olts[0].deviceId", "non-empty string");
        refused("{'olts':[{'deviceId':'nocolon','accessPort':'a'}]}", "olts[0].deviceId", "not a device id");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'bad port'}]}", "olts[0].accessPort", "not a port name");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'},{'deviceId':'of:1','accessPort':'b'}]}",
                "olts[1].deviceId", "listed twice");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'statsPeriod':'10'}", "statsPeriod", "integer");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'statsPeriod':3601}", "statsPeriod", "0..3600");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'kafka':{'queue':5}}",
                "kafka.bootstrapServers", "non-empty string");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'kafka':{'bootstrapServers':'a b'}}",
                "kafka.bootstrapServers", "host:port");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'kafka':{'bootstrapServers':'a:1','queue':0}}",
                "queue", "1..1000000");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'holdDown':3601}", "holdDown", "0..3600");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'holdDown':-1}", "holdDown", "0..3600");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'resync':0}", "resync", "1..3600");
        refused("{'olts':[{'deviceId':'of:1','accessPort':'a'}],'resync':1.5}", "resync", "1..3600");
        refused("[]", "seba", "not an object");
    }
}
