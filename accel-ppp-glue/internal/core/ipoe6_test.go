package core

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/api"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
)

// Dual stack over IPoE (ipoe6.go) against the test pod: the test plays the
// DP instance and a dual-stack CPE on one line (DHCPv4 + RS/DHCPv6 from
// the same MAC).

// ipoeDual makes lg1 an IPoE group with IPv6 pools (ia_na as given).
func ipoeDual(t *testing.T, c config.IPoE, iana bool) func(*Options) {
	return func(o *Options) {
		dualStack(t, "2001:db8:100::/60", iana)(o)
		ipoeTune(t, c, "", nil)(o)
	}
}

// send6 sends an IPv6 packet as the client (to the all-DHCP-agents MAC).
func (c *dhcpClient) send6(pkt []byte) {
	c.p.t.Helper()
	f := v6ctl.Frame{Dst: [6]byte{0x33, 0x33, 0, 1, 0, 2}, Src: c.mac, STag: c.stag, CTag: c.ctag, Packet: pkt}
	c.p.sendRaw(v6ctl.AppendFrame(nil, &f))
}

var podLL = func() netip.Addr {
	var a [16]byte
	a[0], a[1] = 0xfe, 0x80
	binary.BigEndian.PutUint64(a[8:], eui64(podACMAC[:]))
	return netip.AddrFrom16(a)
}()

// expect6 returns the next frame, which must be an IPv6 answer to the
// client: QinQ of its line, from ac_mac to its MAC, from the BNG's
// link-local fe80::EUI-64(ac_mac); ICMPv6 type or UDP 547 -> 546.
func (c *dhcpClient) expect6(what string, icmpType uint8) []byte {
	c.p.t.Helper()
	r := c.p.expect(what, 3*time.Second, func(r rxFrame) bool { return r.v6 != nil })
	f := r.v6
	pkt := f.Packet
	if f.Src != podACMAC || f.Dst != c.mac || f.STag != c.stag || f.CTag != c.ctag || len(pkt) < 48 ||
		netip.AddrFrom16([16]byte(pkt[8:24])) != podLL {
		c.p.t.Fatalf("%s: frame %+v", what, f)
	}
	switch {
	case icmpType != 0 && (pkt[6] != 58 || pkt[40] != icmpType || pkt[7] != 255):
		c.p.t.Fatalf("%s: not ICMPv6 %d with hop limit 255: % x", what, icmpType, pkt[:48])
	case icmpType == 0 && (pkt[6] != 17 || binary.BigEndian.Uint16(pkt[40:]) != 547 || binary.BigEndian.Uint16(pkt[42:]) != 546):
		c.p.t.Fatalf("%s: not DHCPv6 server to client: % x", what, pkt[:48])
	}
	return pkt
}

// raOptions returns the RA's flags and its options by type.
func raOptions(pkt []byte) (uint8, map[uint8][]byte) {
	out := map[uint8][]byte{}
	for o := pkt[40+16:]; len(o) >= 8 && o[1] > 0 && int(o[1])*8 <= len(o); o = o[int(o[1])*8:] {
		out[o[0]] = o[:int(o[1])*8]
	}
	return pkt[40+5], out
}

func iaHead6(iaid uint32) []byte { return binary.BigEndian.AppendUint32(nil, iaid) }

func solicitNAPD() []byte {
	return dhcp6Msg(1, opt6(14, nil), opt6(6, []byte{0, 23}),
		opt6(3, append(iaHead6(1), make([]byte, 8)...)), opt6(25, append(iaHead6(2), make([]byte, 8)...)))
}

func (c *dhcpClient) view() (api.SessionView, bool) {
	for _, s := range c.p.sessions() {
		if s.MAC == macString(c.mac) && s.CTag == c.ctag {
			return s, true
		}
	}
	return api.SessionView{}, false
}

func (p *testPod) mods() []*pfcpcp.Mod {
	p.plane.mu.Lock()
	defer p.plane.mu.Unlock()
	return slices.Clone(p.plane.mods)
}

