package main

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// session show of a dual-stack session: the IPv6 lines after the others.
func TestSessionShowIPv6(t *testing.T) {
	f := newFake()
	wan := netip.MustParsePrefix("2001:db8:100:1::/64")
	pd := netip.MustParsePrefix("2001:db8:200:100::/56")
	f.sessions[0].IPv6Prefix, f.sessions[0].DelegatedPrefix = &wan, &pd
	f.sessions[0].V6UpOctets, f.sessions[0].V6DownPackets = 300, 4
	sock := serve(t, f)
	code, out, errOut := ctl(sock, "session", "show", "1")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d %q", code, errOut)
	}
	want := "" +
		"remote id:         cpe-1\n" +
		"ipv6 prefix:       2001:db8:100:1::/64\n" +
		"delegated prefix:  2001:db8:200:100::/56 (not bound)\n" +
		"ipv6 address:      -\n" +
		"ipv6 up octets:    300\n" +
		"ipv6 down octets:  0\n" +
		"ipv6 up packets:   0\n" +
		"ipv6 down packets: 4\n"
	if !strings.HasSuffix(out, want) {
		t.Fatalf("got:\n%s\nwant the end:\n%s", out, want)
	}
}

// session show of a dual-stack IPoE session: kind, both leases, the IPv6 lines.
func TestSessionShowIPoEIPv6(t *testing.T) {
	f := newFake()
	wan := netip.MustParsePrefix("2001:db8:180:1::/64")
	pd := netip.MustParsePrefix("2001:db8:2800:100::/56")
	na := netip.MustParseAddr("2001:db8:180:1::1")
	end := time.Date(2026, 12, 6, 15, 0, 0, 0, time.UTC)
	end6 := end.Add(24 * time.Hour)
	s := &f.sessions[0]
	s.Kind, s.PPPoESessionID, s.LeaseEnd, s.LeaseEnd6 = "ipoe", 0, &end, &end6
	s.IPv6Prefix, s.DelegatedPrefix, s.IPv6Address, s.PrefixBound = &wan, &pd, &na, true
	sock := serve(t, f)
	code, out, errOut := ctl(sock, "session", "show", "1")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d %q", code, errOut)
	}
	for _, want := range []string{"kind:              ipoe\n", "lease end:         2026-12-06T15:00:00Z\n",
		"ipv6 prefix:       2001:db8:180:1::/64\n", "delegated prefix:  2001:db8:2800:100::/56\n",
		"ipv6 address:      2001:db8:180:1::1\n", "ipv6 lease end:    2026-12-07T15:00:00Z\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}
