package main

import (
	"context"
	"errors"
	"net/netip"
	"sort"
	"sync"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

// Config is what the emulator does with its subscribers.
type Config struct {
	TPID         uint16        // outer tag of the access port (0x8100 or 0x88a8); a subscriber's own TPID wins
	Auth         string        // "pap" or "chap": what we Nak the server to when it asks for the other
	ServiceName  string        // Service-Name of PADI/PADR ("" = any)
	Concurrency  int           // sessions dialling at once (default 256)
	DialRate     float64       // dials (first ones and retries) started per second, at most (0 = as Concurrency allows)
	Retries      int           // new attempts after a failed one (default 3; <0 = none)
	Retransmit   time.Duration // restart timer of every request (default 1 s; discovery doubles up to 8x)
	PhaseTimeout time.Duration // one phase (discovery offer, session, LCP, auth, IPCP) must finish in this (default 10 s)
	Backoff      time.Duration // first retry after this, doubling up to 32x, with jitter (default 1 s)
	Redial       bool          // a session that went down dials again (after Backoff)
	EchoInterval time.Duration // our LCP Echo-Requests (0 = none)
	EchoFailures int           // unanswered echoes before the session counts as dead (default 3)
	Rate         float64       // UDP datagrams per second per session (0 = no traffic)
	Target       netip.AddrPort
	// DualStack runs IPv6CP, RS and DHCPv6 (IA_PD, IA_NA when the RA's M
	// flag is set) beside IPCP; Target6 (optional) gets datagrams from the
	// SLAAC address and from the delegated prefix in turn (client6.go).
	DualStack bool
	Target6   netip.AddrPort
	Size      int           // UDP payload bytes (default 64, at least 24)
	Tick      time.Duration // timer wheel granularity (default 10 ms)
	// At stop every session is hung up (LCP Terminate-Request, then PADT) at
	// HangupRate sessions per second (default 250: 500 frames/s, a tenth of bng-dp's
	// HIGH-class line bucket of 5,000/s; four emulators at 1,000/s each lost about 8 % of
	// their hangups in the pod, at 250/s none), faster when that would take longer
	// than HangupMax (default 10 s); <0 = all at once.
	HangupRate float64
	HangupMax  time.Duration
	// Strict behaves as common CPEs do: session frames that come before their
	// session's PADS are dropped (counted as early and early_dropped), not kept;
	// a hang-up sends LCP Terminate-Request, waits for the Terminate-Ack (sent
	// again after Retransmit, given up after twice that) and then sends the
	// PADT, unless the server's PADT came first.
	Strict bool
}

func (c *Config) defaults() {
	if c.TPID == 0 {
		c.TPID = 0x8100
	}
	if c.Auth == "" {
		c.Auth = "pap"
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 256
	}
	if c.Retries == 0 {
		c.Retries = 3
	} else if c.Retries < 0 {
		c.Retries = 0
	}
	if c.Retransmit <= 0 {
		c.Retransmit = time.Second
	}
	if c.PhaseTimeout <= 0 {
		c.PhaseTimeout = 10 * time.Second
	}
	if c.Backoff <= 0 {
		c.Backoff = time.Second
	}
	if c.EchoFailures <= 0 {
		c.EchoFailures = 3
	}
	if c.Size <= 0 {
		c.Size = 64
	}
	if c.Size < payloadMin {
		c.Size = payloadMin
	}
	if c.Size > 1400 {
		c.Size = 1400
	}
	if c.Tick <= 0 {
		c.Tick = 10 * time.Millisecond
	}
	if c.HangupRate == 0 {
		c.HangupRate = 250
	}
	if c.HangupMax <= 0 {
		c.HangupMax = 10 * time.Second
	}
}

// Subscriber is one line of users.json the emulator dials.
type Subscriber struct {
	Index     uint32 // position in users.json, from 1: the MAC is 02:5b + Index
	User      string
	Password  string
	LineGroup string
	Port      string
	STag      uint16
	CTag      uint16
	TPID      uint16  // 0 = Config.TPID
	ClientMAC [6]byte // IPoE: users.json's mac (HasMAC)
	HasMAC    bool
}

// MAC returns 02:5b:SS:SS:SS:SS with the index in the last four bytes.
func (s *Subscriber) MAC() [6]byte {
	return [6]byte{0x02, 0x5b, byte(s.Index >> 24), byte(s.Index >> 16), byte(s.Index >> 8), byte(s.Index)}
}

// Emu is the subscriber population on one Transport. All session state is
// owned by the goroutine of Run; the status API and Stats go through it.
type Emu struct {
	cfg   Config
	tr    Transport
	sess  []sess
	byIdx map[uint32]int32 // subscriber index (from the MAC) -> sess

	queue   []int32 // sessions waiting to dial, FIFO from qHead
	qHead   int
	dialing int
	// DialRate's token bucket (one dial of burst), refilled at each pump
	dialTokens float64
	dialLast   int64

	// timer wheel: slots of cfg.Tick, lazy deletion (an entry counts only
	// when the session's wheelTick still names that tick)
	wheel   [][]int32
	curTick int64
	tickNs  int64

	start time.Time
	now   int64 // ns since start, set at each loop turn
	rng   uint64

	// send batch
	txBufs   [][]byte
	txFrames [][]byte
	txN      int

	st      counters
	lat     []float32 // setup latencies (ms) of every session that came up
	lastOut struct {
		t   int64
		ups uint64
	}

	reqs chan func()

	// stop: the sessions still to hang up, paced
	stopping bool
	hq       []int32
	hqTokens float64
	hqLast   int64
	// strict hang-ups waiting for their Terminate-Ack, in the order they
	// started waiting (every wait is as long: deadline order); entries of
	// sessions that stopped waiting are skipped
	hw     []int32
	hwHead int
	// hang-ups whose Terminate-Ack (or the server's PADT) has not come: the
	// stop waits for them until lingerUntil, so that the order counts are whole
	acksDue     int
	lingerUntil int64

	mu       sync.Mutex
	finalSt  *Stats
	finalSes []SessionStatus
	running  bool
}

const wheelSlots = 4096

// counters are the totals (loop-owned).
type counters struct {
	dialled, upEvents, everUp, failed, upNow uint64
	failReasons, dropReasons                 map[string]uint64

	rxFrames, rxMalformed, rxNotOurs, rxWrongLine, rxWrongSession, rxUnexpected uint64
	rxEarly, rxEarlyDropped, rxLate                                             uint64
	hangups, padtBeforeTermAck                                                  uint64
	txFrames, txDropped                                                         uint64
	trTx, trRx, trTxBytes, trRxBytes, trRxBad                                   uint64
	echoSent, echoReplies, echoAnswered, echoLoops                              uint64
	firstDial, lastUp, lastFirstRx                                              int64
	trafficEver                                                                 uint64
	// IPv6 (client6.go)
	v6Sent, v6Rx, v6Failed                   map[string]uint64
	v6Bound, v6Bad                           uint64
	tr6Tx, tr6TxPD, tr6Rx, tr6RxPD, tr6RxBad uint64
}

// NewEmu makes an emulator for subs (the order is the dial order).
func NewEmu(cfg Config, tr Transport, subs []Subscriber) (*Emu, error) {
	cfg.defaults()
	if cfg.Auth != "pap" && cfg.Auth != "chap" {
		return nil, errors.New("auth must be pap or chap")
	}
	e := &Emu{cfg: cfg, tr: tr, byIdx: make(map[uint32]int32, len(subs)),
		tickNs: int64(cfg.Tick), reqs: make(chan func(), 16), rng: 0x9e3779b97f4a7c15, dialTokens: 1}
	e.st.failReasons = map[string]uint64{}
	e.st.v6Sent, e.st.v6Rx, e.st.v6Failed = map[string]uint64{}, map[string]uint64{}, map[string]uint64{}
	e.st.dropReasons = map[string]uint64{}
	e.sess = make([]sess, len(subs))
	for i := range subs {
		sub := subs[i]
		if sub.TPID == 0 {
			sub.TPID = cfg.TPID
		}
		if _, dup := e.byIdx[sub.Index]; dup {
			return nil, errors.New("two subscribers with index " + itoa(int(sub.Index)))
		}
		e.byIdx[sub.Index] = int32(i)
		s := &e.sess[i]
		s.sub = sub
		s.idx = int32(i)
		s.mac = sub.MAC()
		s.port = uint16(10000 + sub.Index%50000)
		e.queue = append(e.queue, int32(i))
	}
	e.wheel = make([][]int32, wheelSlots)
	e.txBufs = make([][]byte, batchLen)
	e.txFrames = make([][]byte, batchLen)
	mem := make([]byte, batchLen*frameCap)
	for i := range e.txBufs {
		e.txBufs[i] = mem[i*frameCap : i*frameCap : (i+1)*frameCap]
	}
	return e, nil
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			break
		}
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}

