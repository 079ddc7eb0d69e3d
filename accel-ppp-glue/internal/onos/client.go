package onos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// MaxBatch is the most events one POST /sessions/events carries.
const MaxBatch = 1000

// MaxPage is the most sessions one page of a full resync (PUT /sessions)
// carries; ONOS refuses larger pages.
const MaxPage = 10000

// maxHealthBackoff bounds the wait between two tries of a health report.
const maxHealthBackoff = 30 * time.Second

// Config configures a Client.
type Config struct {
	URL          *url.URL // base URL, e.g. http://127.0.0.1:8181/onos/bngpod
	Username     string
	Password     string
	CPName       string
	PollInterval time.Duration // retry and backoff period; GET /placement period without PlacementWait (default 1 s)
	// PlacementWait makes GET /placement a long poll: ONOS answers as soon as
	// the version differs from the last one seen, or after this long (whole
	// seconds, at most MaxPlacementWait). 0: poll every PollInterval.
	PlacementWait time.Duration
	Timeout       time.Duration // per request, on top of PlacementWait for a long poll (default 2 s)
	QueueSize     int           // events waiting to be sent (default 65536)
	ResyncPage    int           // sessions per resync page (default and at most MaxPage)
	Logger        *slog.Logger
	Registerer    prometheus.Registerer // metrics; nil: not registered

	// Snapshot returns every established session: the body of the full
	// resync. It is called from the client's goroutine.
	Snapshot func(ctx context.Context) ([]Session, error)
	// OnPlacement gets every placement whose version differs from the
	// last one handed over (and the first one). It runs on the poller's
	// goroutine: the next poll waits until it returns.
	OnPlacement func(p *Placement)
}

// Client talks to the ONOS application. Report and Health never block.
type Client struct {
	cfg  Config
	log  *slog.Logger
	http *http.Client
	m    *clientMetrics

	mu          sync.Mutex
	queue       []Event
	needResync  bool
	health      map[uint32]*pendingHealth // pending, latest per instance
	healthOrder []uint32
	resyncSeq   uint64
	resyncID    func() string // names a resync attempt; tests fix it
	wake        chan struct{}
	lastVersion int64
	haveVersion bool
	reapplied   bool // the placement is to be handed over again: pace the next request
	reachable   bool
	subs        *Subscribers // nil: no subscribers table pulled
}

// pendingHealth is an instance's latest health report until ONOS took it or
// refused it for good.
type pendingHealth struct {
	body      healthBody
	tries     int
	notBefore time.Time // next try not before this (backoff)
}

type clientMetrics struct {
	events    *prometheus.CounterVec // by result: sent, dropped
	requests  *prometheus.CounterVec // by request and result
	resyncs   prometheus.Counter
	queued    prometheus.Gauge
	up        prometheus.Gauge
	version   prometheus.Gauge
	placement *prometheus.CounterVec // placement bodies by result: new, same, bad
}

func newClientMetrics(reg prometheus.Registerer) *clientMetrics {
	m := &clientMetrics{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bngcp_onos_events_total",
			Help: "Session events for ONOS by result: sent (accepted by ONOS) or dropped (queue full or ONOS unreachable; a full resync follows).",
		}, []string{"result"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bngcp_onos_requests_total", Help: "REST requests to ONOS by request and result.",
		}, []string{"request", "result"}),
		resyncs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bngcp_onos_resyncs_total", Help: "Full session resyncs (PUT /sessions) accepted by ONOS.",
		}),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "bngcp_onos_queued_events", Help: "Session events waiting to be sent to ONOS.",
		}),
		up: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "bngcp_onos_up", Help: "1 while ONOS answers.",
		}),
		version: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "bngcp_onos_placement_version", Help: "Version of the last placement read from ONOS.",
		}),
		placement: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bngcp_onos_placements_total", Help: "Placement answers read from ONOS by result: new, same, bad.",
		}, []string{"result"}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.events, m.requests, m.resyncs, m.queued, m.up, m.version, m.placement} {
			reg.MustRegister(c)
		}
	}
	return m
}