func (p *testPod) estsNow() []*pfcpcp.Session {
	p.plane.mu.Lock()
	defer p.plane.mu.Unlock()
	return slices.Clone(p.plane.ests)
}

func (p *testPod) accepts() float64 { return counterValue(p.d.m.authResults.WithLabelValues("accept")) }

func (p *testPod) acctCount(status aaa.AcctStatus) int {
	p.acct.mu.Lock()
	defer p.acct.mu.Unlock()
	n := 0
	for _, r := range p.acct.requests {
		if r.Status == status {
			n++
		}
	}
	return n
}

// IPv6 first: an RS before the session gets an RA without prefix (M|O, the
// SLLA); a Rapid-Commit Solicit creates the session (one Access-Request)
// and installs it IPv6-only; the Reply follows the DP's answer. IPv4 then
// joins by modification (Create PDR 1/2) on its REQUEST; its RELEASE
// removes only IPv4; the DHCPv6 Release ends the session.
func TestIPoEIPv6FirstThenIPv4(t *testing.T) {
	p := newTestPod(t, ipoeDual(t, defaultIPoE(), true), nil)
	c := p.dhcpClient(1, 7)
	c.send6(routerSolicitation())
	ra := c.expect6("RA before the session", 134)
	flags, opts := raOptions(ra)
	if flags != 0xc0 || !bytes.Equal(opts[1], append([]byte{1, 1}, podACMAC[:]...)) || opts[3] != nil {
		t.Fatalf("RA before the session: flags %#x options %x", flags, opts)
	}
	if len(p.sessions()) != 0 {
		t.Fatal("an RS made a session")
	}

	c.send6(solicitNAPD())
	rep := c.expect6("Reply to the Rapid-Commit Solicit", 0)
	typ, o := dhcp6Options(t, rep)
	if typ != 7 || len(o[25]) < 12+4+25 || len(o[3]) < 12+4+24 || o[23] == nil {
		t.Fatalf("reply %d %x", typ, o)
	}
	pd := netip.PrefixFrom(netip.AddrFrom16([16]byte(o[25][12+4+9:12+4+25])), int(o[25][12+4+8]))
	na := netip.AddrFrom16([16]byte(o[3][16:32]))
	es := p.estsNow()
	if len(es) != 1 || !es[0].IPoE || es[0].IPv4.IsValid() || es[0].IPv6 == nil || es[0].IPv6.PD != pd ||
		es[0].RA == nil || es[0].RA.IID != eui64(podACMAC[:]) || es[0].PPPoESessionID != 0 {
		t.Fatalf("establishment %+v", es)
	}
	if !es[0].IPv6.WAN.Contains(na) {
		t.Fatalf("IA_NA %s outside the /64 %s", na, es[0].IPv6.WAN)
	}
	v, ok := c.view()
	if !ok || v.Kind != "ipoe" || v.IPv4.IsValid() || v.IPv6Prefix == nil || *v.IPv6Prefix != es[0].IPv6.WAN ||
		v.DelegatedPrefix == nil || *v.DelegatedPrefix != pd || v.IPv6Address == nil || *v.IPv6Address != na ||
		v.LeaseEnd6 == nil || time.Until(*v.LeaseEnd6) < 23*time.Hour || !v.PrefixBound {
		t.Fatalf("session view %+v", v)
	}
	p.waitFor("Accounting-Start", 2*time.Second, func() bool { return p.acctCount(aaa.AcctStart) == 1 })
	st, _ := p.acct.reqs.Load(aaa.AcctStart)
	if sr := st.(*aaa.AcctRequest); sr.FramedIP.IsValid() || sr.IPv6 == nil || sr.IPv6.Prefix != es[0].IPv6.WAN ||
		sr.IPv6.Delegated != pd || sr.IPv6.Address != na || sr.IPv6.InterfaceID != 0 || !sr.IPoE {
		t.Fatalf("Accounting-Start of an IPv6-first session %+v %+v", sr, sr.IPv6)
	}
	// an RS of the session: its /64
	c.send6(routerSolicitation())
	_, opts = raOptions(c.expect6("RA of the session", 134))
	if pi := opts[3]; len(pi) != 32 || !bytes.Equal(pi[16:24], es[0].IPv6.WAN.Addr().AsSlice()[:8]) || pi[3] != 0xc0 {
		t.Fatalf("prefix information %x", pi)
	}

	// IPv4 joins: OFFER, then REQUEST -> Create PDR 1/2 -> ACK
	ack := c.dora()
	c.addr = ack.dhcp.YIAddr
	ms := p.mods()
	if len(ms) != 1 || ms[0].AddIPv4 == nil || ms[0].AddIPv4.IPv4 != c.addr || ms[0].AddIPv4.IPv6 == nil {
		t.Fatalf("modifications %+v", ms)
	}
	if v, _ := c.view(); v.IPv4 != c.addr || v.IPv6Prefix == nil {
		t.Fatalf("dual-stack view %+v", v)
	}
	if p.accepts() != 1 || len(p.estsNow()) != 1 {
		t.Fatalf("%v Access-Accepts, %d establishments: want one of each", p.accepts(), len(p.estsNow()))
	}

	// IPv4 RELEASE: Remove PDR 1/2, the session stays with IPv6
	c.send(dhcp4.Release, func(m *dhcp4.Message) { m.CIAddr = c.addr; m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway)) }, true)
	p.waitFor("IPv4 removed", 2*time.Second, func() bool { v, _ := c.view(); return !v.IPv4.IsValid() })
	ms = p.mods()
	if len(ms) != 2 || ms[1].RemoveIPv4 == nil || ms[1].RemoveIPv6 != nil {
		t.Fatalf("modifications after the RELEASE %+v", ms)
	}
	if v, ok := c.view(); !ok || v.State != "established" || v.IPv6Prefix == nil {
		t.Fatalf("after the IPv4 RELEASE %+v %v", v, ok)
	}
	if p.poolUsed() != 0 {
		t.Fatalf("the IPv4 address not back in the pool: %d used", p.poolUsed())
	}
	// the DHCPv6 Release ends the session (its last family)
	duid := o[2]
	c.send6(dhcp6Msg(8, opt6(2, duid), opt6(25, append(iaHead6(2), make([]byte, 8)...)), opt6(3, append(iaHead6(1), make([]byte, 8)...))))
	typ, _ = dhcp6Options(t, c.expect6("Reply to the Release", 0))
	if typ != 7 {
		t.Fatalf("release answered %d", typ)
	}
	checkEnd(t, p, v.ID, 0, causeUserRequest)
	if u := gaugeValue(t, p.d, "bngcp_ipv6_prefixes_used", "wan"); u != 0 {
		t.Fatalf("%v /64s still used", u)
	}
}

