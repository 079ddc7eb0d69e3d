package v6ctl

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"
	"time"
)

var (
	clientLL = netip.MustParseAddr("fe80::211:22ff:fe33:4455")
	duidC    = []byte{0, 3, 0, 1, 2, 0x5b, 0, 0, 0, 1}
	srv      = &Server{DUID: NewDUID([8]byte{1, 2, 3, 4, 5, 6, 7, 8})}
)

const ourIID = 0x00bbfffe00000001

func newSession() *Session {
	return &Session{
		OurIID: ourIID, WAN: netip.MustParsePrefix("2001:db8:100:7::/64"),
		PD: netip.MustParsePrefix("2001:db8:200:700::/56"), DNS: []netip.Addr{netip.MustParseAddr("2001:db8::53")},
		MTU: 1492, RouterLifetime: 1800,
	}
}

func rs(src netip.Addr, hop uint8, opts []byte) []byte {
	b := append([]byte{icmpRS, 0, 0, 0, 0, 0, 0, 0}, opts...)
	return buildIPv6(src, allRouters, protoICMPv6, hop, b, 2)
}

// dhcp builds a client message from options.
func dhcp(typ uint8, opts ...[]byte) []byte {
	m := []byte{typ, 0xab, 0xcd, 0xef}
	for _, o := range opts {
		m = append(m, o...)
	}
	udp := make([]byte, 8)
	binary.BigEndian.PutUint16(udp, portClient)
	binary.BigEndian.PutUint16(udp[2:], portServer)
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(m)))
	return buildIPv6(clientLL, allDHCPAgents, protoUDP, 1, append(udp, m...), 6)
}

func opt(code uint16, data []byte) []byte { return appendOpt(nil, code, data) }
func iaPD(iaid uint32, sub ...[]byte) []byte {
	b := iaHead(iaid, 0, 0)
	for _, s := range sub {
		b = append(b, s...)
	}
	return opt(optIAPD, b)
}
func iaNA(iaid uint32) []byte { return opt(optIANA, iaHead(iaid, 0, 0)) }

var oroDNS = opt(optORO, []byte{0, optDNS})

// reply checks the answer's IPv6/UDP framing and returns the DHCPv6 message.
func reply(t *testing.T, r Result, wantType uint8) *message {
	t.Helper()
	if r.Drop || r.Reply == nil {
		t.Fatalf("no reply: %+v", r)
	}
	h, bad := parseIPv6(r.Reply)
	if bad != "" || h.src != LinkLocal(ourIID) || h.dst != clientLL || h.next != protoUDP {
		t.Fatalf("reply header %+v %s", h, bad)
	}
	if checksum(h.src, h.dst, protoUDP, h.payload) != 0 {
		t.Fatal("reply UDP checksum")
	}
	if binary.BigEndian.Uint16(h.payload) != portServer || binary.BigEndian.Uint16(h.payload[2:]) != portClient {
		t.Fatal("ports")
	}
	d := h.payload[8:]
	if d[0] != wantType || !bytes.Equal(d[1:4], []byte{0xab, 0xcd, 0xef}) {
		t.Fatalf("type %d xid % x", d[0], d[1:4])
	}
	opts, ok := parseOptions(d[4:])
	if !ok {
		t.Fatal("reply options malformed")
	}
	m := &message{typ: d[0], opts: opts}
	return m
}

func find(m *message, code uint16) [][]byte {
	var out [][]byte
	for _, o := range m.opts {
		if o.code == code {
			out = append(out, o.data)
		}
	}
	return out
}