// New checks cfg and returns a Client; Run starts it.
func New(cfg Config) (*Client, error) {
	if cfg.URL == nil || (cfg.URL.Scheme != "http" && cfg.URL.Scheme != "https") || cfg.URL.Host == "" {
		return nil, errors.New("onos: an http or https URL is required")
	}
	if cfg.CPName == "" {
		return nil, errors.New("onos: a CP name is required")
	}
	if cfg.Snapshot == nil {
		return nil, errors.New("onos: a Snapshot function is required")
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 65536
	}
	if cfg.PlacementWait < 0 || cfg.PlacementWait > MaxPlacementWait || cfg.PlacementWait%time.Second != 0 {
		return nil, fmt.Errorf("onos: PlacementWait %v: must be whole seconds, 0..%v", cfg.PlacementWait, MaxPlacementWait)
	}
	if cfg.ResyncPage <= 0 || cfg.ResyncPage > MaxPage {
		cfg.ResyncPage = MaxPage
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	u := *cfg.URL
	cfg.URL = &u
	return &Client{
		cfg: cfg, log: cfg.Logger, m: newClientMetrics(cfg.Registerer),
		// each request is bounded by its context (Timeout, plus the wait of a long poll)
		http:       &http.Client{},
		needResync: true, // ONOS may hold sessions of our previous run
		health:     make(map[uint32]*pendingHealth),
		wake:       make(chan struct{}, 1),
	}, nil
}

func (c *Client) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Report queues a session event. When the queue is full the event is
// dropped, counted, and a full resync follows: ONOS ends up with the
// sessions as they are.
func (c *Client) Report(ev Event) {
	c.mu.Lock()
	if len(c.queue) >= c.cfg.QueueSize {
		c.needResync = true
		c.mu.Unlock()
		c.m.events.WithLabelValues("dropped").Inc()
		return
	}
	c.queue = append(c.queue, ev)
	n := len(c.queue)
	c.mu.Unlock()
	c.m.queued.Set(float64(n))
	c.poke()
}

// Health queues an instance health report; a newer one for the same
// instance replaces one not sent yet. A report is kept and tried again
// (with backoff) until ONOS takes it or refuses it for good: an instance's
// death must not be lost because ONOS was down or not configured yet.
func (c *Client) Health(inst uint32, alive bool, reason string) {
	c.mu.Lock()
	if _, ok := c.health[inst]; !ok {
		c.healthOrder = append(c.healthOrder, inst)
	}
	c.health[inst] = &pendingHealth{body: healthBody{CP: c.cfg.CPName, Alive: alive, Reason: reason}}
	c.mu.Unlock()
	c.poke()
}

// PendingHealth is the number of instances whose latest health report ONOS
// has not taken yet.
func (c *Client) PendingHealth() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.health)
}

// ReapplyPlacement makes the next poll hand the placement over even when
// its version has not changed (a move failed and is to be tried again).
func (c *Client) ReapplyPlacement() {
	c.mu.Lock()
	c.haveVersion = false
	c.reapplied = true
	c.mu.Unlock()
}

// Reachable reports whether the last request to ONOS got an answer.
func (c *Client) Reachable() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reachable
}

// Run sends reports and polls the placement (and pulls the subscribers
// table, when NewSubscribers made one) until ctx ends.
func (c *Client) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); c.pollLoop(ctx) }()
	if c.subs != nil {
		wg.Add(1)
		go func() { defer wg.Done(); c.subs.Run(ctx) }()
	}
	c.sendLoop(ctx)
	wg.Wait()
}

// status is the outcome of one request.
type status struct {
	code int // HTTP status, 0: no answer
	err  error
}

func (s status) ok() bool { return s.err == nil && s.code >= 200 && s.code < 300 }

func (s status) label() string {
	switch {
	case s.code == 0:
		return "unreachable"
	case s.ok():
		return "ok"
	case s.code == http.StatusUnauthorized || s.code == http.StatusForbidden:
		return "unauthorized"
	case s.code >= 500:
		return "server_error"
	}
	return "rejected"
}

func (c *Client) setReachable(s status) {
	reach := s.code != 0
	c.mu.Lock()
	was := c.reachable
	c.reachable = reach
	c.mu.Unlock()
	if reach {
		c.m.up.Set(1)
	} else {
		c.m.up.Set(0)
	}
	if was && !reach {
		c.log.Warn("ONOS unreachable", "url", c.cfg.URL.String(), "err", s.err)
	} else if !was && reach {
		c.log.Info("ONOS reachable", "url", c.cfg.URL.String())
	}
}