// IPv4 first: the RS of a session without IPv6 gets the RA without prefix;
// the Solicit then allocates from the session's Access-Accept (no second
// Access-Request) and a modification adds PDRs 3/4/5 + the RA offload; the
// Reply follows it. DHCPv6 Release removes IPv6 only; the IPv4 lease's
// expiry then ends the session (Lost-Service).
func TestIPoEIPv4FirstThenIPv6(t *testing.T) {
	ic := defaultIPoE()
	ic.LeaseTime, ic.RenewTime = 3, 1
	p := newTestPod(t, ipoeDual(t, ic, false), nil)
	c := p.dhcpClient(2, 8)
	c.dora()
	c.send6(routerSolicitation())
	if flags, opts := raOptions(c.expect6("RA of an IPv4 session", 134)); flags != 0xc0 || opts[3] != nil {
		t.Fatalf("RA before IPv6: %#x %x", flags, opts)
	}
	c.send6(solicitRapid(9))
	typ, o := dhcp6Options(t, c.expect6("Reply", 0))
	if typ != 7 || len(o[25]) < 12+4+25 {
		t.Fatalf("reply %d %x", typ, o)
	}
	ms := p.mods()
	if len(ms) != 1 || ms[0].AddIPv6 == nil || ms[0].AddIPv6.IPv6 == nil || ms[0].RA == nil || ms[0].AddIPv6.IPv4 != c.addr ||
		ms[0].RA.MTU != 1500 || ms[0].RA.Flags != 0x40 {
		t.Fatalf("modification %+v", ms)
	}
	p.waitFor("Interim-Update with IPv6", 2*time.Second, func() bool { return p.acctCount(aaa.AcctInterim) >= 1 })
	if ir, _ := p.acct.reqs.Load(aaa.AcctInterim); ir.(*aaa.AcctRequest).IPv6 == nil ||
		!ir.(*aaa.AcctRequest).IPv6.Delegated.IsValid() || ir.(*aaa.AcctRequest).FramedIP != c.addr {
		t.Fatalf("Interim after IPv6 joined %+v", ir)
	}
	if sr, _ := p.acct.reqs.Load(aaa.AcctStart); sr.(*aaa.AcctRequest).IPv6 != nil {
		t.Fatalf("Accounting-Start of an IPv4-first session with IPv6 %+v", sr)
	}
	if p.accepts() != 1 {
		t.Fatalf("%v Access-Accepts", p.accepts())
	}
	v, _ := c.view()
	if v.DelegatedPrefix == nil || v.IPv4 != c.addr {
		t.Fatalf("view %+v", v)
	}
	// DHCPv6 Release: IPv6 leaves (Remove PDR 3/4/5), IPv4 stays
	c.send6(dhcp6Msg(8, opt6(2, o[2]), opt6(25, append(iaHead6(9), make([]byte, 8)...))))
	c.expect6("Reply to the Release", 0)
	p.waitFor("IPv6 removed", 2*time.Second, func() bool { v, _ := c.view(); return v.IPv6Prefix == nil })
	ms = p.mods()
	if len(ms) != 2 || ms[1].RemoveIPv6 == nil || ms[1].RemoveIPv6.IPv6 == nil {
		t.Fatalf("modifications %+v", ms)
	}
	if u := gaugeValue(t, p.d, "bngcp_ipv6_prefixes_used", "delegated"); u != 0 {
		t.Fatalf("%v delegated prefixes still used", u)
	}
	// the IPv4 lease runs out: the session ends
	p.waitFor("the lease's end", 8*time.Second, func() bool { return p.acctCount(aaa.AcctStop) == 1 })
	checkEnd(t, p, v.ID, 0, causeLostService)
}

