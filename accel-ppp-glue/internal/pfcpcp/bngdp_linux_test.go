//go:build linux

package pfcpcp

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// The real bng-dp process (DPDK without hugepages, an af_packet port on a
// veth) in a network namespace of its own, its control address and the CP's
// on the namespace's loopback; the function's socket is bound inside it.
const bngdpNS = "bngcp-pfcp"

func inNetns(name string, fn func() error) error {
	runtime.LockOSThread()
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", syscall.Gettid()))
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer self.Close()
	target, err := os.Open("/var/run/netns/" + name)
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer target.Close()
	if err := setns(target.Fd()); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	ferr := fn()
	if err := setns(self.Fd()); err != nil {
		return err // the thread stays locked (and dies with the goroutine): it is in the wrong namespace
	}
	runtime.UnlockOSThread()
	return ferr
}

// setns(2)'s number (the frozen syscall package does not name it).
var sysSetns = map[string]uintptr{"amd64": 308, "arm64": 268}[runtime.GOARCH]

func setns(fd uintptr) error {
	if sysSetns == 0 {
		return fmt.Errorf("setns: unknown on %s", runtime.GOARCH)
	}
	if _, _, e := syscall.RawSyscall(sysSetns, fd, syscall.CLONE_NEWNET, 0); e != 0 {
		return e
	}
	return nil
}

func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %v: %v: %s", args, err, out)
	}
	return nil
}

type bngDP struct {
	t   *testing.T
	cmd *exec.Cmd
	log *os.File
}

func (d *bngDP) start() {
	d.t.Helper()
	bin, _ := filepath.Abs(filepath.Join(dpBuild, "bng-dp"))
	ini, _ := filepath.Abs(bngdpINI())
	d.cmd = exec.Command("ip", "netns", "exec", bngdpNS, bin,
		"-l", "0,1", "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
		"--file-prefix="+bngdpNS, "--log-level=notice",
		"--vdev", "net_af_packet0,iface=data0,framecnt=4096",
		"--", "--config", ini, "--idle-sleep-us", "50", "--sessions", "4096")
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	if err := d.cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
}

// bngdpINI is the lab pod's dp1.ini (BNGPOD_DP_INI: another one).
func bngdpINI() string {
	if v := os.Getenv("BNGPOD_DP_INI"); v != "" {
		return v
	}
	return filepath.Join("..", "..", "..", "topology", "tests", "golden", "lab", "dp", "dp1.ini")
}

func (d *bngDP) stop() {
	if d.cmd == nil || d.cmd.Process == nil {
		return
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-done
	}
	d.cmd = nil
}

