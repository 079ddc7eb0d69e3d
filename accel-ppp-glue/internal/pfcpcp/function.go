package pfcpcp

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Peer states.
const (
	stAssociating = iota // no association: Association Setup Requests go out
	stInstalling         // associated, the default session is being installed
	stUp                 // associated, default session installed, heartbeats
)

var stateNames = [...]string{"associating", "installing", "up"}

const (
	repNone = iota
	repUp
	repDown
)

// DefaultSessionSEID is the CP SEID of the default session of a DP instance:
// fixed, so that a restarted CP's re-establishment is idempotent.
func DefaultSessionSEID(inst uint32) uint64 { return 1<<63 | uint64(inst) }

type peer struct {
	Peer
	state    int
	since    time.Time
	rts      uint32 // the DP's recovery time stamp (NTP)
	hasRTS   bool
	feat     Features
	no6      bool      // the DP refused the default session's IPv6 dhcp class: without it since
	next     time.Time // next association attempt or heartbeat
	busy     bool      // an association/default session/heartbeat request is outstanding
	gen      uint64    // bumped on every state reset: stale callbacks are ignored
	reported int

	restarts, hbTx, hbRx, reports, timeouts uint64
}

type request struct {
	seq      uint32
	p        *peer
	typ      uint8
	b        []byte
	t1       time.Duration // retransmission interval
	n1       int           // transmissions
	tries    int
	deadline time.Time
	idx      int
	cb       func(m *msg, err error)
}

type reqHeap []*request

func (h reqHeap) Len() int           { return len(h) }
func (h reqHeap) Less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }
func (h reqHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx = i
	h[j].idx = j
}
func (h *reqHeap) Push(x any) {
	r := x.(*request)
	r.idx = len(*h)
	*h = append(*h, r)
}
func (h *reqHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	r.idx = -1
	return r
}

type sessKey struct {
	inst uint32
	seid uint64
}

type cacheKey struct {
	addr   netip.AddrPort
	seq    uint32
	typ    uint8
	digest uint64
}

// maxCache caps the answers kept for the DPs' retransmitted reports.
const maxCache = 1 << 16

type cached struct {
	answer  []byte
	expires time.Time
}

// Function is the PFCP control-plane function.
type Function struct {
	cfg    Config
	h      Handler
	conn   *net.UDPConn
	seed   maphash.Seed
	byAddr map[netip.AddrPort]*peer
	byInst map[uint32]*peer
	order  []*peer

	mu        sync.Mutex
	seq       uint32
	pending   map[uint32]*request
	timers    reqHeap
	sessions  map[sessKey]uint64 // (inst, CP SEID) -> UP SEID
	bySEID    map[sessKey]uint64 // (inst, UP SEID) -> CP SEID
	cache     map[cacheKey]cached
	nextSweep time.Time
	closed    bool
	running   atomic.Bool
	wake      chan struct{}

	ev evQueue

	requests        [256]atomic.Uint64
	received        [256]atomic.Uint64
	answers         [256]atomic.Uint64
	retransmissions atomic.Uint64
	timeouts        atomic.Uint64
	unexpected      atomic.Uint64
	duplicates      atomic.Uint64
	unknownSEID     atomic.Uint64
	notAllowed      atomic.Uint64
	malformed       atomic.Uint64
	unhandled       atomic.Uint64
}

