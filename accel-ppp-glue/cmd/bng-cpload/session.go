package main

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"net/netip"
	"sync"
	"time"
)

// One emulated CPE: PPPoE discovery, LCP, PAP or CHAP, IPCP, then it waits for
// the CP to install its session in the (emulated) DP.

type phase uint8

const (
	phIdle phase = iota
	phPADI
	phPADR
	phPPP // LCP, authentication, IPCP
	phDone
	phFailed
)

func (p phase) String() string {
	return [...]string{"idle", "padi", "padr", "ppp", "done", "failed"}[p]
}

// Steps whose completion time is kept for the phase breakdown.
const (
	markPADS = iota // discovery done
	markLCP         // LCP opened both ways
	markAuth        // PAP Ack / CHAP Success (RADIUS)
	markIPCP        // our IPCP request acked
	markEst         // PFCP establishment answered
	nMarks
)

var markNames = [nMarks]string{"discovery", "lcp", "auth", "ipcp", "pfcp"}

func (s *session) mark(i int, now time.Time) {
	if s.marks[i].IsZero() {
		s.marks[i] = now
	}
}

type session struct {
	mu sync.Mutex
	l  *Loader
	dp *dp

	idx        int
	mac        [6]byte
	stag, ctag uint16
	user       string
	password   []byte

	ph       phase
	acMAC    [6]byte
	sid      uint16
	cookie   []byte
	relay    []byte
	hasRelay bool

	// LCP
	lcpID        uint8
	lcpReq       []byte // options of our last LCP Configure-Request
	ourLCPAcked  bool
	peerLCPAcked bool
	mru          uint16
	magic        uint32
	peerMagic    uint32 // the CP's, from the Configure-Request we acked
	authProto    uint16 // what the CP asked for and we acked (0: none)
	lcpOpen      bool
	authSent     bool
	authOK       bool
	papID        uint8
	// IPCP
	ipcpStarted   bool
	ipcpID        uint8
	ipcpReq       []byte // options of our last IPCP Configure-Request
	ourIPCPAcked  bool
	peerIPCPAcked bool
	addr          [4]byte
	dns1, dns2    [4]byte
	wantDNS1      bool
	wantDNS2      bool

	// dual stack (session6.go)
	dual  bool
	v6    v6cpe
	rejID uint8 // our LCP Protocol-Rejects
	est   bool  // the Session Establishment matched (a dual-stack session waits for IPv6 too)

	// IPoE (session_ipoe.go)
	ipoe bool
	dhcp dhcpCPE

	marks     [nMarks]time.Time // when each step completed (phase breakdown)
	start     time.Time
	lastSent  time.Time
	pending   []byte // datagram resent when the peer stays silent
	retx      uint   // times pending was resent (the interval doubles, up to 8x)
	resends   int
	lastPhase string // where the session was when it failed
}

func (s *session) step() string {
	if s.ipoe && s.ph == phPPP {
		return s.ipoeStep()
	}
	switch {
	case s.ph != phPPP:
		return s.ph.String()
	case !s.lcpOpen:
		return "lcp"
	case s.authProto != 0 && !s.authOK:
		return "auth"
	case !s.ourIPCPAcked || !s.peerIPCPAcked:
		return "ipcp"
	case s.dual && !s.v6.ourAcked:
		return "ipv6cp"
	case s.dual && !s.v6.raSeen:
		return "ra"
	case s.dual && !s.v6.bound:
		return "dhcpv6"
	case s.dual && s.est && !s.v6.pdrs:
		return "pfcp_ipv6"
	default:
		return "pfcp"
	}
}