// DHCPv4 and DHCPv6 at once: one Access-Request, both answered, one
// establishment; the second family by modification.
func TestIPoEBothFamiliesAtOnce(t *testing.T) {
	p := newTestPod(t, ipoeDual(t, defaultIPoE(), false), nil)
	c := p.dhcpClient(3, 9)
	c.send(dhcp4.Discover, nil, false)
	c.send6(solicitRapid(4))
	var offer, reply bool
	for i := 0; i < 2; i++ {
		r := p.expect("OFFER or Reply", 3*time.Second, func(r rxFrame) bool { return r.v6 != nil || r.dhcp != nil })
		switch {
		case r.dhcp != nil && r.dhcp.Type == dhcp4.Offer:
			offer, c.addr = true, r.dhcp.YIAddr
		case r.v6 != nil:
			reply = true
		}
	}
	if !offer || !reply {
		t.Fatalf("offer %v reply %v", offer, reply)
	}
	c.send(dhcp4.Request, func(m *dhcp4.Message) {
		m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway))
		m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr))
	}, false)
	c.expectDHCP(dhcp4.Ack)
	if p.accepts() != 1 || len(p.estsNow()) != 1 {
		t.Fatalf("%v Access-Accepts, %d establishments", p.accepts(), len(p.estsNow()))
	}
	e := p.estsNow()[0]
	ms := p.mods()
	switch {
	case e.IPv6 != nil && !e.IPv4.IsValid() && len(ms) == 1 && ms[0].AddIPv4 != nil:
	case e.IPv6 == nil && e.IPv4.IsValid() && len(ms) == 1 && ms[0].AddIPv6 != nil:
	case e.IPv6 != nil && e.IPv4.IsValid() && len(ms) == 0:
	default:
		t.Fatalf("establishment %+v, modifications %+v", e, ms)
	}
	p.waitFor("one Accounting-Start", 2*time.Second, func() bool { return p.acctCount(aaa.AcctStart) == 1 })
}