// New checks the configuration and binds the UDP socket; Run starts it.
func New(cfg Config, peers []Peer, h Handler) (*Function, error) {
	if cfg.T1 <= 0 {
		cfg.T1 = 3 * time.Second
	}
	if cfg.N1 <= 0 {
		cfg.N1 = 3
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 5 * time.Second
	}
	if cfg.HeartbeatT1 <= 0 {
		cfg.HeartbeatT1 = cfg.T1
	}
	if cfg.HeartbeatN1 <= 0 {
		cfg.HeartbeatN1 = cfg.N1
	}
	if cfg.RecoveryTime.IsZero() {
		cfg.RecoveryTime = time.Now()
	}
	cfg.NodeID = cfg.NodeID.Unmap()
	if !cfg.NodeID.Is4() {
		return nil, errors.New("pfcpcp: NodeID must be an IPv4 address (docs/dp/pfcp.md: F-SEID V4)")
	}
	if !cfg.Local.IsValid() {
		cfg.Local = netip.AddrPortFrom(netip.IPv4Unspecified(), 8805)
	}
	if !cfg.Redirect.Addr().Unmap().Is4() || cfg.Redirect.Port() == 0 {
		return nil, errors.New("pfcpcp: Redirect must be an IPv4 address and port")
	}
	cfg.Redirect = netip.AddrPortFrom(cfg.Redirect.Addr().Unmap(), cfg.Redirect.Port())
	if h == nil {
		return nil, errors.New("pfcpcp: a Handler is required")
	}
	f := &Function{
		cfg:      cfg,
		h:        h,
		seed:     maphash.MakeSeed(),
		byAddr:   make(map[netip.AddrPort]*peer),
		byInst:   make(map[uint32]*peer),
		pending:  make(map[uint32]*request),
		sessions: make(map[sessKey]uint64),
		bySEID:   make(map[sessKey]uint64),
		cache:    make(map[cacheKey]cached),
		wake:     make(chan struct{}, 1),
	}
	now := time.Now()
	for _, pp := range peers {
		pp.Addr = netip.AddrPortFrom(pp.Addr.Addr().Unmap(), pp.Addr.Port())
		if !pp.Addr.IsValid() || pp.Addr.Port() == 0 {
			return nil, fmt.Errorf("pfcpcp: instance %d: invalid address %v", pp.Instance, pp.Addr)
		}
		if f.byInst[pp.Instance] != nil || f.byAddr[pp.Addr] != nil {
			return nil, fmt.Errorf("pfcpcp: instance %d / %v configured twice", pp.Instance, pp.Addr)
		}
		p := &peer{Peer: pp, since: now, next: now}
		f.byInst[pp.Instance] = p
		f.byAddr[pp.Addr] = p
		f.order = append(f.order, p)
	}
	c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(cfg.Local))
	if err != nil {
		return nil, fmt.Errorf("pfcpcp: %w", err)
	}
	// bursts of thousands of requests and answers: best effort, capped by the kernel's rmem_max
	_ = c.SetReadBuffer(4 << 20)
	_ = c.SetWriteBuffer(4 << 20)
	f.conn = c
	return f, nil
}

// LocalAddr is the bound address of the socket.
func (f *Function) LocalAddr() netip.AddrPort {
	return f.conn.LocalAddr().(*net.UDPAddr).AddrPort()
}

// Run serves until ctx ends, then closes the socket; pending calls fail
// with ErrClosed. It associates with every peer and keeps the associations.
func (f *Function) Run(ctx context.Context) error {
	if !f.running.CompareAndSwap(false, true) {
		return errors.New("pfcpcp: Run called twice")
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); f.reader() }()
	go func() { defer wg.Done(); f.ev.run(f.h) }()
	f.timerLoop(ctx)

	f.mu.Lock()
	f.closed = true
	var fail []*request
	for _, r := range f.pending {
		fail = append(fail, r)
	}
	f.pending = map[uint32]*request{}
	f.timers = nil
	f.mu.Unlock()
	_ = f.conn.Close()
	for _, r := range fail {
		r.cb(nil, ErrClosed)
	}
	f.ev.stop()
	wg.Wait()
	return nil
}

// ---- requests ---------------------------------------------------------------------------

