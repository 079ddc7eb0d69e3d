package onos

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// eventsTable maps access1/100/900 and access1/100/999 (the app, in the
// contract, then finds no subscriber on 999: its SADIS entry went meanwhile).
const eventsTable = `{"subscribers":[` +
	`{"accessPort":"access1","stag":100,"ctag":900,"lineGroup":"lg1","uni":{"deviceId":"of:1","port":"256","name":"BBSM00000001-1"},` +
	`"onuSerial":"BBSM00000001","serviceName":"hsia","circuitId":"","remoteId":"","nasPortId":""},` +
	`{"accessPort":"access1","stag":100,"ctag":999,"lineGroup":"lg1","uni":{"deviceId":"of:1","port":"257","name":"BBSM00000002-1"},` +
	`"onuSerial":"BBSM00000002","serviceName":"hsia","circuitId":"","remoteId":"","nasPortId":""}],"problems":[]}`

// eventsServer is a SEBA app that serves eventsTable and records the bodies
// of POST /pppoe-events, answering with answer(body).
type eventsServer struct {
	mu     sync.Mutex
	bodies [][]byte
	answer func([]byte) (int, string)
}

func (es *eventsServer) start(t *testing.T) (*Subscribers, *prometheus.Registry, context.CancelFunc) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != "cp" || p != "secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/onos/bngpod-seba/subscribers":
			_, _ = w.Write([]byte(eventsTable))
		case r.Method == http.MethodGet && r.URL.Path == "/onos/bngpod-seba/teardowns":
			_, _ = w.Write([]byte(`{"version":0,"teardowns":[]}`))
		case r.Method == http.MethodPost && r.URL.Path == "/onos/bngpod-seba/pppoe-events" &&
			r.Header.Get("Content-Type") == "application/json":
			b, _ := io.ReadAll(r.Body)
			es.mu.Lock()
			es.bodies = append(es.bodies, b)
			es.mu.Unlock()
			code, body := es.answer(b)
			w.WriteHeader(code)
			_, _ = w.Write([]byte(body))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	base, _ := url.Parse(srv.URL + "/onos/bngpod")
	c, err := New(Config{URL: base, Username: "cp", Password: "secret", CPName: "cp1", Timeout: 2 * time.Second,
		Snapshot: func(context.Context) ([]Session, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	s := c.NewSubscribers(time.Hour, reg)
	if err := s.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	return s, reg, func() { cancel(); <-done }
}

func (es *eventsServer) posted() [][]byte {
	es.mu.Lock()
	defer es.mu.Unlock()
	return append([][]byte(nil), es.bodies...)
}

func eventResult(s *Subscribers, result string) float64 {
	return testutil.ToFloat64(s.eventResults.WithLabelValues(result))
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The client's POST of three steps is the contract's body (which the Java
// resource replays), sent as one batch; the app's answer is counted; a line
// the table does not map is not sent at all.
func TestContractPppoeEvents(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(contractDir, "seba-pppoe-events.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Method, Path string
		Body, Answer json.RawMessage
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	es := &eventsServer{answer: func([]byte) (int, string) { return 200, string(fx.Answer) }}
	s, _, stop := es.start(t)
	defer stop()
	s.Report(PppoeEvent{Type: EventSessionInit, AccessPort: "access1", STag: 100, CTag: 901, MAC: "02:00:00:00:00:09"}) // not in the table
	s.Report(PppoeEvent{Type: EventSessionInit, AccessPort: "access1", STag: 100, CTag: 900, MAC: "02:00:00:00:00:01"})
	s.Report(PppoeEvent{Type: EventAuthSuccess, AccessPort: "access1", STag: 100, CTag: 900, MAC: "02:00:00:00:00:01", PPPoEID: 17})
	s.Report(PppoeEvent{Type: EventAuthFailure, AccessPort: "access1", STag: 100, CTag: 999, MAC: "02:00:00:00:00:02", PPPoEID: 65535})
	waitUntil(t, "the answer counted", func() bool { return eventResult(s, "unmapped") == 1 })
	bodies := es.posted()
	if len(bodies) != 1 || fx.Method != "POST" || fx.Path != "/pppoe-events" {
		t.Fatalf("%d POSTs, want one batch", len(bodies))
	}
	g, err := jsonValue(bodies[0])
	if err != nil {
		t.Fatal(err)
	}
	w, _ := jsonValue(fx.Body)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("the client's POST /pppoe-events differs from seba-pppoe-events.json (the Java resource replays it):\n"+
			"got  %s\nwant %s", bodies[0], fx.Body)
	}
	if eventResult(s, "posted") != 2 || eventResult(s, "refused") != 0 || eventResult(s, "failed") != 0 {
		t.Fatalf("counts: posted %v refused %v failed %v", eventResult(s, "posted"), eventResult(s, "refused"),
			eventResult(s, "failed"))
	}
}

// A SEBA app that fails, or refuses events, costs the reporter nothing: Report
// never blocks (a full queue drops, counted), failed POSTs are counted and the
// stream goes on; batches hold at most maxPppoeBatch events.
func TestPppoeEventsFailures(t *testing.T) {
	var code int
	var mu sync.Mutex
	es := &eventsServer{answer: func(b []byte) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		if code != 200 {
			return code, `{"error":"down"}`
		}
		var body pppoeEventsBody
		_ = json.Unmarshal(b, &body)
		a, _ := json.Marshal(pppoeEventsAnswer{Posted: len(body.Events) - 1, Refused: []string{"event 0: no"}})
		return 200, string(a)
	}}
	setCode := func(c int) { mu.Lock(); code = c; mu.Unlock() }
	setCode(503)
	s, _, stop := es.start(t)
	defer stop()
	ev := PppoeEvent{Type: EventSessionInit, AccessPort: "access1", STag: 100, CTag: 900, MAC: "02:00:00:00:00:01"}
	s.Report(ev)
	waitUntil(t, "the failed POST counted", func() bool { return eventResult(s, "failed") == 1 })

	// 3,000 reports in a burst go out in batches of at most 1,000, never blocking.
	setCode(200)
	start := time.Now()
	for i := 0; i < 3000; i++ {
		s.Report(ev)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("3,000 reports took %v", d)
	}
	waitUntil(t, "the burst posted", func() bool { return eventResult(s, "posted")+eventResult(s, "refused") == 3000 })
	for _, b := range es.posted()[1:] {
		var body pppoeEventsBody
		if err := json.Unmarshal(b, &body); err != nil || len(body.Events) == 0 || len(body.Events) > maxPppoeBatch {
			t.Fatalf("a batch of %d events (%v)", len(body.Events), err)
		}
	}
	if eventResult(s, "queue_full") != 0 {
		t.Fatalf("dropped %v with room in the queue", eventResult(s, "queue_full"))
	}
}

// Past the queue's bound, reports are dropped and counted (nothing drains it here).
func TestPppoeEventsQueueFull(t *testing.T) {
	_, s := subscribersServer(t, func() (int, string) { return 200, eventsTable })
	if err := s.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	ev := PppoeEvent{Type: EventSessionInit, AccessPort: "access1", STag: 100, CTag: 900, MAC: "02:00:00:00:00:01"}
	for i := 0; i < PppoeEventQueue+10; i++ {
		s.Report(ev)
	}
	if got := eventResult(s, "queue_full"); got != 10 {
		t.Fatalf("queue_full %v, want 10", got)
	}
}

// A session's PPPoE steps reach the SEBA app before the session report that
// follows them (bng.pppoe in protocol order: SESSION_INIT, AUTH_SUCCESS, then
// the app's SESSION_CONFIRMATION): the client flushes the steps queued so far
// before each batch of session reports, instead of letting them wait for their
// batch (pppoeEventDelay). A SEBA app that does not answer delays a report by
// a bounded time only.
func TestPppoeStepsBeforeSessionReports(t *testing.T) {
	var mu sync.Mutex
	var order []string
	hang := make(chan struct{})
	var hanging bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/onos/bngpod-seba/subscribers":
			_, _ = w.Write([]byte(eventsTable))
		case r.Method == http.MethodGet && r.URL.Path == "/onos/bngpod-seba/teardowns":
			_, _ = w.Write([]byte(`{"version":0,"teardowns":[]}`))
		case r.Method == http.MethodPost && r.URL.Path == "/onos/bngpod-seba/pppoe-events":
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			h := hanging
			mu.Unlock()
			if h {
				<-hang
			}
			var body pppoeEventsBody
			_ = json.Unmarshal(b, &body)
			mu.Lock()
			for _, e := range body.Events {
				order = append(order, e.Type)
			}
			mu.Unlock()
			_, _ = w.Write([]byte(`{"posted":` + strconv.Itoa(len(body.Events)) + `,"unmapped":0,"refused":[]}`))
		case r.Method == http.MethodPost && r.URL.Path == "/onos/bngpod/sessions/events":
			mu.Lock()
			order = append(order, "sessions/events")
			mu.Unlock()
			_, _ = w.Write([]byte(`{}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	base, _ := url.Parse(srv.URL + "/onos/bngpod")
	c, err := New(Config{URL: base, Username: "cp", Password: "secret", CPName: "cp1", Timeout: 300 * time.Millisecond,
		Snapshot: func(context.Context) ([]Session, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	s := c.NewSubscribers(time.Hour, prometheus.NewRegistry())
	if err := s.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.postEvents(ctx) }()
	defer func() { cancel(); <-done }()
	c.needResync = false
	got := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), order...)
	}

	if !s.Flush(ctx, time.Millisecond) {
		t.Fatal("a Flush with nothing queued waited")
	}
	s.Report(PppoeEvent{Type: EventSessionInit, AccessPort: "access1", STag: 100, CTag: 900, MAC: "02:00:00:00:00:01"})
	s.Report(PppoeEvent{Type: EventAuthSuccess, AccessPort: "access1", STag: 100, CTag: 900, MAC: "02:00:00:00:00:01", PPPoEID: 17})
	c.Report(Event{Event: "up", Session: Session{ID: "s1"}})
	if worked, failed := c.sendOnce(ctx); !worked || failed {
		t.Fatalf("sendOnce: worked %v failed %v", worked, failed)
	}
	if w := []string{EventSessionInit, EventAuthSuccess, "sessions/events"}; !reflect.DeepEqual(got(), w) {
		t.Fatalf("arrival order %v, want %v", got(), w)
	}
	if s.eventsOwed.Load() != 0 {
		t.Fatalf("%d steps still owed", s.eventsOwed.Load())
	}

	// the app hangs: the report waits for the step's POST (bounded by the
	// client's Timeout, twice at most), then goes out
	mu.Lock()
	hanging, order = true, nil
	mu.Unlock()
	s.Report(PppoeEvent{Type: EventAuthSuccess, AccessPort: "access1", STag: 100, CTag: 900, MAC: "02:00:00:00:00:01", PPPoEID: 18})
	c.Report(Event{Event: "up", Session: Session{ID: "s2"}})
	start := time.Now()
	if worked, failed := c.sendOnce(ctx); !worked || failed {
		t.Fatalf("sendOnce: worked %v failed %v", worked, failed)
	}
	if d := time.Since(start); d > 2*300*time.Millisecond+pppoeEventDelay+500*time.Millisecond {
		t.Fatalf("the report waited %v for a SEBA app that hangs", d)
	}
	if w := []string{"sessions/events"}; !reflect.DeepEqual(got(), w) {
		close(hang)
		t.Fatalf("arrival order %v, want %v (the step's POST timed out)", got(), w)
	}
	close(hang)
	waitUntil(t, "the timed-out step counted as failed", func() bool { return eventResult(s, "failed") == 1 })
}