// The IPv6 binding expires: IPv6 leaves, the IPv4 session stays.
func TestIPoEIPv6Expiry(t *testing.T) {
	p := newTestPod(t, ipoeDual(t, defaultIPoE(), false), nil)
	c := p.dhcpClient(4, 10)
	c.dora()
	c.send6(solicitRapid(4))
	c.expect6("Reply", 0)
	p.waitFor("IPv6 installed", 2*time.Second, func() bool { v, _ := c.view(); return v.DelegatedPrefix != nil && len(p.mods()) == 1 })
	for _, sh := range p.d.shards {
		done := make(chan struct{})
		sh.post(func() {
			for _, s := range sh.sessions {
				s.rec.LeaseEnd6 = time.Now().Add(-time.Second)
			}
			close(done)
		})
		<-done
	}
	p.waitFor("IPv6 expired", 4*time.Second, func() bool { v, _ := c.view(); return v.IPv6Prefix == nil })
	if ms := p.mods(); len(ms) != 2 || ms[1].RemoveIPv6 == nil {
		t.Fatalf("modifications %+v", ms)
	}
	if v, ok := c.view(); !ok || v.IPv4 != c.addr || v.State != "established" {
		t.Fatalf("after the expiry %+v %v", v, ok)
	}
}

// A CP restart keeps an IPoE session's IPv6: the restored session answers
// the DHCPv6 Renew with its prefix (same server DUID), and a DP restart's
// re-push carries both families.
func TestIPoEIPv6AfterRestart(t *testing.T) {
	tune := ipoeDual(t, defaultIPoE(), false)
	p := newTestPod(t, tune, nil)
	c := p.dhcpClient(5, 11)
	c.dora()
	c.send6(solicitRapid(6))
	_, o := dhcp6Options(t, c.expect6("Reply", 0))
	duid, pdOpt := o[2], o[25][12+4:12+4+25]
	p.waitFor("IPv6 installed and stored", 5*time.Second, func() bool {
		raw, ok, _ := p.d.db.Get(bucketSessions, func() string { v, _ := c.view(); return v.ID }())
		return ok && strings.Contains(string(raw), `"ipv6_installed":true`) && strings.Contains(string(raw), `"pd_bound":true`)
	})
	p.stop()

	state := p.opt.StateDir
	p2 := newTestPod(t, func(o *Options) { tune(o); o.StateDir = state }, nil)
	c2 := p2.dhcpClient(5, 11)
	c2.addr = c.addr
	v, ok := c2.view()
	if !ok || v.Kind != "ipoe" || v.DelegatedPrefix == nil || v.IPv4 != c.addr {
		t.Fatalf("restored %+v %v", v, ok)
	}
	c2.send6(dhcp6Msg(5, opt6(2, duid), opt6(25, append(iaHead6(6), append(make([]byte, 8), opt6(26, pdOpt)...)...))))
	typ, o2 := dhcp6Options(t, c2.expect6("Reply to the Renew", 0))
	if typ != 7 || !bytes.Equal(o2[2], duid) || len(o2[25]) < 12+4+25 || !bytes.Equal(o2[25][12+4+8:12+4+25], pdOpt[8:]) {
		t.Fatalf("renew answered %d %x", typ, o2[25])
	}
	c2.renew() // and the IPv4 lease
	// what a DP restart re-installs: both families
	rec := func() record {
		for _, sh := range p2.d.shards {
			ch := make(chan record, 1)
			sh.post(func() {
				for _, s := range sh.sessions {
					ch <- s.rec
					return
				}
				ch <- record{}
			})
			if r := <-ch; r.ID != "" {
				return r
			}
		}
		return record{}
	}()
	ps := p2.d.pfcpSession(&rec)
	if !ps.IPoE || ps.IPv4 != c.addr || ps.IPv6 == nil || ps.RA == nil || ps.RA.IID != eui64(podACMAC[:]) {
		t.Fatalf("re-push %+v", ps)
	}
}

