package pfcpcp

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// pipeDP puts the DP's real PFCP user-plane function (pfcp-up-pipe: pfcp_up.c
// with a fake data path, on stdin/stdout) behind a UDP socket on loopback.
// Its clock is the real time since start plus `skew` (tests jump it forward).
type pipeDP struct {
	t    testing.TB
	bin  string
	conn *net.UDPConn

	mu     sync.Mutex // one command at a time; guards the fields below
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	start  time.Time
	skew   time.Duration
	rts    uint32 // != 0: replaces the pipe's Recovery Time Stamp (a "restarted" DP)
	cp     netip.AddrPort
	drop   bool
	log    []logged // every datagram, both ways
	stopCh chan struct{}
	wg     sync.WaitGroup
}

type logged struct {
	b      []byte
	fromCP bool
}

func newPipeDP(t testing.TB) *pipeDP {
	bin := needBuild(t, "pfcp-up-pipe")
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	d := &pipeDP{t: t, bin: bin, conn: c, stopCh: make(chan struct{})}
	d.mu.Lock()
	d.spawnLocked()
	d.mu.Unlock()
	d.wg.Add(2)
	go d.serve()
	go d.ticker()
	t.Cleanup(d.close)
	return d
}

func (d *pipeDP) addr() netip.AddrPort { return d.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

func (d *pipeDP) spawnLocked() {
	cmd := exec.Command(d.bin)
	in, err := cmd.StdinPipe()
	if err != nil {
		d.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		d.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	d.cmd, d.in, d.out = cmd, in, bufio.NewReaderSize(out, 1<<20)
	d.start = time.Now()
	d.skew = 0
}

func (d *pipeDP) stopLocked() {
	if d.cmd == nil {
		return
	}
	_ = d.in.Close()
	_ = d.cmd.Process.Kill()
	_ = d.cmd.Wait()
	d.cmd = nil
}

func (d *pipeDP) close() {
	close(d.stopCh)
	_ = d.conn.Close()
	d.wg.Wait()
	d.mu.Lock()
	d.stopLocked()
	d.mu.Unlock()
}

// restart replaces the DP process: no association, no sessions, and a new
// Recovery Time Stamp (the pipe's is fixed, so it is rewritten on the way out).
func (d *pipeDP) restart(rts uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopLocked()
	d.spawnLocked()
	d.rts = rts
}

func (d *pipeDP) nowLocked() int64 { return int64((time.Since(d.start) + d.skew) / time.Millisecond) }

// do runs one pipe command and forwards what the UP function sent.
func (d *pipeDP) do(line string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.doLocked(line)
}

func (d *pipeDP) doLocked(line string) []string {
	if d.cmd == nil {
		return nil
	}
	if _, err := io.WriteString(d.in, line+"\n"); err != nil {
		d.t.Errorf("pipe: %v", err)
		return nil
	}
	var out []string
	for {
		l, err := d.out.ReadString('\n')
		if err != nil {
			d.t.Errorf("pipe exited: %v", err)
			return out
		}
		l = strings.TrimSpace(l)
		if l == "ok" {
			return out
		}
		if strings.HasPrefix(l, "tx ") {
			f := strings.Fields(l)
			b, err := hex.DecodeString(f[3])
			if err != nil {
				d.t.Errorf("pipe: %q", l)
				continue
			}
			if d.rts != 0 {
				patchRTS(b, d.rts)
			}
			d.log = append(d.log, logged{b, false})
			if d.cp.IsValid() && !d.drop {
				_, _ = d.conn.WriteToUDPAddrPort(b, d.cp)
			}
			continue
		}
		out = append(out, l)
	}
}

// patchRTS rewrites the Recovery Time Stamp IE of a node message.
func patchRTS(b []byte, rts uint32) {
	if len(b) < 8 || b[0]&1 != 0 {
		return
	}
	for off := 8; off+4 <= len(b); {
		t := binary.BigEndian.Uint16(b[off:])
		l := int(binary.BigEndian.Uint16(b[off+2:]))
		if off+4+l > len(b) {
			return
		}
		if t == ieRecoveryTS && l == 4 {
			binary.BigEndian.PutUint32(b[off+4:], rts)
		}
		off += 4 + l
	}
}

func (d *pipeDP) serve() {
	defer d.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, from, err := d.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		b := append([]byte(nil), buf[:n]...)
		d.mu.Lock()
		d.cp = from
		d.log = append(d.log, logged{b, true})
		if !d.drop {
			d.doLocked(fmt.Sprintf("rx %d %s", d.nowLocked(), hex.EncodeToString(b)))
		}
		d.mu.Unlock()
	}
}

func (d *pipeDP) ticker() {
	defer d.wg.Done()
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-d.stopCh:
			return
		case <-t.C:
			d.mu.Lock()
			d.doLocked(fmt.Sprintf("tick %d", d.nowLocked()))
			d.mu.Unlock()
		}
	}
}

