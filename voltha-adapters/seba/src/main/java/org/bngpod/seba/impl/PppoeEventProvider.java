package org.bngpod.seba.impl;

import org.bngpod.api.Session;
import org.bngpod.api.SessionEvent;
import org.bngpod.api.SessionListener;
import org.bngpod.api.SessionService;
import org.bngpod.seba.api.CpPppoeEventService;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.SebaSubscriberService;
import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.event.AbstractListenerManager;
import org.opencord.bng.PppoeBngControlHandler;
import org.opencord.bng.PppoeEvent;
import org.opencord.bng.PppoeEventListener;
import org.opencord.bng.PppoeEventSubject;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * SEBA's {@link PppoeBngControlHandler} (bng-api 2.5.3) fed by bngpod's
 * sessions, so that SEBA's kafka-onos publishes them on {@code bng.pppoe}
 * unchanged. bngpod's control planes report a session when it is up and when
 * it is down (Contract B), so a session up posts SESSION_CONFIRMATION then,
 * with its address, IPCP_CONF_ACK; a session down posts SESSION_TERMINATION.
 * bng-cp reports SESSION_INIT (a PADI answered), AUTH_SUCCESS and AUTH_FAILURE
 * itself ({@link CpPppoeEventService}, {@code POST /pppoe-events}).
 * AUTH_REQUEST and IPCP_CONF_REQUEST are not posted. Only events on a line SADIS
 * maps (so with an OLT UNI) are posted; the others are counted ({@link #unmapped()}).
 * Listeners run on ONOS's event dispatcher: this only converts and posts.
 */
@Component(immediate = true, service = {PppoeBngControlHandler.class, CpPppoeEventService.class})
public class PppoeEventProvider extends AbstractListenerManager<PppoeEvent, PppoeEventListener>
        implements PppoeBngControlHandler, CpPppoeEventService {

    private final Logger log = LoggerFactory.getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected SessionService sessionService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected SebaSubscriberService subscriberService;

    private final SessionListener sessionListener = this::sessionEvent;
    private final AtomicLong unmapped = new AtomicLong();
    private final AtomicLong posted = new AtomicLong();

    @Activate
    protected void activate() {
        eventDispatcher.addSink(PppoeEvent.class, listenerRegistry);
        sessionService.addListener(sessionListener);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        sessionService.removeListener(sessionListener);
        eventDispatcher.removeSink(PppoeEvent.class);
        log.info("Stopped");
    }

    /**
     * Returns how many session events had no SADIS-mapped line and were not posted.
     *
     * @return count since activation
     */
    public long unmapped() {
        return unmapped.get();
    }

    /**
     * Returns how many PPPoE events were posted.
     *
     * @return count since activation
     */
    public long posted() {
        return posted.get();
    }

    @Override
    public boolean report(PppoeEvent.EventType type, String accessPort, int stag, int ctag, MacAddress mac,
                          int pppoeId) {
        if (!REPORTED.contains(type)) {
            throw new IllegalArgumentException(type + " is not reported by a control plane");
        }
        Optional<LineSubscriber> line = subscriberService.subscriber(accessPort, stag, ctag);
        if (line.isEmpty()) {
            unmapped.incrementAndGet();
            return false;
        }
        post(new PppoeEvent(type, new PppoeEventSubject(line.get().uni(), BngEvents.NO_ADDRESS, mac,
                                                        line.get().onuSerial(), (short) pppoeId,
                                                        VlanId.vlanId((short) stag), VlanId.vlanId((short) ctag))));
        posted.incrementAndGet();
        return true;
    }

    private void sessionEvent(SessionEvent event) {
        Session session = event.subject();
        if (event.type() == SessionEvent.Type.SESSION_UPDATED) {
            return;
        }
        Optional<LineSubscriber> line =
                subscriberService.subscriber(session.accessPort(), session.stag(), session.ctag());
        if (line.isEmpty()) {
            unmapped.incrementAndGet();
            log.debug("session {} on {}/{}/{}: no SADIS subscriber, no PPPoE event", session.id(),
                      session.accessPort(), session.stag(), session.ctag());
            return;
        }
        if (event.type() == SessionEvent.Type.SESSION_UP) {
            post(PppoeEvent.EventType.SESSION_CONFIRMATION, session, line.get());
            if (session.ipv4().isPresent()) {
                post(PppoeEvent.EventType.IPCP_CONF_ACK, session, line.get());
            }
        } else {
            post(PppoeEvent.EventType.SESSION_TERMINATION, session, line.get());
        }
    }

    private void post(PppoeEvent.EventType type, Session session, LineSubscriber line) {
        post(new PppoeEvent(type, BngEvents.subject(session, line)));
        posted.incrementAndGet();
    }
}