// iaPrefix returns the IA_PD's IAID, T1, T2 and prefix (or status code).
func iaPrefix(t *testing.T, ia []byte) (iaid, t1, t2 uint32, p netip.Prefix, pref, valid uint32, status int) {
	t.Helper()
	iaid, t1, t2 = binary.BigEndian.Uint32(ia), binary.BigEndian.Uint32(ia[4:]), binary.BigEndian.Uint32(ia[8:])
	sub, ok := parseOptions(ia[12:])
	if !ok {
		t.Fatal("IA_PD options")
	}
	status = -1
	for _, s := range sub {
		switch s.code {
		case optIAPrefix:
			pref, valid = binary.BigEndian.Uint32(s.data), binary.BigEndian.Uint32(s.data[4:])
			p = netip.PrefixFrom(netip.AddrFrom16([16]byte(s.data[9:25])), int(s.data[8]))
		case optStatus:
			status = int(binary.BigEndian.Uint16(s.data))
		}
	}
	return
}

func TestRouterAdvertisement(t *testing.T) {
	s := newSession()
	r := srv.Handle(s, rs(clientLL, 255, nil), time.Now())
	if r.Kind != "ra" || r.Reply == nil {
		t.Fatalf("%+v", r)
	}
	h, _ := parseIPv6(r.Reply)
	if h.src != LinkLocal(ourIID) || h.dst != allNodes || h.hop != 255 || h.next != protoICMPv6 {
		t.Fatalf("RA header %+v", h)
	}
	if checksum(h.src, h.dst, protoICMPv6, h.payload) != 0 {
		t.Fatal("RA checksum")
	}
	p := h.payload
	// type 134, code 0, hop limit 64, O (DNS, no IA_NA), lifetime 1800
	if p[0] != 134 || p[1] != 0 || p[4] != 64 || p[5] != 0x40 || binary.BigEndian.Uint16(p[6:]) != 1800 {
		t.Fatalf("RA fixed part % x", p[:16])
	}
	o := p[16:]
	// Prefix Information: len 4, /64, L|A, lifetimes, prefix
	want := []byte{3, 4, 64, 0xc0, 0, 1, 0x51, 0x80, 0, 0, 0x38, 0x40, 0, 0, 0, 0,
		0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, 0x00, 0x07, 0, 0, 0, 0, 0, 0, 0, 0}
	if !bytes.Equal(o[:32], want) {
		t.Fatalf("PIO\n got % x\nwant % x", o[:32], want)
	}
	if !bytes.Equal(o[32:40], []byte{5, 1, 0, 0, 0, 0, 0x05, 0xd4}) {
		t.Fatalf("MTU % x", o[32:40])
	}
	dns := netip.MustParseAddr("2001:db8::53").As16()
	if !bytes.Equal(o[40:48], []byte{25, 3, 0, 0, 0, 0, 0x07, 0x08}) || !bytes.Equal(o[48:64], dns[:]) || len(o) != 64 {
		t.Fatalf("RDNSS % x", o[40:])
	}
	// M flag with IA_NA, no O without DNS
	s.IANA, s.DNS = netip.MustParseAddr("2001:db8:100:7::1"), nil
	h, _ = parseIPv6(RA(s))
	if h.payload[5] != 0x80 {
		t.Fatalf("flags %#x", h.payload[5])
	}
	// from the unspecified address, with no options: answered
	if r := srv.Handle(s, rs(netip.IPv6Unspecified(), 255, nil), time.Now()); r.Kind != "ra" {
		t.Fatalf("%+v", r)
	}
}

func TestRouterSolicitationDrops(t *testing.T) {
	s := newSession()
	good := rs(clientLL, 255, []byte{1, 1, 2, 0x5b, 0, 0, 0, 1})
	for name, tc := range map[string]struct {
		pkt  []byte
		want string
	}{
		"hop limit":          {rs(clientLL, 64, nil), "nd_invalid"},
		"global source":      {rs(netip.MustParseAddr("2001:db8::1"), 255, nil), "nd_invalid"},
		"zero-length option": {rs(clientLL, 255, []byte{1, 0, 0, 0, 0, 0, 0, 0}), "nd_invalid"},
		"SLLA from ::":       {rs(netip.IPv6Unspecified(), 255, []byte{1, 1, 2, 0x5b, 0, 0, 0, 1}), "nd_invalid"},
		"bad checksum":       {append(append([]byte(nil), good[:42]...), append([]byte{good[42] ^ 1}, good[43:]...)...), "icmpv6_checksum"},
		"short":              {good[:30], "ipv6_short"},
		"truncated":          {good[:len(good)-1], "ipv6_truncated"},
		"ipv4":               {append([]byte{0x45}, good[1:]...), "ipv6_not_ipv6"},
	} {
		if r := srv.Handle(s, tc.pkt, time.Now()); !r.Drop || r.Kind != tc.want || r.Reply != nil {
			t.Errorf("%s: %+v, want drop %s", name, r, tc.want)
		}
	}
	if r := srv.Handle(s, good, time.Now()); r.Kind != "ra" {
		t.Fatalf("good RS: %+v", r)
	}
	s.WAN = netip.Prefix{}
	if r := srv.Handle(s, good, time.Now()); r.Kind != "ra_no_prefix" {
		t.Fatalf("no /64: %+v", r)
	}
}

