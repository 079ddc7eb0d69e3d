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
	"path"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
)

// The subscribers table of the SEBA app (org.bngpod.seba, docs/seba.md):
// GET /onos/bngpod-seba/subscribers, pulled as a whole every
// SubscribersInterval and looked up locally, so a PADR never waits for ONOS
// (docs/cp/onos.md, "Subscriber identities from SEBA").

// SubscribersInterval is the period of the pull (the app itself re-reads
// SADIS every 60 s).
const SubscribersInterval = 30 * time.Second

// MaxSubscribersBody bounds the answer (about 600 bytes a line: some
// 100,000 lines).
const MaxSubscribersBody = 64 << 20

// minSubscribersTimeout bounds one pull from below: the table may be large.
const minSubscribersTimeout = 10 * time.Second

// Bounds of the identity strings (RFC 4679 3.3.1: Agent-Circuit-Id and
// Agent-Remote-Id at most 63 octets; RFC 2869 5.17: NAS-Port-Id is a RADIUS
// string, at most 253). The app enforces the same (docs/seba.md).
const (
	maxAgentID   = 63
	maxNASPortID = 253
)

// Subscriber is one line of the table: the SADIS service that SEBA's app
// found on an access line of the pod.
type Subscriber struct {
	AccessPort  string           `json:"accessPort"`
	STag        uint16           `json:"stag"`
	CTag        uint16           `json:"ctag"`
	LineGroup   string           `json:"lineGroup"`
	UNI         SubscriberUNI    `json:"uni"`
	ONUSerial   string           `json:"onuSerial"`
	ServiceName string           `json:"serviceName"`
	CircuitID   string           `json:"circuitId"` // "" = SADIS has none
	RemoteID    string           `json:"remoteId"`
	NASPortID   string           `json:"nasPortId"`
	Down        *SubscriberRates `json:"down,omitempty"` // nil: no usable profile
	Up          *SubscriberRates `json:"up,omitempty"`
}

// SubscriberUNI is the OLT UNI of a line (for the operator; not used by the CP).
type SubscriberUNI struct {
	DeviceID string `json:"deviceId"`
	Port     string `json:"port"`
	Name     string `json:"name"`
}

// SubscriberRates is one direction's bandwidth profile in bit/s and bytes.
type SubscriberRates struct {
	Profile        string `json:"profile"`
	Rate           uint64 `json:"rate"` // peak, bit/s
	Guaranteed     uint64 `json:"guaranteed"`
	PeakBurst      uint64 `json:"peakBurst"`
	CommittedBurst uint64 `json:"committedBurst"`
}

// subscribersBody is the answer of GET /subscribers.
type subscribersBody struct {
	Subscribers []json.RawMessage `json:"subscribers"`
	Problems    []string          `json:"problems"`
}

// SubscriberLine names a line of the table.
type SubscriberLine struct {
	AccessPort string
	STag, CTag uint16
}

// DecodeSubscribers reads the answer of GET /subscribers. A body that is not
// the table is an error; a line that is not valid (unknown field, wrong
// type, a tag outside 1..4094, an identity too long or not printable UTF-8,
// a profile without a rate, a line twice) is left out and counted in bad
// with its reason, the other lines are kept.
func DecodeSubscribers(b []byte) (map[SubscriberLine]*Subscriber, []string, error) {
	var body subscribersBody
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, nil, fmt.Errorf("onos: subscribers: %w", err)
	}
	if body.Subscribers == nil {
		return nil, nil, errors.New(`onos: subscribers: no "subscribers" list`)
	}
	out := make(map[SubscriberLine]*Subscriber, len(body.Subscribers))
	var bad []string
	for i, raw := range body.Subscribers {
		s, err := decodeSubscriber(raw)
		if err != nil {
			bad = append(bad, fmt.Sprintf("line %d: %v", i, err))
			continue
		}
		k := SubscriberLine{s.AccessPort, s.STag, s.CTag}
		if _, dup := out[k]; dup {
			bad = append(bad, fmt.Sprintf("line %d: %s/%d/%d given twice", i, s.AccessPort, s.STag, s.CTag))
			continue
		}
		out[k] = s
	}
	return out, bad, nil
}

