package api

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// serveUnix starts h on a unix socket in a temp dir and returns its path.
func serveUnix(t *testing.T, h http.Handler) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "bngcp-api") // t.TempDir can exceed the 108-byte socket path limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "cp.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return path
}

var sample = SessionView{
	ID: "17", State: "up", Kind: "pppoe", User: "user1", Instance: 1, AccessPort: "olt1", STag: 100, CTag: 7,
	MAC: "02:00:00:00:00:01", PPPoESessionID: 4, IPv4: netip.MustParseAddr("100.64.0.2"),
	QosProfile: "100M", RateDown: 100e6, RateUp: 20e6, AcctSessionID: "0000000100000011",
	Started: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), UpOctets: 1, DownOctets: 2,
	UpPackets: 3, DownPackets: 4, CPSEID: 1 << 60, UPSEID: 9, CircuitID: "c", RemoteID: "r",
}

// TestJSONNames pins the wire names of the plan.
func TestJSONNames(t *testing.T) {
	b, err := json.Marshal(sample)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"17","state":"up","kind":"pppoe","user":"user1","instance":1,"access_port":"olt1","stag":100,"ctag":7,` +
		`"mac":"02:00:00:00:00:01","pppoe_session_id":4,"ipv4":"100.64.0.2","qos_profile":"100M",` +
		`"rate_down":100000000,"rate_up":20000000,"acct_session_id":"0000000100000011",` +
		`"started":"2026-11-25T10:00:00Z","up_octets":1,"down_octets":2,"up_packets":3,"down_packets":4,` +
		`"cp_seid":1152921504606846976,"up_seid":9,"circuit_id":"c","remote_id":"r"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back SessionView
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, sample) {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	p, _ := json.Marshal(PoolView{Name: "p1", LineGroup: "lg1", Prefixes: []netip.Prefix{netip.MustParsePrefix("100.64.0.0/24")}, Size: 254, Used: 3})
	if string(p) != `{"name":"p1","line_group":"lg1","prefixes":["100.64.0.0/24"],"size":254,"used":3}` {
		t.Fatalf("pool %s", p)
	}
	i, _ := json.Marshal(InstanceView{ID: 1, Name: "dp1", Address: "127.200.0.11:8805", State: "associated",
		RecoveryTime: sample.Started, Since: sample.Started, Sessions: 5, LCPOffload: true, IPoE: true})
	if string(i) != `{"id":1,"name":"dp1","address":"127.200.0.11:8805","state":"associated",`+
		`"recovery_time":"2026-11-25T10:00:00Z","since":"2026-11-25T10:00:00Z","sessions":5,"lcp_offload":true,`+
		`"ipoe":true,"ipoe6":false}` {
		t.Fatalf("instance %s", i)
	}
	// A session before IPCP has no address: "".
	b, _ = json.Marshal(SessionView{})
	if !strings.Contains(string(b), `"ipv4":""`) {
		t.Fatalf("zero session %s", b)
	}
}

