package core

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/api"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/store"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/vxlan"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// A test pod: the daemon in this process on loopback, with its real VXLAN
// endpoint, shards, PPP engine, address pools, session store and users
// file; the test plays the DP instance (its VTEP: frames to and from the
// subscribers) and the subscribers, and puts in a user plane and an
// accounting back end that record what the daemon asks of them.

const (
	podInstance = 1
	podSTag     = 100
	podUser     = "alice"
	podPassword = "pw-alice"
)

var podACMAC = [6]byte{0x02, 0xac, 0, 0, 0, 1}

// podLog is what the daemon did, in order: the user plane's and the
// accounting's calls, and (at the moment of each call) how many PADTs the
// daemon had queued for its subscribers.
type podLog struct {
	mu     sync.Mutex
	events []string
}

func (l *podLog) add(format string, a ...any) {
	l.mu.Lock()
	l.events = append(l.events, fmt.Sprintf(format, a...))
	l.mu.Unlock()
}

func (l *podLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// fakePlane is the user plane: every establishment succeeds with a new UP
// SEID; deletions answer with no usage.
type fakePlane struct {
	log       *podLog
	padts     func() int // PADTs the daemon has sent so far
	seid      atomic.Uint64
	installed sync.Map // UP SEID -> CP SEID
	deletes   atomic.Int64
	hold      chan struct{} // when set, establishments wait for it to close
	mu        sync.Mutex
	ests      []*pfcpcp.Session             // every establishment
	ipoe      map[ipoeDPKey]uint64          // IPoE sessions installed: (line, MAC) -> UP SEID (ipoe_test.go)
	refuse    atomic.Bool                   // refuse every establishment (cause 73)
	mods      []*pfcpcp.Mod                 // every modification
	modHold   atomic.Pointer[chan struct{}] // when set, modifications wait for it to close
}

func (f *fakePlane) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (f *fakePlane) Establish(_ context.Context, _ uint32, s *pfcpcp.Session) (uint64, error) {
	if err := f.checkIPoE(s); err != nil {
		f.log.add("refused %x: %v", s.CPSEID, err)
		return 0, err
	}
	if f.hold != nil {
		f.log.add("establishing %x", s.CPSEID)
		<-f.hold
	}
	up := f.seid.Add(1)
	f.installed.Store(up, s.CPSEID)
	f.mu.Lock()
	f.ests = append(f.ests, s)
	f.mu.Unlock()
	f.log.add("establish %x", s.CPSEID)
	return up, nil
}
func (f *fakePlane) Modify(_ context.Context, _ uint32, _, _ uint64, m *pfcpcp.Mod) ([]pfcpcp.Usage, error) {
	f.mu.Lock()
	f.mods = append(f.mods, m)
	f.mu.Unlock()
	if h := f.modHold.Load(); h != nil {
		<-*h
	}
	return nil, nil
}
func (f *fakePlane) Delete(_ context.Context, _ uint32, up uint64) ([]pfcpcp.Usage, error) {
	cp, _ := f.installed.LoadAndDelete(up)
	f.forgetIPoE(up)
	f.log.add("delete %x after %d padt", cp, f.padts())
	f.deletes.Add(1)
	return nil, nil
}
func (f *fakePlane) UpdateLineGroup(context.Context, uint32, *pfcpcp.LineGroup) error { return nil }
func (f *fakePlane) Restore(_ uint32, cp, up uint64)                                  { f.installed.Store(up, cp) }
func (f *fakePlane) Forget(uint32, uint64)                                            {}
func (f *fakePlane) Stats() pfcpcp.Stats                                              { return pfcpcp.Stats{} }

// fakeAccounting records the Accounting-Requests.
type fakeAccounting struct {
	log      *podLog
	stops    atomic.Int64
	reqs     sync.Map // Acct-Status-Type -> the last *aaa.AcctRequest of that type
	mu       sync.Mutex
	requests []aaa.AcctRequest
}

func (f *fakeAccounting) Account(_ context.Context, r *aaa.AcctRequest) error {
	c := *r
	f.reqs.Store(r.Status, &c)
	f.mu.Lock()
	f.requests = append(f.requests, *r)
	f.mu.Unlock()
	if r.Status == aaa.AcctStop {
		f.log.add("stop %s cause %d", r.SessionID, r.TerminateCause)
		f.stops.Add(1)
	}
	return nil
}
func (f *fakeAccounting) Stats() aaa.Stats { return aaa.Stats{} }

type testPod struct {
	t     *testing.T
	d     *Daemon
	opt   Options
	log   *podLog
	plane *fakePlane
	acct  *fakeAccounting
	vtep  *net.UDPConn // the DP instance's VXLAN endpoint
	cp    *net.UDPAddr // the daemon's
	ctl   *api.Client
	rx    chan rxFrame
	seq   atomic.Uint64
	stop  func()
}

// rxFrame is a frame the daemon sent to a subscriber, as it left.
type rxFrame struct {
	at  time.Time
	seq uint64
	f   pppoe.Frame
	// session frames: the PPP protocol and, for control protocols, the packet
	proto    uint16
	code, id uint8
	body     []byte // after the 4-byte control packet header
	// IPoE (ipoe_test.go): the DHCP reply and its frame
	dhcp  *dhcp4.Message
	dhcpF dhcp4.Frame
	// IPoE IPv6 (ipoe6_test.go): the frame
	v6 *v6ctl.Frame
}

func (r rxFrame) String() string {
	if r.v6 != nil {
		return fmt.Sprintf("IPoE IPv6 frame % x", r.v6.Packet[:min(len(r.v6.Packet), 56)])
	}
	if r.dhcp != nil {
		return fmt.Sprintf("DHCP type %d yiaddr %s", r.dhcp.Type, r.dhcp.YIAddr)
	}
	if r.f.EtherType == pppoe.EtherTypeDiscovery {
		return fmt.Sprintf("discovery code %#x sid %d", r.f.Code, r.f.SessionID)
	}
	return fmt.Sprintf("session %d proto %#04x code %d id %d", r.f.SessionID, r.proto, r.code, r.id)
}

func (r rxFrame) is(proto uint16, code uint8) bool {
	return r.f.EtherType == pppoe.EtherTypeSession && r.proto == proto && r.code == code
}

func (r rxFrame) isPADT() bool {
	return r.f.EtherType == pppoe.EtherTypeDiscovery && r.f.Code == pppoe.CodePADT
}

// podConfig is cp.yaml for one instance serving one line group on loopback.
func podConfig(cp, dp netip.Addr, vxlanPort, pfcpPort, coaPort uint16, pool string) string {
	return fmt.Sprintf(`pod: coretest
control_plane: {address: %s, pfcp_port: %d, vxlan_port: %d}
management: {subnet: 127.0.0.0/8}
radius:
  nas_identifier: bngpod-coretest
  coa_port: %d
  timeout_ms: 200
  retries: 1
  servers:
    - {name: radius1, address: %s, auth_port: 9, acct_port: 9, secret: coretest}
access_ports:
  - {name: access1, tpid: 33024, rate: 10000000000}
pools:
  - {name: pool1, prefix: %s, dns: [192.0.2.53, 192.0.2.54], line_group: lg1}
qos_profiles:
  - {name: silver, down_rate: 20000000, up_pir: 10000000}
line_groups:
  - {name: lg1, ac_mac: "02:ac:00:00:00:01", core_address: 100.64.0.1, core_mac: "02:cc:00:00:00:01",
     pools: [pool1], qos_profile: silver, instance: 1}
instances:
  - id: 1
    name: dp1
    control_address: %s
    data_mac: "02:00:00:00:01:01"
    line_groups: [lg1]
    lines:
      - {group: lg1, access_port: access1, stag: {min: 100, max: 101}, ctag: null}
`, cp, pfcpPort, vxlanPort, coaPort, cp, pool, dp)
}

// freePort returns a UDP port free on addr just now.
func freePort(t *testing.T, addr netip.Addr) uint16 {
	t.Helper()
	c, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).AddrPort().Port()
}