func decodeSubscriber(raw json.RawMessage) (*Subscriber, error) {
	var s Subscriber
	if err := strictJSON(raw, &s); err != nil {
		return nil, err
	}
	switch {
	case s.AccessPort == "":
		return nil, errors.New("no accessPort")
	case s.STag < 1 || s.STag > 4094 || s.CTag < 1 || s.CTag > 4094:
		return nil, fmt.Errorf("%s: tags %d/%d outside 1..4094", s.AccessPort, s.STag, s.CTag)
	}
	for _, f := range []struct {
		name, v string
		max     int
	}{{"circuitId", s.CircuitID, maxAgentID}, {"remoteId", s.RemoteID, maxAgentID}, {"nasPortId", s.NASPortID, maxNASPortID}} {
		if len(f.v) > f.max {
			return nil, fmt.Errorf("%s/%d/%d: %s longer than %d octets", s.AccessPort, s.STag, s.CTag, f.name, f.max)
		}
		if !printable(f.v) {
			return nil, fmt.Errorf("%s/%d/%d: %s is not printable UTF-8", s.AccessPort, s.STag, s.CTag, f.name)
		}
	}
	for _, r := range []*SubscriberRates{s.Down, s.Up} {
		if r != nil && r.Rate == 0 {
			return nil, fmt.Errorf("%s/%d/%d: profile %q without a rate", s.AccessPort, s.STag, s.CTag, r.Profile)
		}
	}
	return &s, nil
}

// printable: valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return false
		}
	}
	return true
}

// strictJSON decodes one JSON value refusing unknown fields and trailing data.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the value")
	}
	return nil
}

// Subscribers is the local copy of the SEBA app's table. Lookup never
// blocks on ONOS; Run keeps the copy fresh.
type Subscribers struct {
	c        *Client
	log      *slog.Logger
	interval time.Duration
	table    atomic.Pointer[map[SubscriberLine]*Subscriber]
	absent   atomic.Bool // the last pull was a 404: no SEBA app

	lines prometheus.Gauge
	pulls *prometheus.CounterVec // by result: ok, absent, unreachable, rejected, server_error, bad
	bad   prometheus.Counter

	conflicts *prometheus.CounterVec // by field: circuit_id, remote_id

	// OnTeardown gets each teardown request of the SEBA app once (teardowns.go),
	// on the poller's goroutine; set it before Run.
	OnTeardown    func(Teardown)
	teardownPolls *prometheus.CounterVec // by result, as pulls
	teardowns     *prometheus.CounterVec // requests handed over, by cause

	events       chan PppoeEvent        // PPPoE steps to post (pppoe_events.go)
	eventResults *prometheus.CounterVec // by result
	eventsOwed   atomic.Int64           // steps queued or in a batch, not yet posted (or dropped)
	flushes      chan chan struct{}     // Flush's requests to the poster
}

// NewSubscribers returns the table of c's ONOS (the SEBA app beside c's base
// URL: .../onos/bngpod-seba), empty until the first pull; c.Run pulls it.
// interval 0 = SubscribersInterval. Call it once, before Run.
func (c *Client) NewSubscribers(interval time.Duration, reg prometheus.Registerer) *Subscribers {
	if interval <= 0 {
		interval = SubscribersInterval
	}
	s := &Subscribers{c: c, log: c.log, interval: interval,
		lines: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "bngcp_onos_subscribers", Help: "Lines in the last subscribers table read from the SEBA app.",
		}),
		pulls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bngcp_onos_subscriber_pulls_total",
			Help: "Pulls of the SEBA app's subscribers table by result (absent: the app is not installed).",
		}, []string{"result"}),
		bad: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bngcp_onos_subscribers_bad_total", Help: "Lines of the subscribers table left out as not valid.",
		}),
	}
	s.conflicts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_onos_subscriber_conflicts_total",
		Help: "PADRs whose TR-101 tag disagreed with SADIS, by field (SADIS's value is used).",
	}, []string{"field"})
	s.teardownPolls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_onos_teardown_polls_total", Help: "Polls of the SEBA app's teardown requests by result.",
	}, []string{"result"})
	s.teardowns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bngcp_onos_teardowns_total", Help: "Teardown requests of the SEBA app acted on, by cause.",
	}, []string{"cause"})
	s.initPppoeEvents()
	if reg != nil {
		reg.MustRegister(s.lines, s.pulls, s.bad, s.conflicts, s.teardownPolls, s.teardowns, s.eventResults)
	}
	c.subs = s
	return s
}