func TestNeighborSolicitation(t *testing.T) {
	s := newSession()
	target := LinkLocal(ourIID).As16()
	ns := append([]byte{icmpNS, 0, 0, 0, 0, 0, 0, 0}, target[:]...)
	r := srv.Handle(s, buildIPv6(clientLL, LinkLocal(ourIID), protoICMPv6, 255, ns, 2), time.Now())
	h, _ := parseIPv6(r.Reply)
	if r.Kind != "na" || h.dst != clientLL || h.payload[0] != icmpNA || h.payload[4] != 0xe0 || !bytes.Equal(h.payload[8:24], target[:]) {
		t.Fatalf("%+v % x", r, h.payload)
	}
	other := netip.MustParseAddr("fe80::99").As16()
	ns2 := append([]byte{icmpNS, 0, 0, 0, 0, 0, 0, 0}, other[:]...)
	if r := srv.Handle(s, buildIPv6(clientLL, allNodes, protoICMPv6, 255, ns2, 2), time.Now()); r.Kind != "ns_not_ours" {
		t.Fatalf("%+v", r)
	}
}

func TestDHCPv6PrefixDelegation(t *testing.T) {
	s := newSession()
	// Solicit with IA_PD and IA_NA (not offered), asking for DNS
	r := srv.Handle(s, dhcp(msgSolicit, opt(optClientID, duidC), iaPD(7), iaNA(9), oroDNS), time.Now())
	m := reply(t, r, msgAdvertise)
	if r.Changed || s.Binding.PDBound {
		t.Fatal("an Advertise binds nothing")
	}
	if sid := find(m, optServerID); len(sid) != 1 || !bytes.Equal(sid[0], srv.DUID) {
		t.Fatalf("server id %x", sid)
	}
	if cid := find(m, optClientID); len(cid) != 1 || !bytes.Equal(cid[0], duidC) {
		t.Fatal("client id")
	}
	pd := find(m, optIAPD)
	iaid, t1, t2, p, pref, valid, st := iaPrefix(t, pd[0])
	if iaid != 7 || t1 != T1 || t2 != T2 || p != s.PD || pref != PreferredLifetime || valid != ValidLifetime || st != -1 {
		t.Fatalf("IA_PD %d %d %d %v %d %d %d", iaid, t1, t2, p, pref, valid, st)
	}
	na := find(m, optIANA)
	if len(na) != 1 || binary.BigEndian.Uint32(na[0]) != 9 || !bytes.Contains(na[0], []byte{0, optStatus, 0, 22, 0, statusNoAddrsAvail}) {
		t.Fatalf("IA_NA % x", na)
	}
	if pr := find(m, optPreference); len(pr) != 1 || pr[0][0] != 255 {
		t.Fatal("preference")
	}
	if d := find(m, optDNS); len(d) != 1 || len(d[0]) != 16 {
		t.Fatal("DNS")
	}
	// Request to us: Reply, bound
	r = srv.Handle(s, dhcp(msgRequest, opt(optClientID, duidC), opt(optServerID, srv.DUID), iaPD(7)), time.Now())
	m = reply(t, r, msgReply)
	if !r.Changed || !s.Binding.PDBound || s.Binding.PDIAID != 7 || !bytes.Equal(s.Binding.ClientID, duidC) {
		t.Fatalf("binding %+v", s.Binding)
	}
	if len(find(m, optDNS)) != 0 {
		t.Fatal("DNS not asked for")
	}
	// Request to another server: not ours
	r = srv.Handle(s, dhcp(msgRequest, opt(optClientID, duidC), opt(optServerID, []byte{0, 3, 0, 1, 9, 9, 9, 9, 9, 9}), iaPD(7)), time.Now())
	if r.Kind != "dhcp6_not_for_us" {
		t.Fatalf("%+v", r)
	}
	// Renew: extended, unchanged
	r = srv.Handle(s, dhcp(msgRenew, opt(optClientID, duidC), opt(optServerID, srv.DUID), iaPD(7)), time.Now())
	m = reply(t, r, msgReply)
	if _, _, _, p, _, _, _ := iaPrefix(t, find(m, optIAPD)[0]); p != s.PD || r.Changed {
		t.Fatalf("renew %v %v", p, r.Changed)
	}
	// Renew by another client or IAID: NoBinding
	r = srv.Handle(s, dhcp(msgRenew, opt(optClientID, duidC), opt(optServerID, srv.DUID), iaPD(8)), time.Now())
	if _, _, _, _, _, _, st := iaPrefix(t, find(reply(t, r, msgReply), optIAPD)[0]); st != statusNoBinding {
		t.Fatalf("status %d", st)
	}
	// Rebind: no server id
	r = srv.Handle(s, dhcp(msgRebind, opt(optClientID, duidC), iaPD(7)), time.Now())
	reply(t, r, msgReply)
	// Release
	r = srv.Handle(s, dhcp(msgRelease, opt(optClientID, duidC), opt(optServerID, srv.DUID), iaPD(7)), time.Now())
	m = reply(t, r, msgReply)
	if !r.Changed || s.Binding.PDBound || s.Binding.ClientID != nil {
		t.Fatalf("release %+v", s.Binding)
	}
	if st := find(m, optStatus); len(st) != 1 || binary.BigEndian.Uint16(st[0]) != statusSuccess {
		t.Fatal("release status")
	}
	// Rebind after a restart that lost the binding: the client's prefix is
	// the session's, so it is adopted
	r = srv.Handle(s, dhcp(msgRebind, opt(optClientID, duidC),
		iaPD(7, opt(optIAPrefix, append([]byte{0, 0, 0, 1, 0, 0, 0, 2, 56}, s.PD.Addr().AsSlice()...)))), time.Now())
	reply(t, r, msgReply)
	if !r.Changed || !s.Binding.PDBound {
		t.Fatal("rebind did not adopt")
	}
}

