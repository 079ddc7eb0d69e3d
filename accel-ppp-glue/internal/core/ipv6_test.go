package core

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/api"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pool6"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
)

// dualStack gives the test pod's line group IPv6 pools (tune of newTestPod).
func dualStack(t *testing.T, wan string, iana bool) func(*Options) {
	return func(o *Options) {
		c := o.Config
		raw := podConfig(c.ControlPlane.Address, c.Instances[0].ControlAddress, c.ControlPlane.VXLANPort,
			c.ControlPlane.PFCPPort, c.Radius.CoAPort, "100.80.0.0/19")
		raw = strings.Replace(raw, "pools: [pool1], qos_profile: silver, instance: 1}",
			`pools: [pool1], qos_profile: silver, instance: 1, core_address6: "2001:db8:64::11", ipv6_pools: [v6]}`, 1)
		raw += fmt.Sprintf(`core6: {subnet: "2001:db8:64::/64", router: "2001:db8:64::1"}
ipv6_ra: {interval: 60, router_lifetime: 600}
ipv6_pools:
  - {name: v6, wan_prefix: "%s", delegated_prefix: "2001:db8:200::/48", delegated_length: 56,
     ia_na: %v, dns: ["2001:db8::53"], line_group: lg1}
`, wan, iana)
		cfg, err := config.Parse([]byte(raw))
		if err != nil {
			t.Fatalf("cp.yaml: %v\n%s", err, raw)
		}
		o.Config = cfg
	}
}

// ncp6 runs IPCP and IPv6CP side by side after PAP: the client asks for no
// address and an interface identifier of zero, takes what is Nak'd, and
// acks the daemon's requests. rejectIPCP: the client runs no IPv4 and
// Protocol-Rejects IPCP. It returns the daemon's IPv6CP interface identifier.
func (c *client) ncp6(rejectIPCP bool) (ours, peer uint64) {
	p := c.p
	p.t.Helper()
	if !rejectIPCP {
		c.id++
		p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfReq, c.id, []byte{ppp.IPCPOptAddress, 6, 0, 0, 0, 0}))
	}
	c.id++
	p.send(c.cpFrame(ppp.ProtoIPv6CP, ppp.CodeConfReq, c.id, []byte{1, 10, 0, 0, 0, 0, 0, 0, 0, 0}))
	done4, done6 := rejectIPCP, false
	acked4, acked6 := rejectIPCP, false
	for !(done4 && done6 && acked4 && acked6) || c.initialRA == nil {
		r := p.expect("IPCP, IPv6CP or the initial RA", 2*time.Second, func(r rxFrame) bool {
			return r.proto == ppp.ProtoIPCP || r.proto == ppp.ProtoIPv6CP || r.proto == ppp.ProtoIPv6
		})
		switch {
		case r.proto == ppp.ProtoIPv6:
			if !done6 || !acked6 {
				p.t.Fatalf("IPv6 before IPv6CP opened: % x", r.f.Payload)
			}
			c.initialRA = r.f.Payload[2:]
		case r.proto == ppp.ProtoIPCP && r.code == ppp.CodeConfReq && rejectIPCP:
			pr := append([]byte{byte(ppp.ProtoIPCP >> 8), byte(ppp.ProtoIPCP & 0xff), r.code, r.id, 0, byte(4 + len(r.body))}, r.body...)
			c.id++
			p.send(c.cpFrame(ppp.ProtoLCP, ppp.CodeProtoRej, c.id, pr))
		case r.code == ppp.CodeConfReq:
			p.send(c.cpFrame(r.proto, ppp.CodeConfAck, r.id, r.body))
			if r.proto == ppp.ProtoIPCP {
				acked4 = true
			} else {
				acked6, ours = true, binary.BigEndian.Uint64(r.body[2:10])
			}
		case r.code == ppp.CodeConfAck && r.proto == ppp.ProtoIPCP:
			done4 = true
		case r.code == ppp.CodeConfAck:
			done6 = true
		case r.code == ppp.CodeConfNak && r.proto == ppp.ProtoIPCP:
			copy(c.addr[:], r.body[2:6])
			c.id++
			p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfReq, c.id, append([]byte{ppp.IPCPOptAddress, 6}, c.addr[:]...)))
		case r.code == ppp.CodeConfNak:
			peer = binary.BigEndian.Uint64(r.body[2:10])
			c.id++
			p.send(c.cpFrame(ppp.ProtoIPv6CP, ppp.CodeConfReq, c.id, r.body))
		default:
			p.t.Fatalf("%v", r)
		}
	}
	return ours, peer
}