// URL is where the table is read.
func (s *Subscribers) URL() string {
	u := *s.c.cfg.URL
	u.Path = path.Join(path.Dir(u.Path), "bngpod-seba", "subscribers")
	u.RawQuery = ""
	return u.String()
}

// Lookup returns the subscriber of a line, if the app maps one.
func (s *Subscribers) Lookup(port string, stag, ctag uint16) (*Subscriber, bool) {
	t := s.table.Load()
	if t == nil {
		return nil, false
	}
	v, ok := (*t)[SubscriberLine{port, stag, ctag}]
	return v, ok
}

// Loaded reports whether a table was ever read (a 404, no SEBA app, reads
// as an empty table).
func (s *Subscribers) Loaded() bool { return s.table.Load() != nil }

// Conflict counts a PADR whose TR-101 tag disagreed with SADIS on field.
func (s *Subscribers) Conflict(field string) { s.conflicts.WithLabelValues(field).Inc() }

// Subscribers is the table NewSubscribers made, or nil.
func (c *Client) Subscribers() *Subscribers { return c.subs }

// Len is the number of lines in the copy.
func (s *Subscribers) Len() int {
	if t := s.table.Load(); t != nil {
		return len(*t)
	}
	return 0
}

// Run pulls the table at once and every interval, polls the teardown
// requests and posts the PPPoE events, until ctx ends.
func (s *Subscribers) Run(ctx context.Context) {
	done, posted := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); s.pollTeardowns(ctx) }()
	go func() { defer close(posted); s.postEvents(ctx) }()
	defer func() { <-done; <-posted }()
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		_ = s.Pull(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Pull reads the table once. On success the copy is replaced; a 404 (no
// SEBA app) empties it; any other failure keeps the last copy (ONOS down
// for a while must not lose every identity).
func (s *Subscribers) Pull(ctx context.Context) error {
	timeout := s.c.cfg.Timeout
	if timeout < minSubscribersTimeout {
		timeout = minSubscribersTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL(), nil)
	if err != nil {
		return err
	}
	req.SetBasicAuth(s.c.cfg.Username, s.c.cfg.Password)
	req.Header.Set("Accept", "application/json")
	resp, err := s.c.http.Do(req)
	if err != nil {
		s.pulls.WithLabelValues("unreachable").Inc()
		return fmt.Errorf("onos: subscribers: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		s.pulls.WithLabelValues("absent").Inc()
		if !s.absent.Swap(true) {
			s.log.Info("no SEBA app (GET subscribers: 404): no subscriber identities from ONOS", "url", s.URL())
		}
		s.store(map[SubscriberLine]*Subscriber{})
		return nil
	}
	b, err := readLimited(resp.Body, MaxSubscribersBody)
	st := status{code: resp.StatusCode, err: err}
	if err == nil && !st.ok() {
		st.err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, errorText(b))
	}
	if st.err != nil {
		s.pulls.WithLabelValues(st.label()).Inc()
		s.log.Warn("subscribers table not read; the last one is kept", "url", s.URL(), "err", st.err)
		return st.err
	}
	t, bad, err := DecodeSubscribers(b)
	if err != nil {
		s.pulls.WithLabelValues("bad").Inc()
		s.log.Warn("subscribers table refused; the last one is kept", "err", err)
		return err
	}
	for _, why := range bad {
		s.log.Warn("subscribers table: line left out", "reason", why)
	}
	s.bad.Add(float64(len(bad)))
	if s.absent.Swap(false) {
		s.log.Info("SEBA app found: subscriber identities from ONOS", "url", s.URL())
	}
	s.pulls.WithLabelValues("ok").Inc()
	s.store(t)
	return nil
}

func (s *Subscribers) store(t map[SubscriberLine]*Subscriber) {
	s.table.Store(&t)
	s.lines.Set(float64(len(t)))
}

// readLimited reads r up to limit bytes; more is an error.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("answer larger than %d bytes", limit)
	}
	return b, nil
}