func TestDHCPv6RapidCommitAndIANA(t *testing.T) {
	s := newSession()
	s.IANA = netip.MustParseAddr("2001:db8:100:7::1")
	r := srv.Handle(s, dhcp(msgSolicit, opt(optClientID, duidC), opt(optRapidCommit, nil), iaPD(1), iaPD(2), iaNA(3)), time.Now())
	m := reply(t, r, msgReply)
	if len(find(m, optRapidCommit)) != 1 || !r.Changed || !s.Binding.PDBound || !s.Binding.NABound || s.Binding.NAIAID != 3 {
		t.Fatalf("rapid commit %+v", s.Binding)
	}
	pds := find(m, optIAPD)
	if _, _, _, _, _, _, st := iaPrefix(t, pds[1]); len(pds) != 2 || st != statusNoPrefixAvail {
		t.Fatalf("second IA_PD status %d", st)
	}
	na := find(m, optIANA)[0]
	if !bytes.Contains(na, append([]byte{0, optIAAddr, 0, 24}, s.IANA.AsSlice()...)) {
		t.Fatalf("IA_NA % x", na)
	}
	// Information-Request: DNS and server id
	r = srv.Handle(s, dhcp(msgInfoReq, opt(optClientID, duidC)), time.Now())
	m = reply(t, r, msgReply)
	if len(find(m, optDNS)) != 1 || len(find(m, optIAPD)) != 0 {
		t.Fatal("information-request")
	}
}

