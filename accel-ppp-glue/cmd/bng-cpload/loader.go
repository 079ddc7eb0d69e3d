package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DPSpec is one emulated DP instance.
type DPSpec struct {
	ID         uint32
	Addr       netip.Addr
	STag, CTag Range
	sSet, cSet bool // given in the -dp flag
}

// Range is an inclusive VID range; a zero Range (Min 0) means "no C-tag".
type Range struct{ Min, Max uint16 }

func (r Range) size() int {
	if r.Min == 0 {
		return 1
	}
	return int(r.Max) - int(r.Min) + 1
}

// Config is what the loader needs; main fills it from flags.
type Config struct {
	CP         netip.Addr // the CP's address (VXLAN and PFCP peer)
	CPVXLAN    uint16     // the CP's VXLAN port
	LocalVXLAN uint16     // our VXLAN port on each DP address (0: any, for tests)
	LocalPFCP  uint16     // our PFCP port on each DP address (0: any, for tests)
	DPs        []DPSpec
	Sessions   int
	Window     int
	OuterTPID  uint16
	Auth       string // pap or chap
	UserFmt    string // fmt pattern with the 1-based session number
	PassFmt    string
	MRU        uint16
	DNS        bool // ask for DNS servers in IPCP (RFC 1877)
	AccessLine bool // add the TR-101 access-line tag to PADI/PADR
	Timeout    time.Duration
	Resend     time.Duration
	AssocWait  time.Duration
	// DualStackEvery: every this many sessions one dials dual stack
	// (session6.go), interleaved with the IPv4 ones (0: none; 1: all);
	// DualStackDPs: every session of these DP instances does. IPv4-only CPEs
	// Protocol-Reject the CP's IPv6CP.
	DualStackEvery int
	DualStackDPs   []uint32
	// IPoEDPs: every session of these DP instances is an IPoE CPE
	// (session_ipoe.go), its option 82 circuit id IPoEUserFmt with the
	// 1-based session number; these instances announce IPoE.
	IPoEDPs     []uint32
	IPoEUserFmt string
}

// Result is the JSON line the loader prints.
type Result struct {
	Sessions          int     `json:"sessions"`
	SessionsPerSecond float64 `json:"sessions_per_second"`
	Completed         int     `json:"completed"`
	Failed            int     `json:"failed"`
	P50MS             float64 `json:"p50_ms"`
	P99MS             float64 `json:"p99_ms"`
	DurationS         float64 `json:"duration_s"`
	// With dual-stack dials: the completed sessions, p50 and p99 of each kind
	IPv4 *KindResult `json:"ipv4,omitempty"`
	Dual *KindResult `json:"dual_stack,omitempty"`
	// With IPoE CPEs (-ipoe-dp): each kind's completed sessions, p50, p99,
	// and its rate: completed / (its last completion - the first dial)
	PPPoE *KindResult `json:"pppoe,omitempty"`
	IPoE  *KindResult `json:"ipoe,omitempty"`
}

// KindResult is the result of one kind of dial (IPv4 only, dual stack).
type KindResult struct {
	Completed int     `json:"completed"`
	P50MS     float64 `json:"p50_ms"`
	P99MS     float64 `json:"p99_ms"`
	// -ipoe-dp only
	SessionsPerSecond float64 `json:"sessions_per_second,omitempty"`
}

type stats struct {
	malformed, unexpected, wrongLine, badHostUniq, foreign, unknownMAC atomic.Int64
	resent, echoes, rejects, padtAfterDone, termAfterDone              atomic.Int64
	estAgain, estUnmatched, pfcpMalformed, pfcpIgnored, pfcpForeign    atomic.Int64
	badAck, protoRejects                                               atomic.Int64
}

// Loader runs the sessions against a CP.
type Loader struct {
	cfg      Config
	dps      []*dp
	byVNI    map[uint32]*dp
	sessions []*session
	st       stats

	window chan struct{}
	wg     sync.WaitGroup // one per started, unfinished session

	mu            sync.Mutex
	durations     []time.Duration
	dualDurations []time.Duration
	ipoeDurations []time.Duration
	ipoeLast      time.Time
	pppoeLast     time.Time
	failures      map[string]int
	examples      map[string]string // failure class -> the first full reason
	failed        int
	phaseSum      [nMarks]time.Duration // completed sessions: time spent in each step
	first         time.Time
	last          time.Time
}