// enqueueLocked gives b a sequence number and starts its retransmission
// timer; the caller sends b after unlocking.
func (f *Function) enqueueLocked(p *peer, typ uint8, b []byte, now time.Time, cb func(*msg, error)) (*request, error) {
	if f.closed {
		return nil, ErrClosed
	}
	for {
		f.seq = (f.seq + 1) & 0xffffff
		if f.seq == 0 {
			continue
		}
		if _, busy := f.pending[f.seq]; !busy {
			break
		}
		if len(f.pending) >= 0xfffff0 {
			return nil, errors.New("pfcpcp: too many requests in flight")
		}
	}
	setSeq(b, f.seq)
	t1, n1 := f.cfg.T1, f.cfg.N1
	if typ == msgHeartbeatReq {
		t1, n1 = f.cfg.HeartbeatT1, f.cfg.HeartbeatN1
	}
	r := &request{seq: f.seq, p: p, typ: typ, b: b, t1: t1, n1: n1, tries: 1, deadline: now.Add(t1), cb: cb}
	f.pending[r.seq] = r
	early := len(f.timers) == 0 || r.deadline.Before(f.timers[0].deadline)
	heap.Push(&f.timers, r)
	if early {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
	f.requests[typ].Add(1)
	return r, nil
}

func (f *Function) cancel(r *request) {
	f.mu.Lock()
	if f.pending[r.seq] == r {
		delete(f.pending, r.seq)
		if r.idx >= 0 {
			heap.Remove(&f.timers, r.idx)
		}
	}
	f.mu.Unlock()
}

func (f *Function) send(p *peer, b []byte) {
	_, _ = f.conn.WriteToUDPAddrPort(b, p.Addr) // a lost datagram is retransmitted
}

type reply struct {
	m   *msg
	err error
}

// call sends a request to p and waits for its answer.
func (f *Function) call(ctx context.Context, p *peer, typ uint8, b []byte) (*msg, error) {
	if !f.running.Load() {
		return nil, ErrClosed
	}
	ch := make(chan reply, 1)
	f.mu.Lock()
	r, err := f.enqueueLocked(p, typ, b, time.Now(), func(m *msg, err error) { ch <- reply{m, err} })
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	f.send(p, b)
	select {
	case rp := <-ch:
		return rp.m, rp.err
	case <-ctx.Done():
		f.cancel(r)
		return nil, ctx.Err()
	}
}

// ---- timer loop -------------------------------------------------------------------------

type sendItem struct {
	p *peer
	b []byte
}

func (f *Function) timerLoop(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		now := time.Now()
		var out []sendItem
		var expired []*request
		f.mu.Lock()
		for len(f.timers) > 0 && !f.timers[0].deadline.After(now) {
			r := f.timers[0]
			if r.tries < r.n1 {
				r.tries++
				r.deadline = now.Add(r.t1)
				heap.Fix(&f.timers, 0)
				out = append(out, sendItem{r.p, r.b})
				f.retransmissions.Add(1)
				continue
			}
			heap.Pop(&f.timers)
			delete(f.pending, r.seq)
			r.p.timeouts++
			f.timeouts.Add(1)
			expired = append(expired, r)
		}
		next := now.Add(time.Hour)
		for _, p := range f.order {
			if !p.busy && !p.next.After(now) {
				if it, ok := f.peerActLocked(p, now); ok {
					out = append(out, it)
				}
			}
			if !p.busy && p.next.Before(next) {
				next = p.next
			}
		}
		if !f.nextSweep.After(now) {
			for k, c := range f.cache {
				if !c.expires.After(now) {
					delete(f.cache, k)
				}
			}
			f.nextSweep = now.Add(f.cfg.T1)
		}
		if f.nextSweep.Before(next) {
			next = f.nextSweep
		}
		if len(f.timers) > 0 && f.timers[0].deadline.Before(next) {
			next = f.timers[0].deadline
		}
		f.mu.Unlock()
		for _, it := range out {
			f.send(it.p, it.b)
		}
		for _, r := range expired {
			r.cb(nil, ErrTimeout)
		}
		// Peer state changes in the callbacks above may have new deadlines.
		if len(expired) > 0 {
			continue
		}
		t.Reset(time.Until(next))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-f.wake:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		}
	}
}

// ---- peers ------------------------------------------------------------------------------

