package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/api"
)

var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

// fakeDaemon is the management API of a bng-cp with two sessions.
type fakeDaemon struct {
	mu         sync.Mutex
	sessions   []api.SessionView
	terminated []string
	requests   []string
}

func newFake() *fakeDaemon {
	return &fakeDaemon{sessions: []api.SessionView{
		{ID: "1", State: "up", User: "user1", Instance: 1, AccessPort: "olt1", STag: 100, CTag: 7,
			MAC: "02:00:00:00:00:01", PPPoESessionID: 1, IPv4: netip.MustParseAddr("100.64.0.2"),
			QosProfile: "100M", RateDown: 100e6, RateUp: 20e6, AcctSessionID: "00000001", Started: t0.Add(-90 * time.Minute),
			UpOctets: 1000, DownOctets: 2000, UpPackets: 10, DownPackets: 20, CPSEID: 0x100000001, UPSEID: 0x42,
			CircuitID: "olt1 eth 1/1/1:100.7", RemoteID: "cpe-1"},
		{ID: "2", State: "auth", Kind: "ipoe", User: "evil\x1b[2Juser\tx", Instance: 2, AccessPort: "olt2", STag: 200,
			MAC: "02:00:00:00:00:02", Started: t0.Add(-65 * time.Second)},
	}}
}

func (f *fakeDaemon) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	switch {
	case r.Method == "GET" && r.URL.Path == api.PathSessions:
		flt, err := api.ParseSessionFilter(r.URL.Query())
		if err != nil {
			api.WriteError(w, 400, err.Error())
			return
		}
		out := []api.SessionView{}
		for i := range f.sessions {
			if flt.Match(&f.sessions[i]) {
				out = append(out, f.sessions[i])
			}
		}
		api.WriteJSON(w, 200, out)
	case strings.HasPrefix(r.URL.Path, api.PathSessions+"/"):
		id := strings.TrimPrefix(r.URL.Path, api.PathSessions+"/")
		for _, s := range f.sessions {
			if s.ID != id {
				continue
			}
			switch r.Method {
			case "GET":
				api.WriteJSON(w, 200, s)
			case "DELETE":
				f.terminated = append(f.terminated, id)
				s.State = "terminating"
				api.WriteJSON(w, 200, s)
			default:
				api.WriteError(w, 405, "method not allowed")
			}
			return
		}
		api.WriteError(w, 404, "session "+id+" not found")
	case r.URL.Path == api.PathPools:
		api.WriteJSON(w, 200, []api.PoolView{
			{Name: "pool-a", LineGroup: "lg1", Prefixes: []netip.Prefix{netip.MustParsePrefix("100.64.0.0/24")}, Size: 254, Used: 1},
			{Name: "p2", LineGroup: "lg-two", Prefixes: []netip.Prefix{netip.MustParsePrefix("100.65.0.0/29"), netip.MustParsePrefix("100.65.1.0/31")}, Size: 8, Used: 8},
		})
	case r.URL.Path == api.PathInstances:
		api.WriteJSON(w, 200, []api.InstanceView{
			{ID: 1, Name: "dp1", Address: "127.200.0.11:8805", State: "associated", RecoveryTime: t0.Add(-time.Hour), Since: t0.Add(-time.Hour + time.Second), Sessions: 1, LCPOffload: true},
			{ID: 2, Name: "dp2", Address: "127.200.0.12:8805", State: "down", Sessions: 1},
		})
	case r.URL.Path == api.PathStats:
		w.Write([]byte(`{"pppoe":{"padi":12,"pado":11},"radius":{"servers":{"r1":{"accepts":3}}},"up":true,"version":"x","none":null,"list":[1,2]}`))
	default:
		api.WriteError(w, 404, "no such path")
	}
}

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "bngcp-ctl") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "cp.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return sock
}

// ctl runs the CLI with BNGCP_SOCKET=sock and the clock at t0.
func ctl(sock string, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	env := func(k string) string {
		if k == "BNGCP_SOCKET" {
			return sock
		}
		return ""
	}
	code = runWith(args, env, &o, &e, func() time.Time { return t0 })
	return code, o.String(), e.String()
}

