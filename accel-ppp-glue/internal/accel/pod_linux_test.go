//go:build linux

package accel

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
	"layeh.com/radius"
	"layeh.com/radius/rfc2866"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// The accel-ppp deployment on one host, everything real but accel-ppp
// itself (no kernel PPP here): the real bng-dp in a namespace of its own
// (the lab pod's instance dp1, an af_packet port on a veth whose other end
// the test plays subscriber and core router on), a control-server namespace
// joined to it by a management veth, holding the VXLAN interfaces made by
// the generated set-up script (--no-vlan: no 802.1Q here), a real
// redis-server, the bng-accel-glue binary, and in place of accel-ppp its
// documented outside: JSON events PUBLISHed as its redis module writes them,
// a CLI double (fakeaccel_test.go), a /proc/net/pppoe file.
const (
	nsDP = "bngaccel-dp"
	nsCP = "bngaccel-cp"
)

var dpBuild = filepath.Join("..", "..", "..", "server-dp", "build")

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
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	ferr := fn()
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		return err // the thread stays locked and dies with its goroutine
	}
	runtime.UnlockOSThread()
	return ferr
}

func run(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v: %s", args, err, out)
	}
}

// rawSock is an AF_PACKET socket on one interface of a namespace; frames
// come back whole (an outer tag the kernel took off into PACKET_AUXDATA is
// put back).
type rawSock struct {
	fd int
}

func openRaw(t *testing.T, ns, ifname string) *rawSock {
	t.Helper()
	var s rawSock
	err := inNetns(ns, func() error {
		ifi, err := net.InterfaceByName(ifname)
		if err != nil {
			return err
		}
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, int(htons(unix.ETH_P_ALL)))
		if err != nil {
			return err
		}
		s.fd = fd
		if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_AUXDATA, 1); err != nil {
			return err
		}
		return unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(s.fd) })
	return &s
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func (s *rawSock) send(t *testing.T, f []byte) {
	t.Helper()
	if _, err := unix.Write(s.fd, f); err != nil {
		t.Fatal(err)
	}
}

func (s *rawSock) drain() {
	buf := make([]byte, 4096)
	for {
		if _, _, err := unix.Recvfrom(s.fd, buf, unix.MSG_DONTWAIT); err != nil {
			return
		}
	}
}

