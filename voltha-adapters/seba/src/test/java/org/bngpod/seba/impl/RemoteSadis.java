package org.bngpod.seba.impl;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.VlanId;
import org.opencord.sadis.BandwidthProfileInformation;
import org.opencord.sadis.BaseInformation;
import org.opencord.sadis.BaseInformationService;
import org.opencord.sadis.SadisService;
import org.opencord.sadis.SubscriberAndDeviceInformation;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * SadisService as SADIS 5.x's remote mode behaves (opencord/sadis,
 * InformationAdapter.get and SubscriberManager/BandwidthProfileManager): the
 * configured {@code url} with every {@code %s} replaced by the id, fetched with
 * java.net.URL, the body read by a plain Jackson ObjectMapper into sadis-api's
 * own classes (SubscriberAndDeviceInformation, BandwidthProfileInformation;
 * UniTagInformation through its fields), with SADIS's two deserializers
 * registered for subscribers: VlanId from a number ({@code VlanId.vlanId((short) n)})
 * and Ip4Address from text. Any IOException (HTTP 404 or other error status,
 * connection refused, malformed JSON, a mapping error) gives null, as SADIS
 * logs "Data not found" and returns null. No cache: every get asks the server.
 *
 * <p>So it refuses what SADIS refuses: an unknown id (404), a body that is not
 * JSON or is cut short, an unknown field anywhere (Jackson's
 * FAIL_ON_UNKNOWN_PROPERTIES, on by default), a VLAN id outside what
 * VlanId.vlanId accepts (-1..4096), a non-numeric text where a number is due,
 * an IPv4 address that does not parse. Like SADIS, it accepts what Jackson
 * coerces (a number written as a string "100" for an int).</p>
 */
final class RemoteSadis implements SadisService {

    private final Remote<SubscriberAndDeviceInformation> subscribers;
    private final Remote<BandwidthProfileInformation> profiles;

    RemoteSadis(String subscriberUrl, String profileUrl) {
        ObjectMapper subscriberMapper = new ObjectMapper();
        SimpleModule module = new SimpleModule();
        module.addDeserializer(VlanId.class, new JsonDeserializer<VlanId>() {
            @Override
            public VlanId deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
                JsonNode node = p.getCodec().readTree(p);
                return VlanId.vlanId((short) node.asInt());
            }
        });
        module.addDeserializer(Ip4Address.class, new JsonDeserializer<Ip4Address>() {
            @Override
            public Ip4Address deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
                JsonNode node = p.getCodec().readTree(p);
                return Ip4Address.valueOf(node.asText());
            }
        });
        subscriberMapper.registerModule(module);
        subscribers = new Remote<>(subscriberUrl, subscriberMapper, SubscriberAndDeviceInformation.class);
        profiles = new Remote<>(profileUrl, new ObjectMapper(), BandwidthProfileInformation.class);
    }

    @Override
    public BaseInformationService<SubscriberAndDeviceInformation> getSubscriberInfoService() {
        return subscribers;
    }

    @Override
    public BaseInformationService<BandwidthProfileInformation> getBandwidthProfileService() {
        return profiles;
    }

    /** One remote information service. */
    static final class Remote<T extends BaseInformation> implements BaseInformationService<T> {
        private final String url;
        private final ObjectMapper mapper;
        private final Class<T> type;
        final AtomicInteger notFound = new AtomicInteger();
        /** The threads that asked (SADIS look-ups must stay off ONOS's event threads). */
        final java.util.Set<String> callers = java.util.concurrent.ConcurrentHashMap.newKeySet();

        Remote(String url, ObjectMapper mapper, Class<T> type) {
            this.url = url;
            this.mapper = mapper;
            this.type = type;
        }

        @Override
        public void clearLocalData() {
        }

        @Override
        public void invalidateAll() {
        }

        @Override
        public void invalidateId(String id) {
        }

        @Override
        public T get(String id) {
            callers.add(Thread.currentThread().getName());
            try (InputStream in = new URL(url.replaceAll("%s", id)).openStream()) {
                return mapper.readValue(in, type);
            } catch (IOException e) {
                notFound.incrementAndGet();
                return null;
            }
        }

        @Override
        public T getfromCache(String id) {
            return null;
        }
    }
}