// newTestPod starts a daemon; tune changes its options first, seed writes
// into its store before it starts (sessions to restore).
func newTestPod(t *testing.T, tune func(*Options), seed func(db sessionStore)) *testPod {
	t.Helper()
	// A /24 of 127/8 of our own: nothing else on the machine uses it.
	n := 1 + rand.IntN(250)
	cpAddr := netip.AddrFrom4([4]byte{127, 91, byte(n), 1})
	dpAddr := netip.AddrFrom4([4]byte{127, 91, byte(n), 11})
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	var u []byte
	for i := 0; i < 5000; i++ {
		u = fmt.Appendf(u, "%s%s Cleartext-Password := \"%s\"\n", podUser, suffix(i), podPassword)
	}
	if err := os.WriteFile(users, u, 0o600); err != nil {
		t.Fatal(err)
	}
	// The instance's VTEP first: the daemon sends to the instance at its own
	// VXLAN port number.
	vtep, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(dpAddr, 0)))
	if err != nil {
		t.Fatal(err)
	}
	_ = vtep.SetReadBuffer(8 << 20)
	vxPort := vtep.LocalAddr().(*net.UDPAddr).AddrPort().Port()
	// the ports are free on different addresses, so they may be equal numbers:
	// cp.yaml refuses that (the CP's PFCP, VXLAN and CoA ports must differ)
	ports := []uint16{vxPort}
	for len(ports) < 3 {
		if p := freePort(t, cpAddr); !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	raw := podConfig(cpAddr, dpAddr, vxPort, ports[1], ports[2], "100.80.0.0/19")
	cfg, err := config.Parse([]byte(raw))
	if err != nil {
		t.Fatalf("cp.yaml: %v\n%s", err, raw)
	}
	opt := Options{
		Config: cfg, StateDir: filepath.Join(dir, "state"), UsersFile: users,
		CtlSocket: filepath.Join(dir, "cp.sock"), Auth: []ppp.AuthMethod{ppp.AuthPAP},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PADIRate: 1000, PADIBurst: 1000,
	}
	if testing.Verbose() {
		opt.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if tune != nil {
		tune(&opt)
	}
	if seed != nil {
		db, err := openStoreForSeed(opt.StateDir)
		if err != nil {
			t.Fatal(err)
		}
		seed(db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	d, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	p := &testPod{t: t, d: d, opt: opt, log: &podLog{}, vtep: vtep, rx: make(chan rxFrame, 1<<16),
		cp: net.UDPAddrFromAddrPort(netip.AddrPortFrom(cpAddr, vxPort)), ctl: api.NewClient(opt.CtlSocket, 5*time.Second)}
	p.plane = &fakePlane{log: p.log, padts: func() int { return int(counterValue(d.m.sent.WithLabelValues("padt"))) }}
	p.acct = &fakeAccounting{log: p.log}
	d.newPlane = func(pfcpcp.Config, []pfcpcp.Peer, pfcpcp.Handler) (userPlane, error) { return p.plane, nil }
	d.radius = p.acct
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- d.Run(ctx) }()
	readDone := make(chan struct{})
	go p.read(readDone)
	var stopPod func()
	var stopOnce sync.Once
	p.stop = func() { stopOnce.Do(stopPod) }
	stopPod = func() {
		cancel()
		select {
		case err := <-runErr:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return")
		}
		vtep.Close()
		<-readDone
	}
	t.Cleanup(p.stop)
	// Running once the management socket answers.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := p.ctl.Stats(context.Background()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not come up")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p
}

func suffix(i int) string {
	if i == 0 {
		return ""
	}
	return fmt.Sprintf("-%d", i)
}

// read decodes what the daemon sends to the instance.
func (p *testPod) read(done chan struct{}) {
	defer close(done)
	buf := make([]byte, 9216)
	for {
		n, _, err := p.vtep.ReadFromUDPAddrPort(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				p.t.Errorf("VTEP read: %v", err)
			}
			return
		}
		at := time.Now()
		vni, inner, err := vxlan.Decode(buf[:n])
		if err != nil || vni != podInstance {
			p.t.Errorf("the daemon sent a bad datagram: vni %d, %v", vni, err)
			continue
		}
		if isIPv4Frame(inner) {
			r, err := decodeDHCPOut(append([]byte(nil), inner...))
			if err != nil {
				p.t.Errorf("the daemon sent a bad DHCP frame: %v", err)
				continue
			}
			r.at, r.seq = at, p.seq.Add(1)
			select {
			case p.rx <- r:
			default:
				p.t.Errorf("test receive queue full")
			}
			continue
		}
		if v6ctl.IsIPv6Frame(inner) {
			f, err := v6ctl.DecodeFrame(append([]byte(nil), inner...))
			if err != nil {
				p.t.Errorf("the daemon sent a bad IPv6 frame: %v", err)
				continue
			}
			select {
			case p.rx <- rxFrame{at: at, seq: p.seq.Add(1), v6: &f}:
			default:
				p.t.Errorf("test receive queue full")
			}
			continue
		}
		f, err := pppoe.DecodeFrame(append([]byte(nil), inner...))
		if err != nil {
			p.t.Errorf("the daemon sent a bad frame: %v", err)
			continue
		}
		r := rxFrame{at: at, seq: p.seq.Add(1), f: f}
		if f.EtherType == pppoe.EtherTypeSession {
			proto, data, err := ppp.SplitProto(f.Payload)
			if err != nil {
				p.t.Errorf("the daemon sent a bad PPP frame: %v", err)
				continue
			}
			r.proto = proto
			if proto != ppp.ProtoIPv4 && len(data) >= 4 {
				r.code, r.id, r.body = data[0], data[1], data[4:]
			}
		}
		select {
		case p.rx <- r:
		default:
			p.t.Errorf("test receive queue full")
		}
	}
}

// send sends frames from subscribers to the daemon, as the instance
// redirects them.
func (p *testPod) send(fs ...*pppoe.Frame) {
	p.t.Helper()
	for _, f := range fs {
		d := vxlan.Append(nil, podInstance, pppoe.AppendFrame(nil, f))
		if _, err := p.vtep.WriteToUDP(d, p.cp); err != nil {
			p.t.Fatal(err)
		}
	}
}

// recv returns the next frame the daemon sent, or false after timeout.
func (p *testPod) recv(timeout time.Duration) (rxFrame, bool) {
	select {
	case r := <-p.rx:
		return r, true
	case <-time.After(timeout):
		return rxFrame{}, false
	}
}

// expect returns the next frame, which must match.
func (p *testPod) expect(what string, timeout time.Duration, match func(rxFrame) bool) rxFrame {
	p.t.Helper()
	r, ok := p.recv(timeout)
	if !ok {
		p.t.Fatalf("no frame within %v: want %s", timeout, what)
	}
	if !match(r) {
		p.t.Fatalf("got %v, want %s", r, what)
	}
	return r
}

// quiet checks that the daemon sends nothing for d.
func (p *testPod) quiet(what string, d time.Duration) {
	p.t.Helper()
	if r, ok := p.recv(d); ok {
		p.t.Fatalf("%s: the daemon sent %v", what, r)
	}
}

func (p *testPod) waitFor(what string, timeout time.Duration, cond func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// poolUsed is the number of addresses handed out.
func (p *testPod) poolUsed() int {
	_, used := p.d.pools["lg1"].Usage()
	return used
}

// sessions is the management API's session list.
func (p *testPod) sessions() []api.SessionView {
	p.t.Helper()
	vs, err := p.ctl.Sessions(context.Background(), api.SessionFilter{})
	if err != nil {
		p.t.Fatal(err)
	}
	return vs
}

// client is a subscriber's PPPoE client, driven step by step by a test.
type client struct {
	p          *testPod
	mac        [6]byte
	stag, ctag uint16
	user       string
	hostUniq   []byte
	sid        uint16
	magic      uint32
	id         uint8
	addr       [4]byte
	lcpAcked   bool   // the client has acked the CP's LCP Configure-Request already
	padTags    []byte // more tags for PADI and PADR (e.g. a TR-101 access-line tag)
	initialRA  []byte // the RA the CP sent when IPv6CP opened (ipv6_test.go)
}

func (p *testPod) client(i int) *client {
	return &client{p: p, mac: [6]byte{0x02, 0x5b, 0, 0, byte(i >> 8), byte(i)}, stag: podSTag, ctag: uint16(1 + i%4000),
		user: podUser + suffix(i), hostUniq: binary.BigEndian.AppendUint32(nil, uint32(i)), magic: 0x5b000000 | uint32(i)}
}

func (c *client) discovery(code uint8, tags []byte) *pppoe.Frame {
	dst := podACMAC
	if code == pppoe.CodePADI {
		dst = [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	}
	return &pppoe.Frame{Dst: dst, Src: c.mac, OuterTPID: pppoe.TPID8021Q, STag: c.stag, CTag: c.ctag,
		EtherType: pppoe.EtherTypeDiscovery, Code: code, Payload: tags}
}

func (c *client) padt() *pppoe.Frame {
	f := c.discovery(pppoe.CodePADT, nil)
	f.SessionID = c.sid
	return f
}

// cpFrame is a PPP control packet of the client's session.
func (c *client) cpFrame(proto uint16, code, id uint8, body []byte) *pppoe.Frame {
	pl := binary.BigEndian.AppendUint16(nil, proto)
	pl = append(pl, code, id)
	pl = binary.BigEndian.AppendUint16(pl, uint16(4+len(body)))
	pl = append(pl, body...)
	return &pppoe.Frame{Dst: podACMAC, Src: c.mac, OuterTPID: pppoe.TPID8021Q, STag: c.stag, CTag: c.ctag,
		EtherType: pppoe.EtherTypeSession, Code: pppoe.CodeSession, SessionID: c.sid, Payload: pl}
}

func (c *client) lcpRequest() *pppoe.Frame {
	c.id++
	opts := []byte{ppp.LCPOptMRU, 4, 0x05, 0xd4, ppp.LCPOptMagic, 6}
	opts = binary.BigEndian.AppendUint32(opts, c.magic)
	return c.cpFrame(ppp.ProtoLCP, ppp.CodeConfReq, c.id, opts)
}

// discover runs PADI/PADO/PADR/PADS and returns the PADS.
func (c *client) discover() rxFrame {
	p := c.p
	p.t.Helper()
	tags := pppoe.AppendTag(nil, pppoe.TagServiceName, nil)
	tags = pppoe.AppendTag(tags, pppoe.TagHostUniq, c.hostUniq)
	tags = append(tags, c.padTags...)
	p.send(c.discovery(pppoe.CodePADI, tags))
	pado := p.expect("PADO", 2*time.Second, func(r rxFrame) bool {
		return r.f.EtherType == pppoe.EtherTypeDiscovery && r.f.Code == pppoe.CodePADO
	})
	pt, err := pppoe.ParseTags(pado.f.Payload)
	if err != nil {
		p.t.Fatal(err)
	}
	p.send(c.discovery(pppoe.CodePADR, pppoe.AppendTag(tags, pppoe.TagACCookie, pt.ACCookie)))
	pads := p.expect("PADS", 2*time.Second, func(r rxFrame) bool {
		return r.f.EtherType == pppoe.EtherTypeDiscovery && r.f.Code == pppoe.CodePADS && r.f.SessionID != 0
	})
	c.sid = pads.f.SessionID
	return pads
}

// negotiate runs LCP (the client's Configure-Request first), PAP and IPCP to
// an established session, answering what the daemon asks.
func (c *client) negotiate() {
	p := c.p
	p.t.Helper()
	c.auth()
	c.ipcp()
}

// ipcp runs IPCP to both sides acked: the client asks for 0.0.0.0, takes the
// daemon's Nak and asks for that address.
func (c *client) ipcp() {
	p := c.p
	p.t.Helper()
	c.id++
	p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfReq, c.id, []byte{ppp.IPCPOptAddress, 6, 0, 0, 0, 0}))
	c.configure(ppp.ProtoIPCP, false, func(r rxFrame) {
		copy(c.addr[:], r.body[2:6])
		c.id++
		p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfReq, c.id, append([]byte{ppp.IPCPOptAddress, 6}, c.addr[:]...)))
	})
}