// ipv6Frame is an IPv6 packet of the client's session.
func (c *client) ipv6Frame(pkt []byte) *pppoe.Frame {
	return &pppoe.Frame{Dst: podACMAC, Src: c.mac, OuterTPID: pppoe.TPID8021Q, STag: c.stag, CTag: c.ctag,
		EtherType: pppoe.EtherTypeSession, Code: pppoe.CodeSession, SessionID: c.sid,
		Payload: append([]byte{0, 0x57}, pkt...)}
}

func csum6(src, dst netip.Addr, next uint8, pl []byte) uint16 {
	var sum uint32
	add := func(b []byte) {
		for ; len(b) >= 2; b = b[2:] {
			sum += uint32(binary.BigEndian.Uint16(b))
		}
		if len(b) == 1 {
			sum += uint32(b[0]) << 8
		}
	}
	s, d := src.As16(), dst.As16()
	add(s[:])
	add(d[:])
	sum += uint32(len(pl)) + uint32(next)
	add(pl)
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

func ip6(src, dst netip.Addr, next, hop uint8, pl []byte, csumAt int) []byte {
	binary.BigEndian.PutUint16(pl[csumAt:], csum6(src, dst, next, pl))
	h := make([]byte, 40)
	h[0] = 0x60
	binary.BigEndian.PutUint16(h[4:], uint16(len(pl)))
	h[6], h[7] = next, hop
	s, d := src.As16(), dst.As16()
	copy(h[8:], s[:])
	copy(h[24:], d[:])
	return append(h, pl...)
}

var clientLL = netip.MustParseAddr("fe80::5b:ff:fe00:1")

func routerSolicitation() []byte {
	return ip6(clientLL, netip.MustParseAddr("ff02::2"), 58, 255, []byte{133, 0, 0, 0, 0, 0, 0, 0}, 2)
}

func solicitRapid(iaid uint32) []byte {
	msg := []byte{1, 0x12, 0x34, 0x56}
	msg = append(msg, 0, 1, 0, 10, 0, 3, 0, 1, 2, 0x5b, 0, 0, 0, 1) // client id DUID-LL
	msg = append(msg, 0, 14, 0, 0)                                  // rapid commit
	msg = append(msg, 0, 25, 0, 12)                                 // IA_PD
	msg = binary.BigEndian.AppendUint32(msg, iaid)
	msg = append(msg, 0, 0, 0, 0, 0, 0, 0, 0)
	udp := []byte{0x02, 0x22, 0x02, 0x23, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(msg)))
	return ip6(clientLL, netip.MustParseAddr("ff02::1:2"), 17, 1, append(udp, msg...), 6)
}

func (p *testPod) view(sid uint16) api.SessionView {
	for _, s := range p.sessions() {
		if s.PPPoESessionID == sid {
			return s
		}
	}
	p.t.Fatalf("no session %d", sid)
	return api.SessionView{}
}

