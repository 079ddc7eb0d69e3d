package ppp

import (
	"crypto/rand"
	"encoding/binary"
	"io"
	"net/netip"
	"time"
)

// AuthMethod is an authentication protocol the Link can request.
type AuthMethod uint8

const (
	AuthPAP  AuthMethod = 1 // RFC 1334
	AuthCHAP AuthMethod = 2 // RFC 1994 with MD5
)

func (m AuthMethod) String() string {
	switch m {
	case AuthPAP:
		return "pap"
	case AuthCHAP:
		return "chap"
	}
	return "none"
}

// LinkConfig configures a Link. Zero values take the defaults noted.
type LinkConfig struct {
	MaxMRU  uint16        // 1492, or up to the PPP-Max-Payload the client offered (RFC 4638); default 1492
	Auth    []AuthMethod  // in preference order; the first is requested, a Nak may move to the next; empty = no authentication
	Magic   uint32        // our magic number (non-zero; 0 = drawn from crypto/rand)
	Restart time.Duration // RFC 1661 restart timer (default 3 s)
	// RestartFirst, when shorter than Restart, is the restart timer after the
	// first Configure-Request of LCP or IPCP (since the restart counter was
	// last initialized), doubled after each retransmission up to Restart:
	// 0.5 s, 1 s, 2 s, 3 s, ... A first request lost on the way (or dropped by
	// a CPE that had not seen the PADS yet) then costs half a second, not
	// three. 0 = Restart throughout. Max-Configure bounds the requests as ever.
	RestartFirst time.Duration
	// StartDelay > 0 makes Start a passive open (RFC 1661 4.2, Stopped): LCP
	// sends nothing until the peer's first LCP packet arrives (a
	// Configure-Request is answered, with ours), or StartDelay has passed, and
	// then opens as Start would have. 0 = Start sends our Configure-Request at once.
	StartDelay   time.Duration
	MaxConfigure int           // default 10
	MaxTerminate int           // default 2
	MaxFailure   int           // default 5
	EchoInterval time.Duration // 0 = the CP sends no echoes (the DP does: LCP offload)
	EchoFailures int           // unanswered echoes before EvDown{Reason: DownEchoTimeout}; default 3
	AuthTimeout  time.Duration // the peer must authenticate within this after Start (default 30 s); also bounds IPCP after authentication
	Rand         io.Reader     // CHAP challenges and nothing else; crypto/rand.Reader when nil
	Name         string        // our name in CHAP challenges (default "bngpod")
}

// Packet is a PPP frame to send: protocol + data (no PPPoE header).
type Packet struct {
	Proto uint16
	Data  []byte
}

// Event is one of EvAuth, EvUp, EvDown.
type Event interface{}

// EvAuth asks the caller to check the peer's credentials and to answer with
// AuthResult. Its slices are the Event's own (they do not alias any buffer).
type EvAuth struct {
	Method    AuthMethod
	User      string
	Password  []byte // PAP
	CHAPID    uint8  // CHAP
	Challenge []byte // CHAP
	Response  []byte // CHAP
}

// EvUp says IPCP opened: the subscriber runs IPv4 with address Peer. After
// an IPCP renegotiation it comes again.
type EvUp struct{ Peer netip.Addr }

// EvUp6 says IPv6CP opened (RFC 5072) with these interface identifiers:
// ours (the BNG's link-local fe80::Local) and the peer's (0: it sent none).
type EvUp6 struct{ Local, Peer uint64 }

// EvNCPDown says one network protocol (ProtoIPCP or ProtoIPv6CP) failed or
// was terminated by the peer while the other runs on: the link stays up.
type EvNCPDown struct {
	Proto  uint16
	Detail string
}

// EvDown says the link is dead: the caller sends PADT and forgets the
// session. It comes once, last.
type EvDown struct {
	Reason DownReason
	Detail string
	// Acked: the peer's LCP Terminate-Request ended the link, and its
	// Terminate-Ack is among the packets drained with this event. The peer is
	// the one to bring the lower layer down next (RFC 1661's Stopping state
	// waits for that); on PPPoE its PADT ends the session (RFC 2516 5.5).
	Acked bool
}