// send encapsulates one PPPoE frame towards the CP; request frames are kept
// for retransmission.
func (s *session) send(code uint8, etherType uint16, payload []byte, request bool, now time.Time) {
	f := frame{
		dst: s.acMAC, src: s.mac, outerTPID: s.l.cfg.OuterTPID,
		stag: s.stag, ctag: s.ctag, etherType: etherType, code: code,
		sessionID: s.sid, payload: payload,
	}
	if code == codePADI {
		f.dst = [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	}
	d := make([]byte, 0, vxlanHeaderLen+minEthFrame+len(payload)+24)
	d = append(d, 0x08, 0, 0, 0, byte(s.dp.id>>16), byte(s.dp.id>>8), byte(s.dp.id), 0)
	d = appendFrame(d, &f)
	s.dp.sendVXLAN(d)
	if request {
		s.pending = d
		s.lastSent = now
		s.retx = 0
	}
}

func (s *session) sendPPP(proto uint16, code, id uint8, data []byte, request bool, now time.Time) {
	s.send(codeSession, etherTypeSession, appendPPP(nil, proto, code, id, data), request, now)
}

func (s *session) accessLineTag(dst []byte) []byte {
	// TR-101 access-line vendor tag as an access node would add it.
	v := []byte{0, 0, 0x0d, 0xe9}
	cid := fmt.Sprintf("dp%d eth 0/%d:%d", s.dp.id, s.stag, s.ctag)
	rid := fmt.Sprintf("cpe%d", s.idx)
	v = append(v, 0x01, byte(len(cid)))
	v = append(v, cid...)
	v = append(v, 0x02, byte(len(rid)))
	v = append(v, rid...)
	return appendTag(dst, 0x0105, v)
}

func (s *session) hostUniq() []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(s.idx))
}

// begin sends the PADI.
func (s *session) begin(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start = now
	if s.ipoe {
		s.beginIPoE(now)
		return
	}
	s.ph = phPADI
	s.sendPADI(now)
}

func (s *session) sendPADI(now time.Time) {
	p := appendTag(nil, tagServiceName, nil)
	p = appendTag(p, tagHostUniq, s.hostUniq())
	if s.l.cfg.AccessLine {
		p = s.accessLineTag(p)
	}
	s.send(codePADI, etherTypeDiscovery, p, true, now)
}

// fail ends the session unsuccessfully (caller holds s.mu). A reason
// "class: detail" is counted by its class; the first detail is kept.
func (s *session) fail(reason string) {
	if s.ph == phDone || s.ph == phFailed {
		return
	}
	s.lastPhase = s.step()
	s.ph = phFailed
	s.pending = nil
	s.l.finish(s, false, reason, 0)
}

// onFrame handles a frame the CP sent to this CPE's MAC.
func (s *session) onFrame(f *frame, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.stag != s.stag || f.ctag != s.ctag {
		s.l.count(&s.l.st.wrongLine)
		return
	}
	if f.etherType == etherTypeDiscovery {
		s.onDiscovery(f, now)
		return
	}
	if f.etherType == etherTypeIPv4 {
		if !s.ipoe {
			s.l.count(&s.l.st.unexpected)
			return
		}
		s.onIPoE(f, now)
		return
	}
	if f.code != codeSession || s.ph < phPPP || f.sessionID != s.sid || f.src != s.acMAC {
		s.l.count(&s.l.st.unexpected)
		return
	}
	proto, pkt, err := splitPPP(f.payload)
	if err != nil {
		s.l.count(&s.l.st.malformed)
		return
	}
	if proto == protoIPv6 {
		s.onIPv6(pkt, now)
		return
	}
	cp, err := parseCP(pkt)
	if err != nil {
		s.l.count(&s.l.st.malformed)
		return
	}
	switch proto {
	case protoLCP:
		s.onLCP(cp, now)
	case protoPAP:
		s.onPAP(cp, now)
	case protoCHAP:
		s.onCHAP(cp, now)
	case protoIPCP:
		s.onIPCP(cp, now)
	case protoIPv6CP:
		s.onIPv6CP(cp, now)
	default:
		s.l.count(&s.l.st.unexpected)
	}
}