func TestDualStackSession(t *testing.T) {
	p := newTestPod(t, dualStack(t, "2001:db8:100::/60", false), nil)
	c := p.client(1)
	c.discover()
	c.auth()
	ours, peer := c.ncp6(false)
	if ours != 0x00ac00fffe000001 || peer != 0x005b00fffe000001 {
		t.Fatalf("IIDs %x (want the AC MAC's EUI-64) %x (want the client MAC's)", ours, peer)
	}
	if ra := c.initialRA; len(ra) < 48+32 || ra[40] != 134 || !strings.Contains(string(ra), string([]byte{0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, 0, 0})) {
		t.Fatalf("initial RA % x", ra)
	}
	c.established()
	p.waitFor("IPv6 in the DP", 2*time.Second, func() bool {
		p.plane.mu.Lock()
		defer p.plane.mu.Unlock()
		for _, e := range p.plane.ests {
			if e.IPv6 != nil {
				return true
			}
		}
		for _, m := range p.plane.mods {
			if m.AddIPv6 != nil && m.AddIPv6.IPv6 != nil && m.RA != nil {
				return true
			}
		}
		return false
	})
	p.plane.mu.Lock()
	one := len(p.plane.ests) == 1 && p.plane.ests[0].IPv6 != nil && p.plane.ests[0].RA != nil && len(p.plane.mods) == 0
	p.plane.mu.Unlock()
	if !one {
		t.Fatal("IPCP and IPv6CP opened together: one establishment with both families expected, no modification")
	}
	v := p.view(c.sid)
	if fmt.Sprint(v.IPv6Prefix) != "2001:db8:100::/64" || fmt.Sprint(v.DelegatedPrefix) != "2001:db8:200::/56" || !v.IPv6Up || !v.IPv4.IsValid() {
		t.Fatalf("view %+v", v)
	}
	// RS -> RA with the /64
	p.send(c.ipv6Frame(routerSolicitation()))
	ra := p.expect("RA", 2*time.Second, func(r rxFrame) bool { return r.proto == ppp.ProtoIPv6 })
	pl := ra.f.Payload[2:]
	if pl[40] != 134 || netip.AddrFrom16([16]byte(pl[8:24])) != netip.MustParseAddr("fe80::ac:ff:fe00:1") ||
		!strings.Contains(string(pl), string([]byte{0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, 0, 0})) {
		t.Fatalf("RA % x", pl)
	}
	// DHCPv6 Solicit with Rapid Commit -> Reply with the delegated prefix; bound; Interim
	p.send(c.ipv6Frame(solicitRapid(5)))
	rep := p.expect("DHCPv6 Reply", 2*time.Second, func(r rxFrame) bool { return r.proto == ppp.ProtoIPv6 })
	pl = rep.f.Payload[2:]
	if pl[6] != 17 || pl[48] != 7 || !strings.Contains(string(pl), string([]byte{56, 0x20, 0x01, 0x0d, 0xb8, 0x02, 0, 0, 0})) {
		t.Fatalf("Reply % x", pl)
	}
	p.waitFor("the binding", 2*time.Second, func() bool { return p.view(c.sid).PrefixBound })
	p.waitFor("an Interim-Update", 2*time.Second, func() bool {
		p.acct.mu.Lock()
		defer p.acct.mu.Unlock()
		for _, r := range p.acct.requests {
			if r.Status == aaa.AcctInterim {
				return true
			}
		}
		return false
	})
	// bad DHCPv6 is a counted drop
	bad := solicitRapid(5)
	bad[len(bad)-1] ^= 1
	p.send(c.ipv6Frame(bad))
	p.quiet("bad DHCPv6", 200*time.Millisecond)
	if n := counterValue(p.d.m.v6Drops.WithLabelValues("udp_checksum")); n != 1 {
		t.Fatalf("udp_checksum drops %v", n)
	}
	// the pool gauges
	if n := gaugeValue(t, p.d, "bngcp_ipv6_prefixes_used", "wan"); n != 1 {
		t.Fatalf("bngcp_ipv6_prefixes_used{kind=wan} %v", n)
	}
	if n := gaugeValue(t, p.d, "bngcp_ipv6_prefixes", "delegated"); n != 256 {
		t.Fatalf("bngcp_ipv6_prefixes{kind=delegated} %v (a /48 of /56s)", n)
	}
	// hang up: the prefixes go back
	c.id++
	p.send(c.cpFrame(0xc021, 5, c.id, nil), c.padt())
	p.waitFor("Accounting-Stop", 3*time.Second, func() bool { return p.acct.stops.Load() == 1 })
	p.waitFor("the prefixes back", time.Second, func() bool {
		done := make(chan [2]uint64)
		p.d.shards[0].post(func() {
			w, _ := p.d.pools6["lg1"].Usage(pool6.WAN)
			pd, _ := p.d.pools6["lg1"].Usage(pool6.PD)
			done <- [2]uint64{w, pd}
		})
		u := <-done
		return u[0] == 0 && u[1] == 0
	})
}

// The WAN pool holds one /64: the second subscriber gets no IPv6, its
// IPv6CP is Protocol-Rejected and IPv4 comes up all the same.
func TestIPv6PoolExhaustedKeepsIPv4(t *testing.T) {
	p := newTestPod(t, dualStack(t, "2001:db8:100::/63", false), nil)
	for i := 1; i <= 2; i++ {
		c := p.client(i)
		c.discover()
		c.auth()
		c.ncp6(false)
		c.established()
	}
	c := p.client(3)
	c.discover()
	c.auth()
	c.id++
	p.send(c.cpFrame(ppp.ProtoIPv6CP, ppp.CodeConfReq, c.id, []byte{1, 10, 0, 0, 0, 0, 0, 0, 0, 1}))
	// IPCP's request, then the Protocol-Reject of IPv6CP
	p.expect("IPCP Configure-Request", 2*time.Second, func(r rxFrame) bool { return r.is(ppp.ProtoIPCP, ppp.CodeConfReq) })
	r := p.expect("Protocol-Reject", 2*time.Second, func(r rxFrame) bool { return r.is(ppp.ProtoLCP, ppp.CodeProtoRej) })
	if binary.BigEndian.Uint16(r.body) != ppp.ProtoIPv6CP {
		t.Fatalf("rejected %x", r.body[:2])
	}
	c.ipcp()
	v := c.established()
	if !v.IPv4.IsValid() || v.IPv6Prefix != nil {
		t.Fatalf("view %+v", v)
	}
}