// DownReason says why a link went down.
type DownReason int

const (
	DownPeerTerminate DownReason = iota + 1 // LCP (or IPCP) Terminate-Request from the peer
	DownLCPFailed                           // LCP negotiation failed, was restarted by the peer, or a loop
	DownAuthFailed                          // AuthResult(false), or no acceptable authentication protocol
	DownAuthTimeout                         // the peer did not authenticate in time
	DownIPCPFailed                          // IPCP did not open
	DownEchoTimeout                         // EchoFailures echoes unanswered
	DownAdmin                               // Close
)

var downNames = [...]string{"", "peer-terminate", "lcp-failed", "auth-failed", "auth-timeout",
	"ipcp-failed", "echo-timeout", "admin"}

func (r DownReason) String() string {
	if r > 0 && int(r) < len(downNames) {
		return downNames[r]
	}
	return "unknown"
}

// Phase is the link phase of RFC 1661 section 3.2.
type Phase uint8

const (
	PhaseDead Phase = iota
	PhaseEstablish
	PhaseAuthenticate
	PhaseNetwork
	PhaseTerminate
)

var phaseNames = [...]string{"Dead", "Establish", "Authenticate", "Network", "Terminate"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "?"
}

// LinkCounters count what a Link saw and did.
type LinkCounters struct {
	Malformed           uint64 // packets too short, bad lengths, bad option lists: dropped
	Discarded           uint64 // valid packets not expected in the current phase or state
	CodeRejectsSent     uint64 // unknown codes
	ProtocolRejectsSent uint64 // unknown protocols (IPv6CP, CCP, ...)
	NaksSent            uint64
	RejectsSent         uint64
	EchoesAnswered      uint64
	EchoesSent          uint64
	EchoRepliesHeard    uint64
	LoopsDetected       uint64 // our own magic number came back
	Oversize            uint64 // packets not sent because they exceed the peer's MRU
	Renegotiations      uint64 // LCP renegotiated before authentication (a repeated Configure-Request)
}

// auth states.
const (
	authNone       = iota // not in the authentication phase yet
	authWaitPeer          // PAP: waiting for the request; CHAP: challenge out
	authWaitResult        // EvAuth emitted
	authDone              // success sent
)

const (
	defaultMRU = 1492
	minMRU     = 128
)

// Link is one PPPoE session's PPP engine, sans-IO. Drives LCP -> auth ->
// IPCP (and IPv6CP when enabled); answers echoes; rejects every unknown protocol
// with LCP Protocol-Reject without harming the IPv4 session.
//
// A Link is not safe for concurrent use.
type Link struct {
	cfg   LinkConfig
	phase Phase
	now   time.Time

	started, dead bool

	lcp, ipcp, ipv6cp cp
	lcpL              lcpLayer
	ipcpL             ipcpLayer
	ipv6cpL           ipv6cpLayer

	// IPv6CP: enabled by SetIPv6
	v6, sendIID                bool
	ourIID, peerIID, upPeerIID uint64
	ipcpFailed, ipv6cpFailed   bool

	// LCP, what we request
	ourMagic  uint32
	sendMagic bool
	sendMRU   bool
	ourMRU    uint16
	authIdx   int // index in cfg.Auth of the method we request; -1 none
	// LCP, agreed
	magicAcked bool   // the peer acked our Magic-Number
	peerMagic  uint32 // 0 = none
	peerMRU    uint16 // 0 = not negotiated
	loops      int

	// authentication
	authState    int
	method       AuthMethod
	authID       uint8 // identifier of the PAP request / CHAP challenge
	challenge    [16]byte
	chapSent     int
	chapDeadline time.Time
	authDeadline time.Time
	lastAuth     []byte // our last PAP Ack / CHAP Success, for retransmitted requests

	// IPCP
	local, peer, dns1, dns2 netip.Addr
	sendAddr                bool
	upPeer                  netip.Addr
	ipcpDeadline            time.Time

	// passive open: LCP opens at startDeadline unless the peer spoke first
	startDeadline time.Time

	// echo keepalive
	echoDeadline time.Time
	echoID       uint8
	echoPending  bool
	echoMisses   int
	echoOff      bool

	// termination
	closing       bool
	renegotiating bool // LCP's this-layer-down is a renegotiation, not the end
	closeReason   DownReason
	closeDetail   string
	failReason    DownReason // set from inside the automaton, acted on after the input
	failDetail    string

	out      []byte
	scratch  []byte
	pkts     []Packet
	evs      []Event
	counters LinkCounters
}