func TestTables(t *testing.T) {
	f := newFake()
	sock := serve(t, f)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"sessions"}, "" +
			"ID  STATE  KIND   USER            INSTANCE  PORT  VLAN   MAC                IPV4        QOS   UPTIME\n" +
			"1   up     pppoe  user1           1         olt1  100/7  02:00:00:00:00:01  100.64.0.2  100M  1h30m00s\n" +
			"2   auth   ipoe   evil?[2Juser?x  2         olt2  200    02:00:00:00:00:02  -           -     1m05s\n"},
		{[]string{"pools"}, "" +
			"NAME    LINE-GROUP  PREFIXES                     SIZE  USED  FREE  USE\n" +
			"pool-a  lg1         100.64.0.0/24                254   1     253   0.4%\n" +
			"p2      lg-two      100.65.0.0/29,100.65.1.0/31  8     8     0     100.0%\n"},
		{[]string{"instances"}, "" +
			"ID  NAME  ADDRESS            STATE       SESSIONS  LCP-OFFLOAD  SINCE                 RECOVERY-TIME\n" +
			"1   dp1   127.200.0.11:8805  associated  1         yes          2026-11-25T09:00:01Z  2026-11-25T09:00:00Z\n" +
			"2   dp2   127.200.0.12:8805  down        1         no           -                     -\n"},
		{[]string{"stats"}, "" +
			"COUNTER                    VALUE\n" +
			"list                       [1,2]\n" +
			"none                       -\n" +
			"pppoe.padi                 12\n" +
			"pppoe.pado                 11\n" +
			"radius.servers.r1.accepts  3\n" +
			"up                         true\n" +
			"version                    x\n"},
		{[]string{"session", "show", "1"}, "" +
			"id:              1\n" +
			"state:           up\n" +
			"kind:            pppoe\n" +
			"user:            user1\n" +
			"instance:        1\n" +
			"access port:     olt1\n" +
			"vlan (s/c):      100/7\n" +
			"mac:             02:00:00:00:00:01\n" +
			"pppoe session:   1\n" +
			"ipv4:            100.64.0.2\n" +
			"qos profile:     100M\n" +
			"rate down:       100 Mbit/s\n" +
			"rate up:         20 Mbit/s\n" +
			"acct session id: 00000001\n" +
			"started:         2026-11-25T08:30:00Z\n" +
			"uptime:          1h30m00s\n" +
			"up octets:       1000\n" +
			"down octets:     2000\n" +
			"up packets:      10\n" +
			"down packets:    20\n" +
			"cp seid:         0x0000000100000001\n" +
			"up seid:         0x0000000000000042\n" +
			"circuit id:      olt1 eth 1/1/1:100.7\n" +
			"remote id:       cpe-1\n"},
		{[]string{"session", "terminate", "2"}, "session 2: termination requested\n"},
	}
	for _, c := range cases {
		code, out, errOut := ctl(sock, c.args...)
		if code != 0 || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
			continue
		}
		if out != c.want {
			t.Errorf("%v:\ngot:\n%s\nwant:\n%s", c.args, out, c.want)
		}
	}
	if !reflect.DeepEqual(f.terminated, []string{"2"}) {
		t.Errorf("terminated %v", f.terminated)
	}
}

func TestFiltersAndFlags(t *testing.T) {
	f := newFake()
	sock := serve(t, f)
	code, out, _ := ctl(sock, "sessions", "--instance", "2", "--state=auth", "--user", "evil\x1b[2Juser\tx")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(out, "olt2") {
		t.Fatalf("filtered: %d %q", code, out)
	}
	code, out, _ = ctl(sock, "sessions", "--instance", "3")
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("no match: %d %q", code, out)
	}
	// Options before the command, after it and between arguments.
	other := serve(t, newFake())
	for _, args := range [][]string{
		{"--socket", other, "-o", "json", "session", "show", "1"},
		{"session", "show", "1", "-o", "json", "--socket", other},
		{"session", "-o=json", "show", "--socket=" + other, "1"},
	} {
		code, out, errOut := ctl("/nonexistent", args...)
		var s api.SessionView
		if code != 0 || json.Unmarshal([]byte(out), &s) != nil || s.ID != "1" || s.CPSEID != 0x100000001 {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
	f.mu.Lock()
	want := []string{
		"GET /v1/sessions?instance=2&state=auth&user=evil%1B%5B2Juser%09x",
		"GET /v1/sessions?instance=3",
	}
	if !reflect.DeepEqual(f.requests, want) {
		t.Errorf("requests %q", f.requests)
	}
	f.mu.Unlock()
}

func TestJSONOutput(t *testing.T) {
	f := newFake()
	sock := serve(t, f)
	code, out, _ := ctl(sock, "-o", "json", "sessions")
	var list []api.SessionView
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || !reflect.DeepEqual(list, f.sessions) {
		t.Fatalf("sessions json: %d %q", code, out)
	}
	code, out, _ = ctl(sock, "-o", "json", "sessions", "--user", "nobody")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("empty list: %q", out)
	}
	code, out, _ = ctl(sock, "pools", "-o", "json")
	var pools []api.PoolView
	if code != 0 || json.Unmarshal([]byte(out), &pools) != nil || len(pools) != 2 || pools[1].Prefixes[1].Bits() != 31 {
		t.Fatalf("pools json: %q", out)
	}
	code, out, _ = ctl(sock, "instances", "-o", "json")
	var inst []api.InstanceView
	if code != 0 || json.Unmarshal([]byte(out), &inst) != nil || !inst[0].LCPOffload || !inst[0].RecoveryTime.Equal(t0.Add(-time.Hour)) {
		t.Fatalf("instances json: %q", out)
	}
	code, out, _ = ctl(sock, "stats", "-o", "json")
	var st map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st["pppoe"].(map[string]any)["padi"] != 12.0 {
		t.Fatalf("stats json: %q", out)
	}
	code, out, _ = ctl(sock, "-o", "json", "session", "terminate", "1")
	var s api.SessionView
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil || s.State != "terminating" {
		t.Fatalf("terminate json: %q", out)
	}
}

