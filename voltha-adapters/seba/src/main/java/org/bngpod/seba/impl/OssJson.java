package org.bngpod.seba.impl;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.behaviour.BngProgrammable.BngCounterType;
import org.onosproject.net.pi.runtime.PiCounterCellData;
import org.opencord.bng.BngAttachment;
import org.opencord.bng.BngStatsEventSubject;
import org.opencord.bng.PppoeEvent;
import org.opencord.bng.PppoeEventSubject;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The JSON of SEBA's Kafka topics {@value #TOPIC_PPPOE} and {@value #TOPIC_STATS},
 * field for field and in the same order as opencord/kafka-onos writes them
 * (BngPppoeKafkaIntegration, BngStatsKafkaIntegration): a compact JSON object
 * per record, no key.
 */
final class OssJson {

    static final String TOPIC_PPPOE = "bng.pppoe";
    static final String TOPIC_STATS = "bng.stats";

    /** kafka-onos's counter fields: counter, bytes field, packets field. */
    private static final List<Object[]> COUNTERS = List.of(
            new Object[]{BngCounterType.UPSTREAM_RX, "upRxBytes", "upRxPackets"},
            new Object[]{BngCounterType.UPSTREAM_TX, "upTxBytes", "upTxPackets"},
            new Object[]{BngCounterType.UPSTREAM_DROPPED, "upDropBytes", "upDropPackets"},
            new Object[]{BngCounterType.DOWNSTREAM_RX, "downRxBytes", "downRxPackets"},
            new Object[]{BngCounterType.DOWNSTREAM_TX, "downTxBytes", "downTxPackets"},
            new Object[]{BngCounterType.DOWNSTREAM_DROPPED, "downDropBytes", "downDropPackets"});

    private OssJson() {
    }

    /**
     * A {@code bng.pppoe} record.
     *
     * @param event the PPPoE event
     * @param now   the record's time
     * @return the JSON object
     */
    static ObjectNode pppoe(PppoeEvent event, Instant now) {
        PppoeEventSubject s = event.subject();
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("timestamp", now.toString());
        node.put("eventType", event.type().toString());
        node.put("deviceId", s.getOltConnectPoint().deviceId().toString());
        node.put("portNumber", s.getOltConnectPoint().port().toString());
        node.put("macAddress", s.getMacAddress().toString());
        node.put("ipAddress", s.getIpAddress().toString());
        node.put("serialNumber", s.getOnuSerialNumber());
        node.put("sessionId", s.getSessionId() == 0 ? "" : String.valueOf(s.getSessionId()));
        return node;
    }

    /**
     * A {@code bng.stats} record.
     *
     * @param subject the statistics event's subject
     * @param now     the record's time
     * @return the JSON object
     */
    static ObjectNode stats(BngStatsEventSubject subject, Instant now) {
        Map<BngCounterType, PiCounterCellData> counters = subject.getAttachmentStats();
        BngAttachment a = subject.getBngAttachment();
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("macAddress", a.macAddress().toString());
        node.put("ipAddress", a.ipAddress().toString());
        node.put("pppoeSessionId", a.pppoeSessionId());
        node.put("sTag", a.sTag().toShort());
        node.put("cTag", a.cTag().toShort());
        node.put("onuSerialNumber", a.onuSerial());
        node.put("attachmentType", a.type().toString());
        node.put("deviceId", a.oltConnectPoint().deviceId().toString());
        node.put("portNumber", a.oltConnectPoint().port().toString());
        for (Object[] c : COUNTERS) {
            PiCounterCellData d = counters.get((BngCounterType) c[0]);
            if (d != null) {
                node.put((String) c[1], d.bytes());
                node.put((String) c[2], d.packets());
            }
        }
        PiCounterCellData control = counters.get(BngCounterType.CONTROL_PLANE);
        node.put("controlPackets", control == null ? 0 : control.packets());
        node.put("timestamp", now.toString());
        return node;
    }
}