// NewLink returns a Link in phase Dead; Start begins negotiation.
func NewLink(cfg LinkConfig) *Link {
	if cfg.MaxMRU == 0 {
		cfg.MaxMRU = defaultMRU
	}
	if cfg.MaxMRU < minMRU {
		cfg.MaxMRU = minMRU
	}
	if cfg.Restart <= 0 {
		cfg.Restart = 3 * time.Second
	}
	if cfg.MaxConfigure <= 0 {
		cfg.MaxConfigure = 10
	}
	if cfg.MaxTerminate <= 0 {
		cfg.MaxTerminate = 2
	}
	if cfg.MaxFailure <= 0 {
		cfg.MaxFailure = 5
	}
	if cfg.EchoFailures <= 0 {
		cfg.EchoFailures = 3
	}
	if cfg.AuthTimeout <= 0 {
		cfg.AuthTimeout = 30 * time.Second
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Name == "" {
		cfg.Name = "bngpod"
	}
	var auth []AuthMethod
	for _, m := range cfg.Auth {
		if m == AuthPAP || m == AuthCHAP {
			auth = append(auth, m)
		}
	}
	cfg.Auth = auth
	l := &Link{cfg: cfg, scratch: make([]byte, 0, 64)}
	l.ourMagic = cfg.Magic
	for l.ourMagic == 0 {
		var b [4]byte
		if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
			l.ourMagic = 0x62676e70 // "bgnp": never reached with a working kernel
		} else {
			l.ourMagic = binary.BigEndian.Uint32(b[:])
		}
	}
	l.sendMagic, l.sendMRU, l.ourMRU = true, true, cfg.MaxMRU
	l.authIdx = -1
	if len(cfg.Auth) > 0 {
		l.authIdx = 0
	}
	l.lcpL.l, l.ipcpL.l, l.ipv6cpL.l = l, l, l
	l.lcp.init(l, ProtoLCP, &l.lcpL)
	l.ipcp.init(l, ProtoIPCP, &l.ipcpL)
	l.ipv6cp.init(l, ProtoIPv6CP, &l.ipv6cpL)
	return l
}

// Start begins negotiation (the PPPoE session opened: PADS sent): LCP sends
// its Configure-Request.
func (l *Link) Start(now time.Time) {
	if l.started || l.dead {
		return
	}
	l.now = now
	l.started = true
	l.phase = PhaseEstablish
	l.authDeadline = now.Add(l.cfg.AuthTimeout)
	if l.cfg.StartDelay > 0 {
		// Passive: Stopped, where a Configure-Request from the peer makes us
		// send ours and answer (RFC 1661 4.1, Stopped + RCR).
		l.lcp.naksSent, l.lcp.naksRcvd = 0, 0
		l.lcp.setState(stStopped)
		l.startDeadline = now.Add(l.cfg.StartDelay)
		return
	}
	l.lcp.open()
	l.settle()
}

// passiveOpen ends the passive wait of Start: the peer spoke, or the start
// delay passed. A Configure-Request of the peer does that itself (Stopped +
// RCR); anything else finds LCP opened actively first.
func (l *Link) passiveOpen(byConfReq bool) {
	if l.startDeadline.IsZero() {
		return
	}
	l.startDeadline = time.Time{}
	if !byConfReq && l.lcp.state == stStopped && !l.closing {
		l.lcp.open()
	}
}