// A CPE without IPv4 Protocol-Rejects IPCP: the session is IPv6 only, its
// IPv4 address goes back to the pool.
func TestIPv6OnlySession(t *testing.T) {
	p := newTestPod(t, dualStack(t, "2001:db8:100::/60", true), nil)
	c := p.client(1)
	c.discover()
	c.auth()
	c.ncp6(true)
	v := c.established()
	if v.IPv4.IsValid() || fmt.Sprint(v.IPv6Prefix) != "2001:db8:100::/64" || fmt.Sprint(v.IPv6Address) != "2001:db8:100::1" {
		t.Fatalf("view %+v", v)
	}
	if p.poolUsed() != 0 {
		t.Fatalf("%d IPv4 addresses in use", p.poolUsed())
	}
	p.plane.mu.Lock()
	e := p.plane.ests[len(p.plane.ests)-1]
	p.plane.mu.Unlock()
	if e.IPv4.IsValid() || e.IPv6 == nil || e.RA == nil || e.RA.Flags != 0xc0 {
		t.Fatalf("establishment %+v", e)
	}
}

// dhcp6Msg builds a client DHCPv6 message (UDP/IPv6 from the client's link-local).
func dhcp6Msg(typ uint8, opts ...[]byte) []byte {
	msg := []byte{typ, 0x12, 0x34, 0x56}
	msg = append(msg, 0, 1, 0, 10, 0, 3, 0, 1, 2, 0x5b, 0, 0, 0, 1) // client id DUID-LL
	for _, o := range opts {
		msg = append(msg, o...)
	}
	udp := []byte{0x02, 0x22, 0x02, 0x23, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(msg)))
	return ip6(clientLL, netip.MustParseAddr("ff02::1:2"), 17, 1, append(udp, msg...), 6)
}

func opt6(code uint16, data []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, code)
	b = binary.BigEndian.AppendUint16(b, uint16(len(data)))
	return append(b, data...)
}

// dhcp6Options splits a reply (the IPv6 packet of a PPP frame) into its options.
func dhcp6Options(t *testing.T, pkt []byte) (uint8, map[uint16][]byte) {
	t.Helper()
	if len(pkt) < 52 || pkt[6] != 17 {
		t.Fatalf("not a DHCPv6 reply: % x", pkt)
	}
	m := pkt[48:]
	out := map[uint16][]byte{}
	for o := m[4:]; len(o) >= 4; {
		n := int(binary.BigEndian.Uint16(o[2:]))
		out[binary.BigEndian.Uint16(o)] = o[4 : 4+n]
		o = o[4+n:]
	}
	return m[0], out
}

// The DHCPv6 server's DUID and the bindings survive a CP restart: the
// subscriber's Renew after it is answered with its prefix, not NoBinding.
func TestDHCPv6RenewAfterRestart(t *testing.T) {
	p := newTestPod(t, dualStack(t, "2001:db8:100::/60", false), nil)
	c := p.client(1)
	c.discover()
	c.auth()
	c.ncp6(false)
	c.established()
	p.send(c.ipv6Frame(solicitRapid(5)))
	rep := p.expect("DHCPv6 Reply", 2*time.Second, func(r rxFrame) bool { return r.proto == ppp.ProtoIPv6 })
	typ, opts := dhcp6Options(t, rep.f.Payload[2:])
	duid := opts[2]
	if typ != 7 || len(duid) < 8 || len(opts[25]) < 12+4+25 {
		t.Fatalf("reply %d %v", typ, opts)
	}
	pd := opts[25][16 : 16+25]
	p.waitFor("the binding persisted", 2*time.Second, func() bool { return p.view(c.sid).PrefixBound })
	p.waitFor("the binding in the store", 10*time.Second, func() bool { return p.d.bindingsPersisted.Load() >= 1 })
	p.stop()

	state := p.opt.StateDir
	p2 := newTestPod(t, func(o *Options) {
		dualStack(t, "2001:db8:100::/60", false)(o)
		o.StateDir = state
	}, nil)
	c2 := p2.client(1)
	c2.sid = c.sid
	v := p2.view(c.sid)
	if !v.PrefixBound || fmt.Sprint(v.DelegatedPrefix) != "2001:db8:200::/56" {
		t.Fatalf("restored %+v", v)
	}
	renew := dhcp6Msg(5, opt6(2, duid), opt6(25, append([]byte{0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0}, opt6(26, pd)...)))
	p2.send(c2.ipv6Frame(renew))
	rep = p2.expect("DHCPv6 Reply to the Renew", 2*time.Second, func(r rxFrame) bool { return r.proto == ppp.ProtoIPv6 })
	typ, opts = dhcp6Options(t, rep.f.Payload[2:])
	if typ != 7 || string(opts[2]) != string(duid) || len(opts[25]) < 12+4+25 ||
		string(opts[25][16+8:16+25]) != string(pd[8:]) {
		t.Fatalf("renew answered %d %x", typ, opts[25])
	}
	// an RS of the restored session is answered too
	p2.send(c2.ipv6Frame(routerSolicitation()))
	p2.expect("RA", 2*time.Second, func(r rxFrame) bool { return r.proto == ppp.ProtoIPv6 && r.f.Payload[2+40] == 134 })
}

