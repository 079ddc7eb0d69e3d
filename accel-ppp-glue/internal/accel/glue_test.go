package accel

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/store"
)

func labConfig(t testing.TB) *config.Config {
	t.Helper()
	cfg, err := config.Load(filepath.Join("..", "..", "..", "topology", "tests", "golden", "lab", "cp.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// fakePlane stands for pfcpcp.Function with its rules: a session must be
// valid as the function checks it (CP SEID, IPv4, tags, PPPoE session id);
// establishing the same CP SEID again gives the same UP SEID; deleting an
// unknown UP SEID is cause 65; a DP that is down answers ErrNotAssociated.
type fakePlane struct {
	mu       sync.Mutex
	next     uint64
	byCP     map[uint64]uint64 // CP SEID -> UP SEID (one instance is enough here)
	sess     map[uint64]pfcpcp.Session
	restored map[uint64]uint64
	calls    []string
	down     bool
	usage    pfcpcp.Usage // returned by Delete
}

func newFakePlane() *fakePlane {
	return &fakePlane{next: 100, byCP: map[uint64]uint64{}, sess: map[uint64]pfcpcp.Session{}, restored: map[uint64]uint64{}}
}

func (p *fakePlane) Establish(ctx context.Context, inst uint32, s *pfcpcp.Session) (uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.down:
		return 0, pfcpcp.ErrNotAssociated
	case s.CPSEID == 0 || s.CPSEID&(1<<63) != 0 || !s.IPv4.Is4() || s.STag == 0 || s.CTag == 0 ||
		s.PPPoESessionID == 0 || s.PPPoESessionID == 0xffff:
		return 0, fmt.Errorf("%w: %+v", pfcpcp.ErrInvalidSession, s)
	}
	p.calls = append(p.calls, fmt.Sprintf("establish %d %d %s %d/%d %x", inst, s.CPSEID, s.IPv4, s.STag, s.CTag, s.PPPoESessionID))
	if up, ok := p.byCP[s.CPSEID]; ok {
		return up, nil
	}
	p.next++
	p.byCP[s.CPSEID] = p.next
	p.sess[p.next] = *s
	return p.next, nil
}

func (p *fakePlane) Modify(ctx context.Context, inst uint32, up, cp uint64, m *pfcpcp.Mod) ([]pfcpcp.Usage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.sess[up]; !ok {
		return nil, &pfcpcp.CauseError{Cause: 65}
	}
	prof := "-"
	if m.QosProfile != nil {
		prof = *m.QosProfile
	}
	p.calls = append(p.calls, fmt.Sprintf("modify %d %s %d/%d", up, prof, *m.UpMBR, *m.DownMBR))
	return nil, nil
}

func (p *fakePlane) Delete(ctx context.Context, inst uint32, up uint64) ([]pfcpcp.Usage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return nil, pfcpcp.ErrNotAssociated
	}
	s, ok := p.sess[up]
	if !ok {
		return nil, &pfcpcp.CauseError{Cause: 65}
	}
	delete(p.sess, up)
	delete(p.byCP, s.CPSEID)
	p.calls = append(p.calls, fmt.Sprintf("delete %d", up))
	return []pfcpcp.Usage{p.usage}, nil
}

func (p *fakePlane) Restore(inst uint32, cp, up uint64) {
	p.mu.Lock()
	p.restored[cp] = up
	p.mu.Unlock()
}
func (p *fakePlane) Forget(inst uint32, cp uint64) {}

func (p *fakePlane) restart() {
	p.mu.Lock()
	p.byCP, p.sess = map[uint64]uint64{}, map[uint64]pfcpcp.Session{}
	p.mu.Unlock()
}

func (p *fakePlane) log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}

type acctRec struct {
	mu   sync.Mutex
	reqs []aaa.AcctRequest
}

func (a *acctRec) Account(ctx context.Context, r *aaa.AcctRequest) error {
	a.mu.Lock()
	a.reqs = append(a.reqs, *r)
	a.mu.Unlock()
	return nil
}

