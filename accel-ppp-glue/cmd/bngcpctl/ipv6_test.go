package main

import (
	"net/netip"
	"strings"
	"testing"
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