// Drain returns the packets to send and the events, in order, produced since
// the last Drain. The caller owns what it gets: the Link never writes to
// those slices or to the packets' bytes again, so it is safe to call Link
// methods (AuthResult, say) while going through them.
func (l *Link) Drain() ([]Packet, []Event) {
	p, e := l.pkts, l.evs
	if len(p) == 0 {
		p = nil
		l.out = l.out[:0]
	} else {
		l.pkts, l.out = nil, nil
	}
	if len(e) == 0 {
		e = nil
	} else {
		l.evs = nil
	}
	return p, e
}

// MRU is the peer's MRU: the largest IPv4 packet we may send it (1492 when
// not negotiated).
func (l *Link) MRU() uint16 {
	if l.peerMRU != 0 {
		return l.peerMRU
	}
	return defaultMRU
}

// Magic returns our Magic-Number and the peer's (0 when not negotiated). Our
// number is what our echoes carry: 0 when the peer did not accept it.
func (l *Link) Magic() (ours, peers uint32) {
	if l.magicAcked {
		ours = l.ourMagic
	}
	return ours, l.peerMagic
}

// Done reports whether the link is over (EvDown was emitted).
func (l *Link) Done() bool { return l.dead }

// Phase returns the link phase.
func (l *Link) Phase() Phase { return l.phase }

// Counters returns the link's counters.
func (l *Link) Counters() LinkCounters { return l.counters }

// Auth returns the authentication method in use (0 before it is agreed or
// without authentication).
func (l *Link) Auth() AuthMethod { return l.method }

// SetIPv4 sets what IPCP offers: our address, the peer's (its IP-Address is
// Nak'd to peer), and the DNS servers (RFC 1877; invalid = option rejected).
// Call it before AuthResult(ok). Non-IPv4 addresses count as invalid.
func (l *Link) SetIPv4(local, peer, dns1, dns2 netip.Addr) {
	v4 := func(a netip.Addr) netip.Addr {
		a = a.Unmap()
		if !a.Is4() || a.IsUnspecified() {
			return netip.Addr{}
		}
		return a
	}
	l.local, l.peer, l.dns1, l.dns2 = v4(local), v4(peer), v4(dns1), v4(dns2)
	l.sendAddr = l.local.IsValid()
}

// Close terminates the link: LCP Terminate-Request, EvDown DownAdmin once
// acked or timed out (at once when LCP has nothing to terminate).
func (l *Link) Close(now time.Time, reason string) {
	if l.dead {
		return
	}
	l.now = now
	if !l.started {
		l.down(DownAdmin, reason)
		return
	}
	l.terminate(DownAdmin, reason)
	l.settle()
}

// SetEcho changes the Link's own echo keepalive (LinkConfig.EchoInterval and
// EchoFailures): interval 0 stops it. The CP decides once it knows whether
// the DP that installs the session offloads the keepalive; a running LCP
// starts echoing one interval from now.
func (l *Link) SetEcho(now time.Time, interval time.Duration, failures int) {
	l.now = now
	if failures <= 0 {
		failures = 3
	}
	l.cfg.EchoInterval, l.cfg.EchoFailures = interval, failures
	l.echoPending, l.echoMisses = false, 0
	if interval <= 0 || l.echoOff || l.dead || l.lcp.state != stOpened {
		l.echoDeadline = time.Time{}
		return
	}
	l.echoDeadline = now.Add(interval)
}

// down emits EvDown once and stops everything.
func (l *Link) down(r DownReason, detail string) {
	if l.dead {
		return
	}
	l.dead = true
	l.phase = PhaseDead
	l.lcp.setState(stInitial)
	l.ipcp.setState(stInitial)
	l.ipv6cp.setState(stInitial)
	l.authDeadline, l.chapDeadline, l.ipcpDeadline, l.echoDeadline = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	l.startDeadline = time.Time{}
	l.evs = append(l.evs, EvDown{Reason: r, Detail: detail})
}

// fail asks for termination from inside the automaton; settle acts on it.
func (l *Link) fail(r DownReason, detail string) {
	if l.failReason == 0 {
		l.failReason, l.failDetail = r, detail
	}
}

