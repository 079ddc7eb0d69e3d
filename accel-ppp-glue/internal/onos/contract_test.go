package onos

// Contract B's shared fixtures (tests/contract/onos/README.md): this test
// writes what the real client sends (events.json, resync-0.json and
// resync-1.json, health.json) and reads what the Java application answers
// (placement.json, written by the app's ContractFixturesTest). The Java
// side replays the files written here through its real REST resources.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the Go-written Contract B fixtures in tests/contract/onos")

const contractDir = "../../../tests/contract/onos"

// exchange is one fixture file: a request relative to the base URL
// (/onos/bngpod), the status the server answers and the JSON body (the
// request's, or for GET the answer's).
type exchange struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// The sessions of the scenario the README describes: the golden lab pod,
// control plane cp1, lg2 moved from dp2 onto dp3 (empty: lg3 is with lg4 on dp4).
// sessA has rates of its own (RADIUS); sessC's readings are 300 s apart, so
// ONOS measures its traffic rate from the up and the update.
var (
	sessA = Session{
		ID: "cp1-00000001", LineGroup: "lg1", Instance: 1, AccessPort: "access1", STag: 100, CTag: 7,
		PPPoEID: 1, MAC: "02:10:00:00:00:01", IPv4: "100.80.1.2", Username: "alice@lab", QosProfile: "silver",
		DownRate: 50000000, UpRate: 10000000,
		Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Usage: Usage{UpBytes: 123456789012, DownBytes: 987654321098, UpPackets: 1234567, DownPackets: 7654321,
			At: timeAt(2026, 1, 2, 4, 4, 5, 250000000)},
	}
	sessB = Session{
		ID: "cp1-00000002", LineGroup: "lg2", Instance: 1, AccessPort: "access2", STag: 200, CTag: 42,
		PPPoEID: 2, MAC: "02:10:00:00:00:02", IPv4: "100.80.2.3", Username: "bob@lab", QosProfile: "gold",
		Since: time.Date(2026, 1, 2, 3, 4, 6, 500000000, time.UTC),
		Usage: Usage{UpBytes: 1000, DownBytes: 2000, UpPackets: 10, DownPackets: 20,
			At: timeAt(2026, 1, 2, 3, 9, 6, 0)},
	}
	sessC = Session{
		ID: "cp1-00000003", LineGroup: "lg2", Instance: 1, AccessPort: "access1", STag: 150, CTag: 7,
		PPPoEID: 17, MAC: "02:10:00:00:00:07", IPv4: "100.80.4.9", Username: "u1", QosProfile: "gold",
		Since: time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC),
		Usage: Usage{At: timeAt(2026, 1, 2, 3, 5, 0, 0)},
	}
)

func timeAt(y int, mo time.Month, d, h, mi, s, ns int) *time.Time {
	t := time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	return &t
}