// jump moves the DP's clock forward and ticks.
func (d *pipeDP) jump(dt time.Duration) {
	d.mu.Lock()
	d.skew += dt
	d.doLocked(fmt.Sprintf("tick %d", d.nowLocked()))
	d.mu.Unlock()
}

func (d *pipeDP) now() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.nowLocked()
}

func (d *pipeDP) setDrop(v bool) {
	d.mu.Lock()
	d.drop = v
	d.mu.Unlock()
}

type pipeState struct {
	Live, Installs, Modifies, Removes, Redirects int
	Sessions                                     int
	SubSessions                                  int `json:"sub_sessions"`
	LastHandle                                   int `json:"last_handle"`
	Sub                                          struct {
		LogicalPort  string `json:"logical_port"`
		STag, CTag   int
		MAC          string
		SID          int
		IPv4         string
		MTU          int
		MbrUL        uint64 `json:"mbr_ul"`
		MbrDL        uint64 `json:"mbr_dl"`
		GbrUL        uint64 `json:"gbr_ul"`
		QoS          string
		LCPOffload   bool   `json:"lcp_offload"`
		LCPMagic     uint32 `json:"lcp_magic"`
		LCPPeerMagic uint32 `json:"lcp_peer_magic"`
		EchoInterval int    `json:"echo_interval"`
		EchoMisses   int    `json:"echo_misses"`
		URRPeriod    int    `json:"urr_period"`
		ARPPingIv    int    `json:"arp_ping_interval"`
		ARPPingCount int    `json:"arp_ping_count"`
	}
	Redirect struct {
		CPIP     string `json:"cp_ip"`
		Port     int
		Classes  int
		Fallback bool
	}
	CPRestarts int `json:"cp_restarts"`
	Pending    int
}

func (d *pipeDP) state() pipeState {
	out := d.do("state")
	var st pipeState
	for _, l := range out {
		if js, ok := strings.CutPrefix(l, "state "); ok {
			if err := json.Unmarshal([]byte(js), &st); err != nil {
				d.t.Fatalf("state %q: %v", js, err)
			}
			return st
		}
	}
	d.t.Fatalf("no state in %q", out)
	return st
}

func (d *pipeDP) datagrams() []logged {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]logged(nil), d.log...)
}

// ---- a recording Handler ----------------------------------------------------------------

type event struct {
	kind string // up, down, usage, dead
	inst uint32
	rts  time.Time
	feat Features
	seid uint64
	u    Usage
}

type recorder struct{ ch chan event }

func newRecorder() *recorder { return &recorder{ch: make(chan event, 1000)} }

func (r *recorder) PeerUp(inst uint32, rts time.Time, f Features) {
	r.ch <- event{kind: "up", inst: inst, rts: rts, feat: f}
}
func (r *recorder) PeerDown(inst uint32) { r.ch <- event{kind: "down", inst: inst} }
func (r *recorder) Usage(inst uint32, s uint64, u Usage) {
	r.ch <- event{kind: "usage", inst: inst, seid: s, u: u}
}
func (r *recorder) LCPDead(inst uint32, s uint64) { r.ch <- event{kind: "dead", inst: inst, seid: s} }

