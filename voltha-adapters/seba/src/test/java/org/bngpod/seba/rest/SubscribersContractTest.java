package org.bngpod.seba.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.Rates;
import org.bngpod.seba.api.SebaSubscriberService;
import org.junit.Test;
import org.onosproject.net.ConnectPoint;

import javax.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import static org.junit.Assert.assertEquals;

/**
 * The subscribers table bng-cp pulls (tests/contract/onos/README.md,
 * {@code seba-subscribers.json}): the real resource's answer to
 * {@code GET /onos/bngpod-seba/subscribers} is compared with the fixture that
 * bng-cp's Go test serves to its real client. {@code -Dbngpod.contract.update=true}
 * rewrites the file.
 */
public class SubscribersContractTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String DIR_PROPERTY = "bngpod.contract.dir";
    private static final String UPDATE_PROPERTY = "bngpod.contract.update";
    private static final String DEFAULT_DIR = "../../tests/contract/onos";

    /** MEF and IETF profiles of BBSim (docs/seba.md), an identity with a space, and a UTF-8 remote id. */
    static final List<LineSubscriber> LINES = List.of(
            new LineSubscriber("access1", 100, 900, "lg1",
                               ConnectPoint.deviceConnectPoint("of:00000000000000a1/256"), "BBSM00000001-1",
                               "hsia", "olt1 eth 0/1:1.1", "cpe-1", "BBSM00000001-1",
                               new Rates("User_Bandwidth2", 300_000_000L, 100_000_000L, 1_250_000L, 625_000L),
                               new Rates("User_Bandwidth1", 230_000_000L, 30_000_000L, 1_375_000L, 1_250_000L)),
            new LineSubscriber("access1", 100, 901, "lg1",
                               ConnectPoint.deviceConnectPoint("of:00000000000000a1/257"), "BBSM00000002-1",
                               "hsia", "", "Zürich-2", "", null,
                               new Rates("Default", 32_000_000L, 600_000L, 3_750L, 3_750L)),
            new LineSubscriber("access3", 300, 7, "lg3",
                               ConnectPoint.deviceConnectPoint("of:00000000000000a2/16"), "BBSM00000003-1",
                               "", "", "", "", null, null));

    private final SubscribersWebResource resource = new SubscribersWebResource() {
        @Override
        protected SebaSubscriberService service() {
            return new SebaSubscriberService() {
                @Override
                public Optional<LineSubscriber> subscriber(String accessPort, int stag, int ctag) {
                    String key = LineSubscriber.key(accessPort, stag, ctag);
                    return LINES.stream().filter(l -> l.line().equals(key)).findFirst();
                }

                @Override
                public Collection<LineSubscriber> subscribers() {
                    return LINES;
                }

                @Override
                public List<String> problems() {
                    return List.of("UNI BBSM00000009-1: SADIS has no entry");
                }
            };
        }
    };

    @Test
    public void subscribersAnswerEqualsTheFixture() throws Exception {
        Response r = resource.all();
        assertEquals(200, r.getStatus());
        ObjectNode ex = MAPPER.createObjectNode();
        ex.put("method", "GET");
        ex.put("path", "/subscribers");
        ex.put("status", r.getStatus());
        ex.set("body", MAPPER.readTree((String) r.getEntity()));

        Path file = Paths.get(System.getProperty(DIR_PROPERTY, DEFAULT_DIR), "seba-subscribers.json");
        String text = MAPPER.writer(SerializationFeature.INDENT_OUTPUT).writeValueAsString(ex) + "\n";
        if (Boolean.getBoolean(UPDATE_PROPERTY)) {
            Files.writeString(file, text, StandardCharsets.UTF_8);
            return;
        }
        JsonNode want = MAPPER.readTree(file.toFile());
        assertEquals("GET /subscribers differs from " + file + " (bng-cp's client test decodes that file; if the "
                             + "change is meant, rerun with -D" + UPDATE_PROPERTY + "=true and run go test "
                             + "./internal/onos)", want, MAPPER.readTree(text));
    }
}