// Run dials every subscriber and keeps the sessions until ctx ends, then
// sends PADT for every session and returns. The error is the transport's.
func (e *Emu) Run(ctx context.Context) error {
	e.start = time.Now()
	e.mu.Lock()
	e.running = true
	e.mu.Unlock()
	rxCh := make(chan *RxBatch, 4)
	free := make(chan *RxBatch, 4)
	for i := 0; i < 4; i++ {
		free <- NewRxBatch()
	}
	rxErr := make(chan error, 1)
	stopRx := make(chan struct{})
	var rxDone sync.WaitGroup
	rxDone.Add(1)
	go func() {
		defer rxDone.Done()
		for {
			var b *RxBatch
			select {
			case b = <-free:
			case <-stopRx:
				return
			}
			if err := e.tr.Recv(b); err != nil {
				rxErr <- err
				return
			}
			if b.N == 0 {
				free <- b
				continue
			}
			select {
			case rxCh <- b:
			case <-stopRx:
				return
			}
		}
	}()
	defer func() {
		close(stopRx)
		rxDone.Wait()
	}()

	tick := time.NewTicker(e.cfg.Tick)
	defer tick.Stop()
	e.now = 0
	e.pump()
	e.flush()
	var err error
loop:
	for {
		select {
		case b := <-rxCh:
			e.now = int64(time.Since(e.start))
			for i := 0; i < b.N; i++ {
				e.input(b.Frames[i])
			}
			free <- b
			// drain what else is ready before sending, to batch the answers;
			// bounded, so that timers and the status API are not starved
			for more, n := true, 0; more && n < 8; n++ {
				select {
				case b := <-rxCh:
					for i := 0; i < b.N; i++ {
						e.input(b.Frames[i])
					}
					free <- b
				default:
					more = false
				}
			}
		case <-tick.C:
			e.now = int64(time.Since(e.start))
			e.advance()
			if e.cfg.DialRate > 0 {
				e.pump()
			}
		case f := <-e.reqs:
			e.now = int64(time.Since(e.start))
			f()
		case err = <-rxErr:
			break loop
		case <-ctx.Done():
			break loop
		}
		e.flush()
	}
	e.now = int64(time.Since(e.start))
	e.beginStop()
	if err == nil {
		err = e.pacedStop(rxCh, free, rxErr, tick.C)
	}
	e.hangupN(len(e.hq)) // what is left: at once (a broken transport, or the bound reached)
	e.endHangWaits()
	e.flush()
	st := e.stats()
	st.Type = "final"
	ses := e.sessions()
	e.mu.Lock()
	e.finalSt, e.finalSes, e.running = &st, ses, false
	e.mu.Unlock()
	return err
}