func (s *session) onDiscovery(f *frame, now time.Time) {
	t, err := parseTags(f.payload)
	if err != nil {
		s.l.count(&s.l.st.malformed)
		return
	}
	switch f.code {
	case codePADO:
		if s.ph != phPADI {
			s.l.count(&s.l.st.unexpected)
			return
		}
		if !t.hasHostUniq || !bytes.Equal(t.hostUniq, s.hostUniq()) {
			s.l.count(&s.l.st.badHostUniq)
			return
		}
		if t.errorTag != 0 {
			s.fail(fmt.Sprintf("PADO with an error tag: %#04x %q", t.errorTag, t.errorTagValue))
			return
		}
		if f.src[0]&1 != 0 || f.src == ([6]byte{}) {
			s.l.count(&s.l.st.malformed)
			return
		}
		s.acMAC = f.src
		s.cookie = append([]byte(nil), t.acCookie...)
		s.relay, s.hasRelay = append([]byte(nil), t.relaySID...), t.hasRelaySID
		s.ph = phPADR
		s.sendPADR(now)
	case codePADS:
		if s.ph != phPADR || f.src != s.acMAC {
			s.l.count(&s.l.st.unexpected)
			return
		}
		if !t.hasHostUniq || !bytes.Equal(t.hostUniq, s.hostUniq()) {
			s.l.count(&s.l.st.badHostUniq)
			return
		}
		if t.errorTag != 0 || f.sessionID == 0 || f.sessionID == 0xffff {
			s.fail(fmt.Sprintf("PADS refused: session id %#x, error tag %#04x %q", f.sessionID, t.errorTag, t.errorTagValue))
			return
		}
		s.sid = f.sessionID
		s.mark(markPADS, now)
		s.ph = phPPP
		s.mru = s.l.cfg.MRU
		s.magic = uint32(s.idx)*2654435761 ^ 0x5eed0001
		if s.magic == 0 {
			s.magic = 1
		}
		s.sendLCPConfReq(now)
	case codePADT:
		if f.src == s.acMAC && (s.ph == phPPP || s.ph == phDone) && f.sessionID == s.sid {
			if s.ph == phDone {
				s.l.count(&s.l.st.padtAfterDone)
				return
			}
			s.fail("PADT from the CP")
			return
		}
		s.l.count(&s.l.st.unexpected)
	default:
		s.l.count(&s.l.st.unexpected)
	}
}

func (s *session) sendPADR(now time.Time) {
	p := appendTag(nil, tagServiceName, nil)
	p = appendTag(p, tagHostUniq, s.hostUniq())
	if s.cookie != nil {
		p = appendTag(p, tagACCookie, s.cookie)
	}
	if s.hasRelay {
		p = appendTag(p, tagRelaySessionID, s.relay)
	}
	if s.l.cfg.AccessLine {
		p = s.accessLineTag(p)
	}
	s.send(codePADR, etherTypeDiscovery, p, true, now)
}

func (s *session) sendLCPConfReq(now time.Time) {
	s.lcpID++
	var o []byte
	if s.mru != 0 {
		o = appendOption(o, lcpOptMRU, binary.BigEndian.AppendUint16(nil, s.mru))
	}
	o = appendOption(o, lcpOptMagic, binary.BigEndian.AppendUint32(nil, s.magic))
	s.lcpReq = o
	s.sendPPP(protoLCP, cpConfReq, s.lcpID, o, true, now)
}

func (s *session) wantAuth() []byte {
	if s.l.cfg.Auth == "chap" {
		return []byte{0xc2, 0x23, 0x05}
	}
	return []byte{0xc0, 0x23}
}

