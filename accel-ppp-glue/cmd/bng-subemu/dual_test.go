package main

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// Dual-stack subscribers against the CP's own IPv6CP and IPv6 control code:
// up once IPCP is open and the delegated prefix is bound, traffic from the
// SLAAC address and the delegated prefix echoed.
func TestDualStackSessionsComeUp(t *testing.T) {
	for _, iana := range []bool{false, true} {
		subs, users := testSubs(20)
		cfg := fastConfig("pap")
		cfg.DualStack = true
		cfg.Rate = 50
		cfg.Target = netip.MustParseAddrPort("198.51.100.10:7")
		cfg.Target6 = netip.MustParseAddrPort("[2001:db8:ffff::10]:7")
		r := newRig(t, cfg, subs, serverConfig{Users: users, UDPEcho: true, IPv6: true, IANA: iana})
		r.waitUp(20, 10*time.Second)
		time.Sleep(500 * time.Millisecond)
		st := r.emu.Stats()
		v := st.IPv6
		if v == nil || v.Bound != 20 || len(v.Failed) != 0 || v.Sent["rs"] < 20 || v.Received["ra"] < 20 ||
			v.Sent["solicit"] < 20 || v.Received["reply"] != 20 || v.Bad != 0 {
			t.Fatalf("iana %v: IPv6 stats %+v", iana, v)
		}
		if v.TxPkts < 20*10 || v.RxPkts+40 < v.TxPkts || v.RxPD == 0 || v.TxPD*2+20 < v.TxPkts || v.TxPD*2 > v.TxPkts || v.RxPD > v.TxPD || v.RxPD*3 < v.RxPkts || v.RxBad != 0 {
			t.Fatalf("iana %v: IPv6 traffic %+v", iana, v)
		}
		for _, ss := range r.emu.Sessions() {
			if !strings.HasPrefix(ss.IPv6Address, "2001:db8:100:") || !strings.HasSuffix(ss.DelegatedPrefix, "00::/56") ||
				(ss.IANAAddress != "") != iana || ss.V6RxPkts == 0 {
				t.Fatalf("session %+v", ss)
			}
		}
		if st.RxPkts == 0 {
			t.Fatalf("no IPv4 traffic beside: %+v", st)
		}
		r.stop()
	}
}

// A server without IPv6 Protocol-Rejects IPv6CP: the sessions come up with
// IPv4 and the refusal is counted.
func TestDualStackAgainstIPv4OnlyServer(t *testing.T) {
	subs, users := testSubs(5)
	cfg := fastConfig("pap")
	cfg.DualStack = true
	cfg.Strict = true
	r := newRig(t, cfg, subs, serverConfig{Users: users})
	r.waitUp(5, 5*time.Second)
	v := r.emu.Stats().IPv6
	if v == nil || v.Failed["ipv6cp_protocol_rejected"] != 5 || v.Bound != 0 {
		t.Fatalf("%+v", v)
	}
	for _, s := range r.emu.Sessions() {
		if !strings.HasPrefix(s.Address, "100.64.") {
			t.Fatalf("%+v", s)
		}
	}
}
