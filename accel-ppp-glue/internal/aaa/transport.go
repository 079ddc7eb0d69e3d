package aaa

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"layeh.com/radius"
)

// endpoint is one RADIUS server address (auth or acct port of a Server) with
// its pool of source sockets. The RADIUS Identifier is one octet and is scoped
// by the 4-tuple (RFC 2865 3, RFC 5080 2.2.1), so one socket carries at most
// 256 outstanding requests to one server. A BNG dialling thousands of
// subscribers a second with 3 s timeouts and retries needs several thousand
// identifiers in flight: the pool opens more source sockets (each its own
// source port, thus its own identifier space) on demand, up to maxSockets.
// Identifiers of a socket are handed out in FIFO order so a freed one is
// reused as late as possible (a late reply to an old request then fails the
// Response Authenticator check of the new one and is dropped, counted).
type endpoint struct {
	name   string
	kind   string // "auth" or "acct"
	addr   netip.AddrPort
	secret []byte
	local  netip.Addr // source address, invalid = any

	sem        chan struct{} // one token per identifier that may be in flight
	maxSockets int
	initial    int

	mu    sync.Mutex
	socks []*sock
	next  int
	open  bool // false after Close

	deadUntil atomic.Int64 // unix ns; 0 = alive
	lastValid atomic.Int64 // unix ns of the last valid reply

	st endpointCounters
}

type endpointCounters struct {
	requests, responses, timeouts, retransmits               atomic.Uint64
	badAuthenticator, missingMA, badMA, malformed, unmatched atomic.Uint64
	unexpectedCode, sendErrors, deadMarks, latencyNs         atomic.Uint64
	inflight                                                 atomic.Int64
}

type sock struct {
	ep    *endpoint
	conn  *net.UDPConn
	slots [256]*pending
	busy  [256]bool
	free  []byte // FIFO of free identifiers
	head  int
	nfree int
}

type pending struct {
	reqAuth   [16]byte
	requireMA bool
	accept    func(radius.Code) bool
	ch        chan []byte // capacity 1: the one valid reply
	done      bool
}

func newEndpoint(name, kind string, addr netip.AddrPort, secret []byte, initial, maxSockets int, local netip.Addr) *endpoint {
	return &endpoint{
		name: name, kind: kind, addr: addr, secret: secret, local: local,
		sem:        make(chan struct{}, maxSockets*256),
		maxSockets: maxSockets,
		initial:    initial,
		open:       true,
	}
}

func (e *endpoint) openSock() (*sock, error) {
	var laddr *net.UDPAddr
	if e.local.IsValid() {
		laddr = net.UDPAddrFromAddrPort(netip.AddrPortFrom(e.local, 0))
	}
	c, err := net.DialUDP("udp", laddr, net.UDPAddrFromAddrPort(e.addr))
	if err != nil {
		return nil, err
	}
	_ = c.SetReadBuffer(1 << 20)
	s := &sock{ep: e, conn: c, free: make([]byte, 256), nfree: 256}
	for i := range s.free {
		s.free[i] = byte(i)
	}
	e.socks = append(e.socks, s)
	go s.readLoop()
	return s, nil
}

var errClosed = errors.New("aaa: client closed")

// reserve takes an identifier on some socket (waiting while all maxSockets*256
// are in flight). The slot stays unarmed (replies to it are unmatched) until arm.
func (e *endpoint) reserve(ctx context.Context) (*sock, byte, error) {
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.open {
		<-e.sem
		return nil, 0, errClosed
	}
	for len(e.socks) < e.initial {
		if _, err := e.openSock(); err != nil {
			if len(e.socks) == 0 {
				<-e.sem
				return nil, 0, err
			}
			break
		}
	}
	// Round robin over the sockets spreads load over source ports.
	for i := 0; i < len(e.socks); i++ {
		s := e.socks[(e.next+i)%len(e.socks)]
		if s.nfree > 0 {
			e.next = (e.next + i + 1) % len(e.socks)
			return s, s.take(), nil
		}
	}
	s, err := e.openSock()
	if err != nil {
		<-e.sem
		return nil, 0, err
	}
	return s, s.take(), nil
}

func (s *sock) take() byte {
	id := s.free[s.head]
	s.head = (s.head + 1) % 256
	s.nfree--
	s.busy[id] = true
	return id
}

func (e *endpoint) arm(s *sock, id byte, p *pending) {
	e.mu.Lock()
	s.slots[id] = p
	e.mu.Unlock()
}