type dp struct {
	l      *Loader
	id     uint32
	addr   netip.Addr
	vx, pf *net.UDPConn
	cpVX   netip.AddrPort

	rts        uint32
	assocOnce  sync.Once
	assoc      chan struct{}
	defaultSes atomic.Bool

	mu     sync.Mutex
	upByCP map[uint64]uint64
	cpByUP map[uint64]uint64
	byUP   map[uint64]*session // the subscriber of an established UP SEID
	nextUP uint64
	node   NodeEvents // what the CP did to this instance as a whole (a line-group move)
}

// NodeEvents is what a DP saw of a line-group move: the Association Updates
// (bngpod Line Group IE) and the Session Deletions, as Unix times in ns. The
// CP deletes a moved group's sessions at the old instance only after the new
// one acknowledged all of them, so the first deletion marks the end of the
// re-establishment.
type NodeEvents struct {
	Instance      uint32  `json:"instance"`
	AssocUpdates  []int64 `json:"assoc_updates_ns"`
	Deletions     int     `json:"deletions"`
	FirstDeletion int64   `json:"first_deletion_ns,omitempty"`
	LastDeletion  int64   `json:"last_deletion_ns,omitempty"`
}

// NodeEvents returns what every DP saw of moves so far.
func (l *Loader) NodeEvents() []NodeEvents {
	out := make([]NodeEvents, 0, len(l.dps))
	for _, d := range l.dps {
		d.mu.Lock()
		e := d.node
		e.Instance = d.id
		e.AssocUpdates = append([]int64(nil), e.AssocUpdates...)
		d.mu.Unlock()
		out = append(out, e)
	}
	return out
}

// New opens the sockets of every DP.
func New(cfg Config) (*Loader, error) {
	if cfg.Sessions <= 0 || cfg.Window <= 0 || len(cfg.DPs) == 0 {
		return nil, errors.New("sessions, window and at least one DP are required")
	}
	if cfg.Sessions > 1<<24 {
		return nil, errors.New("at most 2^24 sessions")
	}
	l := &Loader{cfg: cfg, byVNI: make(map[uint32]*dp), failures: make(map[string]int),
		examples: make(map[string]string)}
	now := uint32(time.Now().Unix() + ntpOffset)
	for _, spec := range cfg.DPs {
		if _, dup := l.byVNI[spec.ID]; dup || spec.ID == 0 || spec.ID >= 1<<24 {
			l.Close()
			return nil, fmt.Errorf("DP instance id %d: duplicate or outside 1..2^24-1", spec.ID)
		}
		d := &dp{l: l, id: spec.ID, addr: spec.Addr, rts: now, assoc: make(chan struct{}),
			upByCP: make(map[uint64]uint64), cpByUP: make(map[uint64]uint64), byUP: make(map[uint64]*session),
			cpVX: netip.AddrPortFrom(cfg.CP, cfg.CPVXLAN)}
		var err error
		if d.vx, err = net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(spec.Addr, cfg.LocalVXLAN))); err != nil {
			l.Close()
			return nil, err
		}
		if d.pf, err = net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(spec.Addr, cfg.LocalPFCP))); err != nil {
			d.vx.Close()
			l.Close()
			return nil, err
		}
		_ = d.vx.SetReadBuffer(8 << 20)
		_ = d.vx.SetWriteBuffer(8 << 20)
		_ = d.pf.SetReadBuffer(8 << 20)
		l.dps = append(l.dps, d)
		l.byVNI[spec.ID] = d
	}
	l.sessions = make([]*session, cfg.Sessions)
	per := make([]int, len(l.dps))
	for i := range l.sessions {
		k := i % len(l.dps)
		spec := cfg.DPs[k]
		j := per[k]
		per[k]++
		s := &session{l: l, dp: l.dps[k], idx: i}
		s.mac = sessionMAC(i)
		// Lines are used in order; with fewer lines than sessions they are
		// shared (N:1, told apart by the client MAC).
		nc := spec.CTag.size()
		j %= nc * spec.STag.size()
		s.stag = spec.STag.Min + uint16(j/nc)
		if spec.CTag.Min != 0 {
			s.ctag = spec.CTag.Min + uint16(j%nc)
		}
		if e := cfg.DualStackEvery; e > 0 {
			s.dual = (i/len(l.dps))%e == e-1
		}
		for _, id := range cfg.DualStackDPs {
			s.dual = s.dual || id == spec.ID
		}
		for _, id := range cfg.IPoEDPs {
			s.ipoe = s.ipoe || id == spec.ID
		}
		if s.ipoe {
			s.dual = false
			s.dhcp.circuit = fmt.Sprintf(cfg.IPoEUserFmt, i+1)
		}
		s.user = fmt.Sprintf(cfg.UserFmt, i+1)
		s.password = []byte(fmt.Sprintf(cfg.PassFmt, i+1))
		l.sessions[i] = s
	}
	return l, nil
}