// do sends one request within Timeout; the body of the answer is read up to limit bytes.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any, limit int64) ([]byte, status) {
	return c.doWithin(ctx, c.cfg.Timeout, method, path, query, body, limit)
}

// doWithin is do with the request's own time limit.
func (c *Client) doWithin(ctx context.Context, timeout time.Duration, method, path string, query url.Values, body any,
	limit int64) ([]byte, status) {
	u := *c.cfg.URL
	u.Path += path
	if query != nil {
		u.RawQuery = query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, status{err: err}
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, status{err: err}
	}
	req.SetBasicAuth(c.cfg.Username, c.cfg.Password)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, status{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, status{code: resp.StatusCode, err: fmt.Errorf("reading the answer: %w", err)}
	}
	if int64(len(b)) > limit {
		return nil, status{code: resp.StatusCode, err: fmt.Errorf("answer larger than %d bytes", limit)}
	}
	st := status{code: resp.StatusCode}
	if !st.ok() {
		st.err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, errorText(b))
	}
	return b, st
}

// errorText is the text of a Contract B error body, or a short excerpt.
func errorText(b []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		b = []byte(e.Error)
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return strconv.QuoteToGraphic(string(b))
}

// sendLoop sends health reports, the resync and event batches, in that
// order of priority.
func (c *Client) sendLoop(ctx context.Context) {
	backoff := time.Duration(0)
	for {
		if backoff > 0 {
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		worked, failed := c.sendOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if failed {
			backoff = c.cfg.PollInterval
			continue
		}
		backoff = 0
		if worked {
			continue
		}
		// Idle: wait for work, or for a health report's next try.
		var due <-chan time.Time
		var t *time.Timer
		if at, ok := c.nextHealthTry(); ok {
			t = time.NewTimer(time.Until(at))
			due = t.C
		}
		select {
		case <-ctx.Done():
		case <-c.wake:
		case <-due:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// nextHealthTry is when the earliest pending health report is due.
func (c *Client) nextHealthTry() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var at time.Time
	for _, h := range c.health {
		if at.IsZero() || h.notBefore.Before(at) {
			at = h.notBefore
		}
	}
	return at, len(c.health) > 0
}

// healthRefused reports whether ONOS refused a health report for good: a
// 4xx that is not about credentials, a timeout or throttling, and not the
// "no pod is configured" of an ONOS without its netcfg yet (503 since the
// paged resync; 404 with that text before).
func healthRefused(st status, body []byte) bool {
	switch {
	case st.code < 400 || st.code >= 500:
		return false
	case st.code == http.StatusUnauthorized, st.code == http.StatusForbidden,
		st.code == http.StatusRequestTimeout, st.code == http.StatusTooManyRequests:
		return false
	case st.code == http.StatusNotFound && bytes.Contains(body, []byte(noPodText)):
		return false
	}
	return true
}

// noPodText is the error ONOS answers a health report with while it has no
// pod configuration (Contract B: 503, temporary).
const noPodText = "no pod is configured"

// sendHealth sends the first health report that is due, if any. It
// reports whether there was one and whether it failed.
func (c *Client) sendHealth(ctx context.Context) (worked, failed bool) {
	now := time.Now()
	c.mu.Lock()
	var inst uint32
	var h *pendingHealth
	for _, i := range c.healthOrder {
		if p := c.health[i]; !p.notBefore.After(now) {
			inst, h = i, p
			break
		}
	}
	if h == nil {
		c.mu.Unlock()
		return false, false
	}
	body := h.body
	c.mu.Unlock()
	b, st := c.do(ctx, http.MethodPost, "/instances/"+strconv.FormatUint(uint64(inst), 10)+"/health", nil, body, 64<<10)
	c.setReachable(st)
	c.m.requests.WithLabelValues("health", st.label()).Inc()
	refused := !st.ok() && healthRefused(st, b)
	c.mu.Lock()
	if cur := c.health[inst]; cur == h { // not replaced by a newer report meanwhile
		if st.ok() || refused {
			delete(c.health, inst)
			for k, i := range c.healthOrder {
				if i == inst {
					c.healthOrder = append(c.healthOrder[:k], c.healthOrder[k+1:]...)
					break
				}
			}
		} else {
			h.tries++
			wait := c.cfg.PollInterval << min(h.tries-1, 16)
			if wait > maxHealthBackoff || wait <= 0 {
				wait = maxHealthBackoff
			}
			h.notBefore = time.Now().Add(wait)
		}
	}
	tries := h.tries
	c.mu.Unlock()
	switch {
	case refused:
		c.log.Error("ONOS refused a health report; it is dropped", "instance", inst, "alive", body.Alive, "err", st.err)
	case !st.ok():
		c.log.Warn("ONOS health report failed; kept and tried again", "instance", inst, "alive", body.Alive,
			"tries", tries, "err", st.err)
	}
	return true, !st.ok() && !refused
}

// newResyncID names one resync attempt (unique for this process; ONOS
// only compares it with the attempt it stages).
func (c *Client) newResyncID() string {
	if c.resyncID != nil {
		return c.resyncID()
	}
	c.mu.Lock()
	c.resyncSeq++
	n := c.resyncSeq
	c.mu.Unlock()
	return strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.FormatUint(n, 10)
}

// resync sends every session in pages of at most ResyncPage; ONOS replaces
// this CP's sessions when the last page arrives. Any failure abandons the
// attempt (ONOS discards what it staged when the next attempt begins, or
// after a minute): the caller starts again from a fresh snapshot.
func (c *Client) resync(ctx context.Context, sess []Session) error {
	id := c.newResyncID()
	pages := (len(sess) + c.cfg.ResyncPage - 1) / c.cfg.ResyncPage
	if pages == 0 {
		pages = 1 // an empty table is one empty page
	}
	for p := 0; p < pages; p++ {
		if p > 0 {
			// An instance's death does not wait for a long resync.
			for {
				if worked, _ := c.sendHealth(ctx); !worked {
					break
				}
			}
		}
		lo := p * c.cfg.ResyncPage
		hi := min(lo+c.cfg.ResyncPage, len(sess))
		q := url.Values{"cp": {c.cfg.CPName}, "resync": {id}, "page": {strconv.Itoa(p)},
			"last": {strconv.FormatBool(p == pages-1)}}
		_, st := c.do(ctx, http.MethodPut, "/sessions", q, sessionsBody{Sessions: sess[lo:hi]}, 64<<10)
		c.setReachable(st)
		c.m.requests.WithLabelValues("resync", st.label()).Inc()
		if !st.ok() {
			return fmt.Errorf("page %d of %d (resync %s): %w", p, pages, id, st.err)
		}
	}
	return nil
}

// sendOnce does the most urgent pending request; it reports whether there
// was one and whether it failed.
func (c *Client) sendOnce(ctx context.Context) (worked, failed bool) {
	if worked, failed := c.sendHealth(ctx); worked {
		return true, failed
	}
	c.mu.Lock()
	if c.needResync {
		// Events queued so far are part of the snapshot taken next.
		dropped := len(c.queue)
		c.queue = nil
		c.mu.Unlock()
		c.m.queued.Set(0)
		if dropped > 0 {
			c.m.events.WithLabelValues("dropped").Add(float64(dropped))
		}
		sess, err := c.cfg.Snapshot(ctx)
		if err != nil {
			c.log.Warn("no session snapshot for the ONOS resync", "err", err)
			return true, true
		}
		if sess == nil {
			sess = []Session{}
		}
		if err := c.resync(ctx, sess); err != nil {
			c.log.Warn("ONOS session resync failed; it starts again", "sessions", len(sess), "err", err)
			return true, true
		}
		c.mu.Lock()
		c.needResync = false
		c.mu.Unlock()
		c.m.resyncs.Inc()
		c.log.Info("sessions resynchronised with ONOS", "sessions", len(sess))
		return true, false
	}
	if len(c.queue) == 0 {
		c.mu.Unlock()
		return false, false
	}
	n := len(c.queue)
	if n > MaxBatch {
		n = MaxBatch
	}
	batch := make([]Event, n)
	copy(batch, c.queue)
	c.queue = c.queue[n:]
	if len(c.queue) == 0 {
		c.queue = nil // let the backing array go
	}
	left := len(c.queue)
	c.mu.Unlock()
	c.m.queued.Set(float64(left))
	if c.subs != nil {
		// the SEBA app's PPPoE steps of these sessions first (bng.pppoe in protocol
		// order); bounded: a SEBA app that does not answer delays the reports, never
		// a session
		c.subs.Flush(ctx, 2*c.cfg.Timeout+pppoeEventDelay)
	}
	_, st := c.do(ctx, http.MethodPost, "/sessions/events", nil, eventsBody{CP: c.cfg.CPName, Events: batch}, 64<<10)
	c.setReachable(st)
	c.m.requests.WithLabelValues("events", st.label()).Inc()
	if st.ok() {
		c.m.events.WithLabelValues("sent").Add(float64(n))
		return true, false
	}
	// Lost: ONOS learns the truth from the full resync.
	c.m.events.WithLabelValues("dropped").Add(float64(n))
	c.mu.Lock()
	c.needResync = true
	c.mu.Unlock()
	c.log.Warn("ONOS session events not delivered; a full resync follows", "events", n, "err", st.err)
	return true, true
}

// MaxPlacementWait is the longest long poll ONOS takes (GET /placement?wait=).
const MaxPlacementWait = 60 * time.Second

// pollLoop follows the placement: with PlacementWait, one long poll after
// the other (ONOS answers when the version moves on); else a poll every
// PollInterval. After a failure, an answer that came back at once with the
// version already seen (an ONOS without long polls, or with too many
// waiting), or a placement to hand over again, the next request waits
// PollInterval.
func (c *Client) pollLoop(ctx context.Context) {
	for {
		start := time.Now()
		ok, same, long := c.poll(ctx)
		c.mu.Lock()
		reapplied := c.reapplied
		c.reapplied = false
		c.mu.Unlock()
		pace := !ok || reapplied || c.cfg.PlacementWait == 0 || (long && same && time.Since(start) < c.cfg.PlacementWait/2)
		if !pace {
			if ctx.Err() != nil {
				return
			}
			continue
		}
		t := time.NewTimer(c.cfg.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// PollOnce reads the placement once, without waiting, and hands it over
// when it is new.
func (c *Client) PollOnce(ctx context.Context) {
	c.get(ctx, nil, c.cfg.Timeout)
}

// poll reads the placement, as a long poll when PlacementWait is set and a
// version was seen; it reports whether ONOS answered with a placement,
// whether its version was the one seen, and whether it was a long poll.
func (c *Client) poll(ctx context.Context) (ok, same, long bool) {
	c.mu.Lock()
	after, have := c.lastVersion, c.haveVersion
	c.mu.Unlock()
	if !have || c.cfg.PlacementWait == 0 {
		ok, same = c.get(ctx, nil, c.cfg.Timeout)
		return ok, same, false
	}
	q := url.Values{"after": {strconv.FormatInt(after, 10)},
		"wait": {strconv.FormatInt(int64(c.cfg.PlacementWait/time.Second), 10)}}
	ok, same = c.get(ctx, q, c.cfg.PlacementWait+c.cfg.Timeout)
	return ok, same, true
}

// get sends GET /placement with query, hands a new placement over, and
// reports whether it got one and whether its version was the one seen.
func (c *Client) get(ctx context.Context, query url.Values, timeout time.Duration) (ok, same bool) {
	b, st := c.doWithin(ctx, timeout, http.MethodGet, "/placement", query, nil, MaxPlacementBody)
	c.setReachable(st)
	c.m.requests.WithLabelValues("placement", st.label()).Inc()
	if !st.ok() {
		if ctx.Err() == nil {
			c.log.Debug("ONOS placement not read", "err", st.err)
		}
		return false, false
	}
	p, err := DecodePlacement(b)
	if err != nil {
		c.m.placement.WithLabelValues("bad").Inc()
		c.log.Warn("ONOS placement ignored", "err", err)
		return false, false
	}
	c.mu.Lock()
	same = c.haveVersion && c.lastVersion == p.Version
	c.lastVersion, c.haveVersion = p.Version, true
	c.mu.Unlock()
	c.m.version.Set(float64(p.Version))
	if same {
		c.m.placement.WithLabelValues("same").Inc()
		return true, true
	}
	c.m.placement.WithLabelValues("new").Inc()
	if c.cfg.OnPlacement != nil {
		c.cfg.OnPlacement(p)
	}
	return true, false
}
