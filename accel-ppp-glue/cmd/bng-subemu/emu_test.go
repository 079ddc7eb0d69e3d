package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

func testSubs(n int) ([]Subscriber, map[string]string) {
	subs := make([]Subscriber, n)
	users := map[string]string{}
	for i := range subs {
		u := fmt.Sprintf("lg1-%d", i+1)
		subs[i] = Subscriber{Index: uint32(i + 1), User: u, Password: "pw-" + u, Port: "access1",
			STag: uint16(100 + i/4000), CTag: uint16(1 + i%4000)}
		users[u] = "pw-" + u
	}
	return subs, users
}

type rig struct {
	t      *testing.T
	emu    *Emu
	srv    *testServer
	cancel context.CancelFunc
	runErr chan error
}

// fastConfig: timers short enough for unit tests.
func fastConfig(auth string) Config {
	return Config{Auth: auth, Retransmit: 100 * time.Millisecond, PhaseTimeout: 2 * time.Second,
		Backoff: 50 * time.Millisecond, Tick: 5 * time.Millisecond, Redial: true}
}

func newRig(t *testing.T, cfg Config, subs []Subscriber, scfg serverConfig) *rig {
	t.Helper()
	a, b := NewPipe(1024)
	return newRigOn(t, cfg, subs, scfg, a, b)
}

// newRigOn runs the emulator on a and the test server on b.
func newRigOn(t *testing.T, cfg Config, subs []Subscriber, scfg serverConfig, a, b Transport) *rig {
	t.Helper()
	srv := newTestServer(b, scfg)
	emu, err := NewEmu(cfg, a, subs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{t: t, emu: emu, srv: srv, cancel: cancel, runErr: make(chan error, 1)}
	go func() { r.runErr <- emu.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		a.Close()
		b.Close()
		<-srv.done
	})
	return r
}