// sessionMAC: locally administered unicast, the session index in the last 4 octets.
func sessionMAC(i int) [6]byte {
	return [6]byte{0x02, 0xb1, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)}
}

func (l *Loader) sessionByMAC(m [6]byte) *session {
	if m[0] != 0x02 || m[1] != 0xb1 {
		return nil
	}
	i := int(m[2])<<24 | int(m[3])<<16 | int(m[4])<<8 | int(m[5])
	if i >= len(l.sessions) {
		return nil
	}
	return l.sessions[i]
}

// Addrs returns each DP's bound VXLAN and PFCP addresses (tests use port 0).
func (l *Loader) Addrs() (vx, pf []netip.AddrPort) {
	for _, d := range l.dps {
		vx = append(vx, d.vx.LocalAddr().(*net.UDPAddr).AddrPort())
		pf = append(pf, d.pf.LocalAddr().(*net.UDPAddr).AddrPort())
	}
	return
}

// Close closes every socket; the readers end.
func (l *Loader) Close() {
	for _, d := range l.dps {
		d.vx.Close()
		d.pf.Close()
	}
}

func (l *Loader) count(c *atomic.Int64) { c.Add(1) }

// Serve starts the socket readers (PFCP answers start at once).
func (l *Loader) Serve() {
	for _, d := range l.dps {
		go d.readVXLAN()
		go d.readPFCP()
	}
}

// Run waits for every DP's association, dials all sessions with at most
// Window in flight and returns the result. Serve must have been called.
func (l *Loader) Run(ctx context.Context) (Result, error) {
	deadline := time.NewTimer(l.cfg.AssocWait)
	defer deadline.Stop()
	for _, d := range l.dps {
		select {
		case <-d.assoc:
		case <-deadline.C:
			return Result{}, fmt.Errorf("instance %d (%v): no PFCP association from the CP within %v", d.id, d.addr, l.cfg.AssocWait)
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
	}
	// Give the CP a moment to install the default session (the redirect).
	settle := time.Now().Add(2 * time.Second)
	for _, d := range l.dps {
		for !d.defaultSes.Load() && time.Now().Before(settle) {
			time.Sleep(10 * time.Millisecond)
		}
	}

	l.window = make(chan struct{}, l.cfg.Window)
	tickDone := make(chan struct{})
	go l.ticker(tickDone)
	defer close(tickDone)

	l.mu.Lock()
	l.first = time.Now()
	l.mu.Unlock()
	for _, s := range l.sessions {
		select {
		case l.window <- struct{}{}:
		case <-ctx.Done():
			l.wg.Wait()
			return l.result(), ctx.Err()
		}
		l.wg.Add(1)
		s.begin(time.Now())
	}
	l.wg.Wait()
	return l.result(), nil
}

func (l *Loader) ticker(done chan struct{}) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			for _, s := range l.sessions {
				s.tick(now)
			}
		}
	}
}

// finish records a session's end (called with s.mu held, exactly once).
func (l *Loader) finish(s *session, ok bool, reason string, d time.Duration) {
	l.mu.Lock()
	if ok {
		l.durations = append(l.durations, d)
		if s.dual {
			l.dualDurations = append(l.dualDurations, d)
		}
		if s.ipoe {
			l.ipoeDurations = append(l.ipoeDurations, d)
			l.ipoeLast = time.Now()
		} else {
			l.pppoeLast = time.Now()
		}
		prev := s.start
		for i, m := range s.marks {
			if m.IsZero() {
				continue
			}
			if m.After(prev) {
				l.phaseSum[i] += m.Sub(prev)
				prev = m
			}
		}
	} else {
		l.failed++
		class, _, _ := strings.Cut(reason, ": ")
		key := class + " in " + s.lastPhase
		if l.failures[key] == 0 && class != reason {
			l.examples[key] = reason
		}
		l.failures[key]++
	}
	l.last = time.Now()
	l.mu.Unlock()
	<-l.window
	l.wg.Done()
}