// call runs f on the loop goroutine and waits; false when the loop is not running.
func (e *Emu) call(f func()) bool {
	e.mu.Lock()
	running := e.running
	e.mu.Unlock()
	if !running {
		return false
	}
	done := make(chan struct{})
	select {
	case e.reqs <- func() { f(); close(done) }:
	case <-time.After(5 * time.Second):
		return false
	}
	select {
	case <-done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// Stats returns the totals now (or the final ones after Run).
func (e *Emu) Stats() Stats {
	var st Stats
	if e.call(func() { st = e.stats() }) {
		return st
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.finalSt != nil {
		return *e.finalSt
	}
	return st
}

// Sessions returns every session's state (or the final ones after Run).
func (e *Emu) Sessions() []SessionStatus {
	var ss []SessionStatus
	if e.call(func() { ss = e.sessions() }) {
		return ss
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.finalSes
}

// rand64 is a xorshift for jitter (not security).
func (e *Emu) rand64() uint64 {
	x := e.rng
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	e.rng = x
	return x
}

// pacedStop hangs the sessions up at the hangup rate (all at once when it
// is negative), still receiving (the server's answers count as late, not
// wrong), within HangupMax; then it waits for the Terminate-Acks, at most
// Retransmit after the last hang-up (strict hang-ups: twice Retransmit).
func (e *Emu) pacedStop(rxCh, free chan *RxBatch, rxErr chan error, tick <-chan time.Time) error {
	rate := e.cfg.HangupRate
	if rate < 0 {
		e.hangupN(len(e.hq))
		e.flush()
	} else if min := float64(len(e.hq)) / e.cfg.HangupMax.Seconds(); rate < min {
		rate = min
	}
	deadline := e.now + int64(e.cfg.HangupMax) + int64(time.Second)
	if e.cfg.Strict {
		deadline += 2 * int64(e.cfg.Retransmit)
	}
	e.hqLast = e.now
	e.hqTokens = 1 // the first one at once
	for (len(e.hq) > 0 || e.hangWaiting() || (e.acksDue > 0 && e.now < e.lingerUntil)) && e.now < deadline {
		select {
		case b := <-rxCh:
			e.now = int64(time.Since(e.start))
			for i := 0; i < b.N; i++ {
				e.input(b.Frames[i])
			}
			free <- b
		case <-tick:
			e.now = int64(time.Since(e.start))
			e.hqTokens += rate * float64(e.now-e.hqLast) / 1e9
			e.hqLast = e.now
			if n := int(e.hqTokens); n > 0 && len(e.hq) > 0 {
				if n > len(e.hq) {
					n = len(e.hq)
				}
				e.hqTokens -= float64(n)
				e.hangupN(n)
			}
			e.hangTimers()
		case f := <-e.reqs:
			e.now = int64(time.Since(e.start))
			f()
		case err := <-rxErr:
			return err
		}
		e.flush()
	}
	return nil
}

// pump starts queued sessions while fewer than Concurrency are dialling and,
// with a DialRate, while its bucket holds a token (the tick calls pump again).
func (e *Emu) pump() {
	if e.stopping {
		return
	}
	if e.cfg.DialRate > 0 {
		e.dialTokens = min(1, e.dialTokens+e.cfg.DialRate*float64(e.now-e.dialLast)/1e9)
		e.dialLast = e.now
	}
	for e.dialing < e.cfg.Concurrency && e.qHead < len(e.queue) {
		if e.cfg.DialRate > 0 {
			if e.dialTokens < 1 {
				break
			}
			e.dialTokens--
		}
		i := e.queue[e.qHead]
		e.qHead++
		if e.qHead > 4096 && e.qHead*2 > len(e.queue) {
			n := copy(e.queue, e.queue[e.qHead:])
			e.queue, e.qHead = e.queue[:n], 0
		}
		e.startDial(&e.sess[i])
	}
}

func (e *Emu) enqueue(s *sess) {
	s.state = stQueued
	e.queue = append(e.queue, s.idx)
}

// --- timers

// arm puts s on the wheel at its earliest deadline.
func (s *sess) next() int64 {
	var t int64
	for _, d := range [...]int64{s.retxAt, s.phaseAt, s.echoAt, s.txAt, s.retryAt} {
		if d != 0 && (t == 0 || d < t) {
			t = d
		}
	}
	return t
}

func (e *Emu) arm(s *sess) {
	at := s.next()
	if at == 0 {
		s.wheelTick = 0
		return
	}
	t := (at + e.tickNs - 1) / e.tickNs
	if t <= e.curTick {
		t = e.curTick + 1
	}
	if s.wheelTick == t {
		return
	}
	s.wheelTick = t
	slot := t & (wheelSlots - 1)
	e.wheel[slot] = append(e.wheel[slot], s.idx)
}

// advance walks the wheel up to now: at most one revolution, each entry
// looked at once; due sessions run their timers.
func (e *Emu) advance() {
	target := e.now / e.tickNs
	if target-e.curTick > wheelSlots {
		e.curTick = target - wheelSlots
	}
	for e.curTick < target {
		e.curTick++
		slot := e.curTick & (wheelSlots - 1)
		list := e.wheel[slot]
		e.wheel[slot] = nil
		keep := list[:0]
		for _, i := range list {
			s := &e.sess[i]
			if s.wheelTick == 0 || s.wheelTick&(wheelSlots-1) != slot {
				continue // stale entry
			}
			if s.wheelTick > target {
				keep = append(keep, i) // a later revolution
				continue
			}
			s.wheelTick = 0
			e.onTimer(s)
		}
		// entries appended to this slot by onTimer went to e.wheel[slot]
		if len(keep) > 0 {
			e.wheel[slot] = append(keep, e.wheel[slot]...)
		} else if e.wheel[slot] == nil {
			e.wheel[slot] = list[:0]
		}
	}
}

// --- sending

// slot returns the next send buffer (empty).
func (e *Emu) slot() []byte {
	if e.txN == len(e.txBufs) {
		e.flush()
	}
	return e.txBufs[e.txN][:0]
}

// commit queues the frame built in the current slot.
func (e *Emu) commit(f []byte) {
	e.txFrames[e.txN] = f
	e.txN++
	e.st.txFrames++
	if e.txN == len(e.txBufs) {
		e.flush()
	}
}

func (e *Emu) flush() {
	if e.txN == 0 {
		return
	}
	n, _ := e.tr.Send(e.txFrames[:e.txN])
	if n < e.txN {
		e.st.txDropped += uint64(e.txN - n)
	}
	for i := 0; i < e.txN; i++ {
		e.txFrames[i] = nil
	}
	e.txN = 0
}

// --- reporting

// Stats are the totals of one JSON line and of GET /v1/stats.
type Stats struct {
	Type string  `json:"type"`
	T    float64 `json:"t"` // seconds since start
	// IPv6 (--dual-stack only): what was sent and received, the sessions
	// that bound a delegated prefix, why IPv6 failed, the IPv6 datagrams
	IPv6        *IPv6Stats        `json:"ipv6,omitempty"`
	Subscribers int               `json:"subscribers"`
	Dialled     uint64            `json:"dialled"` // attempts started
	Dialling    int               `json:"dialling"`
	Up          uint64            `json:"up"`      // sessions up now
	EverUp      uint64            `json:"ever_up"` // sessions that came up at least once
	UpEvents    uint64            `json:"up_events"`
	Failed      uint64            `json:"failed"` // sessions that gave up after their retries
	FailReasons map[string]uint64 `json:"fail_reasons"`
	Drops       map[string]uint64 `json:"drops"`          // sessions that were up and went down, by reason
	SetupRate   float64           `json:"setup_rate"`     // sessions up per second since the last line
	SetupAvg    float64           `json:"setup_rate_avg"` // ever_up / (last up - first dial)
	SetupP50    float64           `json:"setup_ms_p50"`
	SetupP99    float64           `json:"setup_ms_p99"`
	// sessions an echoed datagram came back on at least once, and their rate:
	// traffic_up / (first echo of the last of them - first dial)
	TrafficUp      uint64            `json:"traffic_up"`
	TrafficRateAvg float64           `json:"traffic_rate_avg"`
	StartUnix      float64           `json:"start_unix"` // the emulator's start (the zero of t and of the per-session times)
	TxPkts         uint64            `json:"tx_pkts"`    // UDP datagrams (bytes: the IPv4 packets)
	RxPkts         uint64            `json:"rx_pkts"`
	TxBytes        uint64            `json:"tx_bytes"`
	RxBytes        uint64            `json:"rx_bytes"`
	RxBad          uint64            `json:"rx_bad"`
	Lost           uint64            `json:"lost"`
	Echo           map[string]uint64 `json:"lcp_echo"`
	Wire           map[string]uint64 `json:"wire"`
}

func copyMap(m map[string]uint64) map[string]uint64 {
	c := make(map[string]uint64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (e *Emu) stats() Stats {
	st := Stats{Type: "stats", T: float64(e.now) / 1e9, Subscribers: len(e.sess), Dialled: e.st.dialled,
		Dialling: e.dialing, Up: e.st.upNow, EverUp: e.st.everUp, UpEvents: e.st.upEvents, Failed: e.st.failed,
		FailReasons: copyMap(e.st.failReasons), Drops: copyMap(e.st.dropReasons),
		IPv6:   e.v6Stats(),
		TxPkts: e.st.trTx, RxPkts: e.st.trRx, TxBytes: e.st.trTxBytes, RxBytes: e.st.trRxBytes, RxBad: e.st.trRxBad,
		Echo: map[string]uint64{"sent": e.st.echoSent, "replies": e.st.echoReplies,
			"answered": e.st.echoAnswered, "loops": e.st.echoLoops},
		Wire: map[string]uint64{"rx": e.st.rxFrames, "malformed": e.st.rxMalformed, "not_ours": e.st.rxNotOurs,
			"wrong_line": e.st.rxWrongLine, "wrong_session": e.st.rxWrongSession, "unexpected": e.st.rxUnexpected,
			"early": e.st.rxEarly, "early_dropped": e.st.rxEarlyDropped, "late": e.st.rxLate, "hangups": e.st.hangups,
			"padt_before_term_ack": e.st.padtBeforeTermAck,
			"tx":                   e.st.txFrames, "tx_dropped": e.st.txDropped},
	}
	if d, ok := e.tr.(RxDropCounter); ok {
		st.Wire["rx_socket_dropped"] = d.RxDropped()
	}
	if st.TxPkts > st.RxPkts {
		st.Lost = st.TxPkts - st.RxPkts
	}
	if dt := e.now - e.lastOut.t; dt > 0 {
		st.SetupRate = float64(e.st.upEvents-e.lastOut.ups) / (float64(dt) / 1e9)
	}
	e.lastOut.t, e.lastOut.ups = e.now, e.st.upEvents
	if e.st.everUp > 0 && e.st.lastUp > e.st.firstDial {
		st.SetupAvg = float64(e.st.everUp) / (float64(e.st.lastUp-e.st.firstDial) / 1e9)
	}
	st.TrafficUp = e.st.trafficEver
	if e.st.trafficEver > 0 && e.st.lastFirstRx > e.st.firstDial {
		st.TrafficRateAvg = float64(e.st.trafficEver) / (float64(e.st.lastFirstRx-(e.st.firstDial-1)) / 1e9)
	}
	if !e.start.IsZero() {
		st.StartUnix = float64(e.start.UnixNano()) / 1e9
	}
	if n := len(e.lat); n > 0 {
		l := append([]float32(nil), e.lat...)
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		st.SetupP50 = float64(l[n/2])
		st.SetupP99 = float64(l[(n*99)/100])
	}
	return st
}

// SessionStatus is one session in GET /v1/sessions.
type SessionStatus struct {
	Index      uint32   `json:"index"`
	User       string   `json:"user"`
	MAC        string   `json:"mac"`
	Port       string   `json:"port"`
	STag       uint16   `json:"stag"`
	CTag       uint16   `json:"ctag"`
	State      string   `json:"state"`
	Attempts   int      `json:"attempts"`
	PPPoEID    uint16   `json:"pppoe_id"`
	ACMAC      string   `json:"ac_mac,omitempty"`
	Address    string   `json:"address,omitempty"`
	DNS        []string `json:"dns,omitempty"`
	Auth       string   `json:"auth,omitempty"`
	MRU        uint16   `json:"mru,omitempty"`
	SetupMs    float64  `json:"setup_ms,omitempty"`
	LastError  string   `json:"last_error,omitempty"`
	TxPkts     uint64   `json:"tx_pkts"`
	RxPkts     uint64   `json:"rx_pkts"`
	TxBytes    uint64   `json:"tx_bytes"`
	RxBytes    uint64   `json:"rx_bytes"`
	RxBad      uint64   `json:"rx_bad"`
	Lost       uint64   `json:"lost"`
	RTTAvgMs   float64  `json:"rtt_avg_ms,omitempty"`
	EchoSent   uint64   `json:"echo_sent"`
	EchoReply  uint64   `json:"echo_replies"`
	EchoAnswer uint64   `json:"echo_answered"`
	// ms since the emulator's start: the first attempt, the last time up, the
	// first echoed datagram (absent: not yet)
	FirstDialMs *float64 `json:"first_dial_ms,omitempty"`
	UpMs        *float64 `json:"up_ms,omitempty"`
	FirstRxMs   *float64 `json:"first_rx_ms,omitempty"`
	// the longest time between two echoed datagrams, and when it ended (ms
	// since the emulator's start): a traffic outage such as a failover
	MaxRxGapMs    float64  `json:"max_rx_gap_ms,omitempty"`
	MaxRxGapEndMs *float64 `json:"max_rx_gap_end_ms,omitempty"`
	// IPv6 (--dual-stack, once bound): the SLAAC address, the delegated
	// prefix, the IA_NA address; the IPv6 datagrams sent and echoed
	IPv6Address     string `json:"ipv6_address,omitempty"`
	DelegatedPrefix string `json:"delegated_prefix,omitempty"`
	IANAAddress     string `json:"ia_na_address,omitempty"`
	V6TxPkts        uint64 `json:"v6_tx_pkts,omitempty"`
	V6RxPkts        uint64 `json:"v6_rx_pkts,omitempty"`
}

func msSince(at int64) *float64 {
	v := float64(at) / 1e6
	return &v
}

func macString(m [6]byte) string {
	const hx = "0123456789abcdef"
	b := make([]byte, 0, 17)
	for i, v := range m {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, hx[v>>4], hx[v&15])
	}
	return string(b)
}

func (e *Emu) sessions() []SessionStatus {
	out := make([]SessionStatus, len(e.sess))
	for i := range e.sess {
		s := &e.sess[i]
		ss := SessionStatus{Index: s.sub.Index, User: s.sub.User, MAC: macString(s.mac), Port: s.sub.Port,
			STag: s.sub.STag, CTag: s.sub.CTag, State: s.state.String(), Attempts: s.attempt, PPPoEID: s.sid,
			LastError: s.lastErr, TxPkts: s.txPkts, RxPkts: s.rxPkts, TxBytes: s.txBytes, RxBytes: s.rxBytes,
			RxBad: s.rxBad, EchoSent: s.echoSent, EchoReply: s.echoReplies, EchoAnswer: s.echoAnswered}
		if s.txPkts > s.rxPkts {
			ss.Lost = s.txPkts - s.rxPkts
		}
		if s.rxPkts > 0 {
			ss.RTTAvgMs = float64(s.rttSum) / float64(s.rxPkts) / 1e6
		}
		if s.firstDialAt != 0 {
			ss.FirstDialMs = msSince(s.firstDialAt - 1)
		}
		if s.firstRxAt != 0 {
			ss.FirstRxMs = msSince(s.firstRxAt - 1)
		}
		if s.maxRxGap != 0 {
			ss.MaxRxGapMs = float64(s.maxRxGap) / 1e6
			ss.MaxRxGapEndMs = msSince(s.maxRxGapEnd - 1)
		}
		if s.acMAC != ([6]byte{}) {
			ss.ACMAC = macString(s.acMAC)
		}
		if s.state == stUp {
			ss.Address = netip.AddrFrom4(s.addr).String()
			for _, d := range [...][4]byte{s.dns1, s.dns2} {
				if d != ([4]byte{}) {
					ss.DNS = append(ss.DNS, netip.AddrFrom4(d).String())
				}
			}
			ss.MRU = s.peerMRU
			if s.v6.dhcp == dhcpBound {
				ss.IPv6Address, ss.DelegatedPrefix = s.slaac().String(), s.v6.pd.String()
				if s.v6.na.IsValid() {
					ss.IANAAddress = s.v6.na.String()
				}
				ss.V6TxPkts, ss.V6RxPkts = s.v6.txPkts, s.v6.rxPkts
			}
			ss.SetupMs = float64(s.upAt-s.dialStart) / 1e6
			ss.UpMs = msSince(s.upAt)
			switch s.authProto {
			case ppp.ProtoPAP:
				ss.Auth = "pap"
			case ppp.ProtoCHAP:
				ss.Auth = "chap"
			}
		}
		out[i] = ss
	}
	return out
}