func (a *acctRec) wait(t *testing.T, n int) []aaa.AcctRequest {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		a.mu.Lock()
		if len(a.reqs) >= n {
			out := append([]aaa.AcctRequest(nil), a.reqs...)
			a.mu.Unlock()
			return out
		}
		a.mu.Unlock()
	}
	t.Fatalf("fewer than %d Accounting-Requests", n)
	return nil
}

type rig struct {
	t     *testing.T
	cfg   *config.Config
	plane *fakePlane
	acct  *acctRec
	cli   *fakeAccel
	db    *store.DB
	dir   string
	g     *Glue
	stop  context.CancelFunc
}

func newRig(t *testing.T) *rig {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, cfg: labConfig(t), plane: newFakePlane(), acct: &acctRec{}, cli: newFakeAccel(t, ln), dir: dir}
	r.open()
	return r
}

// open starts a glue on the rig's store (again: a restart).
func (r *rig) open() {
	r.t.Helper()
	db, err := store.Open(filepath.Join(r.dir, "glue.db"))
	if err != nil {
		r.t.Fatal(err)
	}
	r.db = db
	g, err := New(Options{Config: r.cfg, ProcPPPoE: filepath.Join(r.dir, "pppoe"), RadattrPrefix: filepath.Join(r.dir, "radattr"),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, r.plane, r.acct, &CLI{Addr: r.cli.addr()}, db)
	if err != nil {
		r.t.Fatal(err)
	}
	r.g = g
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { g.RunAccounting(ctx); close(done) }()
	r.stop = func() { cancel(); <-done }
	r.t.Cleanup(r.close)
}

func (r *rig) close() {
	if r.db != nil {
		r.stop()
		r.db.Close()
		r.db = nil
	}
}

func (r *rig) write(name, text string) {
	if err := os.WriteFile(filepath.Join(r.dir, name), []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func redisEvent(event, sid, ifname, mac, ip string, pppoe int) []byte {
	return []byte(fmt.Sprintf(`{ "event": %q, "ctrl_type": "pppoe", "session_id": %q, "calling_station_id": %q, `+
		`"username": "u-%s", "ip_addr": %q, "pppoe_sessionid": %d, "ctrl_ifname": %q }`, event, sid, mac, sid, ip, pppoe, ifname))
}

func TestRedisEventsDriveTheDP(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.g.Redis(ctx, redisEvent("session-acct-start", "00000000000000a1", "vx1.100.7", "02:5b:00:00:00:07", "100.80.0.7", 0x107))
	r.g.Redis(ctx, redisEvent("session-acct-start", "00000000000000a1", "vx1.100.7", "02:5b:00:00:00:07", "100.80.0.7", 0x107)) // duplicate
	ss := r.g.Sessions()
	if len(ss) != 1 || ss[0].Instance != 1 || ss[0].Group != "lg1" || ss[0].Port != "access1" || ss[0].PPPoESID != 0x107 || ss[0].UPSEID == 0 {
		t.Fatalf("%+v", ss)
	}
	if calls := r.plane.log(); len(calls) != 1 || !strings.HasPrefix(calls[0], "establish 1 ") || !strings.HasSuffix(calls[0], " 100.80.0.7 100/7 107") {
		t.Fatalf("%q", calls)
	}
	// an address of another line group's pool: refused, and accel-ppp told to end it
	r.cli.set(Row{"sid": "00000000000000a2", "ifname": "ppp1", "state": "active"})
	r.g.Redis(ctx, redisEvent("session-acct-start", "00000000000000a2", "vx1.100.8", "02:5b:00:00:00:08", "100.80.4.8", 0x108))
	if len(r.g.Sessions()) != 1 || len(r.cli.terms()) != 1 || r.g.Counts()["refused_address_outside_group"] != 1 {
		t.Fatalf("%+v %v %v", r.g.Sessions(), r.cli.terms(), r.g.Counts())
	}
	// hostile input is counted by reason, never fatal
	for _, m := range []string{"", "{", `{ "event": "x" }`, `[]`, string(redisEvent("session-acct-start", "00000000000000a3", "vx9.100.9", "02:5b:00:00:00:09", "100.80.0.9", 9))} {
		r.g.Redis(ctx, []byte(m))
	}
	c := r.g.Counts()
	if c["refused_json"] != 3 || c["refused_unknown_event"] != 1 || c["refused_unknown_line"] != 1 {
		t.Fatalf("%v", c)
	}
	// the end: deleted from the DP, its final usage in the Accounting-Stop
	r.plane.usage = pfcpcp.Usage{ULOctets: 1000, DLOctets: 5000, ULPackets: 10, DLPackets: 50, Trigger: pfcpcp.TriggerTERMR}
	r.g.Redis(ctx, []byte(`{ "event": "session-pre-finished", "ctrl_type": "pppoe", "session_id": "00000000000000a1" }`))
	if len(r.g.Sessions()) != 0 {
		t.Fatal(r.g.Sessions())
	}
	reqs := r.acct.wait(t, 2)
	if reqs[0].Status != aaa.AcctStart || reqs[1].Status != aaa.AcctStop || reqs[1].InOctets != 1000 || reqs[1].OutOctets != 5000 ||
		reqs[1].SessionID != "00000000000000a1" || reqs[1].NASPortID != "access1:100.7" || reqs[1].CallingStationID != "02:5b:00:00:00:07" {
		t.Fatalf("%+v", reqs)
	}
	r.g.Redis(ctx, []byte(`{ "event": "session-pre-finished", "ctrl_type": "pppoe", "session_id": "00000000000000a1" }`))
	if r.g.Counts()["down_unknown"] != 1 {
		t.Fatal(r.g.Counts())
	}
}

func TestHooksAndProcPPPoE(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.cli.set(Row{"sid": "00000000000000b1", "ifname": "ppp4", "username": "u", "ip": "100.80.4.20",
		"calling-sid": "02:5b:00:00:00:14", "called-sid": "vx2.210.20", "state": "start"})
	r.write("pppoe", "Id       Address              Device\n00001400 02:5b:00:00:00:14 vx2.210.20\n")
	r.write("radattr.ppp4", "Filter-Id silver\nWISPr-Bandwidth-Max-Up 2000000\nWISPr-Bandwidth-Max-Down 8000000\n")
	hs, err := ListenHook(filepath.Join(r.dir, "hook.sock"), r.g.Hook, r.g.Refused)
	if err != nil {
		t.Fatal(err)
	}
	hctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { hs.Serve(hctx); close(done) }()
	defer func() { cancel(); <-done }()
	sock := filepath.Join(r.dir, "hook.sock")
	args := []string{"ppp4", "none", "0", "10.200.0.1", "100.80.4.20", "02:5b:00:00:00:14"}
	env := []string{"PEERNAME=u", "CALLING_SID=02:5b:00:00:00:14", "CALLED_SID=vx2.210.20", "PATH=/bin"}
	if err := RunHook(sock, "ip-pre-up", args, env); err != nil {
		t.Fatal(err)
	}
	ss := r.g.Sessions()
	if len(ss) != 1 || ss[0].SID != "00000000000000b1" || ss[0].PPPoESID != 0x14 || ss[0].Profile != "silver" || ss[0].DownBPS != 8_000_000 {
		t.Fatalf("%+v", ss)
	}
	// CoA: a new radattr file and ip-change
	r.write("radattr.ppp4", "Filter-Id gold\nWISPr-Bandwidth-Max-Up 3000000\nWISPr-Bandwidth-Max-Down 9000000\n")
	if err := RunHook(sock, "ip-change", args, env); err != nil {
		t.Fatal(err)
	}
	if calls := r.plane.log(); calls[len(calls)-1] != fmt.Sprintf("modify %d gold 3000000/9000000", ss[0].UPSEID) {
		t.Fatalf("%q", calls)
	}
	// a PPPoE socket nobody has: the hook fails, so accel-ppp terminates the session
	r.cli.set(Row{"sid": "00000000000000b2", "ifname": "ppp5", "state": "start"})
	err = RunHook(sock, "ip-pre-up", []string{"ppp5", "none", "0", "10.200.0.1", "100.80.4.21", "02:5b:00:00:00:15"},
		[]string{"CALLING_SID=02:5b:00:00:00:15", "CALLED_SID=vx2.210.21"})
	if err == nil || !strings.Contains(err.Error(), "no PPPoE socket") {
		t.Fatal(err)
	}
	if err := RunHook(sock, "ip-pre-up", []string{"ppp5"}, nil); err == nil || r.g.Counts()["refused_args"] != 1 {
		t.Fatal(err, r.g.Counts())
	}
	if err := RunHook(sock, "ip-down", args, append(env, "CONNECT_TIME=5", "BYTES_SENT=0", "BYTES_RCVD=0", "PACKETS_SENT=0", "PACKETS_RCVD=0")); err != nil {
		t.Fatal(err)
	}
	if len(r.g.Sessions()) != 0 {
		t.Fatal(r.g.Sessions())
	}
}

func TestRestartsAndResync(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for i, sid := range []string{"00000000000000c1", "00000000000000c2", "00000000000000c3"} {
		r.g.Redis(ctx, redisEvent("session-acct-start", sid, fmt.Sprintf("vx1.100.%d", i+1), fmt.Sprintf("02:5b:00:00:00:%02x", i+1),
			fmt.Sprintf("100.80.0.%d", i+1), i+1))
	}
	r.g.PeerUp(1, time.Unix(1000, 0), pfcpcp.Features{})
	before := r.g.Sessions()
	if len(before) != 3 || len(r.plane.log()) != 3+3 {
		t.Fatalf("%+v %q", before, r.plane.log())
	}
	// the glue restarts: the sessions come back from the store and are given to the user
	// plane as restored, nothing is sent to the DP
	r.close()
	r.plane.calls = nil
	r.open()
	if after := r.g.Sessions(); len(after) != 3 || after[0].UPSEID != before[0].UPSEID || len(r.plane.restored) != 3 || len(r.plane.log()) != 0 {
		t.Fatalf("%+v %v %q", after, r.plane.restored, r.plane.log())
	}
	// the same DP again (same recovery time): nothing to do
	r.g.PeerUp(1, time.Unix(1000, 0), pfcpcp.Features{})
	if len(r.plane.log()) != 0 {
		t.Fatal(r.plane.log())
	}
	// re-sync: accel-ppp ended c2 while the glue was away and has d1 the glue never heard of
	r.cli.set(
		Row{"sid": "00000000000000c1", "ifname": "ppp0", "ip": "100.80.0.1", "calling-sid": "02:5b:00:00:00:01", "called-sid": "vx1.100.1", "state": "active"},
		Row{"sid": "00000000000000c3", "ifname": "ppp2", "ip": "100.80.0.3", "calling-sid": "02:5b:00:00:00:03", "called-sid": "vx1.100.3", "state": "active"},
		Row{"sid": "00000000000000d1", "ifname": "ppp9", "username": "late", "ip": "100.80.0.9", "calling-sid": "02:5b:00:00:00:09", "called-sid": "vx1.100.9", "state": "active"},
		Row{"sid": "00000000000000d2", "ifname": "ppp10", "ip": "", "calling-sid": "02:5b:00:00:00:0a", "called-sid": "vx1.100.10", "state": "start"},
	)
	r.write("pppoe", "Id       Address              Device\n00000900 02:5b:00:00:00:09 vx1.100.9\n")
	if err := r.g.Resync(ctx); err != nil {
		t.Fatal(err)
	}
	var sids []string
	for _, s := range r.g.Sessions() {
		sids = append(sids, s.SID)
	}
	if strings.Join(sids, ",") != "00000000000000c1,00000000000000c3,00000000000000d1" {
		t.Fatalf("%v %q %v", sids, r.plane.log(), r.g.Counts())
	}
	// the DP restarts (new recovery time stamp): every session of the instance again
	r.plane.restart()
	r.plane.calls = nil
	r.g.PeerUp(1, time.Unix(2000, 0), pfcpcp.Features{})
	if calls := r.plane.log(); len(calls) != 3 || r.g.Counts()["reinstalled"] != 1 {
		t.Fatalf("%q", calls)
	}
	// a DP that cannot be reached when a session ends: the deletion waits for it
	r.plane.down = true
	r.g.Redis(ctx, []byte(`{ "event": "session-pre-finished", "session_id": "00000000000000c1" }`))
	if len(r.g.Sessions()) != 3 || r.g.Counts()["delete_deferred"] != 1 {
		t.Fatal(r.g.Sessions(), r.g.Counts())
	}
	r.plane.down = false
	r.g.PeerUp(1, time.Unix(2000, 0), pfcpcp.Features{})
	if len(r.g.Sessions()) != 2 {
		t.Fatal(r.g.Sessions())
	}
	// the DP's LCP dead report becomes accel-ppp's terminate
	r.g.LCPDead(1, r.g.Sessions()[0].CPSEID)
	if len(r.cli.terms()) != 1 || r.cli.terms()[0] != "00000000000000c3" {
		t.Fatal(r.cli.terms())
	}
	reqs := r.acct.wait(t, 1)
	stops := 0
	for _, q := range reqs {
		if q.Status == aaa.AcctStop {
			stops++
		}
	}
	if stops != 2 { // c2 (gone while away) and c1 (deferred deletion: one Stop, not two)
		time.Sleep(100 * time.Millisecond)
		t.Fatalf("%d Accounting-Stops: %+v", stops, reqs)
	}
}

func TestDamagedStoreRecords(t *testing.T) {
	st := newMemStore()
	good := `{"sid":"00000000000000e1","ctrl_if":"vx1.100.1","instance":1,"group":"lg1","port":"access1","stag":100,"ctag":1,` +
		`"pppoe_sid":1,"ipv4":"100.80.0.1","cp_seid":5,"up_seid":9}`
	for k, v := range map[string]string{
		"00000000000000e1": good,
		"00000000000000e2": strings.Replace(strings.Replace(good, "e1", "e2", 1), `"100.80.0.1"`, `"nonsense"`, 1),
		"00000000000000e3": "{",
		"00000000000000e4": strings.Replace(good, `"stag":100`, `"stag":0`, 1), // key and sid differ too
	} {
		_ = st.Put(bucketSessions, k, []byte(v))
	}
	plane := newFakePlane()
	g, err := New(Options{Config: labConfig(t), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, plane, nil, nil, st)
	if err != nil {
		t.Fatal(err)
	}
	if ss := g.Sessions(); len(ss) != 1 || ss[0].SID != "00000000000000e1" || plane.restored[5] != 9 || g.Counts()["stored_session_dropped"] != 3 {
		t.Fatalf("%+v %v %v", ss, plane.restored, g.Counts())
	}
	g.PeerUp(1, time.Unix(1, 0), pfcpcp.Features{}) // the kept one re-installs without a panic
}

func TestMetrics(t *testing.T) {
	r := newRig(t)
	r.g.Redis(context.Background(), redisEvent("session-acct-start", "00000000000000f1", "vx1.100.1", "02:5b:00:00:00:01", "100.80.0.1", 1))
	r.g.Redis(context.Background(), []byte("{"))
	srv, err := metricsServer("127.0.0.1:0", r.g)
	if err != nil {
		t.Fatal(err)
	}
	_ = srv.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(r.g))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			name := mf.GetName()
			for _, l := range m.GetLabel() {
				name += "/" + l.GetValue()
			}
			if m.GetCounter() != nil {
				got[name] = m.GetCounter().GetValue()
			} else {
				got[name] = m.GetGauge().GetValue()
			}
		}
	}
	if got["bngpod_accel_glue_sessions"] != 1 || got["bngpod_accel_glue_total/installed"] != 1 || got["bngpod_accel_glue_total/refused_json"] != 1 {
		t.Fatalf("%v", got)
	}
}

func TestNoEventSource(t *testing.T) {
	if err := CheckSources(&RunConfig{}); err == nil {
		t.Fatal("started with no event source")
	}
	err := CheckSources(&RunConfig{HookSocket: "/x", ProcPPPoE: "/nonexistent/pppoe"})
	if err == nil || !strings.Contains(err.Error(), "redis") {
		t.Fatal(err)
	}
	if err := CheckSources(&RunConfig{RedisAddr: "127.0.0.1:6379"}); err != nil {
		t.Fatal(err)
	}
}

func TestAccountingDrainsOnStop(t *testing.T) {
	acct := &acctRec{}
	g, err := New(Options{Config: labConfig(t), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, newFakePlane(), acct, nil, newMemStore())
	if err != nil {
		t.Fatal(err)
	}
	r := &Record{SID: "00000000000000aa", IPv4: "100.80.0.1", Port: "access1", STag: 100, CTag: 1, Start: time.Now()}
	g.account(aaa.AcctStart, r, 0)
	g.account(aaa.AcctStop, r, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stopped before it ran: what was queued still goes out
	g.RunAccounting(ctx)
	if reqs := acct.wait(t, 2); reqs[1].Status != aaa.AcctStop || reqs[1].TerminateCause != 1 {
		t.Fatalf("%+v", reqs)
	}
}

// The fork's events carry no attributes: the glue finds the session's PPP unit through the
// CLI and reads pppd-compat's radattr file (pppd_compat loaded beside the redis module for
// it), which exists from ip-pre-up time on: at session-started, after session-acct-start.
func TestRedisRatesFromRadattr(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.cli.set(Row{"sid": "00000000000000f7", "ifname": "ppp7", "ip": "100.80.0.7", "calling-sid": "02:5b:00:00:00:07",
		"called-sid": "vx1.100.7", "state": "start"})
	r.g.Redis(ctx, redisEvent("session-acct-start", "00000000000000f7", "vx1.100.7", "02:5b:00:00:00:07", "100.80.0.7", 7))
	ss := r.g.Sessions()
	if len(ss) != 1 || ss[0].PPPIf != "ppp7" || ss[0].Profile != "" {
		t.Fatalf("%+v", ss)
	}
	r.write("radattr.ppp7", "Filter-Id gold\nWISPr-Bandwidth-Max-Up 1000000\nWISPr-Bandwidth-Max-Down 5000000\n")
	r.g.Redis(ctx, []byte(`{ "event": "session-started", "ctrl_type": "pppoe", "session_id": "00000000000000f7" }`))
	if calls := r.plane.log(); calls[len(calls)-1] != fmt.Sprintf("modify %d gold 1000000/5000000", ss[0].UPSEID) {
		t.Fatalf("%q", calls)
	}
	if ss := r.g.Sessions(); ss[0].Profile != "gold" || ss[0].DownBPS != 5_000_000 {
		t.Fatalf("%+v", ss)
	}
	// a Filter-Id the pod does not know: refused, the session keeps what it had
	r.write("radattr.ppp7", "Filter-Id platinum\n")
	r.g.Redis(ctx, []byte(`{ "event": "coa", "ctrl_type": "pppoe", "session_id": "00000000000000f7" }`))
	if ss := r.g.Sessions(); ss[0].Profile != "gold" || r.g.Counts()["refused_unknown_profile"] != 1 {
		t.Fatalf("%+v %v", ss, r.g.Counts())
	}
}

// Events keep coming while accel-ppp's CLI answers a re-sync: a session
// installed after the snapshot is not gone, one removed after it not missing.
func TestResyncSnapshotRaces(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.write("pppoe", "Id       Address              Device\n00000200 02:5b:00:00:00:02 vx1.100.2\n")
	at := time.Now()
	r.g.Redis(ctx, redisEvent("session-acct-start", "0000000000000001", "vx1.100.1", "02:5b:00:00:00:01", "100.80.0.1", 1))
	r.g.Redis(ctx, redisEvent("session-acct-start", "0000000000000002", "vx1.100.2", "02:5b:00:00:00:02", "100.80.0.2", 2))
	r.g.Redis(ctx, []byte(`{ "event": "session-pre-finished", "session_id": "0000000000000002" }`))
	// the snapshot, taken before all that: 1 not yet listed, 2 still listed
	r.g.resync(ctx, []Row{{"sid": "0000000000000002", "ifname": "ppp2", "ip": "100.80.0.2", "calling-sid": "02:5b:00:00:00:02",
		"called-sid": "vx1.100.2", "state": "active"}}, at)
	if ss := r.g.Sessions(); len(ss) != 1 || ss[0].SID != "0000000000000001" {
		t.Fatalf("%+v %v", ss, r.g.Counts())
	}
	// a later snapshot without 1: now it is gone
	r.g.resync(ctx, nil, time.Now())
	if ss := r.g.Sessions(); len(ss) != 0 {
		t.Fatalf("%+v", ss)
	}
}
