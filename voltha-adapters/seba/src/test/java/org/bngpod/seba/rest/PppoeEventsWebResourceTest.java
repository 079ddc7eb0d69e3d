package org.bngpod.seba.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.bngpod.seba.api.CpPppoeEventService;
import org.junit.Test;

import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/** bng-cp's PPPoE steps: valid events reach the service, bad ones are refused with a reason. */
public class PppoeEventsWebResourceTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final List<String> reported = new ArrayList<>();

    private final PppoeEventsWebResource resource = new PppoeEventsWebResource() {
        @Override
        protected CpPppoeEventService service() {
            return (type, port, stag, ctag, mac, sid) -> {
                reported.add(type + " " + port + "/" + stag + "/" + ctag + " " + mac + " " + sid);
                return ctag != 999; // 999: a line SADIS does not map
            };
        }
    };

    private static SecurityContext as(String... roles) {
        Set<String> r = Set.of(roles);
        return new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return () -> "u";
            }

            @Override
            public boolean isUserInRole(String role) {
                return r.contains(role);
            }

            @Override
            public boolean isSecure() {
                return false;
            }

            @Override
            public String getAuthenticationScheme() {
                return BASIC_AUTH;
            }
        };
    }

    private Response post(String body, SecurityContext sc) {
        return resource.post(new ByteArrayInputStream(body.replace('\'', '"').getBytes(StandardCharsets.UTF_8)), sc);
    }

    private static JsonNode json(Response r) throws Exception {
        return MAPPER.readTree((String) r.getEntity());
    }

    private static String ev(String type, int ctag, String mac, int sid) {
        return "{'type':'" + type + "','accessPort':'access1','stag':100,'ctag':" + ctag + ",'mac':'" + mac
                + "','pppoeId':" + sid + "}";
    }

    @Test
    public void validEventsArePostedUnmappedCounted() throws Exception {
        Response r = post("{'events':[" + ev("SESSION_INIT", 900, "02:00:00:00:00:01", 0) + ","
                                  + ev("AUTH_SUCCESS", 900, "02:00:00:00:00:01", 17) + ","
                                  + ev("AUTH_FAILURE", 999, "02:00:00:00:00:02", 65535) + "]}", as("bngpod-cp"));
        assertEquals(200, r.getStatus());
        assertEquals(MAPPER.readTree("{\"posted\":2,\"unmapped\":1,\"refused\":[]}"), json(r));
        assertEquals(List.of("SESSION_INIT access1/100/900 02:00:00:00:00:01 0",
                             "AUTH_SUCCESS access1/100/900 02:00:00:00:00:01 17",
                             "AUTH_FAILURE access1/100/999 02:00:00:00:00:02 65535"), reported);
    }

    @Test
    public void badEventsAreRefusedTheOthersPosted() throws Exception {
        String[] bad = {
            ev("SESSION_CONFIRMATION", 900, "02:00:00:00:00:01", 1), // Contract B's, not the CP's to report
            ev("AUTH_REQUEST", 900, "02:00:00:00:00:01", 1),
            ev("NOPE", 900, "02:00:00:00:00:01", 1),
            ev("SESSION_INIT", 0, "02:00:00:00:00:01", 0),
            ev("SESSION_INIT", 4095, "02:00:00:00:00:01", 0),
            ev("SESSION_INIT", 900, "02:00:00:00:00", 0),
            ev("SESSION_INIT", 900, "zz:00:00:00:00:01", 0),
            ev("SESSION_INIT", 900, "02:00:00:00:00:01", 65536),
            ev("SESSION_INIT", 900, "02:00:00:00:00:01", -1),
            "{'type':'SESSION_INIT','accessPort':'access1','stag':100,'ctag':900,'mac':'02:00:00:00:00:01'}",
            "{'type':'SESSION_INIT','accessPort':'access1','stag':100,'ctag':900,'mac':'02:00:00:00:00:01',"
                    + "'pppoeId':0,'x':1}",
            "{'type':'SESSION_INIT','accessPort':'','stag':100,'ctag':900,'mac':'02:00:00:00:00:01','pppoeId':0}",
            "{'type':'SESSION_INIT','accessPort':'access1','stag':'100','ctag':900,'mac':'02:00:00:00:00:01',"
                    + "'pppoeId':0}",
            "{'type':'SESSION_INIT','accessPort':'access1','stag':100.5,'ctag':900,'mac':'02:00:00:00:00:01',"
                    + "'pppoeId':0}",
            "[]", "null", "7",
        };
        StringBuilder b = new StringBuilder("{'events':[");
        for (String e : bad) {
            b.append(e).append(',');
        }
        b.append(ev("SESSION_INIT", 900, "02:00:00:00:00:01", 0)).append("]}");
        JsonNode a = json(post(b.toString(), as("bngpod-cp")));
        assertEquals(1, a.get("posted").asInt());
        assertEquals(bad.length, a.get("refused").size());
        for (int i = 0; i < bad.length; i++) {
            assertTrue(a.get("refused").get(i).asText(), a.get("refused").get(i).asText().startsWith("event " + i + ": "));
        }
        assertEquals(1, reported.size());
    }

    /**
     * bng-cp's real POST (tests/contract/onos/seba-pppoe-events.json, written by Go's
     * TestContractPppoeEvents) gives the answer in the file, each event reaching the service.
     */
    @Test
    public void contractFromGo() throws Exception {
        java.nio.file.Path file = java.nio.file.Paths.get(
                System.getProperty("bngpod.contract.dir", "../../tests/contract/onos"), "seba-pppoe-events.json");
        JsonNode fx = MAPPER.readTree(java.nio.file.Files.readAllBytes(file));
        assertEquals("POST", fx.get("method").asText());
        assertEquals("/pppoe-events", fx.get("path").asText());
        Response r = resource.post(new ByteArrayInputStream(MAPPER.writeValueAsBytes(fx.get("body"))),
                                   as("bngpod-cp"));
        assertEquals(fx.get("status").asInt(), r.getStatus());
        assertEquals(fx.get("answer"), json(r));
        assertEquals(List.of("SESSION_INIT access1/100/900 02:00:00:00:00:01 0",
                             "AUTH_SUCCESS access1/100/900 02:00:00:00:00:01 17",
                             "AUTH_FAILURE access1/100/999 02:00:00:00:00:02 65535"), reported);
    }

    @Test
    public void badBodiesAndRoles() throws Exception {
        for (String body : new String[] {"", "x", "[]", "{}", "{'events':{}}", "{'events':[],'more':1}",
                                         "{'events':[]} trailing", "{'events':[],'events':[]}"}) {
            Response r = post(body, as("bngpod-cp"));
            assertEquals(body, 400, r.getStatus());
            assertTrue(body, json(r).get("error").asText().length() > 0);
        }
        StringBuilder many = new StringBuilder("{'events':[");
        for (int i = 0; i <= PppoeEventsWebResource.MAX_EVENTS; i++) {
            many.append(i == 0 ? "" : ",").append(ev("SESSION_INIT", 900, "02:00:00:00:00:01", 0));
        }
        assertEquals(400, post(many + "]}", as("bngpod-cp")).getStatus());
        assertEquals(403, post("{'events':[]}", as("viewer")).getStatus());
        assertEquals(403, post("{'events':[]}", null).getStatus());
        assertEquals(200, post("{'events':[]}", as("admin")).getStatus());
        assertTrue("nothing reported", reported.isEmpty());
    }
}