// Hostile and out-of-place IPv6 frames: counted drops, no session.
func TestIPoEIPv6Drops(t *testing.T) {
	p := newTestPod(t, ipoeDual(t, defaultIPoE(), false), nil)
	c := p.dhcpClient(6, 12)
	bad := solicitRapid(1)
	bad[len(bad)-1] ^= 0xff // checksum
	c.send6(bad)
	p.quiet("a Solicit with a bad checksum", 200*time.Millisecond)
	if n := counterValue(p.d.m.v6Drops.WithLabelValues("udp_checksum")); n != 1 {
		t.Fatalf("udp_checksum %v", n)
	}
	if len(p.sessions()) != 0 || p.accepts() != 0 {
		t.Fatal("a session from a hostile frame")
	}
	// a Renew without session: NoBinding (so that the CPE starts over)
	c.send6(dhcp6Msg(5, opt6(2, p.d.v6srv.DUID), opt6(25, append(iaHead6(1), make([]byte, 8)...))))
	_, o := dhcp6Options(t, c.expect6("Reply to a Renew of no session", 0))
	if len(o[25]) < 12+6 || binary.BigEndian.Uint16(o[25][12+4:]) != 3 {
		t.Fatalf("IA_PD %x: want status NoBinding", o[25])
	}
	// IPv6 on an IPoE group without IPv6 pools
	p2 := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	p2.dhcpClient(7, 13).send6(solicitRapid(1))
	p2.quiet("DHCPv6 without IPv6 pools", 200*time.Millisecond)
	if p2.dropped("ipoe6_no_pools") != 1 {
		t.Fatalf("ipoe6_no_pools %v", p2.dropped("ipoe6_no_pools"))
	}
}

// What a DP restart, a line-group move or a failover adoption re-installs
// (pfcpSession of the record) for dual stack over IPoE: the families the
// DP had, nothing only offered.
func TestIPoE6PFCPSessionOfRecord(t *testing.T) {
	p := newTestPod(t, ipoeDual(t, defaultIPoE(), false), nil)
	wan, pd := netip.MustParsePrefix("2001:db8:100:3::/64"), netip.MustParsePrefix("2001:db8:200:300::/56")
	base := record{CPSEID: 7, AccessPort: "access1", STag: 100, CTag: 9, MAC: ipoeMAC(1), Kind: kindIPoE,
		QosProfile: "silver", Interim: 300, Established: true, LineGroup: "lg1",
		IPv6Prefix: wan, DelegatedPrefix: pd, IIDLocal: eui64(podACMAC[:])}
	// IPv6 only, installed
	r := base
	r.IPv6Installed, r.DHCP6 = true, v6ctl.Binding{ClientID: []byte{0, 3}, PDBound: true, PDIAID: 2}
	ps := p.d.pfcpSession(&r)
	if !ps.IPoE || ps.IPv4.IsValid() || ps.IPv6 == nil || ps.IPv6.WAN != wan || ps.IPv6.PD != pd || ps.RA == nil ||
		ps.RA.IID != eui64(podACMAC[:]) || ps.RA.MTU != 1500 {
		t.Fatalf("IPv6-only %+v", ps)
	}
	// + an IPv4 address only offered: not installed
	r.IPv4, r.NoIPv4PDRs = netip.MustParseAddr("100.80.0.9"), true
	if ps := p.d.pfcpSession(&r); ps.IPv4.IsValid() || ps.IPv6 == nil {
		t.Fatalf("offered IPv4 %+v", ps)
	}
	// IPv4 installed, IPv6 allocated (Advertise) but not bound: IPv4 only
	r = base
	r.IPv4 = netip.MustParseAddr("100.80.0.9")
	if ps := p.d.pfcpSession(&r); ps.IPv4 != r.IPv4 || ps.IPv6 != nil || ps.RA != nil {
		t.Fatalf("IPv6 not bound %+v", ps)
	}
	// both
	r.IPv6Installed = true
	if ps := p.d.pfcpSession(&r); ps.IPv4 != r.IPv4 || ps.IPv6 == nil || ps.RA == nil {
		t.Fatalf("dual %+v", ps)
	}
}

