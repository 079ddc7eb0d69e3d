package main

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
)

// One subscriber's client: PPPoE discovery (RFC 2516), LCP (RFC 1661), PAP
// (RFC 1334) or CHAP-MD5 (RFC 1994), IPCP with DNS (RFC 1332, 1877), LCP
// echoes both ways, then UDP traffic. Everything runs on the Emu's loop.

type state uint8

const (
	stQueued state = iota
	stBackoff
	stPADI
	stPADR
	stLCP
	stAuth
	stIPCP
	stUp
	stFailed // gave up after its retries
	stClosed // hung up at stop, or down without redial
)

var stateNames = [...]string{"queued", "backoff", "padi", "padr", "lcp", "auth", "ipcp", "up", "failed", "closed"}

func (s state) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "?"
}

// dialling reports whether the state counts against the concurrency limit.
func (s state) dialling() bool { return s >= stPADI && s <= stIPCP }

type sess struct {
	sub     Subscriber
	idx     int32
	mac     [6]byte
	port    uint16 // our UDP source port
	state   state
	attempt int
	lastErr string

	// discovery
	hostUniq [8]byte // subscriber index + attempt: a late PADO of an old attempt does not count
	acMAC    [6]byte
	sid      uint16
	cookie   []byte
	relay    []byte
	hasRelay bool
	// session frames of the offered session that came before its PADS (a switch
	// may reorder the PADS behind the server's first LCP Configure-Request):
	// replayed once the PADS is in, instead of waiting for the server's restart timer
	early    [maxEarly][]byte
	earlyN   uint8
	earlySID uint16
	// the PPPoE session id this client last hung up: the server's late frames
	// of it (its own PADT after ours, a Terminate-Ack) are expected, not wrong
	oldSID uint16
	// our hang-up of oldSID: the Terminate-Ack is still due (a PADT before it
	// is out of order); a strict hang-up waits for it (PADT, Terminate-Request
	// again or giving up at hangAt)
	termAckDue bool
	hangWait   bool
	hangTries  uint8
	hangAt     int64

	// LCP
	lcpID               uint8
	magic               uint32
	mru                 uint16
	noMRU, noMagic      bool
	ourAcked, peerAcked bool
	peerMRU             uint16
	authProto           uint16
	// auth
	papID  uint8
	chapID uint8
	// IPCP
	ipcpID                      uint8
	addr, dns1, dns2            [4]byte
	wantDNS1, wantDNS2          bool
	ipcpOurAcked, ipcpPeerAcked bool
	// IPv6 (Config.DualStack, client6.go)
	v6 v6sess

	// timers: ns since the Emu's start, 0 = off
	retxAt, phaseAt, echoAt, txAt, retryAt int64
	retxN                                  int
	wheelTick                              int64
	echoID                                 uint8
	echoPending                            bool
	echoMisses                             int

	dialStart, upAt int64
	// first attempt started and first echoed datagram received, ns since the
	// Emu's start + 1 (0 = not yet): what the whole-pod setup-rate bench counts
	firstDialAt, firstRxAt int64
	// the last echoed datagram, and the longest time between two (a traffic
	// outage, e.g. a failover) with when it ended; ns as above
	lastRxAt, maxRxGap, maxRxGapEnd int64
	wasUp                           bool
	rejID                           uint8

	// traffic
	seq                                 uint64
	txPkts, rxPkts, txBytes, rxBytes    uint64
	rxBad, rttSum                       uint64
	echoSent, echoReplies, echoAnswered uint64
}

// --- life cycle

func (e *Emu) startDial(s *sess) {
	s.attempt++
	e.st.dialled++
	if e.st.firstDial == 0 {
		e.st.firstDial = e.now + 1
	}
	e.dialing++
	s.state = stPADI
	s.dialStart = e.now
	if s.firstDialAt == 0 {
		s.firstDialAt = e.now + 1
	}
	binary.BigEndian.PutUint32(s.hostUniq[:4], s.sub.Index)
	binary.BigEndian.PutUint32(s.hostUniq[4:], uint32(s.attempt))
	s.acMAC, s.sid = [6]byte{}, 0
	s.cookie, s.relay, s.hasRelay = s.cookie[:0], s.relay[:0], false
	s.earlyN, s.earlySID = 0, 0
	e.ackSettled(s)
	s.hangWait = false
	s.lcpID, s.mru, s.noMRU, s.noMagic, s.ourAcked, s.peerAcked = 0, 1492, false, false, false, false
	s.peerMRU, s.authProto = 0, 0
	s.magic = uint32(e.rand64()) | 1
	s.ipcpID, s.addr, s.dns1, s.dns2 = 0, [4]byte{}, [4]byte{}, [4]byte{}
	s.wantDNS1, s.wantDNS2, s.ipcpOurAcked, s.ipcpPeerAcked = true, true, false, false
	s.echoAt, s.txAt, s.retryAt, s.echoPending, s.echoMisses = 0, 0, 0, false, 0
	e.sendPADI(s)
	e.phase(s)
}

