package onos

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// fakeONOS plays the ONOS application's side of Contract B.
type fakeONOS struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	mode      string // "": normal, "down": 503, "slow": answer after slow
	slow      time.Duration
	gate      chan struct{} // non-nil: event POSTs wait for it
	placement string
	resyncs   [][]Session // committed resyncs (the last page arrived)
	pages     []string    // every page PUT: "resync/page/last/n"
	staged    map[string][]Session
	failPut   int                             // >0: the failPut-th page PUT from now answers 500
	healthAns func(inst uint32) (int, string) // nil: 204
	batches   [][]Event
	health    []struct {
		Inst uint32
		Body healthBody
	}
	unauthorized int
	cpSeen       map[string]bool
}

func newFakeONOS(t *testing.T) *fakeONOS {
	f := &fakeONOS{t: t, cpSeen: map[string]bool{},
		placement: `{"version":1,"groups":[{"lineGroup":"lg1","instance":1,"state":"placed","reason":"stated"}],"instances":[{"id":1,"name":"dp1","available":true}]}`}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /onos/bngpod/sessions", func(w http.ResponseWriter, r *http.Request) {
		var b sessionsBody
		if !f.decode(w, r, &b) {
			return
		}
		q := r.URL.Query()
		id, page, last := q.Get("resync"), q.Get("page"), q.Get("last")
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cpSeen[q.Get("cp")] = true
		f.pages = append(f.pages, fmt.Sprintf("%s/%s/%s/%d", id, page, last, len(b.Sessions)))
		if f.failPut > 0 {
			if f.failPut--; f.failPut == 0 {
				http.Error(w, `{"error":"injected"}`, http.StatusInternalServerError)
				return
			}
		}
		if len(b.Sessions) > MaxPage || id == "" {
			http.Error(w, `{"error":"page"}`, http.StatusBadRequest)
			return
		}
		var n int
		fmt.Sscan(page, &n)
		if n == 0 {
			f.staged = map[string][]Session{}
		} else if _, ok := f.staged[id]; !ok || fmt.Sprint(len(f.staged[id])/MaxPage) != page {
			http.Error(w, `{"error":"page out of order"}`, http.StatusConflict)
			return
		}
		f.staged[id] = append(f.staged[id], b.Sessions...)
		if last == "true" {
			f.resyncs = append(f.resyncs, f.staged[id])
			delete(f.staged, id)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /onos/bngpod/sessions/events", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		gate := f.gate
		f.mu.Unlock()
		if gate != nil {
			<-gate
		}
		var b eventsBody
		if !f.decode(w, r, &b) {
			return
		}
		if b.CP != "cp1" || len(b.Events) == 0 || len(b.Events) > MaxBatch {
			http.Error(w, `{"error":"events"}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.batches = append(f.batches, b.Events)
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /onos/bngpod/instances/{id}/health", func(w http.ResponseWriter, r *http.Request) {
		var b healthBody
		if !f.decode(w, r, &b) {
			return
		}
		var id uint32
		fmt.Sscan(r.PathValue("id"), &id)
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.healthAns != nil {
			if code, text := f.healthAns(id); code != http.StatusNoContent {
				http.Error(w, `{"error":"`+text+`"}`, code)
				return
			}
		}
		f.health = append(f.health, struct {
			Inst uint32
			Body healthBody
		}{id, b})
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /onos/bngpod/placement", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		p := f.placement
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, p)
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		mode, slow := f.mode, f.slow
		f.mu.Unlock()
		switch mode {
		case "down":
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		case "slow":
			select {
			case <-time.After(slow):
			case <-r.Context().Done():
				return
			}
		}
		if u, p, ok := r.BasicAuth(); !ok || u != "onos" || p != "rocks" {
			f.mu.Lock()
			f.unauthorized++
			f.mu.Unlock()
			w.Header().Set("WWW-Authenticate", `Basic realm="karaf"`)
			http.Error(w, `{"error":"credentials"}`, http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		f.mu.Lock()
		if f.gate != nil {
			close(f.gate)
			f.gate = nil
		}
		f.mu.Unlock()
		f.srv.Close()
	})
	return f
}

func (f *fakeONOS) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, `{"error":"content type"}`, http.StatusUnsupportedMediaType)
		return false
	}
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		http.Error(w, `{"error":"body"}`, http.StatusBadRequest)
		return false
	}
	return true
}

func (f *fakeONOS) set(fn func(f *fakeONOS)) {
	f.mu.Lock()
	fn(f)
	f.mu.Unlock()
}

func (f *fakeONOS) get(fn func(f *fakeONOS) bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fn(f)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for time.Now().Before(end) {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

type harness struct {
	c          *Client
	reg        *prometheus.Registry
	cancel     context.CancelFunc
	done       chan struct{}
	mu         sync.Mutex
	snap       []Session
	placements []*Placement
}

func startClient(t *testing.T, f *fakeONOS, mod func(*Config)) *harness {
	h := &harness{reg: prometheus.NewRegistry(), done: make(chan struct{})}
	u, _ := url.Parse(f.srv.URL + "/onos/bngpod")
	cfg := Config{
		URL: u, Username: "onos", Password: "rocks", CPName: "cp1",
		PollInterval: 50 * time.Millisecond, Timeout: 300 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Registerer: h.reg,
		Snapshot: func(context.Context) ([]Session, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			return append([]Session(nil), h.snap...), nil
		},
		OnPlacement: h.record,
	}
	h.run(t, cfg, mod, (*Client).Run, 5*time.Second)
	return h
}

func (h *harness) record(p *Placement) {
	h.mu.Lock()
	h.placements = append(h.placements, p)
	h.mu.Unlock()
}

// run makes the client of cfg (changed by mod) and runs loop on it until the
// test ends, which waits up to stop for the loop to return.
func (h *harness) run(t *testing.T, cfg Config, mod func(*Config), loop func(*Client, context.Context), stop time.Duration) {
	t.Helper()
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { loop(c, ctx); close(h.done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(stop):
			t.Error("the client did not stop")
		}
	})
}

func sess(i int) Session {
	return Session{ID: fmt.Sprintf("%016X", i), LineGroup: "lg1", Instance: 1, AccessPort: "access1",
		STag: 100, CTag: uint16(i%4000 + 1), PPPoEID: uint16(i%65000 + 1), MAC: "02:11:00:00:00:01",
		IPv4: "100.80.0.9", Username: "u1", QosProfile: "silver", Since: time.Unix(1700000000, 0).UTC()}
}

func counter(t *testing.T, c prometheus.Collector) float64 { t.Helper(); return testutil.ToFloat64(c) }

func TestResyncAtStartAndBatches(t *testing.T) {
	f := newFakeONOS(t)
	h := startClient(t, f, func(c *Config) {
		c.PollInterval = time.Hour
		// the sessions are there before the client starts: its first resync carries them
		c.Snapshot = func(context.Context) ([]Session, error) { return []Session{sess(1), sess(2)}, nil }
	})
	waitFor(t, "the start resync", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.resyncs) == 1 }) })
	if got := f.resyncs[0]; len(got) != 2 || got[0].ID != sess(1).ID || !f.cpSeen["cp1"] {
		t.Fatalf("resync %+v, cp %v", got, f.cpSeen)
	}
	gate := make(chan struct{})
	f.set(func(f *fakeONOS) { f.gate = gate })
	h.c.Report(Event{Event: EventUp, Session: sess(0)}) // held at the gate
	waitFor(t, "the first POST", func() bool { return testutil.ToFloat64(h.c.m.queued) == 0 })
	start := time.Now()
	for i := 1; i < 2500; i++ {
		h.c.Report(Event{Event: EventUpdate, Session: sess(i)})
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("2499 Reports took %v: the session path must not wait for ONOS", took)
	}
	f.set(func(f *fakeONOS) { f.gate = nil })
	close(gate)
	waitFor(t, "2500 events", func() bool {
		return f.get(func(f *fakeONOS) bool {
			n := 0
			for _, b := range f.batches {
				n += len(b)
			}
			return n == 2500
		})
	})
	next := 0
	for _, b := range f.batches {
		if len(b) > MaxBatch {
			t.Errorf("batch of %d events", len(b))
		}
		for _, ev := range b {
			if ev.Session.ID != sess(next).ID {
				t.Fatalf("event %d is %s: out of order", next, ev.Session.ID)
			}
			next++
		}
	}
	if len(f.batches) != 4 || len(f.batches[1]) != MaxBatch {
		t.Errorf("batches of %d", func() []int {
			var n []int
			for _, b := range f.batches {
				n = append(n, len(b))
			}
			return n
		}())
	}
	// the client counts a batch once it has read ONOS's answer, after the fake recorded it
	waitFor(t, "2500 events counted as sent", func() bool {
		return counter(t, h.c.m.events.WithLabelValues("sent")) == 2500
	})
}

func TestONOSDownThenUpResyncs(t *testing.T) {
	f := newFakeONOS(t)
	h := startClient(t, f, nil)
	waitFor(t, "the start resync", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.resyncs) == 1 }) })
	f.set(func(f *fakeONOS) { f.mode = "down" })
	waitFor(t, "ONOS seen down", func() bool { return counter(t, h.c.m.requests.WithLabelValues("placement", "server_error")) > 0 })
	h.c.Report(Event{Event: EventUp, Session: sess(7)})
	waitFor(t, "the event dropped", func() bool { return counter(t, h.c.m.events.WithLabelValues("dropped")) == 1 })
	h.mu.Lock()
	h.snap = []Session{sess(7)}
	h.mu.Unlock()
	f.set(func(f *fakeONOS) { f.mode = "" })
	waitFor(t, "the resync after ONOS came back", func() bool {
		return f.get(func(f *fakeONOS) bool { return len(f.resyncs) == 2 && len(f.resyncs[1]) == 1 })
	})
	if f.get(func(f *fakeONOS) bool { return len(f.batches) != 0 }) {
		t.Error("the event lost while ONOS was down was sent later as well")
	}
	if !h.c.Reachable() || counter(t, h.c.m.up) != 1 {
		t.Error("not reachable again")
	}
}

func TestUnreachableONOS(t *testing.T) {
	f := newFakeONOS(t)
	f.srv.Close() // nothing listens
	h := startClient(t, f, nil)
	h.c.Report(Event{Event: EventUp, Session: sess(1)})
	h.c.Health(2, false, "PFCP heartbeat lost")
	waitFor(t, "requests failing", func() bool { return counter(t, h.c.m.requests.WithLabelValues("health", "unreachable")) >= 1 })
	waitFor(t, "polls failing", func() bool { return counter(t, h.c.m.requests.WithLabelValues("placement", "unreachable")) >= 1 })
	if h.c.Reachable() {
		t.Error("reachable")
	}
}

func TestUnauthorized(t *testing.T) {
	f := newFakeONOS(t)
	h := startClient(t, f, func(c *Config) { c.Password = "wrong" })
	waitFor(t, "401s", func() bool { return counter(t, h.c.m.requests.WithLabelValues("resync", "unauthorized")) >= 1 })
	waitFor(t, "poll 401", func() bool { return counter(t, h.c.m.requests.WithLabelValues("placement", "unauthorized")) >= 1 })
	h.mu.Lock()
	n := len(h.placements)
	h.mu.Unlock()
	if n != 0 || f.get(func(f *fakeONOS) bool { return len(f.resyncs) != 0 }) {
		t.Error("something got through without credentials")
	}
}

func TestSlowServerTimesOut(t *testing.T) {
	f := newFakeONOS(t)
	f.set(func(f *fakeONOS) { f.mode, f.slow = "slow", 2*time.Second })
	h := startClient(t, f, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	start := time.Now()
	for i := 0; i < 100; i++ {
		h.c.Report(Event{Event: EventUp, Session: sess(i)})
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("Report blocked for %v", took)
	}
	waitFor(t, "a timed-out resync", func() bool { return counter(t, h.c.m.requests.WithLabelValues("resync", "unreachable")) >= 1 })
	waitFor(t, "a timed-out poll", func() bool { return counter(t, h.c.m.requests.WithLabelValues("placement", "unreachable")) >= 1 })
	f.set(func(f *fakeONOS) { f.mode = "" })
	waitFor(t, "the resync once ONOS is fast", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.resyncs) >= 1 }) })
}

func TestQueueOverflow(t *testing.T) {
	f := newFakeONOS(t)
	h := startClient(t, f, func(c *Config) { c.QueueSize = 10; c.PollInterval = time.Hour })
	waitFor(t, "the start resync", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.resyncs) == 1 }) })
	gate := make(chan struct{})
	f.set(func(f *fakeONOS) { f.gate = gate })
	h.c.Report(Event{Event: EventUp, Session: sess(0)})
	waitFor(t, "the first POST", func() bool { return testutil.ToFloat64(h.c.m.queued) == 0 })
	for i := 1; i <= 100; i++ {
		h.c.Report(Event{Event: EventUp, Session: sess(i)})
	}
	if v := counter(t, h.c.m.events.WithLabelValues("dropped")); v != 90 {
		t.Errorf("dropped = %v, want 90", v)
	}
	h.mu.Lock()
	h.snap = []Session{sess(1), sess(2), sess(3)}
	h.mu.Unlock()
	f.set(func(f *fakeONOS) { f.gate = nil })
	close(gate)
	waitFor(t, "the resync after the overflow", func() bool {
		return f.get(func(f *fakeONOS) bool { return len(f.resyncs) == 2 && len(f.resyncs[1]) == 3 })
	})
}

func TestHealthReports(t *testing.T) {
	f := newFakeONOS(t)
	h := startClient(t, f, nil)
	h.c.Health(2, false, "PFCP heartbeat lost")
	waitFor(t, "the health report", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.health) == 1 }) })
	h.c.Health(2, true, "PFCP association up")
	waitFor(t, "the second report", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.health) == 2 }) })
	if got := f.health[0]; got.Inst != 2 || got.Body.Alive || got.Body.CP != "cp1" || got.Body.Reason != "PFCP heartbeat lost" {
		t.Errorf("first report %+v", got)
	}
	if !f.health[1].Body.Alive {
		t.Errorf("second report %+v", f.health[1])
	}
}

func TestPlacementPolling(t *testing.T) {
	f := newFakeONOS(t)
	h := startClient(t, f, nil)
	got := func() []*Placement {
		h.mu.Lock()
		defer h.mu.Unlock()
		return append([]*Placement(nil), h.placements...)
	}
	waitFor(t, "the first placement", func() bool { return len(got()) == 1 })
	p := got()[0]
	if p.Version != 1 || len(p.Groups) != 1 || p.Groups[0].Instance != 1 || !p.Groups[0].Placed || !p.Instances[0].Available {
		t.Fatalf("placement %+v", p)
	}
	waitFor(t, "polls of the same version", func() bool { return counter(t, h.c.m.placement.WithLabelValues("same")) >= 2 })
	if len(got()) != 1 {
		t.Fatal("the same version handed over twice")
	}
	f.set(func(f *fakeONOS) { f.placement = `{"version":2,"groups":[` })
	waitFor(t, "the garbled answer", func() bool { return counter(t, h.c.m.placement.WithLabelValues("bad")) >= 1 })
	f.set(func(f *fakeONOS) {
		f.placement = `{"version":2,"groups":[{"lineGroup":"lg1","instance":2,"state":"placed","reason":"dp1 failed","extra":1}],"future":true}`
	})
	waitFor(t, "version 2", func() bool { return len(got()) == 2 })
	if g := got()[1].Groups[0]; g.Instance != 2 || g.Reason != "dp1 failed" {
		t.Errorf("group %+v", g)
	}
	h.c.ReapplyPlacement()
	waitFor(t, "version 2 again after ReapplyPlacement", func() bool { return len(got()) == 3 })
}

func TestNewRejectsBadConfig(t *testing.T) {
	u, _ := url.Parse("ftp://x")
	snap := func(context.Context) ([]Session, error) { return nil, nil }
	for _, c := range []Config{{}, {URL: u, CPName: "a", Snapshot: snap}} {
		if _, err := New(c); err == nil {
			t.Errorf("accepted %+v", c)
		}
	}
}

func TestResyncInPages(t *testing.T) {
	f := newFakeONOS(t)
	h := startClient(t, f, func(c *Config) { c.Timeout = 5 * time.Second })
	h.mu.Lock()
	for i := 0; i < 25000; i++ {
		h.snap = append(h.snap, sess(i))
	}
	h.mu.Unlock()
	waitFor(t, "the start resync", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.resyncs) == 1 }) })
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pages) != 3 {
		t.Fatalf("pages %v", f.pages)
	}
	id := strings.SplitN(f.pages[0], "/", 2)[0]
	want := []string{id + "/0/false/10000", id + "/1/false/10000", id + "/2/true/5000"}
	if !reflect.DeepEqual(f.pages, want) {
		t.Errorf("pages %v, want %v", f.pages, want)
	}
	got := f.resyncs[0]
	if len(got) != 25000 || got[0].ID != sess(0).ID || got[24999].ID != sess(24999).ID {
		t.Errorf("resync of %d sessions", len(got))
	}
}

func TestResyncFailingMidwayStartsAgain(t *testing.T) {
	f := newFakeONOS(t)
	f.set(func(f *fakeONOS) { f.failPut = 2 }) // page 1 of the first attempt fails
	h := startClient(t, f, func(c *Config) { c.Timeout = 5 * time.Second })
	h.mu.Lock()
	for i := 0; i < 25000; i++ {
		h.snap = append(h.snap, sess(i))
	}
	h.mu.Unlock()
	waitFor(t, "the resync", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.resyncs) == 1 }) })
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pages) != 5 {
		t.Fatalf("pages %v", f.pages)
	}
	first := strings.SplitN(f.pages[0], "/", 2)[0]
	second := strings.SplitN(f.pages[2], "/", 2)[0]
	if first == second || f.pages[1] != first+"/1/false/10000" || f.pages[2] != second+"/0/false/10000" ||
		f.pages[4] != second+"/2/true/5000" {
		t.Errorf("pages %v: the whole resync must start again with a new id", f.pages)
	}
	if len(f.resyncs[0]) != 25000 {
		t.Errorf("resync of %d sessions", len(f.resyncs[0]))
	}
	if n := counter(t, h.c.m.requests.WithLabelValues("resync", "server_error")); n != 1 {
		t.Errorf("%v failed pages counted", n)
	}
}

func TestEmptyResyncIsOnePage(t *testing.T) {
	f := newFakeONOS(t)
	startClient(t, f, nil)
	waitFor(t, "the start resync", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.resyncs) == 1 }) })
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pages) != 1 || !strings.HasSuffix(f.pages[0], "/0/true/0") {
		t.Errorf("pages %v", f.pages)
	}
}

func TestHealthKeptUntilONOSHasAPod(t *testing.T) {
	for _, tc := range []struct {
		name string
		code int // ONOS's answer while it has no pod
	}{{"503 (this app)", http.StatusServiceUnavailable}, {"404 with the text (older app)", http.StatusNotFound}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeONOS(t)
			tries := 0
			f.set(func(f *fakeONOS) {
				f.healthAns = func(uint32) (int, string) {
					if tries++; tries <= 3 {
						return tc.code, "no pod is configured"
					}
					return http.StatusNoContent, ""
				}
			})
			h := startClient(t, f, nil)
			h.c.Health(2, false, "PFCP heartbeat lost")
			waitFor(t, "the report taken after ONOS got its pod", func() bool {
				return f.get(func(f *fakeONOS) bool { return len(f.health) == 1 })
			})
			if f.get(func(f *fakeONOS) bool { return tries != 4 || f.health[0].Body.Alive || f.health[0].Inst != 2 }) {
				t.Errorf("tries %d, reports %+v", tries, f.health)
			}
			waitFor(t, "nothing pending", func() bool { return h.c.PendingHealth() == 0 })
			// session reports are not held up meanwhile
			if f.get(func(f *fakeONOS) bool { return len(f.resyncs) != 1 }) {
				t.Error("no resync")
			}
		})
	}
}

func TestHealthBacksOffAndTheLatestWins(t *testing.T) {
	f := newFakeONOS(t)
	var at []time.Time
	f.set(func(f *fakeONOS) {
		f.healthAns = func(uint32) (int, string) {
			at = append(at, time.Now())
			return http.StatusServiceUnavailable, "no pod is configured"
		}
	})
	h := startClient(t, f, nil) // PollInterval 50 ms: tries after 50, 100, 200 ms
	h.c.Health(3, false, "PFCP association failed")
	waitFor(t, "four tries", func() bool { return f.get(func(f *fakeONOS) bool { return len(at) >= 4 }) })
	f.mu.Lock()
	gaps := []time.Duration{at[1].Sub(at[0]), at[2].Sub(at[1]), at[3].Sub(at[2])}
	f.healthAns = nil
	f.mu.Unlock()
	if gaps[0] < 45*time.Millisecond || gaps[1] < 95*time.Millisecond || gaps[2] < 195*time.Millisecond {
		t.Errorf("no backoff: gaps %v", gaps)
	}
	h.c.Health(3, true, "PFCP association up") // replaces the pending one, sent at once
	waitFor(t, "the latest report", func() bool { return f.get(func(f *fakeONOS) bool { return len(f.health) == 1 }) })
	if f.get(func(f *fakeONOS) bool { return !f.health[0].Body.Alive }) {
		t.Errorf("sent %+v, want the latest (alive)", f.health[0])
	}
}

func TestHealthForAnInstanceONOSDoesNotHaveIsDropped(t *testing.T) {
	f := newFakeONOS(t)
	tries := 0
	f.set(func(f *fakeONOS) {
		f.healthAns = func(uint32) (int, string) { tries++; return http.StatusNotFound, "unknown instance 9" }
	})
	h := startClient(t, f, nil)
	h.c.Health(9, false, "PFCP heartbeat lost")
	waitFor(t, "the refusal", func() bool { return counter(t, h.c.m.requests.WithLabelValues("health", "rejected")) == 1 })
	waitFor(t, "nothing pending", func() bool { return h.c.PendingHealth() == 0 })
	time.Sleep(200 * time.Millisecond)
	if f.get(func(f *fakeONOS) bool { return tries != 1 }) {
		t.Errorf("%d tries of a refused report", tries)
	}
}

// longPollONOS answers GET /placement as the app does: at once without
// after, else when the version differs from after or when wait (seconds)
// has passed. ignoreWait makes it an ONOS without long polls.
type longPollONOS struct {
	mu         sync.Mutex
	cond       *sync.Cond
	version    int64
	waiting    int
	queries    []string
	ignoreWait bool
	srv        *httptest.Server
}

func newLongPollONOS(t *testing.T) *longPollONOS {
	f := &longPollONOS{version: 1}
	f.cond = sync.NewCond(&f.mu)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f.mu.Lock()
		f.queries = append(f.queries, r.URL.RawQuery)
		if q.Has("after") && !f.ignoreWait {
			after, err1 := strconv.ParseInt(q.Get("after"), 10, 64)
			wait, err2 := strconv.Atoi(q.Get("wait"))
			if err1 != nil || err2 != nil || wait < 0 || wait > 60 {
				f.mu.Unlock()
				http.Error(w, `{"error":"after or wait"}`, http.StatusBadRequest)
				return
			}
			end := time.Now().Add(time.Duration(wait) * time.Second)
			// the timer takes the lock, so its broadcast cannot fall between the check and Wait
			timer := time.AfterFunc(time.Duration(wait)*time.Second, func() {
				f.mu.Lock()
				f.mu.Unlock()
				f.cond.Broadcast()
			})
			f.waiting++
			for f.version == after && time.Now().Before(end) {
				f.cond.Wait()
			}
			f.waiting--
			timer.Stop()
		}
		v := f.version
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"version":%d,"groups":[{"lineGroup":"lg1","instance":%d,"state":"placed","reason":"r"}],"instances":[]}`, v, v)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *longPollONOS) set(v int64) {
	f.mu.Lock()
	f.version = v
	f.mu.Unlock()
	f.cond.Broadcast()
}

func (f *longPollONOS) state() (waiting, requests int, queries []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting, len(f.queries), append([]string(nil), f.queries...)
}

func longPollClient(t *testing.T, f *longPollONOS, mod func(*Config)) *harness {
	h := &harness{reg: prometheus.NewRegistry(), done: make(chan struct{})}
	u, _ := url.Parse(f.srv.URL + "/onos/bngpod")
	cfg := Config{
		URL: u, Username: "bngcp", Password: "cp-secret", CPName: "cp1",
		PollInterval: time.Hour, PlacementWait: 5 * time.Second, Timeout: time.Second,
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		Snapshot:    func(context.Context) ([]Session, error) { return nil, nil },
		OnPlacement: h.record,
	}
	h.run(t, cfg, mod, (*Client).pollLoop, 10*time.Second)
	return h
}

func (h *harness) handedOver() []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var v []int64
	for _, p := range h.placements {
		v = append(v, p.Version)
	}
	return v
}

// TestPlacementLongPoll: after the first placement the client waits in a
// long poll and gets the next version as soon as ONOS has it, with no poll
// interval in between (PollInterval is an hour here).
func TestPlacementLongPoll(t *testing.T) {
	f := newLongPollONOS(t)
	h := longPollClient(t, f, nil)
	waitFor(t, "version 1", func() bool { return len(h.handedOver()) == 1 })
	waitFor(t, "a long poll waiting", func() bool { w, _, _ := f.state(); return w == 1 })
	start := time.Now()
	f.set(2)
	waitFor(t, "version 2", func() bool { return len(h.handedOver()) == 2 })
	if took := time.Since(start); took > time.Second {
		t.Errorf("version 2 handed over %v after ONOS had it", took)
	}
	if got := h.handedOver(); got[1] != 2 {
		t.Fatalf("handed over %v", got)
	}
	_, n, queries := f.state()
	if queries[0] != "" || queries[1] != "after=1&wait=5" {
		t.Errorf("queries %q: want the first plain, then after=1&wait=5", queries)
	}
	if n > 4 {
		t.Errorf("%d requests for two versions: %q", n, queries)
	}
}

// TestPlacementLongPollAgainstAnONOSThatDoesNotWait: an answer that comes
// back at once with the version already seen (an older app) makes the
// client wait PollInterval: it polls, it does not spin.
func TestPlacementLongPollAgainstAnONOSThatDoesNotWait(t *testing.T) {
	f := newLongPollONOS(t)
	f.ignoreWait = true
	longPollClient(t, f, func(c *Config) { c.PollInterval = 100 * time.Millisecond })
	time.Sleep(time.Second)
	if _, n, _ := f.state(); n < 4 || n > 15 {
		t.Errorf("%d requests in 1 s at a 100 ms poll interval", n)
	}
}

// TestReapplyPlacementIsPaced: a move that fails asks for the placement
// again; the retry comes after PollInterval, not at once in a loop.
func TestReapplyPlacementIsPaced(t *testing.T) {
	f := newLongPollONOS(t)
	var h *harness
	set := make(chan struct{}) // h is assigned after the poller started: wait for it
	h = longPollClient(t, f, func(c *Config) {
		c.PollInterval = 100 * time.Millisecond
		c.OnPlacement = func(p *Placement) {
			<-set
			h.mu.Lock()
			h.placements = append(h.placements, p)
			h.mu.Unlock()
			h.c.ReapplyPlacement()
		}
	})
	close(set)
	time.Sleep(time.Second)
	if n := len(h.handedOver()); n < 4 || n > 15 {
		t.Errorf("the same placement handed over %d times in 1 s at a 100 ms poll interval", n)
	}
}

func TestPlacementWaitMustBeWholeSecondsUpToAMinute(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:8181/onos/bngpod")
	snap := func(context.Context) ([]Session, error) { return nil, nil }
	for _, w := range []time.Duration{-time.Second, 1500 * time.Millisecond, 61 * time.Second} {
		if _, err := New(Config{URL: u, CPName: "cp1", Snapshot: snap, PlacementWait: w}); err == nil {
			t.Errorf("PlacementWait %v accepted", w)
		}
	}
}
