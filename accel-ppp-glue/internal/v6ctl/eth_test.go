package v6ctl

import (
	"bytes"
	"net/netip"
	"testing"
	"time"
)

// On Ethernet (IPoE): the RA has the Source Link-Layer Address option with
// the BNG's MAC before the Prefix Information; without a /64 yet, no Prefix
// Information and M|O, so that the CPE starts DHCPv6.
func TestRAOnEthernet(t *testing.T) {
	ac := []byte{0x02, 0x42, 0xac, 0, 0, 1}
	s := newSession()
	s.SLLA = ac
	r := srv.Handle(s, rs(clientLL, 255, []byte{1, 1, 2, 0x5b, 0, 0, 0, 1}), time.Now())
	if r.Kind != "ra" {
		t.Fatalf("%+v", r)
	}
	h, _ := parseIPv6(r.Reply)
	if h.hop != 255 || h.src != LinkLocal(ourIID) || h.dst != allNodes {
		t.Fatalf("header %+v", h)
	}
	o := h.payload[16:]
	if !bytes.Equal(o[:8], append([]byte{1, 1}, ac...)) {
		t.Fatalf("SLLA % x", o[:8])
	}
	if o[8] != 3 || o[9] != 4 || o[10] != 64 || o[11] != 0xc0 || h.payload[5] != 0x40 {
		t.Fatalf("prefix info % x, flags %#x", o[8:12], h.payload[5])
	}
	// no /64 yet: answered, M|O, no Prefix Information
	s.WAN, s.PD = netip.Prefix{}, netip.Prefix{}
	r = srv.Handle(s, rs(clientLL, 255, nil), time.Now())
	if r.Kind != "ra" {
		t.Fatalf("no /64: %+v", r)
	}
	h, _ = parseIPv6(r.Reply)
	if h.payload[5] != 0xc0 {
		t.Fatalf("flags %#x, want M|O", h.payload[5])
	}
	for o := h.payload[16:]; len(o) >= 2; o = o[int(o[1])*8:] {
		if o[0] == 3 {
			t.Fatal("Prefix Information without a /64")
		}
	}
	// PPP (no SLLA) without a /64: still dropped
	s.SLLA = nil
	if r := srv.Handle(s, rs(clientLL, 255, nil), time.Now()); r.Kind != "ra_no_prefix" {
		t.Fatalf("PPP without /64: %+v", r)
	}
}

func TestPeek(t *testing.T) {
	for name, c := range map[string]struct {
		pkt  []byte
		want Peeked
		bad  string
	}{
		"rs":        {rs(clientLL, 255, nil), Peeked{RS: true}, ""},
		"rs hop 64": {rs(clientLL, 64, nil), Peeked{}, "nd_invalid"},
		"solicit rapid": {dhcp(msgSolicit, opt(optClientID, duidC), iaPD(7), opt(optRapidCommit, nil)),
			Peeked{DHCP: msgSolicit, Rapid: true}, ""},
		"request":   {dhcp(msgRequest, opt(optClientID, duidC), opt(optServerID, srv.DUID), iaNA(1)), Peeked{DHCP: msgRequest}, ""},
		"malformed": {dhcp(msgSolicit, []byte{0, 1, 0, 9, 1}), Peeked{}, "dhcp6_malformed"},
		"short":     {[]byte{0x60}, Peeked{}, "ipv6_short"},
	} {
		got, bad := Peek(c.pkt)
		if got != c.want || bad != c.bad {
			t.Errorf("%s: %+v %q, want %+v %q", name, got, bad, c.want, c.bad)
		}
	}
}

func TestFrameRoundTrip(t *testing.T) {
	p := rs(clientLL, 255, nil)
	f := Frame{Dst: [6]byte{1, 2, 3, 4, 5, 6}, Src: [6]byte{2, 0, 0, 0, 0, 1}, OuterTPID: 0x88a8, STag: 100, CTag: 7, Packet: p}
	b := AppendFrame(nil, &f)
	if !bytes.Equal(b[12:22], []byte{0x88, 0xa8, 0, 100, 0x81, 0, 0, 7, 0x86, 0xdd}) || !IsIPv6Frame(b) {
		t.Fatalf("% x", b[:22])
	}
	g, err := DecodeFrame(b)
	if err != nil || g.STag != 100 || g.CTag != 7 || g.OuterTPID != 0x88a8 || !bytes.Equal(g.Packet, p) || g.Src != f.Src {
		t.Fatalf("%+v %v", g, err)
	}
	for _, bad := range [][]byte{b[:17], append(append([]byte(nil), b[:12]...), 0x08, 0, 0, 0, 0, 0)} {
		if _, err := DecodeFrame(bad); err == nil {
			t.Fatalf("decoded % x", bad)
		}
	}
}