// phase starts a new phase: the restart timer and the phase timeout.
func (e *Emu) phase(s *sess) {
	s.retxN = 0
	s.retxAt = e.now + int64(e.cfg.Retransmit)
	s.phaseAt = e.now + int64(e.cfg.PhaseTimeout)
	e.arm(s)
}

// fail ends a dialling attempt: counted by reason, retried after a backoff
// or given up.
func (e *Emu) fail(s *sess, reason string) {
	if !s.state.dialling() {
		return
	}
	e.st.failReasons[reason]++
	s.lastErr = reason
	if s.sid != 0 {
		e.sendPADT(s)
		s.oldSID = s.sid
	}
	s.sid = 0
	e.dialing--
	s.retxAt, s.phaseAt = 0, 0
	if s.attempt <= e.cfg.Retries {
		s.state = stBackoff
		shift := s.attempt - 1
		if shift > 5 {
			shift = 5
		}
		d := int64(e.cfg.Backoff) << shift
		s.retryAt = e.now + d + int64(e.rand64()%uint64(d/2+1))
	} else {
		s.state = stFailed
		e.st.failed++
	}
	e.arm(s)
	e.pump()
}

// drop ends a session that was up: counted by reason, dialled again when
// Redial is set.
func (e *Emu) drop(s *sess, reason string) {
	if s.state != stUp {
		return
	}
	e.st.dropReasons[reason]++
	e.st.upNow--
	s.lastErr = reason
	if s.sid != 0 {
		e.sendPADT(s)
		s.oldSID = s.sid
	}
	s.sid = 0
	s.echoAt, s.txAt, s.retxAt, s.phaseAt = 0, 0, 0, 0
	if e.cfg.Redial {
		s.state = stBackoff
		s.attempt = 0
		s.retryAt = e.now + int64(e.cfg.Backoff) + int64(e.rand64()%uint64(e.cfg.Backoff/2+1))
	} else {
		s.state = stClosed
	}
	e.arm(s)
}

// up: IPCP opened both ways with an address.
func (e *Emu) up(s *sess) {
	s.state = stUp
	s.upAt = e.now
	e.dialing--
	e.st.upNow++
	e.st.upEvents++
	if !s.wasUp {
		s.wasUp = true
		e.st.everUp++
	}
	s.lastErr = ""
	e.st.lastUp = e.now
	e.lat = append(e.lat, float32(float64(e.now-s.dialStart)/1e6))
	s.retxAt, s.phaseAt = 0, 0
	if e.cfg.EchoInterval > 0 {
		s.echoAt = e.now + int64(e.cfg.EchoInterval)
	}
	if e.cfg.Rate > 0 && (e.cfg.Target.IsValid() || e.cfg.Target6.IsValid()) {
		// The first datagram right away (sessions come up spread out anyway): the time to the
		// first echo is then the pod's, not the emulator's interval.
		s.txAt = e.now + 1
	}
	e.arm(s)
	e.pump()
}

// beginStop closes every session (no more dialling, no timers) and queues
// the ones with a PPPoE session for their hangup.
func (e *Emu) beginStop() {
	e.stopping = true
	e.hq = e.hq[:0]
	for i := range e.sess {
		s := &e.sess[i]
		if s.sid != 0 && s.state >= stLCP && s.state <= stUp {
			e.hq = append(e.hq, int32(i))
		} else {
			s.sid = 0
		}
		if s.state == stUp {
			e.st.upNow--
		}
		if s.state.dialling() {
			e.dialing--
		}
		if s.state != stFailed {
			s.state = stClosed
		}
		s.earlyN = 0
		s.retxAt, s.phaseAt, s.echoAt, s.txAt, s.retryAt = 0, 0, 0, 0, 0
	}
}

// hangupN hangs up the next n queued sessions: LCP Terminate-Request (RFC
// 1661: the server acks and ends the session) and PADT (RFC 2516: in case the
// request is lost or the server waits for it), neither retransmitted. A
// strict client sends the PADT once the Terminate-Ack is in (hangAck).
func (e *Emu) hangupN(n int) {
	for _, i := range e.hq[:n] {
		s := &e.sess[i]
		if s.sid == 0 {
			continue // the server ended it meanwhile
		}
		s.lcpID++
		e.sendCP(s, ppp.ProtoLCP, ppp.CodeTermReq, s.lcpID, []byte("bng-subemu stop"))
		e.st.hangups++
		s.termAckDue = true
		e.acksDue++
		e.lingerUntil = e.now + int64(e.cfg.Retransmit)
		if e.cfg.Strict {
			s.hangWait, s.hangTries, s.hangAt = true, 1, e.now+int64(e.cfg.Retransmit)
			e.hw = append(e.hw, i)
		} else {
			e.sendPADT(s)
		}
		s.oldSID, s.sid = s.sid, 0
	}
	e.hq = e.hq[:copy(e.hq, e.hq[n:])]
}

// hangWaiting reports whether strict hang-ups still wait for a Terminate-Ack.
func (e *Emu) hangWaiting() bool {
	for e.hwHead < len(e.hw) && !e.sess[e.hw[e.hwHead]].hangWait {
		e.hwHead++
	}
	if e.hwHead == len(e.hw) {
		e.hw, e.hwHead = e.hw[:0], 0
		return false
	}
	return true
}