func (e *endpoint) release(s *sock, id byte) {
	e.mu.Lock()
	if s.busy[id] {
		s.busy[id] = false
		s.slots[id] = nil
		s.free[(s.head+s.nfree)%256] = id
		s.nfree++
	}
	e.mu.Unlock()
	<-e.sem
}

func (s *sock) readLoop() {
	buf := make([]byte, maxPacket+1)
	e := s.ep
	for {
		n, err := s.conn.Read(buf)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// ICMP port unreachable etc. surface as read errors on a
			// connected socket: the request just times out.
			continue
		}
		l, err := packetLen(buf[:n])
		if err != nil {
			e.st.malformed.Add(1)
			continue
		}
		b := buf[:l]
		e.mu.Lock()
		p := s.slots[b[1]]
		if p == nil || p.done {
			e.mu.Unlock()
			e.st.unmatched.Add(1)
			continue
		}
		reqAuth, requireMA, accept := p.reqAuth, p.requireMA, p.accept
		e.mu.Unlock()
		if !accept(radius.Code(b[0])) {
			e.st.unexpectedCode.Add(1)
			continue
		}
		switch err := verifyReply(b, &reqAuth, e.secret, requireMA); err {
		case nil:
		case errRespAuth:
			e.st.badAuthenticator.Add(1)
			continue
		case errNoMA:
			e.st.missingMA.Add(1)
			continue
		case errBadMA:
			e.st.badMA.Add(1)
			continue
		default:
			e.st.malformed.Add(1)
			continue
		}
		out := append([]byte(nil), b...)
		e.mu.Lock()
		if s.slots[b[1]] == p && !p.done {
			p.done = true
			p.ch <- out
		}
		e.mu.Unlock()
		e.lastValid.Store(time.Now().UnixNano())
		e.deadUntil.Store(0)
	}
}

func (e *endpoint) close() {
	e.mu.Lock()
	e.open = false
	socks := e.socks
	e.mu.Unlock()
	for _, s := range socks {
		s.conn.Close()
	}
}

func (e *endpoint) alive(now time.Time) bool {
	d := e.deadUntil.Load()
	return d == 0 || now.UnixNano() >= d
}

// errNoReply: every attempt to this endpoint timed out or was dropped.
var errNoReply = errors.New("aaa: no valid reply")

// exchange sends one request to e (build encodes it for the reserved
// identifier) and waits for a valid reply, retransmitting the same bytes
// retries times (RFC 5080 2.2.1: a retransmission keeps ID and content).
func (c *Client) exchange(ctx context.Context, e *endpoint, build func(id byte) ([]byte, [16]byte, error), requireMA bool, accept func(radius.Code) bool) ([]byte, error) {
	s, id, err := e.reserve(ctx)
	if err != nil {
		return nil, err
	}
	defer e.release(s, id)
	b, auth, err := build(id)
	if err != nil {
		return nil, err
	}
	p := &pending{reqAuth: auth, requireMA: requireMA, accept: accept, ch: make(chan []byte, 1)}
	e.arm(s, id, p)
	e.st.requests.Add(1)
	e.st.inflight.Add(1)
	defer e.st.inflight.Add(-1)
	start := time.Now()
	timer := time.NewTimer(c.cfg.Timeout)
	defer timer.Stop()
	for attempt := 0; attempt <= c.cfg.Retries; attempt++ {
		if attempt > 0 {
			e.st.retransmits.Add(1)
			timer.Reset(c.cfg.Timeout)
		}
		if _, err := s.conn.Write(b); err != nil {
			e.st.sendErrors.Add(1)
		}
		select {
		case r := <-p.ch:
			d := time.Since(start)
			e.st.responses.Add(1)
			e.st.latencyNs.Add(uint64(d))
			if c.cfg.OnLatency != nil {
				c.cfg.OnLatency(e.name, d)
			}
			return r, nil
		case <-timer.C:
			e.st.timeouts.Add(1)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// Dead only if the server gave no valid reply to anybody since we first
	// sent: one lost request under load must not take a healthy server out.
	if e.lastValid.Load() < start.UnixNano() && c.cfg.DeadTime > 0 {
		e.deadUntil.Store(time.Now().Add(c.cfg.DeadTime).UnixNano())
		e.st.deadMarks.Add(1)
	}
	return nil, errNoReply
}