// peerActLocked starts what a peer needs now: an association or a heartbeat.
func (f *Function) peerActLocked(p *peer, now time.Time) (sendItem, bool) {
	gen := p.gen
	var b []byte
	var typ uint8
	var cb func(*msg, error)
	if p.state == stUp {
		typ, b = msgHeartbeatReq, f.encHeartbeat(msgHeartbeatReq, 0)
		cb = func(m *msg, err error) { f.onHeartbeatAnswer(p, gen, m, err) }
		p.hbTx++
		p.next = now.Add(f.cfg.Heartbeat)
	} else {
		typ, b = msgAssocSetupReq, f.encAssocSetup(0)
		cb = func(m *msg, err error) { f.onAssocAnswer(p, gen, m, err) }
	}
	if _, err := f.enqueueLocked(p, typ, b, now, cb); err != nil {
		return sendItem{}, false
	}
	p.busy = true
	return sendItem{p, b}, true
}

// downLocked resets p to associating; retry at `retry`.
func (f *Function) downLocked(p *peer, now, retry time.Time) {
	wasUp := p.state != stAssociating
	p.gen++
	p.busy = false
	p.state = stAssociating
	if wasUp {
		p.since = now
	}
	p.next = retry
	if p.reported != repDown {
		p.reported = repDown
		inst := p.Instance
		f.ev.push(func(h Handler) { h.PeerDown(inst) })
	}
	f.poke()
}

// retryAt: at once after a timeout (the next round of N1 transmissions),
// one heartbeat interval after an error answer (no busy loop).
func (f *Function) retryAt(err error, now time.Time) time.Time {
	if errors.Is(err, ErrTimeout) {
		return now
	}
	return now.Add(f.cfg.Heartbeat)
}

func (f *Function) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// forgetLocked drops the session table of a DP that lost its sessions.
func (f *Function) forgetLocked(inst uint32) {
	for k := range f.sessions {
		if k.inst == inst {
			delete(f.sessions, k)
		}
	}
	for k := range f.bySEID {
		if k.inst == inst {
			delete(f.bySEID, k)
		}
	}
}

func (f *Function) onAssocAnswer(p *peer, gen uint64, m *msg, err error) {
	now := time.Now()
	f.mu.Lock()
	b := f.assocAnswerLocked(p, gen, m, err, now)
	f.mu.Unlock()
	if b != nil {
		f.send(p, b)
	}
}

// assocAnswerLocked handles an association answer; it returns the default
// session's request to send, if any.
func (f *Function) assocAnswerLocked(p *peer, gen uint64, m *msg, err error, now time.Time) []byte {
	if p.gen != gen || f.closed {
		return nil
	}
	p.busy = false
	if err != nil {
		f.downLocked(p, now, f.retryAt(err, now))
		return nil
	}
	c, err := m.cause()
	rts, ok := m.rts()
	if err != nil || c != CauseAccepted || !ok {
		f.downLocked(p, now, now.Add(f.cfg.Heartbeat))
		return nil
	}
	if p.hasRTS && rts != p.rts {
		p.restarts++
		f.forgetLocked(p.Instance)
	}
	p.rts, p.hasRTS = rts, true
	p.feat = m.features()
	p.no6 = false // a DP restarted or associated again may be another build
	p.state = stInstalling
	p.since = now
	return f.sendDefaultLocked(p, gen, now)
}

// sendDefaultLocked queues the default session's establishment (with the
// IPv6 dhcp class to an IPoE DP that has not refused it); it returns the
// request to send.
func (f *Function) sendDefaultLocked(p *peer, gen uint64, now time.Time) []byte {
	p.feat.IPoE6 = p.feat.IPoE && !p.no6
	b := f.encDefault(0, DefaultSessionSEID(p.Instance), p.feat.IPoE, p.feat.IPoE6)
	if _, err := f.enqueueLocked(p, msgSessEstReq, b, now, func(m *msg, err error) { f.onDefaultAnswer(p, gen, m, err) }); err != nil {
		return nil
	}
	p.busy = true
	return b
}

