package ppp

import (
	"io"
	"time"
)

// sendChallenge sends a CHAP Challenge: a new one (new identifier, new
// random value) or the current one again.
func (l *Link) sendChallenge(fresh bool) {
	if fresh {
		if _, err := io.ReadFull(l.cfg.Rand, l.challenge[:]); err != nil {
			l.fail(DownAuthFailed, "no randomness for a CHAP challenge")
			return
		}
		l.authID++
	}
	start := l.begin(CHAPChallenge, l.authID)
	l.out = append(l.out, byte(len(l.challenge)))
	l.out = append(l.out, l.challenge[:]...)
	l.out = append(l.out, l.cfg.Name...)
	l.finish(ProtoCHAP, start, true)
	l.chapSent++
	l.chapDeadline = l.now.Add(l.cfg.Restart)
}

// chapTimeout retransmits the challenge, Max-Configure times in all.
func (l *Link) chapTimeout() {
	l.chapDeadline = timeZero
	if l.authState != authWaitPeer || l.method != AuthCHAP {
		return
	}
	if l.chapSent >= l.cfg.MaxConfigure {
		l.fail(DownAuthTimeout, "no CHAP Response")
		return
	}
	l.sendChallenge(false)
}

// inputPAP handles a PAP packet (we are the authenticator: only
// Authenticate-Requests matter).
func (l *Link) inputPAP(data []byte) {
	pkt, ok := l.packet(data)
	if !ok {
		return
	}
	if pkt[0] != PAPRequest || l.method != AuthPAP || l.closing {
		l.counters.Discarded++
		return
	}
	b := pkt[4:]
	if len(b) < 1 || len(b) < 2+int(b[0]) || len(b) < 2+int(b[0])+int(b[1+int(b[0])]) {
		l.counters.Malformed++
		return
	}
	user := b[1 : 1+int(b[0])]
	pw := b[2+int(b[0]) : 2+int(b[0])+int(b[1+int(b[0])])]
	switch l.authState {
	case authWaitPeer:
		l.authID = pkt[1]
		l.authState = authWaitResult
		l.authDeadline = timeZero
		l.evs = append(l.evs, EvAuth{Method: AuthPAP, User: string(user), Password: append([]byte(nil), pw...)})
	case authDone:
		// Our Ack was lost: repeat it with the request's identifier.
		l.sendCP(ProtoPAP, PAPAck, pkt[1], l.lastAuth)
	default:
		l.counters.Discarded++
	}
}

// inputCHAP handles a CHAP packet (only Responses matter).
func (l *Link) inputCHAP(data []byte) {
	pkt, ok := l.packet(data)
	if !ok {
		return
	}
	if pkt[0] != CHAPResponse || l.method != AuthCHAP || l.closing {
		l.counters.Discarded++
		return
	}
	b := pkt[4:]
	if len(b) < 1 || int(b[0]) != 16 || len(b) < 17 {
		l.counters.Malformed++
		return
	}
	if pkt[1] != l.authID {
		l.counters.Discarded++
		return
	}
	switch l.authState {
	case authWaitPeer:
		l.authState = authWaitResult
		l.authDeadline, l.chapDeadline = timeZero, timeZero
		ev := EvAuth{Method: AuthCHAP, User: string(b[17:]), CHAPID: pkt[1]}
		buf := make([]byte, 32)
		ev.Challenge = append(buf[:0:16], l.challenge[:]...)
		ev.Response = append(buf[16:16], b[1:17]...)
		l.evs = append(l.evs, ev)
	case authDone:
		l.sendCP(ProtoCHAP, CHAPSuccess, pkt[1], l.lastAuth)
	default:
		l.counters.Discarded++
	}
}

// AuthResult answers an EvAuth: PAP Authenticate-Ack/Nak or CHAP
// Success/Failure with message (cut to 255 bytes). Success starts IPCP;
// failure terminates LCP (EvDown DownAuthFailed after the Terminate).
// Without an outstanding EvAuth it does nothing.
func (l *Link) AuthResult(now time.Time, ok bool, message string) {
	if l.dead || l.closing || l.authState != authWaitResult {
		return
	}
	l.now = now
	if len(message) > 255 {
		message = message[:255]
	}
	body := l.scratch[:0]
	var code uint8
	proto := ProtoPAP
	if l.method == AuthPAP {
		body = append(body, byte(len(message)))
		code = PAPNak
		if ok {
			code = PAPAck
		}
	} else {
		proto = ProtoCHAP
		code = CHAPFailure
		if ok {
			code = CHAPSuccess
		}
	}
	body = append(body, message...)
	l.scratch = body
	l.sendCP(proto, code, l.authID, body)
	if !ok {
		l.authState = authNone
		l.terminate(DownAuthFailed, message)
		return
	}
	l.authState = authDone
	l.lastAuth = append(l.lastAuth[:0], body...)
	l.enterNetwork()
	l.settle()
}
