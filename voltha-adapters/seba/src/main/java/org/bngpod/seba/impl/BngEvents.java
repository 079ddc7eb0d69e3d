package org.bngpod.seba.impl;

import org.bngpod.api.Session;
import org.bngpod.api.Usage;
import org.bngpod.seba.api.LineSubscriber;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.IpAddress;
import org.onlab.packet.VlanId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.behaviour.BngProgrammable.BngCounterType;
import org.onosproject.net.pi.runtime.PiCounterCellData;
import org.opencord.bng.BngAttachment;
import org.opencord.bng.PppoeBngAttachment;
import org.opencord.bng.PppoeEventSubject;

import java.util.EnumMap;
import java.util.Map;

/**
 * bngpod's sessions as SEBA's BNG API objects (bng-api 2.5.3). The OLT
 * UNI's connect point and the ONU serial come from the SADIS mapping of the
 * session's line; a session without an IPv4 address gets 0.0.0.0 (kafka-onos
 * writes {@code ipAddress} unconditionally). The PPPoE session id is a Java
 * short in bng-api, so ids above 32767 read negative, as SEBA's own app gives them.
 */
final class BngEvents {

    static final IpAddress NO_ADDRESS = Ip4Address.valueOf(0);

    private BngEvents() {
    }

    static PppoeEventSubject subject(Session session, LineSubscriber line) {
        return new PppoeEventSubject(line.uni(), address(session), session.mac(), line.onuSerial(),
                                     (short) session.pppoeId(), VlanId.vlanId((short) session.stag()),
                                     VlanId.vlanId((short) session.ctag()));
    }

    static BngAttachment attachment(ApplicationId appId, Session session, LineSubscriber line) {
        return PppoeBngAttachment.builder()
                .withPppoeSessionId((short) session.pppoeId())
                .withApplicationId(appId)
                .withMacAddress(session.mac())
                .withIpAddress(address(session))
                .withSTag(VlanId.vlanId((short) session.stag()))
                .withCTag(VlanId.vlanId((short) session.ctag()))
                .withOnuSerial(line.onuSerial())
                .withOltConnectPoint(line.uni())
                .lineActivated(true)
                .build();
    }

    /**
     * The session's counters as bng-api's: the DP's usage totals (what RADIUS
     * accounting reports) as the forwarded directions, UPSTREAM_TX and
     * DOWNSTREAM_TX; the DP's drops of the session (packets and their octets)
     * as UPSTREAM_DROPPED and DOWNSTREAM_DROPPED; what the BNG received for
     * the session as UPSTREAM_RX and DOWNSTREAM_RX, forwarded plus dropped
     * (packets and octets, IP packets in both); CONTROL_PLANE (always
     * present, kafka-onos reads it unconditionally) the session's PPPoE/PPP
     * control frames bng-cp received and sent (packets, 0 octets).
     */
    static Map<BngCounterType, PiCounterCellData> stats(Session session) {
        Usage u = session.usage();
        Map<BngCounterType, PiCounterCellData> stats = new EnumMap<>(BngCounterType.class);
        stats.put(BngCounterType.UPSTREAM_RX, new PiCounterCellData(sum(u.upPackets(), u.upDropPackets()),
                                                                    sum(u.upBytes(), u.upDropBytes())));
        stats.put(BngCounterType.UPSTREAM_TX, new PiCounterCellData(u.upPackets(), u.upBytes()));
        stats.put(BngCounterType.UPSTREAM_DROPPED, new PiCounterCellData(u.upDropPackets(), u.upDropBytes()));
        stats.put(BngCounterType.DOWNSTREAM_RX, new PiCounterCellData(sum(u.downPackets(), u.downDropPackets()),
                                                                      sum(u.downBytes(), u.downDropBytes())));
        stats.put(BngCounterType.DOWNSTREAM_TX, new PiCounterCellData(u.downPackets(), u.downBytes()));
        stats.put(BngCounterType.DOWNSTREAM_DROPPED,
                  new PiCounterCellData(u.downDropPackets(), u.downDropBytes()));
        stats.put(BngCounterType.CONTROL_PLANE, new PiCounterCellData(u.controlPackets(), 0));
        return stats;
    }

    /** Two counters (each at most Long.MAX_VALUE) added, at most Long.MAX_VALUE. */
    private static long sum(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }

    private static IpAddress address(Session session) {
        return session.ipv4().map(a -> (IpAddress) a).orElse(NO_ADDRESS);
    }
}