// CoA on an IPv6-only IPoE session: the QER created is named by the IPv6
// PDRs only.
func TestIPoE6CoA(t *testing.T) {
	p := newTestPod(t, ipoeDual(t, defaultIPoE(), false), nil)
	c := p.dhcpClient(8, 14)
	c.send6(solicitRapid(3))
	c.expect6("Reply", 0)
	v, _ := c.view()
	if code := p.d.dynamic(context.Background(), &aaa.DynRequest{AcctSessionID: v.ID, RateDown: 40_000_000}); code != 0 {
		t.Fatalf("CoA NAK %d", code)
	}
	ms := p.mods()
	if len(ms) != 1 || !ms[0].NoIPv4 || !ms[0].IPv6PDRs || !ms[0].HasPD {
		t.Fatalf("modifications %+v", ms)
	}
}

// A Solicit while the DHCPv4 session is being installed: the ACK follows the
// establishment (IPv4 only), the Reply the modification adding IPv6, never
// before it.
func TestIPoEIPv6DuringTheEstablishment(t *testing.T) {
	hold := make(chan struct{})
	p := newTestPod(t, func(o *Options) { ipoeDual(t, defaultIPoE(), false)(o) }, nil)
	p.plane.hold = hold
	c := p.dhcpClient(9, 15)
	c.send(dhcp4.Discover, nil, false)
	c.addr = c.expectDHCP(dhcp4.Offer).dhcp.YIAddr
	c.send(dhcp4.Request, func(m *dhcp4.Message) {
		m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway))
		m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr))
	}, false)
	p.waitFor("the establishment in flight", 2*time.Second, func() bool {
		return slices.ContainsFunc(p.log.snapshot(), func(e string) bool { return strings.HasPrefix(e, "establishing ") })
	})
	c.send6(solicitRapid(5))
	p.quiet("nothing before the DP answered", 300*time.Millisecond)
	close(hold)
	var ack, reply bool
	for i := 0; i < 2; i++ {
		r := p.expect("ACK and Reply", 3*time.Second, func(r rxFrame) bool { return r.v6 != nil || r.dhcp != nil })
		if r.dhcp != nil && r.dhcp.Type == dhcp4.Ack {
			ack = true
		}
		if r.v6 != nil {
			if len(p.mods()) != 1 {
				t.Fatalf("the Reply before the modification adding IPv6: %+v", p.mods())
			}
			reply = true
		}
	}
	if e := p.estsNow(); !ack || !reply || len(e) != 1 || e[0].IPv6 != nil || p.mods()[0].AddIPv6 == nil {
		t.Fatalf("ack %v reply %v establishments %+v", ack, reply, e)
	}
}