// stop ends Run and returns its error.
func (r *rig) stop() {
	r.t.Helper()
	r.cancel()
	select {
	case err := <-r.runErr:
		if err != nil {
			r.t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		r.t.Fatal("Run did not return after the stop")
	}
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *rig) waitUp(n uint64, timeout time.Duration) Stats {
	r.t.Helper()
	var st Stats
	waitFor(r.t, fmt.Sprintf("%d sessions up", n), timeout, func() bool {
		st = r.emu.Stats()
		return st.Up >= n
	})
	return st
}

func TestPAPAndCHAPSessionsComeUp(t *testing.T) {
	for _, tc := range []struct {
		auth    string
		srvAuth []ppp.AuthMethod
	}{
		{"pap", []ppp.AuthMethod{ppp.AuthCHAP, ppp.AuthPAP}}, // the client Naks CHAP to PAP
		{"pap", []ppp.AuthMethod{ppp.AuthPAP}},
		{"chap", []ppp.AuthMethod{ppp.AuthCHAP}},
		{"chap", []ppp.AuthMethod{ppp.AuthPAP, ppp.AuthCHAP}}, // the client Naks PAP to CHAP
	} {
		t.Run(fmt.Sprintf("%s-server-%v", tc.auth, tc.srvAuth), func(t *testing.T) {
			subs, users := testSubs(5)
			r := newRig(t, fastConfig(tc.auth), subs, serverConfig{Auth: tc.srvAuth, Users: users})
			st := r.waitUp(5, 5*time.Second)
			if st.EverUp != 5 || st.Failed != 0 || st.Dialled != 5 {
				t.Fatalf("stats %+v", st)
			}
			seen := map[string]bool{}
			for _, s := range r.emu.Sessions() {
				a, err := netip.ParseAddr(s.Address)
				if s.State != "up" || err != nil || !netip.MustParsePrefix("100.64.0.0/16").Contains(a) || seen[s.Address] {
					t.Fatalf("session %+v", s)
				}
				seen[s.Address] = true
				if s.Auth != tc.auth || s.PPPoEID == 0 || s.ACMAC != "02:ac:00:00:00:01" || s.MRU != 1492 ||
					len(s.DNS) != 2 || s.DNS[0] != "192.0.2.53" || s.DNS[1] != "192.0.2.54" {
					t.Fatalf("session %+v", s)
				}
			}
			r.srv.with(func() {
				if r.srv.ups != 5 || len(r.srv.sessions) != 5 {
					t.Fatalf("server: %d ups, %d sessions", r.srv.ups, len(r.srv.sessions))
				}
			})
			// hang-up on stop: one PADT per session, the server forgets them all
			r.stop()
			waitFor(t, "PADTs at the server", 2*time.Second, func() bool {
				n := 0
				r.srv.with(func() { n = len(r.srv.sessions) })
				return n == 0
			})
			r.srv.with(func() {
				for _, s := range subs {
					if r.srv.padtIn[s.MAC()] != 1 {
						t.Fatalf("%s: %d PADTs", s.User, r.srv.padtIn[s.MAC()])
					}
				}
			})
			if st := r.emu.Stats(); st.Type != "final" || st.Up != 0 {
				t.Fatalf("final %+v", st)
			}
		})
	}
}

func TestIPCPWithoutDNS(t *testing.T) {
	subs, users := testSubs(2)
	r := newRig(t, fastConfig("pap"), subs, serverConfig{Users: users, NoDNS: true})
	r.waitUp(2, 5*time.Second)
	for _, s := range r.emu.Sessions() {
		if len(s.DNS) != 0 || s.Address == "" {
			t.Fatalf("%+v", s)
		}
	}
}

func TestAuthRejectedIsRetriedThenGivenUp(t *testing.T) {
	subs, users := testSubs(3)
	users["lg1-2"] = "wrong"
	cfg := fastConfig("chap")
	cfg.Retries = 2
	r := newRig(t, cfg, subs, serverConfig{Users: users})
	waitFor(t, "the failure", 10*time.Second, func() bool { return r.emu.Stats().Failed == 1 })
	st := r.emu.Stats()
	if st.Up != 2 || st.FailReasons["auth_rejected"] != 3 || st.Dialled != 5 {
		t.Fatalf("stats %+v", st)
	}
	if s := r.emu.Sessions()[1]; s.State != "failed" || s.Attempts != 3 || s.LastError != "auth_rejected" {
		t.Fatalf("%+v", s)
	}
}

func TestSilentServerTimesOutWithRetries(t *testing.T) {
	subs, users := testSubs(4)
	cfg := fastConfig("pap")
	cfg.PhaseTimeout = 400 * time.Millisecond
	cfg.Retries = 1
	r := newRig(t, cfg, subs, serverConfig{Users: users, Silent: true})
	waitFor(t, "all failed", 10*time.Second, func() bool { return r.emu.Stats().Failed == 4 })
	st := r.emu.Stats()
	if st.FailReasons["padi_timeout"] != 8 || st.Dialled != 8 || st.Dialling != 0 {
		t.Fatalf("stats %+v", st)
	}
	// retransmissions at 100, 300, (700 > timeout) ms: 2-3 PADIs per attempt
	if n := r.srv.frames.Load(); n < 16 || n > 32 {
		t.Fatalf("%d PADIs for 8 attempts", n)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	subs, users := testSubs(20)
	cfg := fastConfig("pap")
	cfg.Concurrency = 3
	cfg.PhaseTimeout = 300 * time.Millisecond
	cfg.Retries = -1
	r := newRig(t, cfg, subs, serverConfig{Users: users, Silent: true})
	max := 0
	waitFor(t, "all failed", 10*time.Second, func() bool {
		st := r.emu.Stats()
		if st.Dialling > max {
			max = st.Dialling
		}
		return st.Failed == 20
	})
	if max != 3 {
		t.Fatalf("at most %d dialling, want 3", max)
	}
}

func TestDialRateLimit(t *testing.T) {
	subs, users := testSubs(30)
	cfg := fastConfig("pap")
	cfg.DialRate = 50 // 30 dials: the first at once, the rest 20 ms apart
	r := newRig(t, cfg, subs, serverConfig{Users: users})
	t0 := time.Now()
	r.waitUp(30, 10*time.Second)
	if took := time.Since(t0); took < 500*time.Millisecond {
		t.Fatalf("30 dials at 50/s took %v, want at least 0.58 s", took)
	}
	if st := r.emu.Stats(); st.Dialled != 30 {
		t.Fatalf("dialled %d, want 30", st.Dialled)
	}
}

func TestEchoesBothWays(t *testing.T) {
	subs, users := testSubs(3)
	cfg := fastConfig("pap")
	cfg.EchoInterval = 100 * time.Millisecond
	cfg.EchoFailures = 3
	r := newRig(t, cfg, subs, serverConfig{Users: users, Echo: 100 * time.Millisecond})
	r.waitUp(3, 5*time.Second)
	time.Sleep(700 * time.Millisecond)
	st := r.emu.Stats()
	if st.Echo["answered"] < 9 || st.Echo["sent"] < 9 || st.Echo["replies"] < 6 || st.Up != 3 || len(st.Drops) != 0 {
		t.Fatalf("stats %+v", st)
	}
	r.srv.with(func() {
		if len(r.srv.downs) != 0 {
			t.Fatalf("server downs %v", r.srv.downs)
		}
	})
	// the server goes silent: dead-peer detection after 3 unanswered echoes
	r.srv.mute.Store(true)
	waitFor(t, "echo timeouts", 5*time.Second, func() bool { return r.emu.Stats().Drops["echo_timeout"] == 3 })
}

func TestPADTFromServerAndRedial(t *testing.T) {
	subs, users := testSubs(2)
	r := newRig(t, fastConfig("pap"), subs, serverConfig{Users: users})
	r.waitUp(2, 5*time.Second)
	old := r.emu.Sessions()[0]
	r.srv.terminate(subs[0].MAC())
	waitFor(t, "the drop and the redial", 5*time.Second, func() bool {
		st := r.emu.Stats()
		return st.Drops["padt"] == 1 && st.UpEvents == 3 && st.Up == 2
	})
	now := r.emu.Sessions()[0]
	if now.PPPoEID == old.PPPoEID || now.State != "up" {
		t.Fatalf("before %+v after %+v", old, now)
	}
	r.srv.with(func() {
		if r.srv.padtIn[subs[0].MAC()] != 0 {
			t.Fatal("a PADT from the server was answered with a PADT")
		}
	})
}

func TestNoRedial(t *testing.T) {
	subs, users := testSubs(1)
	cfg := fastConfig("pap")
	cfg.Redial = false
	r := newRig(t, cfg, subs, serverConfig{Users: users})
	r.waitUp(1, 5*time.Second)
	r.srv.terminate(subs[0].MAC())
	waitFor(t, "closed", 5*time.Second, func() bool { return r.emu.Sessions()[0].State == "closed" })
	time.Sleep(200 * time.Millisecond)
	if st := r.emu.Stats(); st.UpEvents != 1 || st.Dialled != 1 {
		t.Fatalf("%+v", st)
	}
}

func TestTrafficCountersAndLoss(t *testing.T) {
	subs, users := testSubs(4)
	cfg := fastConfig("pap")
	cfg.Rate = 100
	cfg.Target = netip.MustParseAddrPort("198.51.100.10:7")
	cfg.Size = 100
	r := newRig(t, cfg, subs, serverConfig{Users: users, UDPEcho: true})
	r.waitUp(4, 5*time.Second)
	time.Sleep(time.Second)
	st := r.emu.Stats()
	if st.TxPkts < 4*70 || st.RxPkts+8 < st.TxPkts || st.RxBad != 0 || st.TxBytes != st.TxPkts*128 {
		t.Fatalf("stats %+v", st)
	}
	for _, s := range r.emu.Sessions() {
		if s.TxPkts < 70 || s.RxPkts == 0 || s.RxBytes != s.RxPkts*128 || s.RTTAvgMs <= 0 {
			t.Fatalf("%+v", s)
		}
	}
	// the server drops one frame in ten: the loss shows
	r.srv.dropPct.Store(10)
	time.Sleep(time.Second)
	st2 := r.emu.Stats()
	lost := (st2.TxPkts - st.TxPkts) - (st2.RxPkts - st.RxPkts)
	if lost < 20 {
		t.Fatalf("lost %d of %d", lost, st2.TxPkts-st.TxPkts)
	}
}

// TestTrafficOutageIsMeasured: the longest time between two echoes of a
// session and when it ended (what make bench-failover reads per session).
func TestTrafficOutageIsMeasured(t *testing.T) {
	subs, users := testSubs(2)
	cfg := fastConfig("pap")
	cfg.Rate = 100
	cfg.Target = netip.MustParseAddrPort("198.51.100.10:7")
	r := newRig(t, cfg, subs, serverConfig{Users: users, UDPEcho: true})
	r.waitUp(2, 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	for _, s := range r.emu.Sessions() {
		if s.MaxRxGapMs <= 0 || s.MaxRxGapMs > 200 {
			t.Fatalf("before the outage: longest gap %.1f ms at 100 echoes/s", s.MaxRxGapMs)
		}
	}
	r.srv.dropPct.Store(100)
	outage := time.Now()
	time.Sleep(600 * time.Millisecond)
	r.srv.dropPct.Store(0)
	time.Sleep(300 * time.Millisecond)
	for _, s := range r.emu.Sessions() {
		if s.MaxRxGapMs < 550 || s.MaxRxGapMs > 1000 || s.MaxRxGapEndMs == nil || s.FirstRxMs == nil ||
			*s.MaxRxGapEndMs < *s.FirstRxMs+550 {
			t.Fatalf("a 600 ms outage from %v: %+v", outage, s)
		}
	}
}

func TestTPIDFromConfigAndSubscriber(t *testing.T) {
	subs, users := testSubs(4)
	subs[3].TPID = 0x8100
	cfg := fastConfig("pap")
	cfg.TPID = 0x88a8
	r := newRig(t, cfg, subs, serverConfig{Users: users})
	r.waitUp(4, 5*time.Second)
	r.srv.with(func() {
		if r.srv.tpids[0x88a8] == 0 || r.srv.tpids[0x8100] == 0 {
			t.Fatalf("tpids %v", r.srv.tpids)
		}
		for _, ss := range r.srv.sessions {
			want := uint16(0x88a8)
			if ss.mac == subs[3].MAC() {
				want = 0x8100
			}
			if ss.tpid != want {
				t.Fatalf("session of %x on tpid %#x", ss.mac, ss.tpid)
			}
		}
	})
}

// TestThousandsOfSessions checks the one-loop, timer-wheel design: 5,000
// sessions against the in-process server.
func TestThousandsOfSessions(t *testing.T) {
	n := 5000
	if testing.Short() || raceEnabled {
		n = 1000
	}
	subs, users := testSubs(n)
	cfg := fastConfig("pap")
	cfg.Concurrency = 1000
	cfg.Retransmit = time.Second
	cfg.PhaseTimeout = 10 * time.Second
	cfg.EchoInterval = time.Second
	cfg.Rate = 2
	cfg.Target = netip.MustParseAddrPort("198.51.100.10:7")
	t0 := time.Now()
	r := newRig(t, cfg, subs, serverConfig{Users: users, Auth: []ppp.AuthMethod{ppp.AuthPAP}, UDPEcho: true})
	st := r.waitUp(uint64(n), 30*time.Second)
	el := time.Since(t0)
	t.Logf("%d sessions up in %v: %.0f sessions/s (setup p50 %.1f ms, p99 %.1f ms), failures %v",
		n, el.Round(time.Millisecond), float64(n)/el.Seconds(), st.SetupP50, st.SetupP99, st.FailReasons)
	time.Sleep(1500 * time.Millisecond)
	st = r.emu.Stats()
	if st.Up != uint64(n) || st.Echo["replies"] < uint64(n) || st.RxPkts < uint64(n) || len(st.Drops) != 0 {
		t.Fatalf("after 1.5 s: %+v", st)
	}
	t.Logf("after 1.5 s: %d echoes sent, %d replies; %d datagrams sent, %d back", st.Echo["sent"],
		st.Echo["replies"], st.TxPkts, st.RxPkts)
}

func TestStatusAPIAndJSONLines(t *testing.T) {
	subs, users := testSubs(3)
	users["lg1-3"] = "wrong"
	cfg := fastConfig("pap")
	cfg.Retries = -1
	r := newRig(t, cfg, subs, serverConfig{Users: users})
	sock := filepath.Join(t.TempDir(), "subemu.sock")
	stop, err := r.emu.ServeStatus(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	waitFor(t, "2 up, 1 failed", 5*time.Second, func() bool {
		st := r.emu.Stats()
		return st.Up == 2 && st.Failed == 1
	})
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	get := func(path string, v any) {
		t.Helper()
		resp, err := c.Get("http://subemu" + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %s", path, resp.Status)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	var st map[string]any
	get("/v1/stats", &st)
	if st["up"].(float64) != 2 || st["failed"].(float64) != 1 || st["fail_reasons"].(map[string]any)["auth_rejected"].(float64) != 1 {
		t.Fatalf("stats %v", st)
	}
	var ss []SessionStatus
	get("/v1/sessions", &ss)
	if len(ss) != 3 || ss[2].State != "failed" || ss[0].MAC != "02:5b:00:00:00:01" || ss[0].User != "lg1-1" {
		t.Fatalf("sessions %+v", ss)
	}
	get("/v1/sessions?state=up", &ss)
	if len(ss) != 2 {
		t.Fatalf("up sessions %+v", ss)
	}
	resp, err := c.Post("http://subemu/v1/stats", "text/plain", nil)
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %v %v", resp, err)
	}
	resp.Body.Close()

	var buf bytes.Buffer
	emitJSON(&buf, r.emu.Stats())
	emitJSON(&buf, r.emu.Stats())
	sc := bufio.NewScanner(&buf)
	lines := 0
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["type"] != "stats" || m["subscribers"].(float64) != 3 {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines++
	}
	if lines != 2 {
		t.Fatalf("%d lines", lines)
	}
	r.stop()
	stop()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
}

// TestFirstEchoTimes: a session counts as carrying traffic only once an echoed
// datagram of its own came back; the per-session times order as dial <= up <=
// first echo, and without an echo server nothing counts.
func TestFirstEchoTimes(t *testing.T) {
	for _, echo := range []bool{true, false} {
		t.Run(fmt.Sprintf("echo=%v", echo), func(t *testing.T) {
			subs, users := testSubs(4)
			cfg := fastConfig("pap")
			cfg.Rate = 50
			cfg.Target = netip.MustParseAddrPort("198.51.100.10:7")
			r := newRig(t, cfg, subs, serverConfig{Users: users, UDPEcho: echo})
			r.waitUp(4, 5*time.Second)
			time.Sleep(300 * time.Millisecond)
			st := r.emu.Stats()
			if d := time.Since(time.Unix(0, int64(st.StartUnix*1e9))); d < 0 || d > 10*time.Second {
				t.Fatalf("start_unix %v is %v ago", st.StartUnix, d)
			}
			if !echo {
				if st.TrafficUp != 0 || st.TrafficRateAvg != 0 || st.TxPkts == 0 {
					t.Fatalf("no echo server, yet %+v", st)
				}
				for _, s := range r.emu.Sessions() {
					if s.FirstRxMs != nil || s.FirstDialMs == nil || s.UpMs == nil {
						t.Fatalf("%+v", s)
					}
				}
				return
			}
			if st.TrafficUp != 4 || st.TrafficRateAvg <= 0 {
				t.Fatalf("stats %+v", st)
			}
			for _, s := range r.emu.Sessions() {
				if s.FirstDialMs == nil || s.UpMs == nil || s.FirstRxMs == nil {
					t.Fatalf("times missing: %+v", s)
				}
				if !(*s.FirstDialMs <= *s.UpMs && *s.UpMs <= *s.FirstRxMs) || *s.FirstRxMs > st.T*1000 {
					t.Fatalf("dial %.1f up %.1f first echo %.1f (t %.3f s)", *s.FirstDialMs, *s.UpMs, *s.FirstRxMs, st.T)
				}
			}
		})
	}
}