// IPCP opens, IPv6CP later than the establishment waits for it: IPv4 is
// installed first, IPv6 by a modification, with an Interim-Update.
func TestIPv6AfterTheEstablishment(t *testing.T) {
	p := newTestPod(t, dualStack(t, "2001:db8:100::/60", false), nil)
	c := p.client(1)
	c.discover()
	c.auth()
	// IPCP only, answering the daemon's IPv6CP request not yet
	c.id++
	p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfReq, c.id, []byte{ppp.IPCPOptAddress, 6, 0, 0, 0, 0}))
	var v6req rxFrame
	var start time.Time // the client's last IPCP request: IPCP opens in the daemon
	acked, ours := false, false
	for !acked || !ours {
		r := p.expect("IPCP or IPv6CP", 2*time.Second, func(r rxFrame) bool { return r.proto == ppp.ProtoIPCP || r.proto == ppp.ProtoIPv6CP })
		switch {
		case r.proto == ppp.ProtoIPv6CP:
			v6req = r
		case r.code == ppp.CodeConfReq:
			p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfAck, r.id, r.body))
			acked = true
		case r.code == ppp.CodeConfNak:
			copy(c.addr[:], r.body[2:6])
			c.id++
			p.send(c.cpFrame(ppp.ProtoIPCP, ppp.CodeConfReq, c.id, append([]byte{ppp.IPCPOptAddress, 6}, c.addr[:]...)))
			start = time.Now()
		case r.code == ppp.CodeConfAck:
			// its Ack waits for the establishment, and that for IPv6CP a little
			ours = true
		}
	}
	c.established()
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("established after %v: the establishment did not wait for IPv6CP", d)
	}
	p.plane.mu.Lock()
	if len(p.plane.ests) != 1 || p.plane.ests[0].IPv6 != nil {
		t.Fatalf("establishment %+v", p.plane.ests)
	}
	p.plane.mu.Unlock()
	// now IPv6CP (the daemon's latest request: a retransmission has a new
	// identifier): the IPv6 PDRs by a modification, and an Interim-Update
	for {
		r, ok := p.recv(50 * time.Millisecond)
		if !ok {
			break
		}
		if r.is(ppp.ProtoIPv6CP, ppp.CodeConfReq) {
			v6req = r
		}
	}
	p.send(c.cpFrame(ppp.ProtoIPv6CP, ppp.CodeConfAck, v6req.id, v6req.body))
	c.id++
	p.send(c.cpFrame(ppp.ProtoIPv6CP, ppp.CodeConfReq, c.id, []byte{1, 10, 2, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55}))
	p.waitFor("the modification", 2*time.Second, func() bool {
		p.plane.mu.Lock()
		defer p.plane.mu.Unlock()
		return len(p.plane.mods) == 1 && p.plane.mods[0].AddIPv6 != nil && p.plane.mods[0].AddIPv6.IPv6 != nil
	})
	p.waitFor("an Interim-Update", 2*time.Second, func() bool {
		p.acct.mu.Lock()
		defer p.acct.mu.Unlock()
		for _, r := range p.acct.requests {
			if r.Status == aaa.AcctInterim && r.IPv6 != nil && r.IPv6.Prefix.IsValid() {
				return true
			}
		}
		return false
	})
}

func gaugeValue(t *testing.T, d *Daemon, name, kind string) float64 {
	t.Helper()
	mfs, err := d.m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" && l.GetValue() == kind {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{kind=%s}", name, kind)
	return 0
}