// recorder is an ONOS that answers 204 to every report and keeps each
// request as an exchange, by method and path.
type recorder struct {
	mu   sync.Mutex
	seen map[string]exchange
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, err := io.ReadAll(req.Body)
	if err != nil || !json.Valid(b) || req.Header.Get("Content-Type") != "application/json" {
		http.Error(w, `{"error":"body"}`, http.StatusBadRequest)
		return
	}
	path := strings.TrimPrefix(req.URL.Path, "/onos/bngpod")
	if req.URL.RawQuery != "" {
		path += "?" + req.URL.RawQuery
	}
	key := req.Method + " " + req.URL.Path
	if p := req.URL.Query().Get("page"); p != "" {
		key += " page " + p
	}
	r.mu.Lock()
	r.seen[key] = exchange{Method: req.Method, Path: path, Status: http.StatusNoContent, Body: b}
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (r *recorder) get(key string) (exchange, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.seen[key]
	return e, ok
}

// TestContractClientRequests runs the real client against a recorder: a
// start-up resync of sessA and sessB in two pages of one session (resync id
// r1), then (queued while the snapshot was
// taken, so sent as one batch) up and update of sessC and down of sessB,
// and dp2 declared dead. Each request is compared with its fixture.
func TestContractClientRequests(t *testing.T) {
	rec := &recorder{seen: map[string]exchange{}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/onos/bngpod")
	var c *Client
	c, err := New(Config{
		URL: u, Username: "onos", Password: "rocks", CPName: "cp1",
		PollInterval: time.Hour, Timeout: 5 * time.Second, ResyncPage: 1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Snapshot: func(context.Context) ([]Session, error) {
			up := sessC
			upd := sessC
			upd.Usage = Usage{UpBytes: 15000, DownBytes: 250000, UpPackets: 120, DownPackets: 300,
				UpDropPackets: 4, DownDropPackets: 7, UpDropBytes: 400, DownDropBytes: 10500, ControlPackets: 23,
				At: timeAt(2026, 1, 2, 3, 10, 0, 0)}
			down := sessB
			down.Usage = Usage{UpBytes: 1500, DownBytes: 2600, UpPackets: 15, DownPackets: 26,
				At: timeAt(2026, 1, 2, 3, 11, 6, 0)}
			down.Cause = "User-Request"
			c.Report(Event{Event: EventUp, Session: up})
			c.Report(Event{Event: EventUpdate, Session: upd})
			c.Report(Event{Event: EventDown, Session: down})
			c.Health(2, false, "PFCP heartbeats lost or association failed")
			return []Session{sessA, sessB}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.resyncID = func() string { return "r1" }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.sendLoop(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	for _, f := range []struct{ file, key string }{
		{"resync-0.json", "PUT /onos/bngpod/sessions page 0"},
		{"resync-1.json", "PUT /onos/bngpod/sessions page 1"},
		{"health.json", "POST /onos/bngpod/instances/2/health"},
		{"events.json", "POST /onos/bngpod/sessions/events"},
	} {
		var got exchange
		waitFor(t, f.key, func() bool {
			var ok bool
			got, ok = rec.get(f.key)
			return ok
		})
		checkFixture(t, f.file, got)
	}
	var ev eventsBody
	e, _ := rec.get("POST /onos/bngpod/sessions/events")
	if err := json.Unmarshal(e.Body, &ev); err != nil || len(ev.Events) != 3 {
		t.Fatalf("the three events were not sent as one batch: %s", e.Body)
	}
}

// checkFixture compares an exchange with its fixture as JSON values (key
// order and white space aside), or rewrites the fixture with -update.
func checkFixture(t *testing.T, file string, got exchange) {
	t.Helper()
	path := filepath.Join(contractDir, file)
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false) // the query's & as is
	if err := e.Encode(got); err != nil {
		t.Fatal(err)
	}
	raw := bytes.TrimSpace(enc.Bytes())
	if *update {
		var out bytes.Buffer
		if err := json.Indent(&out, raw, "", "  "); err != nil {
			t.Fatal(err)
		}
		out.WriteByte('\n')
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/onos -run Contract -update writes it)", err)
	}
	g, err := jsonValue(raw)
	if err != nil {
		t.Fatal(err)
	}
	w, err := jsonValue(want)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("the client's %s %s differs from %s (the Java app replays that file; if the change is meant, "+
			"run go test ./internal/onos -run Contract -update and the Java tests):\ngot  %s\nwant %s",
			got.Method, got.Path, path, raw, bytes.Join(bytes.Fields(want), nil))
	}
}

// jsonValue decodes JSON keeping numbers exact (counters exceed 2^53).
func jsonValue(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// TestContractOptionalFieldsLeftOut: an optional field without a value is
// not sent at all; ONOS refuses "" for the address and the QoS profile,
// would take the zero time for a reading and 0 means "the profile's rate".
func TestContractOptionalFieldsLeftOut(t *testing.T) {
	s := sessC
	s.IPv4, s.QosProfile, s.Usage.At = "", "", nil
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ipv4", "qosProfile", "cause", "downRate", "upRate"} {
		if _, ok := m[k]; ok {
			t.Errorf("%q sent without a value: %s", k, b)
		}
	}
	if _, ok := m["usage"].(map[string]any)["at"]; ok {
		t.Errorf("usage.at sent without a reading: %s", b)
	}
}

// Fields of GET /placement the client reads, and those it knowingly
// ignores. A field the Java app sends that is in neither list fails the
// test: someone has to decide whether the CP needs it.
var (
	placementRead    = []string{"version", "groups", "instances"}
	placementIgnored = []string{"moves", "lastFailover"}
	groupRead        = []string{"lineGroup", "instance", "state", "reason"}
	groupIgnored     = []string{"reasonKind"}
	instanceRead     = []string{"id", "name", "available"}
	instanceIgnored  = []string{"declaredBy", "reason"}
)

// TestContractPlacementFromJava reads the placement the Java application
// answered (placement.json: the golden lab pod after cp1 declared dp2
// dead) through the real client's poll and decoder.
func TestContractPlacementFromJava(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(contractDir, "placement.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex exchange
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Method != http.MethodGet || ex.Status != http.StatusOK {
		t.Fatalf("placement.json is %s %s -> %d, want GET -> 200", ex.Method, ex.Path, ex.Status)
	}

	// The client's own poll, at the path the Java resource answered on.
	var asked string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.Method + " " + strings.TrimPrefix(r.URL.RequestURI(), "/onos/bngpod")
		w.Header().Set("Content-Type", "application/json")
		w.Write(ex.Body)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/onos/bngpod")
	var got *Placement
	c, err := New(Config{
		URL: u, CPName: "cp1", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Snapshot:    func(context.Context) ([]Session, error) { return nil, nil },
		OnPlacement: func(p *Placement) { got = p },
	})
	if err != nil {
		t.Fatal(err)
	}
	c.PollOnce(context.Background())
	if asked != ex.Method+" "+ex.Path {
		t.Fatalf("the client asked %q, the Java app answered %q", asked, ex.Method+" "+ex.Path)
	}
	if got == nil {
		p, err := DecodePlacement(ex.Body)
		t.Fatalf("the client did not take the Java placement: %v %v", p, err)
	}
	if got.Version != 2 {
		t.Errorf("version %d, want 2 (one failover after the start)", got.Version)
	}

	// Everything the decoder keeps agrees with the JSON, group by group.
	var raw struct {
		Version   int64            `json:"version"`
		Groups    []map[string]any `json:"groups"`
		Instances []map[string]any `json:"instances"`
	}
	if err := json.Unmarshal(ex.Body, &raw); err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 4 || len(raw.Groups) != 4 || len(got.Instances) != 4 || len(raw.Instances) != 4 {
		t.Fatalf("want the lab pod's 4 groups and 4 instances: %+v", got)
	}
	for i, g := range got.Groups {
		r := raw.Groups[i]
		inst, _ := r["instance"].(float64)
		if g.LineGroup != r["lineGroup"] || g.Placed != (r["state"] == "placed") || float64(g.Instance) != inst ||
			g.Reason != r["reason"] {
			t.Errorf("groups[%d]: decoded %+v from %v", i, g, r)
		}
	}
	for i, in := range got.Instances {
		r := raw.Instances[i]
		if id, _ := r["id"].(float64); float64(in.ID) != id || in.Name != r["name"] || in.Available != r["available"] {
			t.Errorf("instances[%d]: decoded %+v from %v", i, in, r)
		}
	}
	lg2 := got.Groups[1]
	if lg2.LineGroup != "lg2" || !lg2.Placed || lg2.Instance != 3 || !strings.Contains(lg2.Reason, "dp2 (id 2) unavailable") {
		t.Errorf("lg2: %+v, want placed on 3, moved off dp2", lg2)
	}
	if dp2 := got.Instances[1]; dp2.ID != 2 || dp2.Available {
		t.Errorf("dp2: %+v, want unavailable", dp2)
	}

	checkKeys(t, "placement", []map[string]any{topLevel(t, ex.Body)}, placementRead, placementIgnored)
	checkKeys(t, "groups[]", raw.Groups, groupRead, groupIgnored)
	checkKeys(t, "instances[]", raw.Instances, instanceRead, instanceIgnored)
}

func topLevel(t *testing.T, b []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func checkKeys(t *testing.T, what string, objs []map[string]any, read, ignored []string) {
	t.Helper()
	known := map[string]bool{}
	for _, k := range append(append([]string(nil), read...), ignored...) {
		known[k] = true
	}
	var unknown []string
	for _, o := range objs {
		for k := range o {
			if !known[k] {
				unknown = append(unknown, k)
			}
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("%s: the Java app sends %v, which the client neither reads nor lists as ignored", what, unknown)
	}
	for _, k := range read {
		found := false
		for _, o := range objs {
			if _, ok := o[k]; ok {
				found = true
			}
		}
		if !found && len(objs) > 0 {
			t.Errorf("%s: the client reads %q, which the Java app no longer sends", what, k)
		}
	}
}

// TestContractLongPoll: having read placement.json (version 2), the real
// client follows the placement with a long poll (cp.yaml's default 30 s);
// that request is placement-wait.json, which the Java app replays (it must
// wait for version 3). The request has no body.
func TestContractLongPoll(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(contractDir, "placement.json"))
	if err != nil {
		t.Fatal(err)
	}
	var answer exchange
	if err := json.Unmarshal(b, &answer); err != nil {
		t.Fatal(err)
	}
	polls := make(chan exchange, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, "/onos/bngpod")
		if r.URL.RawQuery != "" {
			path += "?" + r.URL.RawQuery
		}
		polls <- exchange{Method: r.Method, Path: path, Status: http.StatusOK, Body: json.RawMessage("null")}
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer.Body)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/onos/bngpod")
	c, err := New(Config{
		URL: u, CPName: "cp1", PollInterval: time.Hour, PlacementWait: 30 * time.Second,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Snapshot: func(context.Context) ([]Session, error) { return nil, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.pollLoop(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	first, second := <-polls, <-polls
	if first.Path != "/placement" {
		t.Errorf("the first poll asked %q, want the placement at once", first.Path)
	}
	checkFixture(t, "placement-wait.json", second)
}