func (l *Loader) result() Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := Result{Sessions: len(l.sessions), Completed: len(l.durations), Failed: l.failed}
	if !l.last.IsZero() {
		r.DurationS = l.last.Sub(l.first).Seconds()
	}
	if r.DurationS > 0 {
		r.SessionsPerSecond = float64(r.Completed) / r.DurationS
	}
	ds := append([]time.Duration(nil), l.durations...)
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	r.P50MS = percentile(ds, 0.50)
	r.P99MS = percentile(ds, 0.99)
	if l.cfg.DualStackEvery > 0 || len(l.cfg.DualStackDPs) > 0 {
		dual := append([]time.Duration(nil), l.dualDurations...)
		sort.Slice(dual, func(i, j int) bool { return dual[i] < dual[j] })
		var v4 []time.Duration
		i := 0
		for _, d := range ds { // ds less dual (both sorted)
			if i < len(dual) && d == dual[i] {
				i++
				continue
			}
			v4 = append(v4, d)
		}
		r.Dual = &KindResult{Completed: len(dual), P50MS: percentile(dual, 0.50), P99MS: percentile(dual, 0.99)}
		r.IPv4 = &KindResult{Completed: len(v4), P50MS: percentile(v4, 0.50), P99MS: percentile(v4, 0.99)}
	}
	if len(l.cfg.IPoEDPs) > 0 {
		ip := append([]time.Duration(nil), l.ipoeDurations...)
		sort.Slice(ip, func(i, j int) bool { return ip[i] < ip[j] })
		var pp []time.Duration
		i := 0
		for _, d := range ds { // ds less ipoe (both sorted)
			if i < len(ip) && d == ip[i] {
				i++
				continue
			}
			pp = append(pp, d)
		}
		rate := func(n int, last time.Time) float64 {
			if n == 0 || !last.After(l.first) {
				return 0
			}
			return round(float64(n)/last.Sub(l.first).Seconds(), 1)
		}
		r.IPoE = &KindResult{Completed: len(ip), P50MS: percentile(ip, 0.50), P99MS: percentile(ip, 0.99),
			SessionsPerSecond: rate(len(ip), l.ipoeLast)}
		r.PPPoE = &KindResult{Completed: len(pp), P50MS: percentile(pp, 0.50), P99MS: percentile(pp, 0.99),
			SessionsPerSecond: rate(len(pp), l.pppoeLast)}
	}
	r.SessionsPerSecond = round(r.SessionsPerSecond, 1)
	r.DurationS = round(r.DurationS, 3)
	return r
}

// FailureExample returns the first full reason of a failure class.
func (l *Loader) FailureExample(key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.examples[key]
}

// Failures returns the failure classes ("reason in step") and their counts.
func (l *Loader) Failures() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]int, len(l.failures))
	for k, v := range l.failures {
		m[k] = v
	}
	return m
}

// PhaseMeans returns the mean time completed sessions spent in each step
// (discovery, lcp, auth, ipcp, pfcp), in milliseconds.
func (l *Loader) PhaseMeans() map[string]float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]float64, nMarks)
	for i, d := range l.phaseSum {
		if len(l.durations) > 0 {
			m[markNames[i]] = round(float64(d)/float64(len(l.durations))/float64(time.Millisecond), 3)
		}
	}
	return m
}

// Counters returns the loader's counters of odd input, for stderr.
func (l *Loader) Counters() map[string]int64 {
	st := &l.st
	return map[string]int64{
		"malformed_frames": st.malformed.Load(), "unexpected_frames": st.unexpected.Load(),
		"wrong_line": st.wrongLine.Load(), "bad_host_uniq": st.badHostUniq.Load(),
		"foreign_datagrams": st.foreign.Load(), "unknown_mac": st.unknownMAC.Load(),
		"resent": st.resent.Load(), "echoes_answered": st.echoes.Load(), "rejects": st.rejects.Load(),
		"padt_after_done": st.padtAfterDone.Load(), "terminate_after_done": st.termAfterDone.Load(),
		"establishment_again": st.estAgain.Load(), "establishment_unmatched": st.estUnmatched.Load(),
		"pfcp_malformed": st.pfcpMalformed.Load(), "pfcp_ignored": st.pfcpIgnored.Load(),
		"pfcp_foreign": st.pfcpForeign.Load(), "bad_acks": st.badAck.Load(), "protocol_rejects_sent": st.protoRejects.Load(),
	}
}

