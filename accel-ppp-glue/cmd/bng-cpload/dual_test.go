package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/core"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

// The loader's dual-stack dials against bng-cp's own daemon (in this
// process, users file, loopback): every second session dials dual stack,
// each completes only with its delegated prefix bound and its IPv6 PDRs in
// the emulated DP.
func TestDualStackDialsAgainstTheDaemon(t *testing.T) {
	n := 1 + rand.IntN(250)
	cpAddr := netip.AddrFrom4([4]byte{127, 92, byte(n), 1})
	dpAddr := netip.AddrFrom4([4]byte{127, 92, byte(n), 11})
	port := func() uint16 {
		c, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(cpAddr, 0)))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.LocalAddr().(*net.UDPAddr).AddrPort().Port()
	}
	pfcpPort, vxPort, coaPort := port(), port(), port()
	dir := t.TempDir()
	const sessions = 200
	var users []byte
	for i := 1; i <= sessions; i++ {
		users = fmt.Appendf(users, "user%d Cleartext-Password := \"pw%d\"\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "users"), users, 0o600); err != nil {
		t.Fatal(err)
	}
	raw := fmt.Sprintf(`pod: loadtest
control_plane: {address: %s, pfcp_port: %d, vxlan_port: %d}
management: {subnet: 127.0.0.0/8}
radius:
  nas_identifier: bngpod-loadtest
  coa_port: %d
  timeout_ms: 200
  retries: 1
  servers:
    - {name: radius1, address: %s, auth_port: 9, acct_port: 9, secret: x}
access_ports:
  - {name: access1, tpid: 33024, rate: 10000000000}
pools:
  - {name: pool1, prefix: 100.64.0.0/22, dns: [198.51.100.53], line_group: lg1}
qos_profiles:
  - {name: silver, down_rate: 20000000, up_pir: 10000000}
line_groups:
  - {name: lg1, ac_mac: "02:bb:00:00:00:01", core_address: 100.64.0.1, core_mac: "02:cc:00:00:00:01",
     pools: [pool1], qos_profile: silver, instance: 1, core_address6: "2001:db8:64::11", ipv6_pools: [v6]}
instances:
  - id: 1
    name: dp1
    control_address: %s
    data_mac: "02:00:00:00:01:01"
    line_groups: [lg1]
    lines:
      - {group: lg1, access_port: access1, stag: {min: 100, max: 149}, ctag: {min: 1, max: 4000}}
core6: {subnet: "2001:db8:64::/64", router: "2001:db8:64::1"}
ipv6_pools:
  - {name: v6, wan_prefix: "2001:db8:100::/48", delegated_prefix: "2001:db8:200::/40", delegated_length: 56,
     dns: ["2001:db8::53"], line_group: lg1}
`, cpAddr, pfcpPort, vxPort, coaPort, cpAddr, dpAddr)
	cfg, err := config.Parse([]byte(raw))
	if err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	l, err := New(Config{CP: cpAddr, CPVXLAN: vxPort, LocalVXLAN: vxPort, LocalPFCP: pfcpPort,
		DPs: []DPSpec{{ID: 1, Addr: dpAddr, STag: Range{100, 149}, CTag: Range{1, 4000}}}, Sessions: sessions,
		Window: 100, OuterTPID: tpid8021Q, Auth: "pap", UserFmt: "user%d", PassFmt: "pw%d", MRU: 1492, DNS: true,
		Timeout: 20 * time.Second, Resend: time.Second, AssocWait: 10 * time.Second, DualStackEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Serve()
	d, err := core.New(core.Options{Config: cfg, StateDir: filepath.Join(dir, "state"),
		UsersFile: filepath.Join(dir, "users"), Auth: []ppp.AuthMethod{ppp.AuthPAP},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PADIRate: 1000, PADIBurst: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() { cancel(); <-done }()
	r, err := l.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("result %+v dual %+v ipv4 %+v counters %v", r, r.Dual, r.IPv4, l.Counters())
	if c := l.Counters(); c["unexpected_frames"] != 0 || c["protocol_rejects_sent"] < sessions/2 {
		t.Errorf("counters %v: every IPv4-only CPE Protocol-Rejects IPv6CP, nothing else unexpected", c)
	}
	if r.Completed != sessions || r.Dual == nil || r.Dual.Completed != sessions/2 || r.IPv4.Completed != sessions/2 {
		t.Fatalf("result %+v dual %+v ipv4 %+v failures %v counters %v", r, r.Dual, r.IPv4, l.Failures(), l.Counters())
	}
}
