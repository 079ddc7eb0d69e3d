package org.bngpod.seba.api;

import org.onlab.packet.MacAddress;
import org.opencord.bng.PppoeEvent;

import java.util.EnumSet;
import java.util.Set;

/**
 * PPPoE steps a control plane reports that bngpod's session reports (Contract B:
 * a session up, a session down) do not carry: a PADI answered, a subscriber
 * authenticated or refused. bng-cp posts them to {@code POST /onos/bngpod-seba/pppoe-events};
 * each becomes a bng-api {@link PppoeEvent} of SEBA's {@code PppoeBngControlHandler},
 * so kafka-onos (or this app's publisher) writes it on {@code bng.pppoe}.
 */
public interface CpPppoeEventService {

    /** The event types a control plane may report. */
    Set<PppoeEvent.EventType> REPORTED = EnumSet.of(PppoeEvent.EventType.SESSION_INIT,
                                                    PppoeEvent.EventType.AUTH_SUCCESS,
                                                    PppoeEvent.EventType.AUTH_FAILURE);

    /**
     * Posts one reported step as a PPPoE event, when SADIS maps the line.
     *
     * @param type       one of {@link #REPORTED}
     * @param accessPort the pod's access port
     * @param stag       S-tag, 1..4094
     * @param ctag       C-tag, 1..4094
     * @param mac        the subscriber's MAC
     * @param pppoeId    PPPoE session id, 0 before the PADS
     * @return true when posted, false when SADIS maps no subscriber on the line (counted)
     * @throws IllegalArgumentException for a type not in {@link #REPORTED}
     */
    boolean report(PppoeEvent.EventType type, String accessPort, int stag, int ctag, MacAddress mac, int pppoeId);
}
