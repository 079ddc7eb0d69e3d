package main

import (
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// TestRawSocketOverVeth runs the emulator on a real AF_PACKET socket: a veth
// pair in a private namespace, the test server on the other end. The veth
// strips the outer tag on receive (rx VLAN offload), so this checks that the
// tag comes back from PACKET_AUXDATA, for 0x8100 and 0x88a8. Needs root.
func TestRawSocketOverVeth(t *testing.T) {
	prereq.Root(t, "netns, veth, AF_PACKET")
	if _, err := exec.LookPath("ip"); err != nil {
		prereq.Skip(t, "no ip command")
	}
	prereq.NetnsLock(t)
	ns := "subemu-test-" + strconv.Itoa(os.Getpid())
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v %s", args, err, out)
		}
	}
	ip("netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	ip("-n", ns, "link", "add", "sub0", "type", "veth", "peer", "name", "ac0")
	ip("-n", ns, "link", "set", "sub0", "up")
	ip("-n", ns, "link", "set", "ac0", "up")

	// open both sockets inside the namespace (a socket stays in the
	// namespace it was made in)
	var emuSock, srvSock *RawSocket
	func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		orig, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			t.Fatal(err)
		}
		defer orig.Close()
		target, err := os.Open("/run/netns/" + ns)
		if err != nil {
			t.Fatal(err)
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
				panic(err) // this thread must not go back to the pool in the wrong namespace
			}
		}()
		if emuSock, err = OpenRawSocket("sub0"); err != nil {
			t.Fatal(err)
		}
		if srvSock, err = openRawSocket("ac0", false); err != nil {
			t.Fatal(err)
		}
	}()

	subs, users := testSubs(40)
	for i := range subs {
		if i%2 == 1 {
			subs[i].TPID = 0x88a8
		}
	}
	cfg := fastConfig("chap")
	cfg.Rate = 20
	cfg.Target = netip.MustParseAddrPort("198.51.100.10:7")
	r := newRigOn(t, cfg, subs, serverConfig{Users: users, UDPEcho: true}, emuSock, srvSock)
	r.waitUp(40, 10*time.Second)
	time.Sleep(500 * time.Millisecond)
	st := r.emu.Stats()
	if st.RxPkts == 0 || st.RxBad != 0 || st.Wire["malformed"] != 0 {
		t.Fatalf("stats %+v", st)
	}
	if d, ok := st.Wire["rx_socket_dropped"]; !ok || d != 0 {
		t.Fatalf("the raw socket's receive drops: %d (reported: %v)", d, ok)
	}
	r.srv.with(func() {
		if r.srv.tpids[0x8100] == 0 || r.srv.tpids[0x88a8] == 0 {
			t.Fatalf("tpids at the server %v", r.srv.tpids)
		}
	})
	r.stop()
	waitFor(t, "PADTs", 2*time.Second, func() bool {
		n := 1
		r.srv.with(func() { n = len(r.srv.sessions) })
		return n == 0
	})
	t.Logf("raw socket: %d sessions up, %d datagrams sent, %d back", st.Up, st.TxPkts, st.RxPkts)
}