// hangTimers: a strict hang-up whose Terminate-Ack is late sends the
// Terminate-Request once more (RFC 1661 Max-Terminate 2), then gives up
// waiting and sends the PADT.
func (e *Emu) hangTimers() {
	for e.hangWaiting() {
		i := e.hw[e.hwHead]
		s := &e.sess[i]
		if s.hangAt > e.now {
			return
		}
		e.hwHead++
		if s.hangTries < 2 {
			s.hangTries++
			s.hangAt = e.now + int64(e.cfg.Retransmit)
			e.onOldSID(s, func(s *sess) { e.sendCP(s, ppp.ProtoLCP, ppp.CodeTermReq, s.lcpID, []byte("bng-subemu stop")) })
			e.hw = append(e.hw, i)
			continue
		}
		e.hangDone(s, true)
	}
}

// ackSettled: the Terminate-Ack of our hang-up is in, or no longer awaited.
func (e *Emu) ackSettled(s *sess) {
	if s.termAckDue {
		s.termAckDue = false
		e.acksDue--
	}
}

// hangDone ends a strict hang-up's wait, with our PADT or without (the
// server's PADT ended the session).
func (e *Emu) hangDone(s *sess, padt bool) {
	s.hangWait = false
	e.ackSettled(s)
	if padt {
		e.onOldSID(s, e.sendPADT)
	}
}

// onOldSID runs send with the session's frames in the session it hung up.
func (e *Emu) onOldSID(s *sess, send func(*sess)) {
	sid := s.sid
	s.sid = s.oldSID
	send(s)
	s.sid = sid
}

// endHangWaits sends the PADT of every strict hang-up still waiting (the
// transport failed, or the stop's bound was reached).
func (e *Emu) endHangWaits() {
	for e.hangWaiting() {
		s := &e.sess[e.hw[e.hwHead]]
		e.hwHead++
		e.hangDone(s, true)
	}
}

// hangAnswer handles the server's answer to our hang-up (a frame of
// oldSID): the Terminate-Ack (a strict client's PADT goes now), or its
// PADT (before the Ack: out of the documented order, and the session is over).
func (e *Emu) hangAnswer(s *sess, f *pppoe.Frame) {
	if !s.termAckDue {
		return
	}
	if f.EtherType == pppoe.EtherTypeDiscovery {
		if f.Code == pppoe.CodePADT {
			e.st.padtBeforeTermAck++
			e.ackSettled(s)
			if s.hangWait {
				e.hangDone(s, false)
			}
		}
		return
	}
	p := f.Payload
	if len(p) >= 6 && binary.BigEndian.Uint16(p) == ppp.ProtoLCP && p[2] == ppp.CodeTermAck && p[3] == s.lcpID {
		e.ackSettled(s)
		if s.hangWait {
			e.hangDone(s, true)
		}
	}
}

// onTimer runs the session's due timers.
func (e *Emu) onTimer(s *sess) {
	now := e.now
	if s.retryAt != 0 && now >= s.retryAt {
		s.retryAt = 0
		if s.state == stBackoff {
			e.enqueue(s)
			e.pump()
		}
	}
	if s.phaseAt != 0 && now >= s.phaseAt {
		s.phaseAt = 0
		e.fail(s, s.state.String()+"_timeout")
	}
	if s.retxAt != 0 && now >= s.retxAt {
		s.retxN++
		iv := int64(e.cfg.Retransmit)
		if s.state == stPADI || s.state == stPADR {
			sh := s.retxN
			if sh > 3 {
				sh = 3
			}
			iv <<= sh
		}
		s.retxAt = now + iv
		e.retransmit(s)
	}
	if s.echoAt != 0 && now >= s.echoAt {
		s.echoAt = now + int64(e.cfg.EchoInterval)
		if s.echoPending {
			s.echoMisses++
		}
		if s.echoMisses >= e.cfg.EchoFailures {
			e.drop(s, "echo_timeout")
		} else {
			e.sendEcho(s)
		}
	}
	if s.txAt != 0 && now >= s.txAt && s.state == stUp {
		iv := int64(1e9 / e.cfg.Rate)
		if iv <= 0 {
			iv = 1
		}
		n := (now-s.txAt)/iv + 1
		if n > 64 {
			// far behind (a stalled loop): do not burst, restart the clock
			n, s.txAt = 64, now
		}
		for i := int64(0); i < n; i++ {
			if e.cfg.Target.IsValid() {
				e.sendUDP(s)
			}
			if e.cfg.Target6.IsValid() && s.v6.dhcp == dhcpBound {
				e.sendUDP6(s)
			}
		}
		s.txAt += n * iv
	}
	e.arm(s)
}

func (e *Emu) retransmit(s *sess) {
	switch s.state {
	case stPADI:
		e.sendPADI(s)
	case stPADR:
		e.sendPADR(s)
	case stLCP:
		if !s.ourAcked {
			e.sendLCPReq(s)
		}
	case stAuth:
		if s.authProto == ppp.ProtoPAP {
			e.sendPAP(s)
		}
		// CHAP: the authenticator retransmits its challenge
	case stIPCP:
		if !s.ipcpOurAcked {
			e.sendIPCPReq(s)
		}
		e.retransmit6(s)
	}
}