// A DP's periodic report of a dual-stack session carries URR 1 (the totals)
// and URR 3 (the IPv6 share) in one message: the Interim goes out once, after
// both, with the IPv6 share of the same period. (The emulated pod's IPoE dual
// stack saw ERX-IPv6 octets 0 in an Interim that left on URR 1.)
func TestInterimCarriesTheWholeReport(t *testing.T) {
	p := newTestPod(t, ipoeDual(t, defaultIPoE(), false), nil)
	c := p.dhcpClient(2, 8)
	c.dora()
	c.send6(solicitRapid(9))
	c.expect6("Reply", 0)
	v, ok := c.view()
	if !ok || v.CPSEID == 0 {
		t.Fatalf("session %+v", v)
	}
	s := p.d.lookupSEID(v.CPSEID)
	p.waitFor("IPv6 bound", 2*time.Second, func() bool { v, _ = c.view(); return v.DelegatedPrefix.IsValid() })
	before := p.acctCount(aaa.AcctInterim)
	done := make(chan struct{})
	s.sh.post(func() { s.rec.Interim, s.lastInterim = 1, time.Now().Add(-time.Hour); close(done) })
	<-done
	p.d.Usage(v.Instance, v.CPSEID, pfcpcp.Usage{URRID: pfcpcp.URRTotal, ULOctets: 3000, DLOctets: 5000, More: true})
	p.d.Usage(v.Instance, v.CPSEID, pfcpcp.Usage{URRID: pfcpcp.URRIPv4, ULOctets: 1000, DLOctets: 1000, More: true})
	p.d.Usage(v.Instance, v.CPSEID, pfcpcp.Usage{URRID: pfcpcp.URRIPv6, ULOctets: 2000, DLOctets: 4000})
	p.waitFor("an Interim", 2*time.Second, func() bool { return p.acctCount(aaa.AcctInterim) > before })
	time.Sleep(200 * time.Millisecond)
	p.acct.mu.Lock()
	defer p.acct.mu.Unlock()
	var got []aaa.AcctRequest
	for _, r := range p.acct.requests {
		if r.Status == aaa.AcctInterim {
			got = append(got, r)
		}
	}
	got = got[before:]
	if len(got) != 1 || got[0].IPv6 == nil || got[0].IPv6.InOctets != 2000 || got[0].IPv6.OutOctets != 4000 ||
		got[0].InOctets < 3000 {
		t.Fatalf("one Interim with the IPv6 share of the report, got %d: %+v", len(got), got)
	}
}

// IPv6 released before the session ends (IPoE DHCPv6 Release): nothing bound
// is reported any more, but IPv6's share of the octets stays in the Interims
// and the Stop.
func TestAcctKeepsTheIPv6ShareAfterIPv6Ended(t *testing.T) {
	p := newTestPod(t, ipoeDual(t, defaultIPoE(), false), nil)
	r := &record{Kind: kindIPoE, V6UpOctets: 300000, V6DownOctets: 200000, V6UpPackets: 300, V6DownPackets: 200}
	a := p.d.acctIPv6(r)
	if a == nil || a.InOctets != 300000 || a.OutOctets != 200000 || a.InPackets != 300 || a.Prefix.IsValid() ||
		a.Delegated.IsValid() || a.Attr != aaa.IPv6OctetsERX {
		t.Fatalf("after IPv6 ended %+v", a)
	}
	if a := p.d.acctIPv6(&record{Kind: kindIPoE}); a != nil {
		t.Fatalf("a session that never carried IPv6 %+v", a)
	}
}

// Both families released in a row (a CPE shutting down: DHCPv6 Release, then
// DHCPRELEASE while the DP still removes IPv6): the second end is taken up
// when the first removal returns, and the session ends (the demo's IPoE
// dual-stack subscriber stayed in bng-cp after its hang-up).
func TestIPoEBothFamiliesReleasedInARow(t *testing.T) {
	p := newTestPod(t, ipoeDual(t, defaultIPoE(), false), nil)
	c := p.dhcpClient(2, 8)
	c.dora()
	c.send6(solicitRapid(9))
	_, o := dhcp6Options(t, c.expect6("Reply", 0))
	p.waitFor("IPv6 bound", 2*time.Second, func() bool { v, _ := c.view(); return v.DelegatedPrefix != nil })
	v, _ := c.view()
	hold := make(chan struct{})
	p.plane.modHold.Store(&hold)
	c.send6(dhcp6Msg(8, opt6(2, o[2]), opt6(25, append(iaHead6(9), make([]byte, 8)...))))
	c.expect6("Reply to the Release", 0)
	p.waitFor("the removal in flight", 2*time.Second, func() bool { return len(p.mods()) == 2 })
	c.send(dhcp4.Release, func(m *dhcp4.Message) {
		m.CIAddr = c.addr
		m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway))
	}, true)
	time.Sleep(100 * time.Millisecond)
	p.plane.modHold.Store(nil)
	close(hold)
	checkEnd(t, p, v.ID, 0, causeUserRequest)
}