func TestErrors(t *testing.T) {
	sock := serve(t, newFake())
	// Daemon answers with an error: exit 1, its message.
	code, out, errOut := ctl(sock, "session", "show", "99")
	if code != 1 || out != "" || errOut != "bngcpctl: session 99 not found\n" {
		t.Errorf("unknown id: %d %q %q", code, out, errOut)
	}
	code, _, errOut = ctl(sock, "session", "terminate", "99")
	if code != 1 || !strings.Contains(errOut, "session 99 not found") {
		t.Errorf("terminate unknown id: %d %q", code, errOut)
	}
	// No daemon: exit 1, says so and names the socket.
	dead := filepath.Join(t.TempDir(), "none.sock")
	code, _, errOut = ctl(dead, "pools")
	if code != 1 || !strings.Contains(errOut, "not running") || !strings.Contains(errOut, dead) {
		t.Errorf("no daemon: %d %q", code, errOut)
	}
	// A daemon that answers garbage.
	bad := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }))
	code, _, errOut = ctl(bad, "instances")
	if code != 1 || !strings.Contains(errOut, "bad answer") {
		t.Errorf("garbage: %d %q", code, errOut)
	}
	// A daemon that hangs: the timeout ends it.
	block := make(chan struct{})
	slow := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer close(block)
	start := time.Now()
	code, _, errOut = ctl(slow, "--timeout", "200ms", "stats")
	if code != 1 || time.Since(start) > 5*time.Second || errOut == "" {
		t.Errorf("timeout: %d %q after %v", code, errOut, time.Since(start))
	}
}

func TestUsage(t *testing.T) {
	sock := serve(t, newFake())
	bad := [][]string{
		{},
		{"bogus"},
		{"sessions", "extra"},
		{"sessions", "--instance", "x"},
		{"sessions", "--instance", "-1"},
		{"sessions", "--bogus"},
		{"-o", "yaml", "pools"},
		{"pools", "-o"},
		{"session"},
		{"session", "show"},
		{"session", "show", "1", "2"},
		{"session", "kill", "1"},
		{"session", "show", ""},
		{"pools", "x"},
		{"--timeout", "0s", "stats"},
		{"--timeout", "soon", "stats"},
		{"pools", "--instance", "1"}, // only sessions has --instance
	}
	for _, args := range bad {
		code, out, errOut := ctl(sock, args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "bngcpctl: ") || !strings.Contains(errOut, "usage: bngcpctl") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"sessions", "-h"}} {
		code, out, _ := ctl(sock, args...)
		if code != 0 || !strings.HasPrefix(out, "usage: bngcpctl") {
			t.Errorf("%q: %d %q", args, code, out)
		}
	}
}

func TestFormatters(t *testing.T) {
	c := &cli{now: func() time.Time { return t0 }}
	for d, want := range map[time.Duration]string{
		0: "0m00s", 59 * time.Second: "0m59s", time.Hour: "1h00m00s",
		26*time.Hour + 3*time.Minute: "1d02h03m", -time.Second: "0s",
	} {
		if got := c.uptime(t0.Add(-d)); got != want {
			t.Errorf("uptime %v = %q, want %q", d, got, want)
		}
	}
	if c.uptime(time.Time{}) != "-" {
		t.Error("zero time")
	}
	for v, want := range map[uint64]string{0: "-", 1: "1 bit/s", 64000: "64 kbit/s", 2e9: "2 Gbit/s", 1500001: "1500001 bit/s"} {
		if got := rate(v); got != want {
			t.Errorf("rate %d = %q", v, got)
		}
	}
}
