package org.bngpod.seba.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.Rates;
import org.bngpod.seba.api.SebaSubscriberService;
import org.junit.Test;
import org.onosproject.net.ConnectPoint;

import javax.ws.rs.core.Response;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/** The read-only subscribers API bng-cp pulls: the JSON of a line, 404, 400. */
public class SubscribersWebResourceTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final LineSubscriber S1 = new LineSubscriber(
            "access1", 100, 900, "lg1", ConnectPoint.deviceConnectPoint("of:00000000000000a1/256"),
            "BBSM00000001-1", "hsia", "olt1 eth 0/1:1.1", "cpe-1", "BBSM00000001-1",
            new Rates("User_Bandwidth2", 300_000_000L, 100_000_000L, 1_250_000L, 625_000L), null);

    private final SubscribersWebResource resource = new SubscribersWebResource() {
        @Override
        protected SebaSubscriberService service() {
            return new SebaSubscriberService() {
                @Override
                public Optional<LineSubscriber> subscriber(String accessPort, int stag, int ctag) {
                    return S1.line().equals(LineSubscriber.key(accessPort, stag, ctag)) ? Optional.of(S1)
                            : Optional.empty();
                }

                @Override
                public Collection<LineSubscriber> subscribers() {
                    return List.of(S1);
                }

                @Override
                public List<String> problems() {
                    return List.of("UNI X: unknown to SADIS");
                }
            };
        }
    };

    private static JsonNode body(Response r) throws Exception {
        return MAPPER.readTree((String) r.getEntity());
    }

    @Test
    public void oneLineWithItsIdentityAndRates() throws Exception {
        Response r = resource.one("access1", "100", "900");
        assertEquals(200, r.getStatus());
        assertEquals(MAPPER.readTree("{\"accessPort\":\"access1\",\"stag\":100,\"ctag\":900,\"lineGroup\":\"lg1\","
                                             + "\"uni\":{\"deviceId\":\"of:00000000000000a1\",\"port\":\"256\","
                                             + "\"name\":\"BBSM00000001-1\"},\"onuSerial\":\"BBSM00000001\","
                                             + "\"serviceName\":\"hsia\",\"circuitId\":\"olt1 eth 0/1:1.1\","
                                             + "\"remoteId\":\"cpe-1\",\"nasPortId\":\"BBSM00000001-1\","
                                             + "\"down\":{\"profile\":\"User_Bandwidth2\",\"rate\":300000000,"
                                             + "\"guaranteed\":100000000,\"peakBurst\":1250000,"
                                             + "\"committedBurst\":625000}}"),
                     body(r));
        assertFalse("no upstream profile: no up", body(r).has("up"));
    }

    @Test
    public void allLinesAndTheProblems() throws Exception {
        JsonNode all = body(resource.all());
        assertEquals(1, all.get("subscribers").size());
        assertEquals("access1", all.get("subscribers").get(0).get("accessPort").asText());
        assertEquals("UNI X: unknown to SADIS", all.get("problems").get(0).asText());
    }

    @Test
    public void unknownLinesAndBadTags() throws Exception {
        Response missing = resource.one("access1", "100", "901");
        assertEquals(404, missing.getStatus());
        assertTrue(body(missing).get("error").asText().contains("access1/100/901"));
        for (String[] bad : new String[][]{{"0", "1"}, {"4095", "1"}, {"1", "-1"}, {"x", "1"}, {"1", "99999"},
                                           {"", "1"}, {"１", "1"}}) {
            Response r = resource.one("access1", bad[0], bad[1]);
            assertEquals(String.join("/", bad), 400, r.getStatus());
            assertTrue(body(r).has("error"));
        }
    }
}