// settle runs at the end of every entry point: a failure noted during the
// call terminates the link.
func (l *Link) settle() {
	if l.failReason != 0 && !l.dead {
		r, d := l.failReason, l.failDetail
		l.failReason, l.failDetail = 0, ""
		l.terminate(r, d)
	}
}

// terminate closes LCP with a reason for the EvDown that follows.
func (l *Link) terminate(r DownReason, detail string) {
	if l.closing || l.dead {
		return
	}
	l.closing = true
	l.closeReason, l.closeDetail = r, detail
	l.phase = PhaseTerminate
	l.ipcp.reset()
	l.ipv6cp.reset()
	l.authState = authNone
	l.authDeadline, l.chapDeadline, l.ipcpDeadline, l.echoDeadline = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	switch l.lcp.state {
	case stReqSent, stAckRcvd, stAckSent, stOpened:
		l.lcp.close()
	default:
		l.down(r, detail)
	}
}

// maxOut is the largest information field we may send the peer.
func (l *Link) maxOut() int { return int(l.MRU()) }

// begin starts a control packet (code, id, length to be set) in l.out.
func (l *Link) begin(code, id uint8) int {
	if l.out == nil {
		l.out = make([]byte, 0, 256)
	}
	start := len(l.out)
	l.out = append(l.out, code, id, 0, 0)
	return start
}

// finish sets the length of the packet started at start and queues it. A
// packet longer than the peer's MRU is cut when cut is true (rejects, echo
// replies) and dropped otherwise.
func (l *Link) finish(proto uint16, start int, cut bool) {
	n := len(l.out) - start
	if limit := l.maxOut(); n > limit {
		if !cut {
			l.out = l.out[:start]
			l.counters.Oversize++
			return
		}
		n = limit
		l.out = l.out[:start+n]
	}
	binary.BigEndian.PutUint16(l.out[start+2:], uint16(n))
	if l.pkts == nil {
		l.pkts = make([]Packet, 0, 4)
	}
	l.pkts = append(l.pkts, Packet{Proto: proto, Data: l.out[start : start+n : start+n]})
}

// sendCP sends a control packet with the given body.
func (l *Link) sendCP(proto uint16, code, id uint8, body []byte) {
	start := l.begin(code, id)
	l.out = append(l.out, body...)
	l.finish(proto, start, false)
}

// Input handles one PPP frame from the peer (hostile): proto and data as
// SplitProto returns them.
func (l *Link) Input(now time.Time, proto uint16, data []byte) {
	if !l.started || l.dead {
		l.counters.Discarded++
		return
	}
	l.now = now
	switch proto {
	case ProtoLCP:
		if !l.startDeadline.IsZero() && len(data) >= 4 && data[0] != CodeTermReq {
			// The peer speaks LCP: it has the PADS. (A Terminate-Request
			// needs no Configure-Request of ours: it is acked, the link ends.)
			l.passiveOpen(data[0] == CodeConfReq)
		}
		l.inputLCP(data)
	case ProtoPAP:
		l.inputPAP(data)
	case ProtoCHAP:
		l.inputCHAP(data)
	case ProtoIPCP:
		l.inputIPCP(data)
	case ProtoIPv6CP:
		l.inputIPv6CP(data)
	case ProtoIPv4:
		// Data belongs to the DP; before the session is installed it is dropped.
		l.counters.Discarded++
	case ProtoIPv6:
		if !l.v6 {
			l.protocolReject(proto, data)
			break
		}
		// The caller handles the IPv6 control traffic (RS, DHCPv6) itself.
		l.counters.Discarded++
	default:
		l.protocolReject(proto, data)
	}
	l.settle()
}

// packet checks the control-packet header and trims data to its Length
// (bytes beyond are padding, RFC 1661 5).
func (l *Link) packet(data []byte) ([]byte, bool) {
	if len(data) < 4 {
		l.counters.Malformed++
		return nil, false
	}
	n := int(binary.BigEndian.Uint16(data[2:]))
	if n < 4 || n > len(data) {
		l.counters.Malformed++
		return nil, false
	}
	return data[:n], true
}