// auth runs LCP (the client's Configure-Request first) and PAP.
func (c *client) auth() {
	p := c.p
	p.t.Helper()
	p.send(c.lcpRequest())
	c.configure(ppp.ProtoLCP, c.lcpAcked, nil)
	pap := []byte{byte(len(c.user))}
	pap = append(pap, c.user...)
	pap = append(pap, byte(len(podPassword)))
	pap = append(pap, podPassword...)
	p.send(c.cpFrame(ppp.ProtoPAP, ppp.PAPRequest, 1, pap))
	p.expect("PAP Ack", 2*time.Second, func(r rxFrame) bool { return r.is(ppp.ProtoPAP, ppp.PAPAck) })
}

// negotiateToInstall runs LCP, PAP and IPCP as negotiate does, up to the
// client's last IPCP Configure-Request (the address the daemon gave) with the
// daemon's own request acked: what opens IPCP at the client is the daemon's
// Configure-Ack of that request, which it sends once the DP has the session.
func (c *client) negotiateToInstall() {
	p := c.p
	p.t.Helper()
	c.auth()
	c.id++
	p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfReq, c.id, []byte{ppp.IPCPOptAddress, 6, 0, 0, 0, 0}))
	var acked, naked bool
	for !acked || !naked {
		r := p.expect("IPCP", 2*time.Second, func(r rxFrame) bool { return r.proto == ppp.ProtoIPCP })
		switch r.code {
		case ppp.CodeConfReq:
			p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfAck, r.id, r.body))
			acked = true
		case ppp.CodeConfNak:
			copy(c.addr[:], r.body[2:6])
			c.id++
			p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfReq, c.id, append([]byte{ppp.IPCPOptAddress, 6}, c.addr[:]...)))
			naked = true
		default:
			p.t.Fatalf("%v", r)
		}
	}
}