func (s *session) onLCP(p cpPacket, now time.Time) {
	switch p.code {
	case cpConfReq:
		opts, err := parseOptions(p.data)
		if err != nil {
			s.l.count(&s.l.st.malformed)
			return
		}
		var nak []byte
		auth := uint16(0)
		peerMagic := uint32(0)
		for _, o := range opts {
			if o.typ == lcpOptMagic && len(o.data) == 4 {
				peerMagic = binary.BigEndian.Uint32(o.data)
			}
			if o.typ == lcpOptAuth {
				want := s.wantAuth()
				if !bytes.Equal(o.data, want) {
					nak = appendOption(nak, lcpOptAuth, want)
				} else {
					auth = binary.BigEndian.Uint16(want)
				}
			}
		}
		if nak != nil {
			s.sendPPP(protoLCP, cpConfNak, p.id, nak, false, now)
			return
		}
		s.authProto = auth
		s.peerMagic = peerMagic
		s.sendPPP(protoLCP, cpConfAck, p.id, p.data, false, now)
		s.peerLCPAcked = true
		s.maybeLCPOpen(now)
	case cpConfAck:
		if p.id != s.lcpID || s.ourLCPAcked {
			s.l.count(&s.l.st.unexpected)
			return
		}
		if !bytes.Equal(p.data, s.lcpReq) { // RFC 1661 5.2: the options exactly as sent
			s.l.count(&s.l.st.badAck)
			return
		}
		s.ourLCPAcked = true
		s.pending = nil
		s.maybeLCPOpen(now)
	case cpConfNak, cpConfRej:
		if p.id != s.lcpID || s.ourLCPAcked {
			s.l.count(&s.l.st.unexpected)
			return
		}
		opts, err := parseOptions(p.data)
		if err != nil {
			s.l.count(&s.l.st.malformed)
			return
		}
		for _, o := range opts {
			switch o.typ {
			case lcpOptMRU:
				if p.code == cpConfRej {
					s.mru = 0
				} else if len(o.data) == 2 {
					s.mru = binary.BigEndian.Uint16(o.data)
				}
			case lcpOptMagic:
				if p.code == cpConfRej {
					s.fail("LCP magic number rejected")
					return
				}
				s.magic = s.magic*1103515245 + 12345
				if s.magic == 0 {
					s.magic = 1
				}
			}
		}
		s.resends++
		if s.resends > 10 {
			s.fail("LCP does not converge")
			return
		}
		s.sendLCPConfReq(now)
	case cpTermReq:
		s.sendPPP(protoLCP, cpTermAck, p.id, nil, false, now)
		if s.ph == phDone {
			s.l.count(&s.l.st.termAfterDone)
			return
		}
		s.fail("LCP Terminate-Request from the CP")
	case cpEchoReq:
		if len(p.data) < 4 {
			s.l.count(&s.l.st.malformed)
			return
		}
		d := binary.BigEndian.AppendUint32(nil, s.magic)
		d = append(d, p.data[4:]...)
		s.sendPPP(protoLCP, cpEchoReply, p.id, d, false, now)
		s.l.count(&s.l.st.echoes)
	case cpCodeRej, cpProtoRej:
		s.l.count(&s.l.st.rejects)
	case cpEchoReply, cpDiscard, cpTermAck:
	default:
		s.l.count(&s.l.st.unexpected)
	}
}

func (s *session) maybeLCPOpen(now time.Time) {
	if s.lcpOpen || !s.ourLCPAcked || !s.peerLCPAcked {
		return
	}
	s.lcpOpen = true
	s.mark(markLCP, now)
	switch s.authProto {
	case protoPAP:
		s.sendPAP(now)
	case protoCHAP:
		// wait for the challenge
	default:
		s.authOK = true
		s.mark(markAuth, now)
		s.startIPCP(now)
	}
}

func (s *session) sendPAP(now time.Time) {
	s.papID++
	d := []byte{byte(len(s.user))}
	d = append(d, s.user...)
	d = append(d, byte(len(s.password)))
	d = append(d, s.password...)
	s.authSent = true
	s.sendPPP(protoPAP, papAuthReq, s.papID, d, true, now)
}