func TestDHCPv6Drops(t *testing.T) {
	s := newSession()
	good := dhcp(msgSolicit, opt(optClientID, duidC), iaPD(7))
	bad := func(f func(p []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	for name, tc := range map[string]struct {
		pkt  []byte
		want string
	}{
		"no client id":      {dhcp(msgSolicit, iaPD(7)), "dhcp6_invalid"},
		"solicit with sid":  {dhcp(msgSolicit, opt(optClientID, duidC), opt(optServerID, srv.DUID)), "dhcp6_invalid"},
		"request no sid":    {dhcp(msgRequest, opt(optClientID, duidC)), "dhcp6_invalid"},
		"two client ids":    {dhcp(msgSolicit, opt(optClientID, duidC), opt(optClientID, duidC)), "dhcp6_malformed"},
		"option overrun":    {dhcp(msgSolicit, []byte{0, 1, 0, 40, 1}), "dhcp6_malformed"},
		"short IA_PD":       {dhcp(msgSolicit, opt(optClientID, duidC), opt(optIAPD, []byte{1, 2})), "dhcp6_malformed"},
		"odd ORO":           {dhcp(msgSolicit, opt(optClientID, duidC), opt(optORO, []byte{0})), "dhcp6_malformed"},
		"server message":    {dhcp(msgAdvertise, opt(optClientID, duidC)), "dhcp6_not_client"},
		"confirm":           {dhcp(msgConfirm, opt(optClientID, duidC)), "dhcp6_unsupported"},
		"info-req with IA":  {dhcp(msgInfoReq, iaPD(1)), "dhcp6_invalid"},
		"bad udp checksum":  {bad(func(p []byte) []byte { p[len(p)-1] ^= 0xff; return p }), "udp_checksum"},
		"zero udp checksum": {bad(func(p []byte) []byte { p[46], p[47] = 0, 0; return p }), "udp_checksum"},
		"udp length":        {bad(func(p []byte) []byte { p[44], p[45] = 0xff, 0xff; return p }), "udp_malformed"},
		"empty":             {dhcp(0), "dhcp6_not_client"},
		"global source":     {bad(func(p []byte) []byte { p[8] = 0x20; return p }), "udp_checksum"},
		"not a control pkt": {buildIPv6(clientLL, allNodes, 6, 64, make([]byte, 20), 16), "ipv6_not_control"},
	} {
		if r := srv.Handle(s, tc.pkt, time.Now()); !r.Drop || r.Kind != tc.want || r.Reply != nil {
			t.Errorf("%s: %+v, want drop %s", name, r, tc.want)
		}
	}
	// scope: a global source with a right checksum
	g := netip.MustParseAddr("2001:db8:100:7::5")
	udp := make([]byte, 8)
	binary.BigEndian.PutUint16(udp, portClient)
	binary.BigEndian.PutUint16(udp[2:], portServer)
	msg := append([]byte{msgSolicit, 1, 2, 3}, opt(optClientID, duidC)...)
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(msg)))
	if r := srv.Handle(s, buildIPv6(g, allDHCPAgents, protoUDP, 1, append(udp, msg...), 6), time.Now()); r.Kind != "dhcp6_scope" {
		t.Fatalf("%+v", r)
	}
	if r := srv.Handle(s, good, time.Now()); r.Kind != "advertise" {
		t.Fatalf("good: %+v", r)
	}
	// a session without a delegated prefix: NoPrefixAvail
	s.PD = netip.Prefix{}
	r := srv.Handle(s, good, time.Now())
	if _, _, _, _, _, _, st := iaPrefix(t, find(reply(t, r, msgAdvertise), optIAPD)[0]); st != statusNoPrefixAvail {
		t.Fatalf("status %d", st)
	}
}

func netip6(s string) netip.Addr { return netip.MustParseAddr(s) }
