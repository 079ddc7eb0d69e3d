package onos

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// subscribersServer answers GET /onos/bngpod-seba/subscribers and
// /teardowns with what answer returns (status, body), checking the
// client's credentials.
func subscribersServer(t *testing.T, answer func() (int, string)) (*Client, *Subscribers) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != "cp" || p != "secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodGet || (r.URL.Path != "/onos/bngpod-seba/subscribers" &&
			r.URL.Path != "/onos/bngpod-seba/teardowns") {
			http.NotFound(w, r)
			return
		}
		code, body := answer()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	base, _ := url.Parse(srv.URL + "/onos/bngpod")
	c, err := New(Config{URL: base, Username: "cp", Password: "secret", CPName: "cp1",
		Snapshot: func(context.Context) ([]Session, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return c, c.NewSubscribers(0, nil)
}

// The Java app's answer (seba-subscribers.json, written by
// SubscribersContractTest from the real resource) is read field for field;
// a field the app sends that the client does not know refuses the line, so
// a new field on the Java side fails here.
func TestContractSubscribersFromJava(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(contractDir, "seba-subscribers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex exchange
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Method != "GET" || ex.Path != "/subscribers" || ex.Status != 200 {
		t.Fatalf("fixture: %s %s %d", ex.Method, ex.Path, ex.Status)
	}
	_, subs := subscribersServer(t, func() (int, string) { return ex.Status, string(ex.Body) })
	if err := subs.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	var want struct {
		Subscribers []map[string]any `json:"subscribers"`
	}
	if err := json.Unmarshal(ex.Body, &want); err != nil {
		t.Fatal(err)
	}
	if subs.Len() != len(want.Subscribers) || subs.Len() != 3 {
		t.Fatalf("%d lines read, the app sent %d", subs.Len(), len(want.Subscribers))
	}
	for _, w := range want.Subscribers {
		s, ok := subs.Lookup(w["accessPort"].(string), uint16(w["stag"].(float64)), uint16(w["ctag"].(float64)))
		if !ok {
			t.Fatalf("line %v not found", w)
		}
		// Every field as the app sent it: the decoded value marshalled back
		// equals the app's object.
		b, _ := json.Marshal(s)
		var got map[string]any
		_ = json.Unmarshal(b, &got)
		wb, _ := json.Marshal(w)
		gb, _ := json.Marshal(got)
		if string(wb) != string(gb) {
			t.Errorf("line decoded differently:\ngot  %s\nwant %s", gb, wb)
		}
	}
	s, _ := subs.Lookup("access1", 100, 900)
	if s.CircuitID != "olt1 eth 0/1:1.1" || s.RemoteID != "cpe-1" || s.NASPortID != "BBSM00000001-1" ||
		s.Down == nil || s.Down.Rate != 300_000_000 || s.Up == nil || s.Up.Rate != 230_000_000 {
		t.Errorf("access1/100/900: %+v %+v %+v", s, s.Down, s.Up)
	}
	s, _ = subs.Lookup("access1", 100, 901)
	if s.RemoteID != "Zürich-2" || s.CircuitID != "" || s.Down != nil || s.Up.Rate != 32_000_000 {
		t.Errorf("access1/100/901: %+v", s)
	}
	if s, _ := subs.Lookup("access3", 300, 7); s.Down != nil || s.Up != nil || s.NASPortID != "" {
		t.Errorf("access3/300/7 has no profiles and no identity: %+v", s)
	}
	if _, ok := subs.Lookup("access1", 100, 902); ok {
		t.Error("a line the app does not map was found")
	}
}

// Hostile answers: a bad line is left out (the others kept); a body that is
// not the table, a server error or no answer keep the last table; a 404 (no
// SEBA app) empties it.
func TestSubscribersBadAnswers(t *testing.T) {
	line := func(port string, stag, ctag int, extra string) string {
		return `{"accessPort":"` + port + `","stag":` + itoa(stag) + `,"ctag":` + itoa(ctag) +
			`,"lineGroup":"lg1","uni":{"deviceId":"of:1","port":"1","name":"U-1"},"onuSerial":"U",` +
			`"serviceName":"","circuitId":"c","remoteId":"r","nasPortId":"n"` + extra + `}`
	}
	good := line("access1", 100, 1, "")
	var code atomic.Int32
	var body atomic.Value
	code.Store(200)
	body.Store(`{"subscribers":[` + strings.Join([]string{
		good,
		line("access1", 0, 2, ""),
		line("access1", 4095, 2, ""),
		line("access1", 100, 70000, ""),
		line("access1", 100, 3, `,"extra":1`),
		strings.Replace(line("access1", 100, 4, ""), `"c"`, `"`+strings.Repeat("x", 64)+`"`, 1),
		strings.Replace(line("access1", 100, 5, ""), `"r"`, `"a\u0001b"`, 1),
		strings.Replace(line("access1", 100, 6, ""), `"n"`, `"a\u0085"`, 1),
		line("access1", 100, 7, `,"down":{"profile":"p","rate":0,"guaranteed":0,"peakBurst":0,"committedBurst":0}`),
		line("access1", 100, 8, `,"up":{"profile":"p","rate":-1,"guaranteed":0,"peakBurst":0,"committedBurst":0}`),
		line("", 100, 9, ""),
		`[1]`, `"x"`,
		good, // twice
	}, ",") + `],"problems":[]}`)
	_, subs := subscribersServer(t, func() (int, string) { return int(code.Load()), body.Load().(string) })
	if err := subs.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if subs.Len() != 1 {
		t.Fatalf("%d lines kept, want the one good line", subs.Len())
	}
	if _, ok := subs.Lookup("access1", 100, 1); !ok {
		t.Fatal("the good line is not there")
	}
	for _, b := range []string{`not json`, `{"subscribers":[`, `{"problems":[]}`, `[]`, `{"subscribers":{}}`} {
		body.Store(b)
		if err := subs.Pull(context.Background()); err == nil {
			t.Errorf("%q accepted", b)
		}
		if subs.Len() != 1 {
			t.Fatalf("%q lost the last table", b)
		}
	}
	code.Store(500)
	body.Store(`{"error":"boom"}`)
	if err := subs.Pull(context.Background()); err == nil || !strings.Contains(err.Error(), "boom") || subs.Len() != 1 {
		t.Fatalf("HTTP 500: err %v, %d lines", err, subs.Len())
	}
	code.Store(404)
	if err := subs.Pull(context.Background()); err != nil || subs.Len() != 0 {
		t.Fatalf("404 (no SEBA app): err %v, %d lines, want none", err, subs.Len())
	}
}

// The table's URL is the SEBA app's, beside the base URL.
func TestSubscribersURL(t *testing.T) {
	base, _ := url.Parse("https://onos.example:8443/onos/bngpod")
	c, err := New(Config{URL: base, CPName: "cp1", Snapshot: func(context.Context) ([]Session, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.NewSubscribers(0, nil).URL(); got != "https://onos.example:8443/onos/bngpod-seba/subscribers" {
		t.Fatal(got)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// FuzzDecodeSubscribers: never panics; every line kept is within the bounds.
func FuzzDecodeSubscribers(f *testing.F) {
	if raw, err := os.ReadFile(filepath.Join(contractDir, "seba-subscribers.json")); err == nil {
		var ex exchange
		if json.Unmarshal(raw, &ex) == nil {
			f.Add([]byte(ex.Body))
		}
	}
	f.Add([]byte(`{"subscribers":[{"accessPort":"a","stag":1,"ctag":2,"circuitId":"x"}],"problems":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, _, err := DecodeSubscribers(b)
		if err != nil {
			return
		}
		for k, s := range m {
			if k.AccessPort == "" || k.STag < 1 || k.STag > 4094 || k.CTag < 1 || k.CTag > 4094 ||
				len(s.CircuitID) > maxAgentID || len(s.RemoteID) > maxAgentID || len(s.NASPortID) > maxNASPortID ||
				!utf8.ValidString(s.CircuitID+s.RemoteID+s.NASPortID) ||
				(s.Down != nil && s.Down.Rate == 0) || (s.Up != nil && s.Up.Rate == 0) {
				t.Fatalf("kept %+v", s)
			}
		}
	})
}