// --- input

// input handles one frame from the wire (hostile).
func (e *Emu) input(b []byte) {
	e.st.rxFrames++
	f, err := pppoe.DecodeFrame(b)
	if err != nil {
		e.st.rxMalformed++
		return
	}
	if f.Dst[0] != 0x02 || f.Dst[1] != 0x5b {
		e.st.rxNotOurs++
		return
	}
	i, ok := e.byIdx[binary.BigEndian.Uint32(f.Dst[2:])]
	if !ok {
		e.st.rxNotOurs++
		return
	}
	s := &e.sess[i]
	if f.STag != s.sub.STag || f.CTag != s.sub.CTag {
		e.st.rxWrongLine++
		return
	}
	if f.EtherType == pppoe.EtherTypeDiscovery {
		e.discovery(s, &f)
	} else {
		e.sessionFrame(s, &f)
	}
	e.arm(s)
}

func (e *Emu) unexpected() { e.st.rxUnexpected++ }

func (e *Emu) discovery(s *sess, f *pppoe.Frame) {
	switch f.Code {
	case pppoe.CodePADO, pppoe.CodePADS:
	case pppoe.CodePADT:
		if s.sid != 0 && f.SessionID == s.sid && f.Src == s.acMAC && s.state != stClosed {
			s.oldSID, s.sid = s.sid, 0 // the server's PADT needs no answer
			if s.state == stUp {
				e.drop(s, "padt")
			} else {
				e.fail(s, "padt")
			}
			return
		}
		if e.late(s, f) {
			return
		}
		e.st.rxWrongSession++
		return
	default:
		e.unexpected()
		return
	}
	t, err := pppoe.ParseTags(f.Payload)
	if err != nil {
		e.st.rxMalformed++
		return
	}
	if !t.HasHostUniq || !bytes.Equal(t.HostUniq, s.hostUniq[:]) {
		e.unexpected() // another attempt's, or no Host-Uniq
		return
	}
	switch f.Code {
	case pppoe.CodePADO:
		if s.state != stPADI {
			e.unexpected()
			return
		}
		if f.Src[0]&1 != 0 || f.Src == ([6]byte{}) {
			e.st.rxMalformed++
			return
		}
		if t.ErrorTags > 0 {
			e.fail(s, "pado_error")
			return
		}
		s.acMAC = f.Src
		s.cookie = append(s.cookie[:0], t.ACCookie...)
		s.relay, s.hasRelay = append(s.relay[:0], t.RelaySessionID...), t.HasRelaySessionID
		s.state = stPADR
		e.sendPADR(s)
		e.phase(s)
	case pppoe.CodePADS:
		if s.state != stPADR || f.Src != s.acMAC {
			e.unexpected()
			return
		}
		if f.SessionID == 0 || t.ErrorTags > 0 {
			e.fail(s, "pads_error")
			return
		}
		if f.SessionID == 0xffff {
			e.st.rxMalformed++
			return
		}
		s.sid = f.SessionID
		s.state = stLCP
		e.sendLCPReq(s)
		e.phase(s)
		e.replayEarly(s)
	}
}

// maxEarly session frames are kept per session before its PADS.
const maxEarly = 4

// late reports (and counts) a frame of the session this client hung up or is
// hanging up: the server's answers to our Terminate-Request and PADT.
func (e *Emu) late(s *sess, f *pppoe.Frame) bool {
	if f.Src != s.acMAC || f.SessionID == 0 {
		return false
	}
	if s.oldSID != 0 && f.SessionID == s.oldSID {
		e.st.rxLate++
		e.hangAnswer(s, f)
		return true
	}
	if s.state == stClosed && s.sid != 0 && f.SessionID == s.sid {
		// waiting for its hangup at stop
		e.st.rxLate++
		if f.EtherType == pppoe.EtherTypeDiscovery && f.Code == pppoe.CodePADT {
			s.oldSID, s.sid = s.sid, 0 // the server ended it: nothing to hang up
		}
		return true
	}
	return false
}

// keepEarly keeps a session frame that came from the offering AC before its
// PADS (reordered on the way), or drops it in strict mode; false when it is
// not one.
func (e *Emu) keepEarly(s *sess, f *pppoe.Frame) bool {
	if s.state != stPADR || s.sid != 0 || f.Src != s.acMAC || f.SessionID == 0 || f.SessionID == 0xffff {
		return false
	}
	e.st.rxEarly++
	if e.cfg.Strict {
		e.st.rxEarlyDropped++ // a CPE has no session to put it in yet
		return true
	}
	if s.earlyN > 0 && f.SessionID != s.earlySID {
		s.earlyN = 0 // another session id: only the latest offer counts
	}
	if int(s.earlyN) == maxEarly || len(f.Payload) > 1500 {
		e.st.rxEarlyDropped++
		return true
	}
	s.earlySID = f.SessionID
	s.early[s.earlyN] = append(s.early[s.earlyN][:0], f.Payload...)
	s.earlyN++
	return true
}