func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(ds)))) - 1
	if i < 0 {
		i = 0
	}
	return round(float64(ds[i])/float64(time.Millisecond), 3)
}

func round(x float64, digits int) float64 {
	m := math.Pow(10, float64(digits))
	return math.Round(x*m) / m
}

func (d *dp) sendVXLAN(b []byte) {
	_, _ = d.vx.WriteToUDPAddrPort(b, d.cpVX)
}

func (d *dp) readVXLAN() {
	buf := make([]byte, 65536)
	for {
		n, from, err := d.vx.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		d.onVXLAN(buf[:n], from, time.Now())
	}
}

func (d *dp) onVXLAN(b []byte, from netip.AddrPort, now time.Time) {
	l := d.l
	if from.Addr().Unmap() != l.cfg.CP {
		l.count(&l.st.foreign)
		return
	}
	vni, inner, err := vxlanDecap(b)
	if err != nil {
		l.count(&l.st.malformed)
		return
	}
	if vni != d.id {
		l.count(&l.st.unexpected)
		return
	}
	f, err := decodeFrame(inner)
	if err != nil {
		l.count(&l.st.malformed)
		return
	}
	s := l.sessionByMAC(f.dst)
	if s == nil || s.dp != d {
		l.count(&l.st.unknownMAC)
		return
	}
	s.onFrame(&f, now)
}

func (d *dp) readPFCP() {
	buf := make([]byte, 65536)
	for {
		n, from, err := d.pf.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		for _, out := range d.onPFCP(buf[:n], from, time.Now()) {
			_, _ = d.pf.WriteToUDPAddrPort(out.b, from)
			if out.s != nil {
				out.s.onEstablished(d, out.e, time.Now())
			}
			if out.s6 != nil {
				out.s6.onIPv6PDRs(time.Now())
			}
		}
	}
}

// pfcpOut is one answer; s/e name a subscriber whose establishment it
// acknowledges (its clock stops once the answer is sent).
type pfcpOut struct {
	b  []byte
	s  *session
	e  *establishment
	s6 *session // a subscriber whose IPv6 PDRs a modification added
}

// onPFCP answers the CP's requests the way bng-dp does (docs/dp/pfcp.md).
func (d *dp) onPFCP(b []byte, from netip.AddrPort, now time.Time) []pfcpOut {
	l := d.l
	if from.Addr().Unmap() != l.cfg.CP {
		l.count(&l.st.pfcpForeign)
		return nil
	}
	msgs, err := splitPFCP(b)
	if err != nil {
		l.count(&l.st.pfcpMalformed)
	}
	var out []pfcpOut
	for _, m := range msgs {
		if o, ok := d.answer(&m); ok {
			out = append(out, o)
		}
	}
	return out
}

func (d *dp) associated() bool {
	select {
	case <-d.assoc:
		return true
	default:
		return false
	}
}