func (s *session) onPAP(p cpPacket, now time.Time) {
	if s.authProto != protoPAP || !s.authSent || p.id != s.papID || s.authOK {
		s.l.count(&s.l.st.unexpected)
		return
	}
	switch p.code {
	case papAuthAck:
		s.authOK = true
		s.mark(markAuth, now)
		s.pending = nil
		s.startIPCP(now)
	case papAuthNak:
		s.fail("PAP Authenticate-Nak")
	default:
		s.l.count(&s.l.st.unexpected)
	}
}

func (s *session) onCHAP(p cpPacket, now time.Time) {
	if s.authProto != protoCHAP || !s.lcpOpen {
		s.l.count(&s.l.st.unexpected)
		return
	}
	switch p.code {
	case chapChallenge:
		if len(p.data) < 1 || int(p.data[0]) == 0 || int(p.data[0]) > len(p.data)-1 {
			s.l.count(&s.l.st.malformed)
			return
		}
		ch := p.data[1 : 1+int(p.data[0])]
		h := md5.New()
		h.Write([]byte{p.id})
		h.Write(s.password)
		h.Write(ch)
		d := []byte{16}
		d = h.Sum(d)
		d = append(d, s.user...)
		s.authSent = true
		s.papID = p.id
		s.sendPPP(protoCHAP, chapResponse, p.id, d, true, now)
	case chapSuccess:
		if !s.authSent || p.id != s.papID || s.authOK {
			s.l.count(&s.l.st.unexpected)
			return
		}
		s.authOK = true
		s.mark(markAuth, now)
		s.pending = nil
		s.startIPCP(now)
	case chapFailure:
		if p.id == s.papID {
			s.fail("CHAP Failure")
		}
	default:
		s.l.count(&s.l.st.unexpected)
	}
}

func (s *session) startIPCP(now time.Time) {
	if s.ipcpStarted {
		return
	}
	s.ipcpStarted = true
	s.wantDNS1, s.wantDNS2 = s.l.cfg.DNS, s.l.cfg.DNS
	s.sendIPCPConfReq(now)
	s.startIPv6CP(now)
}

func (s *session) sendIPCPConfReq(now time.Time) {
	s.ipcpID++
	o := appendOption(nil, ipcpOptAddr, s.addr[:])
	if s.wantDNS1 {
		o = appendOption(o, ipcpOptDNS1, s.dns1[:])
	}
	if s.wantDNS2 {
		o = appendOption(o, ipcpOptDNS2, s.dns2[:])
	}
	s.ipcpReq = o
	s.sendPPP(protoIPCP, cpConfReq, s.ipcpID, o, true, now)
}

func (s *session) onIPCP(p cpPacket, now time.Time) {
	if !s.lcpOpen || !s.authOK {
		s.l.count(&s.l.st.unexpected)
		return
	}
	switch p.code {
	case cpConfReq:
		if _, err := parseOptions(p.data); err != nil {
			s.l.count(&s.l.st.malformed)
			return
		}
		s.sendPPP(protoIPCP, cpConfAck, p.id, p.data, false, now)
		s.peerIPCPAcked = true
	case cpConfAck:
		if p.id != s.ipcpID || s.ourIPCPAcked {
			s.l.count(&s.l.st.unexpected)
			return
		}
		if !bytes.Equal(p.data, s.ipcpReq) {
			s.l.count(&s.l.st.badAck)
			return
		}
		if s.addr == ([4]byte{}) {
			s.fail("IPCP acked address 0.0.0.0")
			return
		}
		s.ourIPCPAcked = true
		s.mark(markIPCP, now)
		if s.ph == phPPP {
			s.pending = nil
		}
	case cpConfNak, cpConfRej:
		if p.id != s.ipcpID || s.ourIPCPAcked {
			s.l.count(&s.l.st.unexpected)
			return
		}
		opts, err := parseOptions(p.data)
		if err != nil {
			s.l.count(&s.l.st.malformed)
			return
		}
		for _, o := range opts {
			rej := p.code == cpConfRej
			switch o.typ {
			case ipcpOptAddr:
				if rej || len(o.data) != 4 {
					s.fail("IPCP address option rejected or malformed")
					return
				}
				s.addr = [4]byte(o.data)
			case ipcpOptDNS1:
				if rej || len(o.data) != 4 {
					s.wantDNS1 = false
				} else {
					s.dns1 = [4]byte(o.data)
				}
			case ipcpOptDNS2:
				if rej || len(o.data) != 4 {
					s.wantDNS2 = false
				} else {
					s.dns2 = [4]byte(o.data)
				}
			}
		}
		s.resends++
		if s.resends > 10 {
			s.fail("IPCP does not converge")
			return
		}
		s.sendIPCPConfReq(now)
	case cpTermReq:
		s.sendPPP(protoIPCP, cpTermAck, p.id, nil, false, now)
	case cpCodeRej, cpTermAck:
		s.l.count(&s.l.st.rejects)
	default:
		s.l.count(&s.l.st.unexpected)
	}
}