// replayEarly handles the frames kept before the PADS, now that the session is known.
func (e *Emu) replayEarly(s *sess) {
	n := s.earlyN
	s.earlyN = 0
	if n == 0 {
		return
	}
	if s.earlySID != s.sid {
		e.st.rxWrongSession += uint64(n)
		return
	}
	for i := uint8(0); i < n && s.state >= stLCP && s.state <= stUp; i++ {
		f := pppoe.Frame{Src: s.acMAC, Dst: s.mac, STag: s.sub.STag, CTag: s.sub.CTag,
			EtherType: pppoe.EtherTypeSession, SessionID: s.sid, Payload: s.early[i]}
		e.sessionFrame(s, &f)
	}
}

func (e *Emu) sessionFrame(s *sess, f *pppoe.Frame) {
	if s.sid == 0 || f.SessionID != s.sid || f.Src != s.acMAC || s.state < stLCP || s.state > stUp {
		if !e.keepEarly(s, f) && !e.late(s, f) {
			e.st.rxWrongSession++
		}
		return
	}
	p := f.Payload
	if len(p) < 2 {
		e.st.rxMalformed++
		return
	}
	proto := binary.BigEndian.Uint16(p)
	if proto == ppp.ProtoIPv4 {
		if s.state == stUp {
			e.rxUDP(s, p[2:])
		} else {
			e.unexpected()
		}
		return
	}
	if proto == ppp.ProtoIPv6 && e.cfg.DualStack && s.state >= stIPCP {
		e.ipv6In(s, p[2:])
		return
	}
	var pkt cpPacket
	switch proto {
	case ppp.ProtoLCP, ppp.ProtoPAP, ppp.ProtoCHAP, ppp.ProtoIPCP, ppp.ProtoIPv6CP:
		if proto == ppp.ProtoIPv6CP && !e.cfg.DualStack {
			break
		}
		var ok bool
		if pkt, ok = parseCP(p[2:]); !ok {
			e.st.rxMalformed++
			return
		}
	}
	switch proto {
	case ppp.ProtoLCP:
		e.lcp(s, pkt)
	case ppp.ProtoPAP:
		e.pap(s, pkt)
	case ppp.ProtoCHAP:
		e.chap(s, pkt)
	case ppp.ProtoIPCP:
		e.ipcp(s, pkt)
	case ppp.ProtoIPv6CP:
		if e.cfg.DualStack {
			e.ipv6cp(s, pkt)
			return
		}
		e.unexpected()
		if s.state > stLCP {
			e.sendProtoRej(s, p)
		}
	default:
		// IPv6CP, CCP, ...: not run here (RFC 1661 5.7), once LCP is open
		e.unexpected()
		if s.state > stLCP {
			e.sendProtoRej(s, p)
		}
	}
}

// --- LCP

// lcpOptions appends our LCP Configure-Request options.
func (s *sess) lcpOptions(b []byte) []byte {
	if !s.noMRU {
		b = append(b, ppp.LCPOptMRU, 4, byte(s.mru>>8), byte(s.mru))
	}
	if !s.noMagic {
		b = append(b, ppp.LCPOptMagic, 6)
		b = binary.BigEndian.AppendUint32(b, s.magic)
	}
	return b
}

func (s *sess) ourMagic() uint32 {
	if s.noMagic {
		return 0
	}
	return s.magic
}

func (e *Emu) wantAuth() []byte {
	if e.cfg.Auth == "chap" {
		return []byte{0xc2, 0x23, 5}
	}
	return []byte{0xc0, 0x23}
}