func (d *dp) answer(m *pfcpMsg) (pfcpOut, bool) {
	l := d.l
	switch m.typ {
	case pfcpHeartbeatReq:
		return pfcpOut{b: newPFCP(pfcpHeartbeatResp, false, 0, m.seq).rts(d.rts).bytes()}, true
	case pfcpAssocSetupReq:
		var node, rts bool
		if err := forEachIE(m.body, func(t uint16, v []byte) error {
			node = node || t == ieNodeID
			rts = rts || t == ieRecoveryTimeStamp
			return nil
		}); err != nil {
			l.count(&l.st.pfcpMalformed)
			return pfcpOut{}, false
		}
		p := newPFCP(pfcpAssocSetupResp, false, 0, m.seq).nodeID(d.addr)
		if !node || !rts {
			return pfcpOut{b: p.cause(causeMandatoryMiss).bytes()}, true
		}
		bbf := byte(0x11) // PPPoE | LCP keepalive offload
		if slices.Contains(l.cfg.IPoEDPs, d.id) {
			bbf |= 0x02 // IPoE
		}
		p.cause(causeAccepted).rts(d.rts).ie(ieUPFeatures, 0x00, 0x00, 0x10).
			ie(ieBBFUPFeatures, 0x0d, 0xe9, bbf, 0x00, 0x00, 0x00)
		d.assocOnce.Do(func() { close(d.assoc) })
		return pfcpOut{b: p.bytes()}, true
	case pfcpAssocUpdReq, pfcpAssocRelReq:
		c := uint8(causeAccepted)
		if !d.associated() {
			c = causeNoAssociation
		} else if m.typ == pfcpAssocUpdReq {
			// As bng-dp: exactly one bngpod Line Group IE, else 66 (none) or 69 (two).
			n := 0
			_ = forEachIE(m.body, func(t uint16, v []byte) error {
				if t == ieBngpodLineGroup && len(v) >= 2 && binary.BigEndian.Uint16(v) == bngpodEnterprise {
					n++
				}
				return nil
			})
			switch {
			case n == 0:
				c = causeMandatoryMiss
			case n > 1:
				c = causeMandatoryIncorrect
			default:
				d.mu.Lock()
				d.node.AssocUpdates = append(d.node.AssocUpdates, time.Now().UnixNano())
				d.mu.Unlock()
			}
		}
		return pfcpOut{b: newPFCP(m.typ+1, false, 0, m.seq).nodeID(d.addr).cause(c).bytes()}, true
	case pfcpSessEstReq:
		e, err := parseEstablishment(m.body)
		if err != nil || !e.hasFSEID {
			l.count(&l.st.pfcpMalformed)
			return pfcpOut{b: newPFCP(pfcpSessEstResp, true, e.cpSEID, m.seq).nodeID(d.addr).cause(causeMandatoryMiss).bytes()}, true
		}
		if !d.associated() {
			return pfcpOut{b: newPFCP(pfcpSessEstResp, true, e.cpSEID, m.seq).nodeID(d.addr).cause(causeNoAssociation).bytes()}, true
		}
		d.mu.Lock()
		up, ok := d.upByCP[e.cpSEID]
		if !ok {
			d.nextUP++
			up = d.nextUP
			d.upByCP[e.cpSEID] = up
			d.cpByUP[up] = e.cpSEID
		}
		d.mu.Unlock()
		o := pfcpOut{b: newPFCP(pfcpSessEstResp, true, e.cpSEID, m.seq).nodeID(d.addr).cause(causeAccepted).fseid(up, d.addr).bytes()}
		switch {
		case e.isDefault:
			d.defaultSes.Store(true)
		case e.hasUp:
			if s := l.sessionByMAC(e.mac); s != nil {
				o.s, o.e = s, &e
				d.mu.Lock()
				d.byUP[up] = s
				d.mu.Unlock()
			} else {
				l.count(&l.st.estUnmatched)
			}
		default:
			l.count(&l.st.estUnmatched)
		}
		return o, true
	case pfcpSessModReq, pfcpSessDelReq:
		d.mu.Lock()
		cp, ok := d.cpByUP[m.seid]
		if ok && m.typ == pfcpSessDelReq {
			delete(d.cpByUP, m.seid)
			delete(d.upByCP, cp)
			now := time.Now().UnixNano()
			if d.node.Deletions == 0 {
				d.node.FirstDeletion = now
			}
			d.node.Deletions++
			d.node.LastDeletion = now
		}
		d.mu.Unlock()
		if !m.hasSEI || !ok {
			return pfcpOut{b: newPFCP(m.typ+1, true, 0, m.seq).cause(causeSessionNotFound).bytes()}, true
		}
		o := pfcpOut{b: newPFCP(m.typ+1, true, cp, m.seq).cause(causeAccepted).bytes()}
		if m.typ == pfcpSessModReq {
			// IPv6 added to an established session: Create PDRs with IPv6 UE IP Addresses
			var e establishment
			if err := forEachIE(m.body, func(t uint16, v []byte) error {
				if t == ieCreatePDR {
					return e.parsePDR(v)
				}
				return nil
			}); err == nil && e.ipv6 {
				d.mu.Lock()
				o.s6 = d.byUP[m.seid]
				d.mu.Unlock()
			}
		} else {
			d.mu.Lock()
			delete(d.byUP, m.seid)
			d.mu.Unlock()
		}
		return o, true
	default:
		l.count(&l.st.pfcpIgnored)
		return pfcpOut{}, false
	}
}