func (r *recorder) wait(t testing.TB, kind string, d time.Duration) event {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case e := <-r.ch:
			if e.kind == kind {
				return e
			}
			t.Logf("event %s (waiting for %s)", e.kind, kind)
		case <-deadline:
			t.Fatalf("no %s event within %v", kind, d)
		}
	}
}

func startFunction(t testing.TB, cfg Config, peers []Peer, h Handler) (*Function, context.CancelFunc) {
	t.Helper()
	f, err := New(cfg, peers, h)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = f.Run(ctx); close(done) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return f, stop
}

func pipeConfig() Config {
	return Config{
		Local:        netip.MustParseAddrPort("127.0.0.1:0"),
		NodeID:       netip.MustParseAddr("10.200.0.1"),
		Redirect:     netip.MustParseAddrPort("10.200.0.1:4789"),
		T1:           150 * time.Millisecond,
		N1:           3,
		Heartbeat:    200 * time.Millisecond,
		RecoveryTime: time.Unix(1600000000, 0),
		URRPeriod:    60 * time.Second,
	}
}

// The whole life of a DP against the real user-plane function.
func TestAgainstDPUserPlaneFunction(t *testing.T) {
	dp := newPipeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, pipeConfig(), []Peer{{Instance: 11, Addr: dp.addr()}}, rec)
	ctx := context.Background()

	// association + default session
	e := rec.wait(t, "up", 5*time.Second)
	// (a DP with IPoE, issue 19, announces it too and gets the dhcp class: ipoe_test.go)
	if ft := e.feat; e.inst != 11 || !e.rts.Equal(time.Unix(1700000000, 0)) || !ft.LCPOffload || !ft.PPPoE || !ft.MNOP {
		t.Fatalf("PeerUp %+v", e)
	}
	classes := 7
	if e.feat.IPoE {
		classes = 15
	}
	if e.feat.IPoE6 {
		classes = 31 // dual stack over IPoE: the dhcp class's IPv6 PDR too (ipoe6_test.go)
	}
	st := dp.state()
	if st.Redirect.CPIP != "10.200.0.1" || st.Redirect.Port != 4789 || st.Redirect.Classes != classes || st.Redirect.Fallback || st.Sessions != 1 {
		t.Fatalf("default session: %+v", st)
	}

	// a subscriber: every field reaches the data path
	s := sampleSession()
	up, err := f.Establish(ctx, 11, s)
	if err != nil {
		t.Fatal(err)
	}
	st = dp.state()
	sub := st.Sub
	if st.Installs != 1 || st.Live != 1 || sub.LogicalPort != "access1" || sub.STag != 100 || sub.CTag != 7 ||
		sub.MAC != "02:11:00:00:00:07" || sub.SID != 0x107 || sub.IPv4 != "100.80.0.7" || sub.MTU != 1492 ||
		sub.MbrUL != 10_000_000 || sub.MbrDL != 50_000_000 || sub.GbrUL != 2_000_000 || sub.QoS != "gold" ||
		!sub.LCPOffload || sub.LCPMagic != 0x11223344 || sub.LCPPeerMagic != 0x55667788 ||
		sub.EchoInterval != 30 || sub.EchoMisses != 3 || sub.URRPeriod != 60 {
		t.Fatalf("data path got %+v", st)
	}
	// the same session again: same UP SEID, nothing installed again
	if up2, err := f.Establish(ctx, 11, s); err != nil || up2 != up {
		t.Fatalf("re-establish: %#x %v (first %#x)", up2, err, up)
	}
	if st := dp.state(); st.Installs != 1 {
		t.Fatalf("re-establish installed again: %+v", st)
	}
	// another session with the same CP SEID: refused with the DP's cause
	other := sampleSession()
	other.CTag = 8
	other.PPPoESessionID = 0x108
	other.IPv4 = netip.MustParseAddr("100.80.0.8")
	var ce *CauseError
	if _, err := f.Establish(ctx, 11, other); !asCause(err, &ce) || ce.Cause != CauseRequestRejected || ce.OffendingIE != ieFSEID {
		t.Fatalf("same CP SEID, other session: %v", err)
	}

	// periodic usage report -> Handler.Usage
	// (with the session's drops: the DP's bngpod Dropped Packets IE)
	// and their octets: the IE's 32-octet form from the real C UP function
	dp.do("usage 0 10 1000 50 5000 0 0 0 0 3 4 180 4400")
	dp.jump(61 * time.Second)
	e = rec.wait(t, "usage", 3*time.Second)
	if e.seid != s.CPSEID || e.u.ULOctets != 1000 || e.u.DLOctets != 5000 || e.u.ULPackets != 10 ||
		e.u.DLPackets != 50 || e.u.Trigger != TriggerPERIO || e.u.URRID != 1 ||
		e.u.ULDropped != 3 || e.u.DLDropped != 4 || e.u.ULDroppedOctets != 180 || e.u.DLDroppedOctets != 4400 {
		t.Fatalf("usage event %+v", e)
	}
	// LCP keepalive failure -> Handler.LCPDead
	dp.do(fmt.Sprintf("dead 0 %d", dp.now()))
	if e = rec.wait(t, "dead", 3*time.Second); e.seid != s.CPSEID || e.inst != 11 {
		t.Fatalf("dead event %+v", e)
	}
	waitFor(t, func() bool { return dp.state().Pending == 0 }, "the DP's reports acknowledged")

	// CoA: profile, rates, usage query
	dp.do("usage 0 15 1500 50 5000")
	us, err := f.Modify(ctx, 11, up, s.CPSEID, &Mod{QosProfile: ptr("silver"), UpMBR: ptr[uint64](20_000_000),
		DownMBR: ptr[uint64](100_000_000), QueryUsage: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 1 || us[0].Trigger != TriggerIMMER || us[0].ULOctets != 500 || us[0].DLOctets != 0 {
		t.Fatalf("modification usage %+v", us)
	}
	if e = rec.wait(t, "usage", time.Second); e.u != us[0] || e.seid != s.CPSEID {
		t.Fatalf("usage of the modification to the handler: %+v", e)
	}
	st = dp.state()
	if st.Sub.QoS != "silver" || st.Sub.MbrDL != 100_000_000 || st.Sub.MbrUL != 20_000_000 || st.Sub.GbrUL != 0 {
		t.Fatalf("after CoA %+v", st.Sub)
	}
	if _, err := f.Modify(ctx, 11, up, s.CPSEID, &Mod{LCPOff: true}); err != nil {
		t.Fatal(err)
	}
	if st = dp.state(); st.Sub.LCPOffload {
		t.Fatal("LCP offload still on")
	}
	if _, err := f.Modify(ctx, 11, up, s.CPSEID, &Mod{LCP: &LCPConnectivity{Interval: 5, Count: 4, TxMagic: 9, RxMagic: 10}}); err != nil {
		t.Fatal(err)
	}
	if st = dp.state(); !st.Sub.LCPOffload || st.Sub.EchoInterval != 5 || st.Sub.LCPMagic != 9 {
		t.Fatalf("LCP on %+v", st.Sub)
	}
	if _, err := f.Modify(ctx, 11, 0xdead, 1, &Mod{QueryUsage: true}); !asCause(err, &ce) || ce.Cause != CauseSessionNotFound {
		t.Fatalf("modify unknown: %v", err)
	}

	// a session without rates gets a QER when a CoA sets them
	plain := &Session{CPSEID: 0x2002, STag: 100, CTag: 9, MAC: [6]byte{2, 0x11, 0, 0, 0, 9}, PPPoESessionID: 0x109,
		IPv4: netip.MustParseAddr("100.80.0.9")}
	up9, err := f.Establish(ctx, 11, plain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Modify(ctx, 11, up9, plain.CPSEID, &Mod{DownMBR: ptr[uint64](8_000_000)}); err != nil {
		t.Fatal(err)
	}
	if st = dp.state(); st.Sub.MbrDL != 8_000_000 {
		t.Fatalf("rates on a session without QER: %+v", st.Sub)
	}
	if _, err := f.Delete(ctx, 11, up9); err != nil {
		t.Fatal(err)
	}

	// deletion: the final usage
	dp.do("usage 0 20 2000 60 6000")
	us, err = f.Delete(ctx, 11, up)
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 1 || us[0].Trigger != TriggerTERMR || us[0].ULOctets != 500 || us[0].DLOctets != 1000 {
		t.Fatalf("deletion usage %+v", us)
	}
	if st = dp.state(); st.Live != 0 || st.Sessions != 1 {
		t.Fatalf("after delete %+v", st)
	}
	if _, err := f.Delete(ctx, 11, up); !asCause(err, &ce) || ce.Cause != CauseSessionNotFound {
		t.Fatalf("second delete: %v", err)
	}

	// the DP restarts: a new Recovery Time Stamp -> down, re-association, up with the new time
	dp.restart(toNTP(time.Unix(1800000000, 0)))
	rec.wait(t, "down", 5*time.Second)
	e = rec.wait(t, "up", 5*time.Second)
	if !e.rts.Equal(time.Unix(1800000000, 0)) {
		t.Fatalf("PeerUp after restart: %+v", e)
	}
	if st = dp.state(); st.Sessions != 1 || st.Redirect.Fallback {
		t.Fatalf("default session after restart: %+v", st)
	}
	ps := f.Peers()
	if len(ps) != 1 || ps[0].State != "up" || ps[0].Restarts != 1 || !ps[0].RecoveryTime.Equal(time.Unix(1800000000, 0)) {
		t.Fatalf("peers %+v", ps)
	}

	// the DP goes silent: N1 heartbeats lost -> down; it answers again -> up (same time)
	dp.setDrop(true)
	rec.wait(t, "down", 5*time.Second)
	if ps := f.Peers(); ps[0].State != "associating" {
		t.Fatalf("peer state while silent %+v", ps[0])
	}
	if _, err := f.Establish(ctx, 11, s); err != ErrNotAssociated {
		t.Fatalf("establish while down: %v", err)
	}
	dp.setDrop(false)
	if e = rec.wait(t, "up", 5*time.Second); !e.rts.Equal(time.Unix(1800000000, 0)) {
		t.Fatalf("PeerUp after silence: %+v", e)
	}
	st2 := f.Stats()
	if st2.Requests["heartbeat"] == 0 || st2.Requests["session_establishment"] < 5 || st2.Answers[1] == 0 ||
		st2.Timeouts == 0 || st2.Retransmissions == 0 || st2.Received["session_report"] < 2 {
		t.Fatalf("stats %+v", st2)
	}
}

func asCause(err error, ce **CauseError) bool {
	e, ok := err.(*CauseError)
	if ok {
		*ce = e
	}
	return ok
}

func waitFor(t testing.TB, cond func() bool, what string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// A restarted CP (new Recovery Time Stamp) re-installs its default session
// with the same CP SEID: the DP keeps the one it has, nothing changes.
func TestRestartedCPDefaultSessionIdempotent(t *testing.T) {
	dp := newPipeDP(t)
	rec := newRecorder()
	_, stop := startFunction(t, pipeConfig(), []Peer{{Instance: 11, Addr: dp.addr()}}, rec)
	rec.wait(t, "up", 5*time.Second)
	stop()
	before := dp.state()

	cfg := pipeConfig()
	cfg.RecoveryTime = time.Unix(1600000100, 0)
	rec2 := newRecorder()
	startFunction(t, cfg, []Peer{{Instance: 11, Addr: dp.addr()}}, rec2)
	rec2.wait(t, "up", 5*time.Second)
	after := dp.state()
	if after.Sessions != 1 || after.Redirects != before.Redirects || after.CPRestarts != 1 {
		t.Fatalf("before %+v\nafter %+v", before, after)
	}
}