func (e *Emu) lcp(s *sess, p cpPacket) {
	switch p.code {
	case ppp.CodeConfReq:
		if s.state >= stIPCP {
			// the peer restarted LCP after authentication: this session is over
			if s.state == stUp {
				e.drop(s, "lcp_restart")
			} else {
				e.fail(s, "lcp_restart")
			}
			return
		}
		e.lcpConfReq(s, p)
	case ppp.CodeConfAck:
		var tmp [16]byte
		if s.state != stLCP || p.id != s.lcpID || s.ourAcked || !bytes.Equal(p.data, s.lcpOptions(tmp[:0])) {
			e.unexpected()
			return
		}
		s.ourAcked = true
		e.lcpMaybeOpen(s)
	case ppp.CodeConfNak, ppp.CodeConfRej:
		if s.state != stLCP || p.id != s.lcpID || s.ourAcked || !validOptions(p.data) {
			e.unexpected()
			return
		}
		for o := p.data; len(o) > 0; {
			typ, val, _, rest := nextOption(o)
			o = rest
			switch typ {
			case ppp.LCPOptMRU:
				if p.code == ppp.CodeConfRej {
					s.noMRU = true
				} else if len(val) == 2 {
					if v := binary.BigEndian.Uint16(val); v >= 128 && v <= 1492 {
						s.mru = v
					}
				}
			case ppp.LCPOptMagic:
				if p.code == ppp.CodeConfRej {
					s.noMagic = true
				} else {
					s.magic = uint32(e.rand64()) | 1
				}
			}
		}
		s.lcpID++
		e.sendLCPReq(s)
	case ppp.CodeTermReq:
		e.sendCP(s, ppp.ProtoLCP, ppp.CodeTermAck, p.id, nil)
		s.oldSID, s.sid = s.sid, 0 // the server follows with its own PADT
		if s.state == stUp {
			e.drop(s, "peer_terminate")
		} else {
			e.fail(s, "peer_terminate")
		}
	case ppp.CodeEchoReq:
		if s.state <= stLCP || len(p.data) < 4 {
			e.unexpected()
			return
		}
		if m := binary.BigEndian.Uint32(p.data); m != 0 && m == s.ourMagic() {
			e.st.echoLoops++
			return
		}
		var fb frameBuilder
		e.beginSession(&fb, s)
		st := fb.cp(ppp.ProtoLCP, ppp.CodeEchoRep, p.id)
		fb.b = binary.BigEndian.AppendUint32(fb.b, s.ourMagic())
		fb.b = append(fb.b, p.data[4:]...)
		fb.cpEnd(st)
		e.commit(fb.end())
		s.echoAnswered++
		e.st.echoAnswered++
	case ppp.CodeEchoRep:
		if len(p.data) < 4 {
			e.st.rxMalformed++
			return
		}
		if m := binary.BigEndian.Uint32(p.data); m != 0 && m == s.ourMagic() {
			e.st.echoLoops++
			return
		}
		s.echoPending, s.echoMisses = false, 0
		s.echoReplies++
		e.st.echoReplies++
	case ppp.CodeDiscardReq:
	case ppp.CodeProtoRej:
		if len(p.data) >= 2 {
			e.protoRejected(s, binary.BigEndian.Uint16(p.data))
			return
		}
		e.unexpected()
	case ppp.CodeCodeRej, ppp.CodeTermAck:
		e.unexpected()
	default:
		e.unexpected()
		if s.state > stLCP {
			// Code-Reject carries the rejected packet (RFC 1661 5.6)
			var hdr [4]byte
			hdr[0], hdr[1] = p.code, p.id
			binary.BigEndian.PutUint16(hdr[2:], uint16(4+len(p.data)))
			s.rejID++
			var fb frameBuilder
			e.beginSession(&fb, s)
			st := fb.cp(ppp.ProtoLCP, ppp.CodeCodeRej, s.rejID)
			fb.b = append(fb.b, hdr[:]...)
			d := p.data
			if len(d) > 1400 {
				d = d[:1400]
			}
			fb.b = append(fb.b, d...)
			fb.cpEnd(st)
			e.commit(fb.end())
		}
	}
}

// lcpConfReq judges the server's options: MRU and Magic-Number taken, the
// authentication protocol we run acked (another one Nak'd to ours),
// everything else rejected.
func (e *Emu) lcpConfReq(s *sess, p cpPacket) {
	if !validOptions(p.data) {
		e.st.rxMalformed++
		return
	}
	var rej, nak [64]byte
	r, n := rej[:0], nak[:0]
	var mru uint16
	var auth uint16
	want := e.wantAuth()
	for o := p.data; len(o) > 0; {
		typ, val, whole, rest := nextOption(o)
		o = rest
		switch {
		case typ == ppp.LCPOptMRU && len(val) == 2:
			mru = binary.BigEndian.Uint16(val)
		case typ == ppp.LCPOptMagic && len(val) == 4:
			if m := binary.BigEndian.Uint32(val); m != 0 && m == s.ourMagic() {
				e.st.echoLoops++
				n = append(n, ppp.LCPOptMagic, 6)
				n = binary.BigEndian.AppendUint32(n, m^0x5a5a5a5a)
			}
		case typ == ppp.LCPOptAuth && len(val) >= 2:
			if bytes.Equal(val, want) {
				auth = binary.BigEndian.Uint16(want)
			} else {
				n = append(n, ppp.LCPOptAuth, byte(2+len(want)))
				n = append(n, want...)
			}
		default:
			if len(r)+len(whole) <= cap(r) {
				r = append(r, whole...)
			}
		}
	}
	switch {
	case len(r) > 0:
		e.sendCP(s, ppp.ProtoLCP, ppp.CodeConfRej, p.id, r)
	case len(n) > 0:
		e.sendCP(s, ppp.ProtoLCP, ppp.CodeConfNak, p.id, n)
	default:
		e.sendCP(s, ppp.ProtoLCP, ppp.CodeConfAck, p.id, p.data)
		s.peerMRU, s.authProto = mru, auth
		if s.state == stLCP {
			s.peerAcked = true
			e.lcpMaybeOpen(s)
		}
		// in stAuth: our Ack of its request was lost; acked again, nothing changes
	}
}

func (e *Emu) lcpMaybeOpen(s *sess) {
	if !s.ourAcked || !s.peerAcked {
		return
	}
	switch s.authProto {
	case ppp.ProtoPAP:
		s.state = stAuth
		s.papID++
		e.sendPAP(s)
		e.phase(s)
	case ppp.ProtoCHAP:
		s.state = stAuth
		e.phase(s)
	default:
		e.startIPCP(s)
	}
}

// --- authentication