func (f *Function) onDefaultAnswer(p *peer, gen uint64, m *msg, err error) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if p.gen != gen || f.closed {
		return
	}
	p.busy = false
	if err != nil {
		f.downLocked(p, now, f.retryAt(err, now))
		return
	}
	c, err := m.cause()
	if err == nil && c == CauseServiceNotSupported && p.feat.IPoE6 {
		// A bng-dp without dual stack over IPoE refuses the IPv6 dhcp
		// class: the default session again without it.
		p.no6 = true
		if b := f.sendDefaultLocked(p, gen, now); b != nil {
			f.send(p, b) // one datagram; retransmissions follow the timer
		}
		return
	}
	if err != nil || c != CauseAccepted {
		f.downLocked(p, now, now.Add(f.cfg.Heartbeat))
		return
	}
	up, err := m.fseid()
	if err != nil {
		f.downLocked(p, now, now.Add(f.cfg.Heartbeat))
		return
	}
	f.addSessionLocked(p.Instance, DefaultSessionSEID(p.Instance), up)
	p.state = stUp
	p.since = now
	p.next = now.Add(f.cfg.Heartbeat)
	p.reported = repUp
	inst, rts, feat := p.Instance, fromNTP(p.rts), p.feat
	f.ev.push(func(h Handler) { h.PeerUp(inst, rts, feat) })
	f.poke()
}

func (f *Function) onHeartbeatAnswer(p *peer, gen uint64, m *msg, err error) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if p.gen != gen || f.closed {
		return
	}
	p.busy = false
	if err != nil {
		f.downLocked(p, now, f.retryAt(err, now))
		return
	}
	if rts, ok := m.rts(); ok && p.hasRTS && rts != p.rts {
		f.downLocked(p, now, now) // restarted: re-associate (counted there)
		return
	}
	f.poke()
}

func (f *Function) addSessionLocked(inst uint32, cp, up uint64) {
	if old, ok := f.sessions[sessKey{inst, cp}]; ok {
		delete(f.bySEID, sessKey{inst, old})
	}
	f.sessions[sessKey{inst, cp}] = up
	f.bySEID[sessKey{inst, up}] = cp
}

// Restore tells the function about a session established before (by a
// previous run of the CP), so that the DP's reports for it are accepted.
func (f *Function) Restore(inst uint32, cpSEID, upSEID uint64) {
	f.mu.Lock()
	f.addSessionLocked(inst, cpSEID, upSEID)
	f.mu.Unlock()
}

// ---- input ------------------------------------------------------------------------------

func (f *Function) reader() {
	buf := make([]byte, 65536)
	for {
		n, from, err := f.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		f.input(buf[:n], from, time.Now())
	}
}

// input handles one datagram from `from`.
func (f *Function) input(dgram []byte, from netip.AddrPort, now time.Time) {
	from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
	p := f.byAddr[from]
	if p == nil {
		f.notAllowed.Add(1)
		return
	}
	b := append([]byte(nil), dgram...) // answers outlive the read buffer
	for k := 0; k < 16 && len(b) > 0; k++ {
		m, n, err := decodeMessage(b)
		if err != nil {
			f.malformed.Add(1)
			return
		}
		f.dispatch(p, m, now)
		if !m.h.fo {
			return
		}
		b = b[n:]
	}
}

func answerTo(req uint8) uint8 { return req + 1 }