// recv returns the first incoming frame that want accepts within d (nil: none).
func (s *rawSock) recv(t *testing.T, d time.Duration, want func([]byte) bool) []byte {
	t.Helper()
	buf := make([]byte, 4096)
	oob := make([]byte, 256)
	for end := time.Now().Add(d); time.Now().Before(end); {
		tv := unix.NsecToTimeval(int64(50 * time.Millisecond))
		_ = unix.SetsockoptTimeval(s.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		n, oobn, _, from, err := unix.Recvmsg(s.fd, buf, oob, 0)
		if err != nil {
			continue
		}
		if ll, ok := from.(*unix.SockaddrLinklayer); ok && ll.Pkttype == unix.PACKET_OUTGOING {
			continue
		}
		f := append([]byte(nil), buf[:n]...)
		if tci, tpid, ok := auxTag(oob[:oobn]); ok && n >= 12 {
			tag := []byte{byte(tpid >> 8), byte(tpid), byte(tci >> 8), byte(tci)}
			f = append(append(append([]byte(nil), f[:12]...), tag...), f[12:]...)
		}
		if want(f) {
			return f
		}
	}
	return nil
}

func auxTag(ctrl []byte) (tci, tpid uint16, ok bool) {
	msgs, err := unix.ParseSocketControlMessage(ctrl)
	if err != nil {
		return 0, 0, false
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_PACKET && m.Header.Type == unix.PACKET_AUXDATA && len(m.Data) >= int(unsafe.Sizeof(unix.TpacketAuxdata{})) {
			a := (*unix.TpacketAuxdata)(unsafe.Pointer(&m.Data[0]))
			if a.Status&unix.TP_STATUS_VLAN_VALID == 0 && a.Vlan_tci == 0 {
				return 0, 0, false
			}
			tpid = 0x8100
			if a.Status&unix.TP_STATUS_VLAN_TPID_VALID != 0 && a.Vlan_tpid != 0 {
				tpid = a.Vlan_tpid
			}
			return a.Vlan_tci, tpid, true
		}
	}
	return 0, 0, false
}

var (
	subMAC  = []byte{0x02, 0x5b, 0, 0, 0, 7}
	acMAC   = []byte{0x02, 0xbb, 0, 0, 0, 1} // lg1
	coreMAC = []byte{0x02, 0xcc, 0, 0, 0, 1} // lg1
	rtrMAC  = []byte{0x02, 0xee, 0, 0, 0, 1}
	bcast   = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)

// qinqDisc is a PPPoE discovery frame on S-tag 100, C-tag 7 (lab line of dp1).
func qinqDisc(dst, src []byte, code byte, tags []byte) []byte {
	f := append(append([]byte(nil), dst...), src...)
	f = append(f, 0x81, 0x00, 0x00, 100, 0x81, 0x00, 0x00, 7, 0x88, 0x63, 0x11, code, 0, 0)
	f = binary.BigEndian.AppendUint16(f, uint16(len(tags)))
	return append(f, tags...)
}

func isDisc(code byte) func([]byte) bool {
	return func(f []byte) bool {
		return len(f) >= 26 && bytes.Equal(f[12:14], []byte{0x81, 0}) && bytes.Equal(f[20:22], []byte{0x88, 0x63}) && f[23] == code
	}
}

// coreDatagram: from the core router to the subscriber's address, to lg1's core MAC.
func coreDatagram(dst [4]byte, ttl byte) []byte {
	ip := []byte{0x45, 0, 0, 28 + 16, 0, 1, 0, 0, ttl, 17, 0, 0, 198, 51, 100, 10, dst[0], dst[1], dst[2], dst[3]}
	var sum uint32
	for i := 0; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
	udp := []byte{0, 53, 0x0f, 0xa0, 0, 8 + 16, 0, 0}
	f := append(append(append([]byte(nil), coreMAC...), rtrMAC...), 0x08, 0x00)
	f = append(append(f, ip...), udp...)
	return append(f, []byte("accel-glue-test!")...)
}

// isSessionData: the DP's downstream encapsulation of a datagram for the
// subscriber: its MAC, the AC MAC, S-tag 100 and C-tag 7 (0x8100: access1),
// PPPoE session sid, PPP IPv4.
func isSessionData(host byte, sid uint16) func([]byte) bool {
	mac := []byte{0x02, 0x5b, 0, 0, 0, host}
	return func(f []byte) bool {
		return len(f) >= 50 && bytes.Equal(f[0:6], mac) && bytes.Equal(f[6:12], acMAC) &&
			bytes.Equal(f[12:14], []byte{0x81, 0}) && binary.BigEndian.Uint16(f[14:])&0xfff == 100 &&
			bytes.Equal(f[16:18], []byte{0x81, 0}) && binary.BigEndian.Uint16(f[18:])&0xfff == uint16(host) &&
			bytes.Equal(f[20:22], []byte{0x88, 0x64}) && f[23] == 0 && binary.BigEndian.Uint16(f[24:]) == sid &&
			bytes.Equal(f[28:30], []byte{0, 0x21}) && bytes.Equal(f[46:50], []byte{100, 80, 0, host})
	}
}

type proc struct {
	cmd *exec.Cmd
	log string
}

func start(t *testing.T, logPath string, args ...string) *proc {
	t.Helper()
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lf.Close()
	return &proc{cmd: cmd, log: logPath}
}

func (p *proc) stop(sig syscall.Signal) {
	if p == nil || p.cmd.Process == nil || p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(sig)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

type status struct{ c *http.Client }

func newStatus(path string) *status {
	return &status{c: &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		}}}}
}

func (s *status) get(path string, v any) error {
	resp, err := s.c.Get("http://glue" + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

func (s *status) counters() map[string]uint64 {
	m := map[string]uint64{}
	_ = s.get("/v1/counters", &m)
	return m
}

func (s *status) sessions() []Record {
	var rs []Record
	_ = s.get("/v1/sessions", &rs)
	return rs
}

func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("%s: not within %v", what, d)
}

// acctServer is a RADIUS accounting server (layeh.com/radius: it drops a
// request whose authenticator does not check with the lab's secret) that
// records what it was sent.
type acctServer struct {
	mu   sync.Mutex
	reqs []acctSeen
}

type acctSeen struct {
	status   rfc2866.AcctStatusType
	sid      string
	out, in  uint32
	outPkts  uint32
	username string
}

func (a *acctServer) ServeRADIUS(w radius.ResponseWriter, r *radius.Request) {
	if r.Code != radius.CodeAccountingRequest {
		return
	}
	a.mu.Lock()
	a.reqs = append(a.reqs, acctSeen{status: rfc2866.AcctStatusType_Get(r.Packet), sid: rfc2866.AcctSessionID_GetString(r.Packet),
		out: uint32(rfc2866.AcctOutputOctets_Get(r.Packet)), in: uint32(rfc2866.AcctInputOctets_Get(r.Packet)),
		outPkts: uint32(rfc2866.AcctOutputPackets_Get(r.Packet)), username: radiusUserName(r.Packet)})
	a.mu.Unlock()
	_ = w.Write(r.Response(radius.CodeAccountingResponse))
}

func radiusUserName(p *radius.Packet) string {
	if v, ok := p.Lookup(1); ok {
		return string(v)
	}
	return ""
}

func (a *acctServer) seen() []acctSeen {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]acctSeen(nil), a.reqs...)
}