func TestSessionFilter(t *testing.T) {
	f := SessionFilter{Instance: 0, HasInstance: true, User: "a b&c", State: "up"}
	back, err := ParseSessionFilter(f.Query())
	if err != nil || back != f {
		t.Fatalf("round trip %+v %v", back, err)
	}
	if q := (SessionFilter{}).Query(); len(q) != 0 {
		t.Fatalf("empty filter query %v", q)
	}
	for _, bad := range []string{"instance=x", "instance=4294967296", "instance=-1", "usr=a", "user=a&user=b"} {
		q, _ := url.ParseQuery(bad)
		if _, err := ParseSessionFilter(q); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	s := sample
	for _, c := range []struct {
		f    SessionFilter
		want bool
	}{
		{SessionFilter{}, true},
		{SessionFilter{HasInstance: true, Instance: 1}, true},
		{SessionFilter{HasInstance: true}, false},
		{SessionFilter{User: "user1", State: "up"}, true},
		{SessionFilter{User: "user2"}, false},
		{SessionFilter{State: "lcp"}, false},
	} {
		if got := c.f.Match(&s); got != c.want {
			t.Errorf("%+v: %v", c.f, got)
		}
	}
}

func TestClient(t *testing.T) {
	var gotQuery url.Values
	var gotPath, gotMethod string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/sessions", func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.Query()
		WriteJSON(w, 200, []SessionView{sample})
	})
	mux.HandleFunc("/v1/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotMethod = r.URL.EscapedPath(), r.Method
		switch r.PathValue("id") {
		case "17":
			if r.Method == http.MethodDelete {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			WriteJSON(w, 200, sample)
		case "a/b":
			WriteJSON(w, 200, SessionView{ID: "a/b"})
		default:
			WriteError(w, 404, "session "+r.PathValue("id")+" not found")
		}
	})
	mux.HandleFunc("GET /v1/stats", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"pppoe":{"padi":3},"up":true}`))
	})
	mux.HandleFunc("GET /v1/pools", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", 500) // not JSON
	})
	mux.HandleFunc("GET /v1/instances", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`[{"id": "not a number"}]`))
	})
	sock := serveUnix(t, mux)
	c := NewClient(sock, 5*time.Second)
	ctx := context.Background()

	list, err := c.Sessions(ctx, SessionFilter{HasInstance: true, Instance: 2, User: "u"})
	if err != nil || len(list) != 1 || !reflect.DeepEqual(list[0], sample) {
		t.Fatalf("sessions %v %+v", err, list)
	}
	if gotQuery.Get("instance") != "2" || gotQuery.Get("user") != "u" || gotQuery.Has("state") {
		t.Fatalf("query %v", gotQuery)
	}
	s, err := c.Session(ctx, "17")
	if err != nil || s.ID != "17" || s.CPSEID != 1<<60 {
		t.Fatalf("session %v %+v", err, s)
	}
	s, err = c.Session(ctx, "a/b")
	if err != nil || s.ID != "a/b" || gotPath != "/v1/sessions/a%2Fb" {
		t.Fatalf("escaped id: %v %+v %s", err, s, gotPath)
	}
	_, err = c.Session(ctx, "99")
	var ae *Error
	if !errors.As(err, &ae) || ae.Status != 404 || ae.Message != "session 99 not found" {
		t.Fatalf("unknown id: %#v", err)
	}
	if v, err := c.Terminate(ctx, "17"); err != nil || v != nil || gotMethod != http.MethodDelete {
		t.Fatalf("terminate %v %v %s", v, err, gotMethod)
	}
	st, err := c.Stats(ctx)
	if err != nil || st["up"] != true || st["pppoe"].(map[string]any)["padi"] != 3.0 {
		t.Fatalf("stats %v %v", st, err)
	}
	_, err = c.Pools(ctx)
	if !errors.As(err, &ae) || ae.Status != 500 || !strings.Contains(ae.Message, "boom") {
		t.Fatalf("non-JSON error: %v", err)
	}
	if _, err = c.Instances(ctx); err == nil || !strings.Contains(err.Error(), "bad answer") {
		t.Fatalf("bad JSON: %v", err)
	}
}

func TestClientNotRunning(t *testing.T) {
	dir := t.TempDir()
	c := NewClient(filepath.Join(dir, "none.sock"), time.Second)
	_, err := c.Pools(context.Background())
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "none.sock") {
		t.Fatalf("missing socket: %v", err)
	}
	// A socket file nobody listens on: refused.
	dir2, _ := os.MkdirTemp("", "bngcp-api")
	defer os.RemoveAll(dir2)
	path := filepath.Join(dir2, "dead.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	_, err = NewClient(path, time.Second).Pools(context.Background())
	if !errors.Is(err, ErrNotRunning) {
		t.Fatalf("dead socket: %v", err)
	}
}