func (f *Function) dispatch(p *peer, m *msg, now time.Time) {
	switch m.h.typ {
	case msgHeartbeatReq:
		f.received[m.h.typ].Add(1)
		f.onHeartbeatRequest(p, m, now)
	case msgSessReportReq:
		f.received[m.h.typ].Add(1)
		f.onReport(p, m, now)
	case msgHeartbeatRsp, msgAssocSetupRsp, msgAssocUpdateRsp, msgSessEstRsp, msgSessModRsp, msgSessDelRsp, msgVersionNotSupp:
		f.mu.Lock()
		r := f.pending[m.h.seq]
		if r == nil || r.p != p || (answerTo(r.typ) != m.h.typ && m.h.typ != msgVersionNotSupp) {
			f.mu.Unlock()
			f.unexpected.Add(1)
			return
		}
		delete(f.pending, r.seq)
		if r.idx >= 0 {
			heap.Remove(&f.timers, r.idx)
		}
		f.mu.Unlock()
		if m.h.typ == msgVersionNotSupp {
			r.cb(nil, ErrVersionNotSupported)
			return
		}
		if c, err := m.cause(); err == nil {
			f.answers[c].Add(1)
		}
		r.cb(m, nil)
	default:
		f.unhandled.Add(1)
	}
}

func (f *Function) onHeartbeatRequest(p *peer, m *msg, now time.Time) {
	rsp := f.encHeartbeat(msgHeartbeatRsp, 0)
	setSeq(rsp, m.h.seq)
	f.send(p, rsp)
	f.mu.Lock()
	p.hbRx++
	if rts, ok := m.rts(); ok && p.state != stAssociating && p.hasRTS && rts != p.rts {
		f.downLocked(p, now, now)
	}
	f.mu.Unlock()
}

func (f *Function) onReport(p *peer, m *msg, now time.Time) {
	key := cacheKey{p.Addr, m.h.seq, m.h.typ, maphash.Bytes(f.seed, m.raw)}
	f.mu.Lock()
	p.reports++
	if c, ok := f.cache[key]; ok && c.expires.After(now) {
		f.mu.Unlock()
		f.duplicates.Add(1)
		f.send(p, c.answer)
		return
	}
	cp := m.h.seid
	up, known := f.sessions[sessKey{p.Instance, cp}]
	f.mu.Unlock()

	var cause uint8 = CauseAccepted
	var rep report
	var err error
	switch {
	case !m.h.hasSEID || !known:
		cause = CauseSessionNotFound
		up = 0
		f.unknownSEID.Add(1)
	default:
		rep, err = m.report()
		if err != nil {
			f.malformed.Add(1)
			cause = 69 // Mandatory IE incorrect
		}
	}
	rsp := encReportRsp(m.h.seq, up, cause)
	f.mu.Lock()
	if len(f.cache) < maxCache {
		f.cache[key] = cached{answer: rsp, expires: now.Add(2 * time.Duration(f.cfg.N1) * f.cfg.T1)}
	}
	f.mu.Unlock()
	f.send(p, rsp)
	if cause != CauseAccepted {
		return
	}
	f.pushUsage(p.Instance, cp, rep.usage)
	inst := p.Instance
	if rep.lcpDead {
		f.ev.push(func(h Handler) { h.LCPDead(inst, cp) })
	}
}

// ---- events -----------------------------------------------------------------------------

// evQueue runs the handler's calls on one goroutine, in order; unbounded.
type evQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	q       []func(Handler)
	stopped bool
}

func (e *evQueue) init() {
	if e.cond == nil {
		e.cond = sync.NewCond(&e.mu)
	}
}

func (e *evQueue) push(fn func(Handler)) {
	e.mu.Lock()
	e.init()
	if !e.stopped {
		e.q = append(e.q, fn)
		e.cond.Signal()
	}
	e.mu.Unlock()
}

func (e *evQueue) stop() {
	e.mu.Lock()
	e.init()
	e.stopped = true
	e.cond.Broadcast()
	e.mu.Unlock()
}

func (e *evQueue) run(h Handler) {
	for {
		e.mu.Lock()
		e.init()
		for len(e.q) == 0 && !e.stopped {
			e.cond.Wait()
		}
		if e.stopped {
			e.mu.Unlock()
			return
		}
		q := e.q
		e.q = nil
		e.mu.Unlock()
		for _, fn := range q {
			fn(h)
		}
	}
}