func TestAgainstBngDP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	bin := filepath.Join(dpBuild, "bng-dp")
	prereq.Root(t, "network namespace")
	if _, err := os.Stat(bin); err != nil {
		prereq.Skip(t, bin+" is not built (ninja -C server-dp/build)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		prereq.Skip(t, "no ip command")
	}
	prereq.NetnsLock(t)
	_ = ipCmd("netns", "delete", bngdpNS) // a stale one from a killed run
	for _, args := range [][]string{
		{"netns", "add", bngdpNS},
		{"-n", bngdpNS, "link", "set", "lo", "up"},
		{"-n", bngdpNS, "link", "add", "data0", "type", "veth", "peer", "name", "wire0"},
		{"-n", bngdpNS, "link", "set", "data0", "mtu", "1600", "up"},
		{"-n", bngdpNS, "link", "set", "wire0", "mtu", "1600", "up"},
		{"-n", bngdpNS, "addr", "add", "10.200.0.11/32", "dev", "lo"},
		{"-n", bngdpNS, "addr", "add", "10.200.0.1/32", "dev", "lo"},
	} {
		if err := ipCmd(args...); err != nil {
			_ = ipCmd("netns", "delete", bngdpNS)
			t.Fatal(err)
		}
	}
	logf, err := os.Create(filepath.Join(t.TempDir(), "bng-dp.log"))
	if err != nil {
		t.Fatal(err)
	}
	dp := &bngDP{t: t, log: logf}
	t.Cleanup(func() {
		dp.stop()
		_ = ipCmd("netns", "delete", bngdpNS)
		_ = os.RemoveAll("/var/run/dpdk/" + bngdpNS)
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("bng-dp log:\n%s", b)
		}
	})
	dp.start()

	rec := newRecorder()
	var f *Function
	cfg := Config{
		Local:        netip.MustParseAddrPort("10.200.0.1:8805"),
		NodeID:       netip.MustParseAddr("10.200.0.1"),
		Redirect:     netip.MustParseAddrPort("10.200.0.1:4789"),
		T1:           300 * time.Millisecond,
		N1:           3,
		Heartbeat:    500 * time.Millisecond,
		RecoveryTime: time.Now(),
		URRPeriod:    30 * time.Second,
	}
	if err := inNetns(bngdpNS, func() error {
		var err error
		f, err = New(cfg, []Peer{{Instance: 1, Addr: netip.MustParseAddrPort("10.200.0.11:8805")}}, rec)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = f.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	e := rec.wait(t, "up", 30*time.Second)
	if time.Since(e.rts) > time.Minute || e.inst != 1 {
		t.Fatalf("PeerUp %+v", e)
	}
	if want := (Features{LCPOffload: true, PPPoE: true, MNOP: true}); e.feat != want {
		// docs/dp/pfcp.md section 4 promises 00 00 10 / 11 00 00 00; server-dp/src/app.c
		// does not fill pfcp_up_conf's up_features/bbf_features (pfcp-up-pipe does).
		t.Logf("bng-dp announces features %+v, the contract says %+v", e.feat, want)
	}
	first := e.rts

	s := &Session{CPSEID: 0x1001, LogicalPort: "access1", STag: 100, CTag: 7,
		MAC: [6]byte{0x02, 0x11, 0, 0, 0, 7}, PPPoESessionID: 0x107,
		IPv4: netip.MustParseAddr("100.80.0.7"), QosProfile: "gold", DownMBR: 50_000_000, MTU: 1492,
		LCP: &LCPConnectivity{Interval: 30, Count: 3, TxMagic: 0x11223344, RxMagic: 0x55667788}}
	up, err := f.Establish(ctx, 1, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Modify(ctx, 1, up, s.CPSEID, &Mod{QosProfile: ptr("silver"), QueryUsage: true}); err != nil {
		t.Fatal(err)
	}
	var ce *CauseError
	if _, err := f.Modify(ctx, 1, up, s.CPSEID, &Mod{QosProfile: ptr("no-such-profile")}); !asCause(err, &ce) || ce.Cause != 70 {
		t.Fatalf("unknown QoS profile: %v", err)
	}
	us, err := f.Delete(ctx, 1, up)
	if err != nil || len(us) != 1 || us[0].Trigger != TriggerTERMR {
		t.Fatalf("delete: %+v %v", us, err)
	}

	// a restarted bng-dp: new recovery time stamp, re-association, default session again
	time.Sleep(1100 * time.Millisecond) // the time stamp has a resolution of a second
	dp.stop()
	dp.start()
	rec.wait(t, "down", 30*time.Second)
	e = rec.wait(t, "up", 30*time.Second)
	if !e.rts.After(first) {
		t.Fatalf("PeerUp after the restart: %v, before %v", e.rts, first)
	}
	if _, err := f.Establish(ctx, 1, s); err != nil {
		t.Fatalf("establish after the restart: %v", err)
	}
	if ps := f.Peers(); ps[0].Restarts != 1 || ps[0].State != "up" {
		t.Fatalf("peers %+v", ps)
	}

	// Dual stack into the data path, when the pod's dp1.ini has IPv6 pools
	// (lg1: /64s of 2001:db8:100::/48, /56s of 2001:db8:2000::/40): the
	// prefixes must lie in the group's pools at their lengths, and one
	// session's delegated prefix is no other's.
	ini, _ := os.ReadFile(bngdpINI())
	if !strings.Contains(string(ini), "prefixes6     = 2001:db8:100::/48:64 2001:db8:2000::/40:56") {
		t.Log("dp1.ini has no IPv6 pools for lg1: dual stack not tried against bng-dp")
		return
	}
	ds := *s
	ds.CPSEID, ds.CTag, ds.PPPoESessionID, ds.MAC[5], ds.IPv4 = 0x2002, 8, 0x108, 8, netip.MustParseAddr("100.80.0.8")
	ds.IPv6 = &IPv6Rules{WAN: netip.MustParsePrefix("2001:db8:100:8::/64"), PD: netip.MustParsePrefix("2001:db8:2000:800::/56")}
	ds.RA = &RAOffload{Interval: 200, RouterLifetime: 1800, Flags: 0x40, MTU: 1492, Prefix: ds.IPv6.WAN,
		Valid: 86400, Preferred: 14400, IID: 0x00bb00fffe000001, DNS: []netip.Addr{netip.MustParseAddr("2001:db8::53")}}
	if _, err := f.Establish(ctx, 1, &ds); err != nil {
		t.Fatalf("dual-stack session into bng-dp: %v", err)
	}
	other := ds
	other.CPSEID, other.CTag, other.PPPoESessionID, other.MAC[5], other.IPv4 = 0x2003, 9, 0x109, 9, netip.MustParseAddr("100.80.0.9")
	other.IPv6 = &IPv6Rules{WAN: netip.MustParsePrefix("2001:db8:100:9::/64"), PD: ds.IPv6.PD}
	other.RA = nil
	if _, err := f.Establish(ctx, 1, &other); err == nil {
		t.Fatal("bng-dp accepted a delegated prefix another session holds")
	}
	other.IPv6.PD = netip.MustParsePrefix("2001:db8:2000:900::/60") // not the pool's /56
	if _, err := f.Establish(ctx, 1, &other); err == nil {
		t.Fatal("bng-dp accepted a delegated prefix of the wrong length")
	}
	other.IPv6.PD = netip.MustParsePrefix("2001:db8:2000:900::/56")
	if _, err := f.Establish(ctx, 1, &other); err != nil {
		t.Fatalf("second dual-stack session: %v", err)
	}
}