func (e *Emu) pap(s *sess, p cpPacket) {
	if s.state != stAuth || s.authProto != ppp.ProtoPAP || p.id != s.papID {
		e.unexpected()
		return
	}
	switch p.code {
	case ppp.PAPAck:
		e.startIPCP(s)
	case ppp.PAPNak:
		e.fail(s, "auth_rejected")
	default:
		e.unexpected()
	}
}

func (e *Emu) chap(s *sess, p cpPacket) {
	if s.state != stAuth || s.authProto != ppp.ProtoCHAP {
		e.unexpected()
		return
	}
	switch p.code {
	case ppp.CHAPChallenge:
		if len(p.data) < 1 || int(p.data[0]) == 0 || len(p.data) < 1+int(p.data[0]) {
			e.st.rxMalformed++
			return
		}
		ch := p.data[1 : 1+int(p.data[0])]
		h := md5.New()
		h.Write([]byte{p.id})
		h.Write([]byte(s.sub.Password))
		h.Write(ch)
		var sum [16]byte
		h.Sum(sum[:0])
		s.chapID = p.id
		var fb frameBuilder
		e.beginSession(&fb, s)
		st := fb.cp(ppp.ProtoCHAP, ppp.CHAPResponse, p.id)
		fb.b = append(fb.b, 16)
		fb.b = append(fb.b, sum[:]...)
		fb.b = append(fb.b, s.sub.User...)
		fb.cpEnd(st)
		e.commit(fb.end())
	case ppp.CHAPSuccess:
		if p.id != s.chapID {
			e.unexpected()
			return
		}
		e.startIPCP(s)
	case ppp.CHAPFailure:
		if p.id != s.chapID {
			e.unexpected()
			return
		}
		e.fail(s, "auth_rejected")
	default:
		e.unexpected()
	}
}

// --- IPCP

func (s *sess) ipcpOptions(b []byte) []byte {
	b = append(b, ppp.IPCPOptAddress, 6)
	b = append(b, s.addr[:]...)
	if s.wantDNS1 {
		b = append(b, ppp.IPCPOptDNS1, 6)
		b = append(b, s.dns1[:]...)
	}
	if s.wantDNS2 {
		b = append(b, ppp.IPCPOptDNS2, 6)
		b = append(b, s.dns2[:]...)
	}
	return b
}

func (e *Emu) startIPCP(s *sess) {
	s.state = stIPCP
	s.ipcpID++
	e.sendIPCPReq(s)
	if e.cfg.DualStack {
		e.startIPv6CP(s)
	}
	e.phase(s)
}

func (e *Emu) ipcp(s *sess, p cpPacket) {
	if s.state < stIPCP {
		e.unexpected() // before the network phase (RFC 1661 3.5)
		return
	}
	switch p.code {
	case ppp.CodeConfReq:
		if !validOptions(p.data) {
			e.st.rxMalformed++
			return
		}
		var rej [64]byte
		r := rej[:0]
		for o := p.data; len(o) > 0; {
			typ, val, whole, rest := nextOption(o)
			o = rest
			if typ == ppp.IPCPOptAddress && len(val) == 4 {
				continue
			}
			if len(r)+len(whole) <= cap(r) {
				r = append(r, whole...)
			}
		}
		if len(r) > 0 {
			e.sendCP(s, ppp.ProtoIPCP, ppp.CodeConfRej, p.id, r)
			return
		}
		e.sendCP(s, ppp.ProtoIPCP, ppp.CodeConfAck, p.id, p.data)
		s.ipcpPeerAcked = true
		e.ipcpMaybeUp(s)
	case ppp.CodeConfAck:
		var tmp [32]byte
		if s.state != stIPCP || p.id != s.ipcpID || s.ipcpOurAcked || !bytes.Equal(p.data, s.ipcpOptions(tmp[:0])) {
			e.unexpected()
			return
		}
		s.ipcpOurAcked = true
		e.ipcpMaybeUp(s)
	case ppp.CodeConfNak, ppp.CodeConfRej:
		if s.state != stIPCP || p.id != s.ipcpID || s.ipcpOurAcked || !validOptions(p.data) {
			e.unexpected()
			return
		}
		for o := p.data; len(o) > 0; {
			typ, val, _, rest := nextOption(o)
			o = rest
			if p.code == ppp.CodeConfRej {
				switch typ {
				case ppp.IPCPOptAddress:
					e.fail(s, "ipcp_no_address")
					return
				case ppp.IPCPOptDNS1:
					s.wantDNS1 = false
				case ppp.IPCPOptDNS2:
					s.wantDNS2 = false
				}
				continue
			}
			if len(val) != 4 {
				continue
			}
			switch typ {
			case ppp.IPCPOptAddress:
				copy(s.addr[:], val)
			case ppp.IPCPOptDNS1:
				copy(s.dns1[:], val)
			case ppp.IPCPOptDNS2:
				copy(s.dns2[:], val)
			}
		}
		s.ipcpID++
		e.sendIPCPReq(s)
	case ppp.CodeTermReq:
		e.sendCP(s, ppp.ProtoIPCP, ppp.CodeTermAck, p.id, nil)
		if s.state == stUp {
			e.drop(s, "peer_terminate")
		} else {
			e.fail(s, "peer_terminate")
		}
	default:
		e.unexpected()
	}
}