func TestPodWithBngDP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	prereq.Root(t, "network namespaces")
	bngdp, _ := filepath.Abs(filepath.Join(dpBuild, "bng-dp"))
	if _, err := os.Stat(bngdp); err != nil {
		prereq.Skip(t, bngdp+" is not built (ninja -C server-dp/build)")
	}
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		prereq.Skip(t, "redis-server is not installed (scripts/setup.sh installs it)")
	}
	for _, tool := range []string{"ip", "ethtool"} {
		if _, err := exec.LookPath(tool); err != nil {
			prereq.Skip(t, "no "+tool)
		}
	}
	dir := t.TempDir()
	glue := filepath.Join(dir, "bng-accel-glue")
	if out, err := exec.Command("go", "build", "-o", glue, "../../cmd/bng-accel-glue").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	lab := filepath.Join("..", "..", "..", "topology", "tests", "golden", "lab")
	cpYAML, _ := filepath.Abs(filepath.Join(lab, "cp.yaml"))
	ini, _ := filepath.Abs(filepath.Join(lab, "dp", "dp1.ini"))
	script, _ := filepath.Abs(filepath.Join(lab, "accel-ppp", "bngpod-accel-net"))

	prereq.NetnsLock(t)
	cleanup := func() {
		_ = exec.Command("ip", "netns", "delete", nsDP).Run()
		_ = exec.Command("ip", "netns", "delete", nsCP).Run()
		_ = os.RemoveAll("/var/run/dpdk/" + nsDP)
	}
	cleanup() // a stale set from a killed run
	t.Cleanup(cleanup)
	for _, args := range [][]string{
		{"ip", "netns", "add", nsDP}, {"ip", "netns", "add", nsCP},
		{"ip", "-n", nsDP, "link", "set", "lo", "up"}, {"ip", "-n", nsCP, "link", "set", "lo", "up"},
		{"ip", "-n", nsDP, "link", "add", "data0", "type", "veth", "peer", "name", "wire0"},
		{"ip", "-n", nsDP, "link", "set", "data0", "mtu", "1600", "up"},
		{"ip", "-n", nsDP, "link", "set", "wire0", "mtu", "1600", "up"},
		{"ip", "netns", "exec", nsDP, "ethtool", "-K", "wire0", "rxvlan", "off", "txvlan", "off"},
		{"ip", "-n", nsDP, "link", "add", "mg0", "type", "veth", "peer", "name", "mg1", "netns", nsCP},
		{"ip", "-n", nsDP, "addr", "add", "10.200.0.11/24", "dev", "mg0"},
		{"ip", "-n", nsCP, "addr", "add", "10.200.0.1/24", "dev", "mg1"},
		{"ip", "-n", nsCP, "addr", "add", "10.200.0.2/32", "dev", "lo"}, // the lab's RADIUS server
		{"ip", "-n", nsDP, "link", "set", "mg0", "mtu", "1600", "up"},
		{"ip", "-n", nsCP, "link", "set", "mg1", "mtu", "1600", "up"},
		// the control server's VXLAN interfaces, by the generated script
		{"ip", "netns", "exec", nsCP, "sh", script, "up", "--no-vlan"},
	} {
		run(t, args...)
	}
	out, _ := exec.Command("ip", "-n", nsCP, "-d", "link", "show", "vx1").CombinedOutput()
	for _, want := range []string{"vxlan id 1 ", "remote 10.200.0.11 ", "local 10.200.0.1 ", "dstport 4789 ", "nolearning", "mtu 1508"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("vx1 lacks %q:\n%s", want, out)
		}
	}

	dpArgs := []string{"ip", "netns", "exec", nsDP, bngdp, "-l", "0,1", "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
		"--file-prefix=" + nsDP, "--log-level=notice", "--vdev", "net_af_packet0,iface=data0,framecnt=4096",
		"--", "--config", ini, "--idle-sleep-us", "50", "--sessions", "4096"}
	dp := start(t, filepath.Join(dir, "bng-dp.log"), dpArgs...)
	rs := start(t, filepath.Join(dir, "redis.log"), "ip", "netns", "exec", nsCP, redisBin, "--bind", "127.0.0.1",
		"--port", "6379", "--save", "", "--appendonly", "no", "--dir", dir, "--protected-mode", "no")
	var cliLn net.Listener
	if err := inNetns(nsCP, func() error {
		var err error
		cliLn, err = net.Listen("tcp", "127.0.0.1:2001")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	accel := newFakeAccel(t, cliLn)
	var radConn net.PacketConn
	if err := inNetns(nsCP, func() error {
		var err error
		radConn, err = net.ListenPacket("udp", "10.200.0.2:1813")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	acct := &acctServer{}
	radSrv := &radius.PacketServer{SecretSource: radius.StaticSecretSource([]byte("testing123")), Handler: acct}
	go func() { _ = radSrv.Serve(radConn) }()
	t.Cleanup(func() { _ = radSrv.Shutdown(context.Background()) })
	procPPPoE := filepath.Join(dir, "pppoe")
	if err := os.WriteFile(procPPPoE, []byte("Id       Address              Device\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	statusSock := filepath.Join(dir, "status.sock")
	glueArgs := []string{"ip", "netns", "exec", nsCP, glue, "-config", cpYAML, "-state", filepath.Join(dir, "glue.db"),
		"-redis", "127.0.0.1:6379", "-hook-socket", filepath.Join(dir, "hook.sock"), "-cli", "127.0.0.1:2001", "-proc-pppoe", procPPPoE, "-status", statusSock,
		"-interim", "2s", "-resync", "0", "-log-format", "text"}
	g := start(t, filepath.Join(dir, "glue.log"), glueArgs...)
	var rsAddr string
	t.Cleanup(func() {
		g.stop(syscall.SIGTERM)
		dp.stop(syscall.SIGTERM)
		rs.stop(syscall.SIGTERM)
		if t.Failed() {
			for _, f := range []string{"glue.log", "bng-dp.log", "redis.log"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				if len(b) > 6000 {
					b = b[len(b)-6000:]
				}
				t.Logf("%s:\n%s", f, b)
			}
		}
	})
	st := newStatus(statusSock)
	waitFor(t, "the glue associated with dp1", 30*time.Second, func() bool { return st.counters()["peer_up"] >= 1 })
	pub := func(payload string) {
		t.Helper()
		if err := inNetns(nsCP, func() error {
			rsAddr = "127.0.0.1:6379"
			publish(t, rsAddr, "accel-ppp", payload)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	// 1. the VXLAN redirect, both ways, through the kernel's VXLAN interface
	wire := openRaw(t, nsDP, "wire0")
	vx := openRaw(t, nsCP, "vx1")
	padi := qinqDisc(bcast, subMAC, 0x09, []byte{0x01, 0x01, 0, 0, 0x01, 0x03, 0, 4, 1, 2, 3, 4})
	vx.drain()
	wire.send(t, padi)
	got := vx.recv(t, 3*time.Second, isDisc(0x09))
	if got == nil || !bytes.Equal(got, padi) {
		t.Fatalf("the PADI on vx1: %x, sent %x", got, padi)
	}
	pado := qinqDisc(subMAC, acMAC, 0x07, []byte{0x01, 0x02, 0, 4, 'l', 'a', 'b', '!', 0x01, 0x01, 0, 0})
	wire.drain()
	vx.send(t, pado)
	got = wire.recv(t, 3*time.Second, isDisc(0x07))
	if got == nil || !bytes.Equal(got[:len(pado)], pado) {
		t.Fatalf("the PADO on the access side: %x, sent %x", got, pado)
	}
	// a frame the AC would never send (another source MAC) does not pass bng-dp's guard
	wire.drain()
	vx.send(t, qinqDisc(subMAC, []byte{2, 0xbb, 0, 0, 0, 9}, 0x07, nil))
	if got := wire.recv(t, 500*time.Millisecond, isDisc(0x07)); got != nil {
		t.Fatalf("a PADO from a foreign MAC reached the access side: %x", got)
	}

	// 2. a session: accel-ppp's event on redis, the DP forwards with the session header
	row := Row{"sid": "00000000000000a1", "ifname": "ppp0", "username": "sub7", "ip": "100.80.0.7",
		"calling-sid": "02:5b:00:00:00:07", "called-sid": "vx1.100.7", "state": "active"}
	accel.set(row)
	pub(`{ "event": "session-acct-start", "ctrl_type": "pppoe", "session_id": "00000000000000a1", ` +
		`"calling_station_id": "02:5b:00:00:00:07", "name": "pppoe", "username": "sub7", "ip_addr": "100.80.0.7", ` +
		`"pppoe_sessionid": 263, "ctrl_ifname": "vx1.100.7", "nas_identifier": "bngpod-lab" }`)
	waitFor(t, "the session installed", 10*time.Second, func() bool {
		ss := st.sessions()
		return len(ss) == 1 && ss[0].UPSEID != 0
	})
	up1 := st.sessions()[0].UPSEID
	downTo := func(what string, host byte, sid uint16, want bool) {
		t.Helper()
		wire.drain()
		wire.send(t, coreDatagram([4]byte{100, 80, 0, host}, 20))
		got := wire.recv(t, 2*time.Second, isSessionData(host, sid))
		if want && got == nil {
			t.Fatalf("%s: no downstream frame with the session's header", what)
		}
		if !want && got != nil {
			t.Fatalf("%s: a downstream frame still forwarded: %x", what, got)
		}
	}
	down := func(what string, want bool) { t.Helper(); downTo(what, 7, 263, want) }
	down("installed", true)
	// usage comes back: the DP's periodic report (-interim 2s) counts the datagram
	waitFor(t, "usage reported", 10*time.Second, func() bool {
		ss := st.sessions()
		return len(ss) == 1 && ss[0].OutOctets == 44 && ss[0].OutPackets == 1
	})

	// 2b. upstream accel-ppp's way: the pppd-compat ip-pre-up script (the real binary's hook,
	// as accel-ppp runs it: arguments and environment of pppd_compat.c), the PPPoE session
	// id from /proc/net/pppoe (kernel format: the __be16 id printed as a host integer)
	hook := func(script, host string, env ...string) error {
		cmd := exec.Command(glue, "hook", "-socket", filepath.Join(dir, "hook.sock"), script,
			"ppp1", "none", "0", "10.200.0.1", "100.80.0."+host, "02:5b:00:00:00:0"+host)
		cmd.Env = append([]string{"PEERNAME=sub8", "CALLING_SID=02:5b:00:00:00:0" + host, "CALLED_SID=vx1.100." + host}, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	if err := hook("ip-pre-up", "8"); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("ip-pre-up of a session accel-ppp's CLI does not list: %v", err)
	}
	accel.set(row, Row{"sid": "00000000000000b1", "ifname": "ppp1", "username": "sub8", "ip": "100.80.0.8",
		"calling-sid": "02:5b:00:00:00:08", "called-sid": "vx1.100.8", "state": "start"})
	sid8 := make([]byte, 2)
	binary.NativeEndian.PutUint16(sid8, 0x0108)
	if err := os.WriteFile(procPPPoE, []byte(fmt.Sprintf("Id       Address              Device\n%08X 02:5b:00:00:00:08 vx1.100.8\n",
		binary.BigEndian.Uint16(sid8))), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := hook("ip-pre-up", "8"); err != nil {
		t.Fatal(err)
	}
	downTo("pppd-compat session", 8, 0x0108, true)
	if err := hook("ip-down", "8", "CONNECT_TIME=3", "BYTES_SENT=0", "BYTES_RCVD=0", "PACKETS_SENT=0", "PACKETS_RCVD=0"); err != nil {
		t.Fatal(err)
	}
	downTo("pppd-compat session ended", 8, 0x0108, false)
	accel.set(row)

	// 3. hostile events: counted, the glue lives on
	for _, m := range []string{"{", `{ "event": "session-acct-start" }`, `{ "event": "nonsense" }`,
		`{ "event": "session-acct-start", "ctrl_type": "pppoe", "session_id": "00000000000000a2", "calling_station_id": "02:5b:00:00:00:08", "ip_addr": "100.80.0.8", "pppoe_sessionid": 264, "ctrl_ifname": "vx7.100.8" }`} {
		pub(m)
	}
	waitFor(t, "the hostile events counted", 5*time.Second, func() bool {
		c := st.counters()
		return c["refused_json"] == 1 && c["refused_session_id"] == 1 && c["refused_unknown_event"] == 1 && c["refused_unknown_line"] == 1
	})

	// 4. the glue is killed and restarted: the DP keeps forwarding meanwhile, the glue
	// comes back with the session from its store without touching the DP
	g.stop(syscall.SIGKILL)
	down("glue down", true)
	g = start(t, filepath.Join(dir, "glue.log"), glueArgs...)
	waitFor(t, "the restarted glue associated", 30*time.Second, func() bool { return st.counters()["peer_up"] >= 1 })
	waitFor(t, "the restarted glue re-synced", 10*time.Second, func() bool { return st.counters()["resyncs"] >= 1 })
	if ss := st.sessions(); len(ss) != 1 || ss[0].UPSEID != up1 {
		t.Fatalf("after the glue's restart: %+v", ss)
	}
	if c := st.counters(); c["reinstalled"] != 0 || c["removed"] != 0 {
		t.Fatalf("the restart touched the DP: %v", c)
	}
	down("glue restarted", true)

	// 5. bng-dp restarts (a new recovery time stamp): the glue installs the session again
	time.Sleep(1100 * time.Millisecond) // the time stamp's resolution
	dp.stop(syscall.SIGTERM)
	dp = start(t, filepath.Join(dir, "bng-dp.log"), dpArgs...)
	waitFor(t, "the session installed in the restarted DP", 40*time.Second, func() bool { return st.counters()["reinstalled"] >= 1 })
	down("DP restarted", true)

	// 5b. redis restarts: the glue subscribes again and re-syncs (pub/sub lost what was
	// published meanwhile)
	before := st.counters()["resyncs"]
	rs.stop(syscall.SIGTERM)
	rs = start(t, filepath.Join(dir, "redis.log"), "ip", "netns", "exec", nsCP, redisBin, "--bind", "127.0.0.1",
		"--port", "6379", "--save", "", "--appendonly", "no", "--dir", dir, "--protected-mode", "no")
	waitFor(t, "subscribed again and re-synced", 30*time.Second, func() bool {
		c := st.counters()
		return c["redis_reconnects"] >= 1 && c["resyncs"] > before
	})
	if ss := st.sessions(); len(ss) != 1 {
		t.Fatalf("after redis's restart: %+v", ss)
	}

	// 6. the end: accel-ppp's session-pre-finished; the DP forwards no more
	pub(`{ "event": "session-pre-finished", "ctrl_type": "pppoe", "session_id": "00000000000000a1", "ip_addr": "100.80.0.7" }`)
	waitFor(t, "the session removed", 10*time.Second, func() bool { return len(st.sessions()) == 0 })
	down("removed", false)

	// 7. accounting went to the RADIUS server from the DP's usage: a Start and a Stop per
	// session (none again for the restarts), Interim-Updates between. The Stop counts the
	// datagram reported before the glue's kill and the one after the DP's restart (44
	// octets of IPv4 each); those in between may have been unreported when bng-dp
	// restarted, and a restarted DP has no usage of its past (as with bng-cp)
	var starts, stops, interims int
	var stop acctSeen
	waitFor(t, "the Accounting-Stop", 10*time.Second, func() bool {
		starts, stops, interims = 0, 0, 0
		for _, q := range acct.seen() {
			if q.sid != "00000000000000a1" {
				continue
			}
			switch q.status {
			case rfc2866.AcctStatusType_Value_Start:
				starts++
			case rfc2866.AcctStatusType_Value_Stop:
				stops++
				stop = q
			case rfc2866.AcctStatusType_Value_InterimUpdate:
				interims++
			}
		}
		return stops == 1
	})
	if starts != 1 || interims < 1 || stop.out < 2*44 || stop.out%44 != 0 || stop.outPkts != stop.out/44 || stop.username != "sub7" {
		t.Fatalf("accounting of a1: %d starts, %d interims, stop %+v (all: %+v)", starts, interims, stop, acct.seen())
	}
	var b1 []rfc2866.AcctStatusType
	for _, q := range acct.seen() {
		if q.sid == "00000000000000b1" {
			b1 = append(b1, q.status)
		}
	}
	if len(b1) < 2 || b1[0] != rfc2866.AcctStatusType_Value_Start || b1[len(b1)-1] != rfc2866.AcctStatusType_Value_Stop {
		t.Fatalf("accounting of the pppd-compat session: %v", b1)
	}
}