// onEstablished checks the CP's Session Establishment against what this CPE
// negotiated. It returns false when the establishment does not describe it.
func (s *session) onEstablished(d *dp, e *establishment, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ph == phDone {
		s.l.count(&s.l.st.estAgain)
		return
	}
	if s.ph != phPPP {
		s.l.count(&s.l.st.estUnmatched)
		return
	}
	var why string
	switch {
	case s.ipoe:
		why = s.checkIPoE(d, e)
	case d != s.dp:
		why = fmt.Sprintf("establishment on another instance: %d, expected %d", d.id, s.dp.id)
	case e.pppoeSID != s.sid:
		why = fmt.Sprintf("establishment PPPoE session id: %#x, negotiated %#x", e.pppoeSID, s.sid)
	case e.stag != s.stag || e.ctag != s.ctag:
		why = fmt.Sprintf("establishment tags: %d/%d, line %d/%d", e.stag, e.ctag, s.stag, s.ctag)
	case s.addr == [4]byte{}:
		why = "establishment before IPCP gave an address"
	case e.ueIP != netip.AddrFrom4(s.addr):
		why = fmt.Sprintf("establishment address: %v, IPCP gave %v", e.ueIP, netip.AddrFrom4(s.addr))
	case e.mtu != 0 && s.mru != 0 && e.mtu != s.mru:
		why = fmt.Sprintf("establishment MTU: %d, the CPE's MRU %d", e.mtu, s.mru)
	case e.lcpOffload && (e.magicRx != s.magic || e.magicTx != s.peerMagic):
		why = fmt.Sprintf("establishment LCP magic numbers: tx %#x rx %#x, negotiated %#x (CP) and %#x (CPE)",
			e.magicTx, e.magicRx, s.peerMagic, s.magic)
	}
	if why != "" {
		s.fail(why)
		return
	}
	s.est = true
	s.v6.pdrs = s.v6.pdrs || e.ipv6
	s.pending = nil
	s.mark(markEst, now)
	s.maybeDone(now)
}

// maybeDone completes the session: established, and with IPv6 when dual stack.
func (s *session) maybeDone(now time.Time) {
	if s.ph != phPPP || !s.est || (s.dual && (!s.v6.bound || !s.v6.pdrs)) || (s.ipoe && !s.dhcp.acked) {
		return
	}
	s.ph = phDone
	s.pending, s.v6.pending = nil, nil
	s.l.finish(s, true, "", now.Sub(s.start))
}

// tick resends a request the CP left unanswered and enforces the timeout.
func (s *session) tick(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ph == phIdle || s.ph == phDone || s.ph == phFailed {
		return
	}
	if now.Sub(s.start) > s.l.cfg.Timeout {
		s.fail("timeout")
		return
	}
	s.tick6(now)
	if s.pending != nil && now.Sub(s.lastSent) >= s.l.cfg.Resend<<min(s.retx, 3) {
		s.dp.sendVXLAN(s.pending)
		s.lastSent = now
		s.retx++
		s.l.count(&s.l.st.resent)
	}
}