// configure answers the CP's Configure-Requests of proto with Acks until
// both sides are acked (theirs already when acked); nak handles a Nak of ours.
func (c *client) configure(proto uint16, acked bool, nak func(rxFrame)) {
	p := c.p
	p.t.Helper()
	ours := false
	for !ours || !acked {
		r := p.expect(fmt.Sprintf("protocol %#04x", proto), 2*time.Second, func(r rxFrame) bool { return r.proto == proto })
		switch {
		case r.code == ppp.CodeConfReq:
			p.send(c.cpFrame(proto, ppp.CodeConfAck, r.id, r.body))
			acked = true
		case r.code == ppp.CodeConfAck:
			ours = true
		case r.code == ppp.CodeConfNak && nak != nil:
			nak(r)
		default:
			p.t.Fatalf("%v", r)
		}
	}
}

// established waits until the daemon has the client's session established.
func (c *client) established() api.SessionView {
	p := c.p
	p.t.Helper()
	var v api.SessionView
	p.waitFor("the session established", 2*time.Second, func() bool {
		for _, s := range p.sessions() {
			if s.PPPoESessionID == c.sid && s.State == stEstablished.String() {
				v = s
				return true
			}
		}
		return false
	})
	return v
}

// dial brings a client's session up.
func (c *client) dial() api.SessionView {
	c.p.t.Helper()
	c.discover()
	c.negotiate()
	return c.established()
}

func openStoreForSeed(dir string) (sessionStore, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	return store.Open(filepath.Join(dir, "sessions.db"))
}

func counterValue(c prometheus.Counter) float64 { return testutil.ToFloat64(c) }

// goroutines is the number of goroutines now, once the count settles.
func goroutines() int {
	runtime.GC()
	return runtime.NumGoroutine()
}
