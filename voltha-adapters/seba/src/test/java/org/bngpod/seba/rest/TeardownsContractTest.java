package org.bngpod.seba.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.SebaSubscriberService;
import org.bngpod.seba.api.TeardownRequest;
import org.junit.Test;

import javax.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * The teardown requests bng-cp polls (tests/contract/onos/README.md,
 * {@code seba-teardowns.json}): the real resource's answer to
 * {@code GET /onos/bngpod-seba/teardowns?after=0} is compared with the
 * fixture bng-cp's Go tests serve to its real client.
 * {@code -Dbngpod.contract.update=true} rewrites the file.
 */
public class TeardownsContractTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final List<TeardownRequest> LOG = List.of(
            new TeardownRequest(1, "access1", 100, 2, "BBSM00000001-1", TeardownRequest.LOST_CARRIER,
                                Instant.parse("2026-01-02T03:04:05.250Z")),
            new TeardownRequest(2, "access1", 100, 3, "BBSM00000002-1", TeardownRequest.ADMIN_RESET,
                                Instant.parse("2026-01-02T03:05:00Z")));

    private final TeardownsWebResource resource = new TeardownsWebResource() {
        @Override
        protected SebaSubscriberService service() {
            return new SebaSubscriberService() {
                @Override
                public Optional<LineSubscriber> subscriber(String accessPort, int stag, int ctag) {
                    return Optional.empty();
                }

                @Override
                public Collection<LineSubscriber> subscribers() {
                    return List.of();
                }

                @Override
                public List<String> problems() {
                    return List.of();
                }

                @Override
                public long teardownVersion() {
                    return 2;
                }

                @Override
                public List<TeardownRequest> teardownsAfter(long after) {
                    return LOG.stream().filter(r -> r.version() > after).collect(Collectors.toList());
                }
            };
        }
    };

    private static JsonNode body(Response r) throws Exception {
        return MAPPER.readTree((String) r.getEntity());
    }

    @Test
    public void teardownsAnswerEqualsTheFixture() throws Exception {
        Response r = resource.after("0");
        assertEquals(200, r.getStatus());
        ObjectNode ex = MAPPER.createObjectNode();
        ex.put("method", "GET");
        ex.put("path", "/teardowns?after=0");
        ex.put("status", r.getStatus());
        ex.set("body", body(r));
        Path file = Paths.get(System.getProperty("bngpod.contract.dir", "../../tests/contract/onos"),
                              "seba-teardowns.json");
        String text = MAPPER.writer(SerializationFeature.INDENT_OUTPUT).writeValueAsString(ex) + "\n";
        if (Boolean.getBoolean("bngpod.contract.update")) {
            Files.writeString(file, text, StandardCharsets.UTF_8);
            return;
        }
        assertEquals("GET /teardowns differs from " + file + " (bng-cp's client test decodes that file; if the "
                             + "change is meant, rerun with -Dbngpod.contract.update=true and run go test "
                             + "./internal/onos)", MAPPER.readTree(file.toFile()), MAPPER.readTree(text));
    }

    @Test
    public void afterAVersionAndBadValues() throws Exception {
        JsonNode later = body(resource.after("1"));
        assertEquals(2, later.get("version").asLong());
        assertEquals(1, later.get("teardowns").size());
        assertEquals("Admin-Reset", later.get("teardowns").get(0).get("cause").asText());
        assertEquals(0, body(resource.after("2")).get("teardowns").size());
        assertEquals(2, body(resource.after(null)).get("teardowns").size());
        for (String bad : new String[]{"", "-1", "x", "1.5", "9999999999999999999", "１"}) {
            Response r = resource.after(bad);
            assertEquals(bad, 400, r.getStatus());
            assertTrue(body(r).get("error").asText().startsWith("after:"));
        }
    }
}