func (e *Emu) ipcpMaybeUp(s *sess) { e.ncpMaybeUp(s) }

// ncpMaybeUp: the session is up once IPCP is open and IPv6 (dual stack) is
// bound or refused.
func (e *Emu) ncpMaybeUp(s *sess) {
	if s.state == stIPCP && s.ipcpOurAcked && s.ipcpPeerAcked && e.v6Done(s) {
		if s.addr == ([4]byte{}) {
			e.fail(s, "ipcp_no_address")
			return
		}
		e.up(s)
	}
}

// --- sending control frames

func (e *Emu) discoveryTags(s *sess, b []byte, padr bool) []byte {
	b = pppoe.AppendTag(b, pppoe.TagServiceName, []byte(e.cfg.ServiceName))
	b = pppoe.AppendTag(b, pppoe.TagHostUniq, s.hostUniq[:])
	if padr {
		if len(s.cookie) > 0 {
			b = pppoe.AppendTag(b, pppoe.TagACCookie, s.cookie)
		}
		if s.hasRelay {
			b = pppoe.AppendTag(b, pppoe.TagRelaySessionID, s.relay)
		}
	}
	return b
}

var broadcast = [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

func (e *Emu) sendPADI(s *sess) {
	var fb frameBuilder
	fb.begin(e.slot(), broadcast, s.mac, s.sub.TPID, s.sub.STag, s.sub.CTag, pppoe.EtherTypeDiscovery, pppoe.CodePADI, 0)
	fb.b = e.discoveryTags(s, fb.b, false)
	e.commit(fb.end())
}

func (e *Emu) sendPADR(s *sess) {
	var fb frameBuilder
	fb.begin(e.slot(), s.acMAC, s.mac, s.sub.TPID, s.sub.STag, s.sub.CTag, pppoe.EtherTypeDiscovery, pppoe.CodePADR, 0)
	fb.b = e.discoveryTags(s, fb.b, true)
	e.commit(fb.end())
}

func (e *Emu) sendPADT(s *sess) {
	var fb frameBuilder
	fb.begin(e.slot(), s.acMAC, s.mac, s.sub.TPID, s.sub.STag, s.sub.CTag, pppoe.EtherTypeDiscovery, pppoe.CodePADT, s.sid)
	e.commit(fb.end())
}

// beginSession starts a PPPoE session frame of s (the AC as destination) in the next
// send slot.
func (e *Emu) beginSession(fb *frameBuilder, s *sess) {
	fb.begin(e.slot(), s.acMAC, s.mac, s.sub.TPID, s.sub.STag, s.sub.CTag, pppoe.EtherTypeSession, 0, s.sid)
}

// sendCP sends a control packet with body.
func (e *Emu) sendCP(s *sess, proto uint16, code, id uint8, body []byte) {
	var fb frameBuilder
	e.beginSession(&fb, s)
	st := fb.cp(proto, code, id)
	fb.b = append(fb.b, body...)
	fb.cpEnd(st)
	e.commit(fb.end())
}

func (e *Emu) sendLCPReq(s *sess) {
	var fb frameBuilder
	e.beginSession(&fb, s)
	st := fb.cp(ppp.ProtoLCP, ppp.CodeConfReq, s.lcpID)
	fb.b = s.lcpOptions(fb.b)
	fb.cpEnd(st)
	e.commit(fb.end())
}

func (e *Emu) sendIPCPReq(s *sess) {
	var fb frameBuilder
	e.beginSession(&fb, s)
	st := fb.cp(ppp.ProtoIPCP, ppp.CodeConfReq, s.ipcpID)
	fb.b = s.ipcpOptions(fb.b)
	fb.cpEnd(st)
	e.commit(fb.end())
}

func (e *Emu) sendPAP(s *sess) {
	var fb frameBuilder
	e.beginSession(&fb, s)
	st := fb.cp(ppp.ProtoPAP, ppp.PAPRequest, s.papID)
	u, pw := s.sub.User, s.sub.Password
	if len(u) > 255 {
		u = u[:255]
	}
	if len(pw) > 255 {
		pw = pw[:255]
	}
	fb.b = append(fb.b, byte(len(u)))
	fb.b = append(fb.b, u...)
	fb.b = append(fb.b, byte(len(pw)))
	fb.b = append(fb.b, pw...)
	fb.cpEnd(st)
	e.commit(fb.end())
}

func (e *Emu) sendEcho(s *sess) {
	s.echoID++
	var fb frameBuilder
	e.beginSession(&fb, s)
	st := fb.cp(ppp.ProtoLCP, ppp.CodeEchoReq, s.echoID)
	fb.b = binary.BigEndian.AppendUint32(fb.b, s.ourMagic())
	fb.cpEnd(st)
	e.commit(fb.end())
	s.echoPending = true
	s.echoSent++
	e.st.echoSent++
}

// sendProtoRej answers a protocol we do not run (p: protocol + data).
func (e *Emu) sendProtoRej(s *sess, p []byte) {
	if len(p) > 1400 {
		p = p[:1400]
	}
	s.rejID++
	e.sendCP(s, ppp.ProtoLCP, ppp.CodeProtoRej, s.rejID, p)
}