// protocolReject answers a frame of a protocol we do not run; allowed only
// when LCP is Opened (RFC 1661 5.7), otherwise the frame is discarded.
func (l *Link) protocolReject(proto uint16, data []byte) {
	if l.lcp.state != stOpened {
		l.counters.Discarded++
		return
	}
	l.counters.ProtocolRejectsSent++
	l.lcp.nextID++
	start := l.begin(CodeProtoRej, l.lcp.nextID)
	l.out = binary.BigEndian.AppendUint16(l.out, proto)
	l.out = append(l.out, data...)
	l.finish(ProtoLCP, start, true)
}

// Tick fires the timers that are due.
func (l *Link) Tick(now time.Time) {
	if !l.started || l.dead {
		return
	}
	l.now = now
	due := func(t time.Time) bool { return !t.IsZero() && !now.Before(t) }
	if due(l.startDeadline) {
		l.passiveOpen(false)
	}
	if due(l.lcp.deadline) {
		l.lcp.timeout()
	}
	if !l.dead && due(l.ipcp.deadline) {
		l.ipcp.timeout()
	}
	if !l.dead && due(l.ipv6cp.deadline) {
		l.ipv6cp.timeout()
	}
	if !l.dead && due(l.chapDeadline) {
		l.chapTimeout()
	}
	if !l.dead && due(l.authDeadline) {
		l.authDeadline = time.Time{}
		l.fail(DownAuthTimeout, "no authentication within "+l.cfg.AuthTimeout.String())
	}
	if !l.dead && due(l.ipcpDeadline) {
		l.ipcpDeadline = time.Time{}
		what := "IPCP did not open"
		if l.v6 {
			what = "neither IPCP nor IPv6CP opened"
		}
		l.fail(DownIPCPFailed, what+" within "+l.cfg.AuthTimeout.String())
	}
	if !l.dead && due(l.echoDeadline) {
		l.echoTimeout()
	}
	l.settle()
}

// NextDeadline is when Tick must be called next; zero when no timer runs.
func (l *Link) NextDeadline() time.Time {
	var t time.Time
	if l.dead {
		return t
	}
	for _, d := range [...]time.Time{l.startDeadline, l.lcp.deadline, l.ipcp.deadline, l.ipv6cp.deadline, l.chapDeadline, l.authDeadline, l.ipcpDeadline, l.echoDeadline} {
		if !d.IsZero() && (t.IsZero() || d.Before(t)) {
			t = d
		}
	}
	return t
}

// lcpUp: LCP opened; go to the authentication or the network phase.
func (l *Link) lcpUp() {
	if l.cfg.EchoInterval > 0 && !l.echoOff {
		l.echoDeadline = l.now.Add(l.cfg.EchoInterval)
	}
	if l.authIdx < 0 {
		l.method = 0
		l.authDeadline = time.Time{}
		l.enterNetwork()
		return
	}
	l.method = l.cfg.Auth[l.authIdx]
	l.phase = PhaseAuthenticate
	l.authState = authWaitPeer
	if l.method == AuthCHAP {
		l.chapSent = 0
		l.sendChallenge(true)
	}
}

// enterNetwork starts IPCP.
func (l *Link) enterNetwork() {
	l.phase = PhaseNetwork
	l.ipcpDeadline = l.now.Add(l.cfg.AuthTimeout)
	l.ipcp.open()
	if l.v6 {
		l.ipv6cp.open()
	}
}

// echoTimeout: our keepalive interval passed.
func (l *Link) echoTimeout() {
	l.echoDeadline = time.Time{}
	if l.lcp.state != stOpened || l.closing {
		return
	}
	if l.echoPending {
		l.echoMisses++
		if l.echoMisses >= l.cfg.EchoFailures {
			l.down(DownEchoTimeout, "no LCP Echo-Reply")
			return
		}
	}
	l.echoID++
	start := l.begin(CodeEchoReq, l.echoID)
	ours, _ := l.Magic()
	l.out = binary.BigEndian.AppendUint32(l.out, ours)
	l.finish(ProtoLCP, start, false)
	l.counters.EchoesSent++
	l.echoPending = true
	l.echoDeadline = l.now.Add(l.cfg.EchoInterval)
}
