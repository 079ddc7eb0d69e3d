package core

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/vxlan"
)

// IPoE subscribers against the test pod (pod_test.go): the daemon's real
// VXLAN endpoint, shards, pools, store and users file; the test plays the DP
// instance and DHCP clients. The user plane double refuses what the issue
// 19 contract says the DP refuses (checkIPoE).

var podGateway = netip.MustParseAddr("100.80.0.1")

// ipoeDPKey is an IPoE session's identity in the DP: (line, MAC).
type ipoeDPKey struct {
	port       string
	stag, ctag uint16
	mac        [6]byte
}

// checkIPoE refuses an establishment as the contract's DP does: an IPoE
// session needs the UE IP (67), no PPPoE session id, LCP or IPv6 (69/76),
// and one session per (line, MAC) (73).
func (f *fakePlane) checkIPoE(s *pfcpcp.Session) error {
	if f.refuse.Load() {
		return &pfcpcp.CauseError{Cause: pfcpcp.CauseRuleFailure, FailedRule: 1, HasFailedRule: true}
	}
	if !s.IPoE {
		if s.PPPoESessionID == 0 {
			return &pfcpcp.CauseError{Cause: 67, OffendingIE: 32772}
		}
		return nil
	}
	switch {
	case !s.IPv4.IsValid() && s.IPv6 == nil:
		return &pfcpcp.CauseError{Cause: 67, OffendingIE: 93}
	case s.PPPoESessionID != 0, s.LCP != nil:
		return &pfcpcp.CauseError{Cause: 69}
	case (s.IPv6 == nil) != (s.RA == nil):
		return &pfcpcp.CauseError{Cause: 69} // dual stack over IPoE: the RA offload with the IPv6 PDRs
	}
	k := ipoeDPKey{s.LogicalPort, s.STag, s.CTag, s.MAC}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ipoe == nil {
		f.ipoe = make(map[ipoeDPKey]uint64)
	}
	if _, dup := f.ipoe[k]; dup {
		return &pfcpcp.CauseError{Cause: pfcpcp.CauseRuleFailure, FailedRule: 1, HasFailedRule: true}
	}
	f.ipoe[k] = 0 // the UP SEID follows (installed)
	return nil
}

func (f *fakePlane) forgetIPoE(up uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range f.ipoe {
		if v == up {
			delete(f.ipoe, k)
		}
	}
}

// fixIPoE records the UP SEID of the IPoE sessions just installed.
func (f *fakePlane) fixIPoE() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.ests {
		if !s.IPoE {
			continue
		}
		k := ipoeDPKey{s.LogicalPort, s.STag, s.CTag, s.MAC}
		if v, ok := f.ipoe[k]; ok && v == 0 {
			f.installed.Range(func(up, cp any) bool {
				if cp.(uint64) == s.CPSEID {
					f.ipoe[k] = up.(uint64)
				}
				return true
			})
		}
	}
}

func decodeDHCPOut(b []byte) (rxFrame, error) {
	f, err := dhcp4.DecodeFrame(b)
	if err != nil {
		return rxFrame{}, err
	}
	m, err := dhcp4.Decode(f.Payload)
	if err != nil {
		return rxFrame{}, err
	}
	return rxFrame{dhcp: m, dhcpF: f}, nil
}

// ipoeTune makes lg1 allow IPoE (pool1's gateway 100.80.0.1) with the given
// settings, and adds the DHCP clients' users (User-Name the MAC, password
// "ipoe"; extra lines appended).
func ipoeTune(t *testing.T, c config.IPoE, extraUsers string, more func(*Options)) func(*Options) {
	return func(o *Options) {
		g := o.Config.LineGroups[0]
		cc := c
		g.IPoE = &cc
		g.Pools[0].Gateway = podGateway
		var u []byte
		for i := 0; i < 64; i++ {
			u = fmt.Appendf(u, "%q Cleartext-Password := \"ipoe\"\n", macString(ipoeMAC(i)))
		}
		u = append(u, extraUsers...)
		o.UsersFile = filepath.Join(t.TempDir(), "users-ipoe")
		if err := os.WriteFile(o.UsersFile, u, 0o600); err != nil {
			t.Fatal(err)
		}
		if more != nil {
			more(o)
		}
	}
}

func defaultIPoE() config.IPoE {
	return config.IPoE{Mode: config.IPoEModeServer, LeaseTime: 3600, RenewTime: 300, MaxMACs: 1,
		Username: config.IPoEUserMAC, Password: "ipoe", ProxyARP: true}
}

func ipoeMAC(i int) [6]byte { return [6]byte{0x02, 0x1e, 0, 0, byte(i >> 8), byte(i)} }

// dhcpClient is an IPoE subscriber's DHCP client, driven by the test.
type dhcpClient struct {
	p          *testPod
	mac        [6]byte
	stag, ctag uint16
	xid        uint32
	addr       netip.Addr
	opt82      []byte // option 82 the access node adds; nil: none
}

func (p *testPod) dhcpClient(i int, ctag uint16) *dhcpClient {
	return &dhcpClient{p: p, mac: ipoeMAC(i), stag: podSTag, ctag: ctag, xid: 0x1e000000 | uint32(i)<<8}
}

// send sends a DHCP message of type typ as the client, broadcast unless
// unicast to the gateway (renewal).
func (c *dhcpClient) send(typ uint8, edit func(m *dhcp4.Message), unicast bool) {
	c.p.t.Helper()
	c.xid++
	m := &dhcp4.Message{Op: dhcp4.OpRequest, XID: c.xid, CHAddr: c.mac[:], Type: typ}
	if c.opt82 != nil {
		m.Set(dhcp4.OptRelayAgentInfo, c.opt82)
	}
	if edit != nil {
		edit(m)
	}
	f := dhcp4.Frame{Dst: [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, Src: c.mac, STag: c.stag, CTag: c.ctag,
		SrcIP: netip.IPv4Unspecified(), DstIP: netip.AddrFrom4([4]byte{255, 255, 255, 255}),
		SrcPort: dhcp4.ClientPort, DstPort: dhcp4.ServerPort, Payload: m.Encode()}
	if unicast {
		f.Dst, f.SrcIP, f.DstIP = podACMAC, c.addr, podGateway
	}
	c.p.sendRaw(dhcp4.AppendFrame(nil, &f))
}

func (p *testPod) sendRaw(frame []byte) {
	p.t.Helper()
	if _, err := p.vtep.WriteToUDP(vxlan.Append(nil, podInstance, frame), p.cp); err != nil {
		p.t.Fatal(err)
	}
}

// expectDHCP returns the next frame, which must be a DHCP reply of type typ
// to the client (its xid).
func (c *dhcpClient) expectDHCP(typ uint8) rxFrame {
	c.p.t.Helper()
	r := c.p.expect(fmt.Sprintf("DHCP type %d", typ), 3*time.Second, func(r rxFrame) bool {
		return r.dhcp != nil && r.dhcp.Type == typ && r.dhcp.XID == c.xid
	})
	// every reply: from the group's AC MAC and a gateway, UDP 67 -> 68, on the client's line
	f := r.dhcpF
	if f.Src != podACMAC || f.SrcPort != 67 || f.DstPort != 68 || f.STag != c.stag || f.CTag != c.ctag ||
		!bytes.Equal(r.dhcp.CHAddr, c.mac[:]) || f.SrcIP != podGateway {
		c.p.t.Fatalf("reply frame %+v", f)
	}
	return r
}

// dora runs DISCOVER, OFFER, REQUEST, ACK and returns the ACK.
func (c *dhcpClient) dora() rxFrame {
	c.p.t.Helper()
	c.send(dhcp4.Discover, nil, false)
	offer := c.expectDHCP(dhcp4.Offer)
	c.addr = offer.dhcp.YIAddr
	c.send(dhcp4.Request, func(m *dhcp4.Message) {
		m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway))
		m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr))
	}, false)
	ack := c.expectDHCP(dhcp4.Ack)
	if ack.dhcp.YIAddr != c.addr {
		c.p.t.Fatalf("ACK for %s, offered %s", ack.dhcp.YIAddr, c.addr)
	}
	c.p.plane.fixIPoE()
	return ack
}

func (c *dhcpClient) renew() rxFrame {
	c.p.t.Helper()
	c.send(dhcp4.Request, func(m *dhcp4.Message) { m.CIAddr = c.addr }, true)
	return c.expectDHCP(dhcp4.Ack)
}

func (c *dhcpClient) session() (SessionViewLite, bool) {
	for _, s := range c.p.sessions() {
		if s.MAC == macString(c.mac) && s.CTag == c.ctag {
			return SessionViewLite{ID: s.ID, State: s.State, Kind: s.Kind, IPv4: s.IPv4, User: s.User, LeaseEnd: s.LeaseEnd}, true
		}
	}
	return SessionViewLite{}, false
}

// SessionViewLite is what the IPoE tests read of the management API.
type SessionViewLite struct {
	ID, State, Kind, User string
	IPv4                  netip.Addr
	LeaseEnd              *time.Time
}

func (p *testPod) dropped(reason string) float64 {
	return counterValue(p.d.m.drops.WithLabelValues(reason))
}

func TestIPoEDORARenewRelease(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	c := p.dhcpClient(1, 7)
	c.opt82 = (&dhcp4.AgentInfo{CircuitID: []byte("olt1 1/1/1:100.7"), RemoteID: []byte("cpe-1")}).Encode()
	c.send(dhcp4.Discover, nil, false)
	offer := c.expectDHCP(dhcp4.Offer)
	m, f := offer.dhcp, offer.dhcpF
	c.addr = m.YIAddr
	pfx := netip.MustParsePrefix("100.80.0.0/19")
	if !pfx.Contains(c.addr) || c.addr == podGateway || c.addr == pfx.Addr() {
		t.Fatalf("offered %s", c.addr)
	}
	// unicast to the client MAC and the offered address (no broadcast flag)
	if f.Dst != c.mac || f.DstIP != c.addr {
		t.Errorf("OFFER to %x %s", f.Dst, f.DstIP)
	}
	want := map[uint8][]byte{
		dhcp4.OptServerID: dhcp4.A4(podGateway), dhcp4.OptRouter: dhcp4.A4(podGateway),
		dhcp4.OptSubnetMask: {255, 255, 224, 0}, dhcp4.OptLeaseTime: dhcp4.U32(3600),
		dhcp4.OptRenewalTime: dhcp4.U32(300), dhcp4.OptRebindingTime: dhcp4.U32(3150),
		dhcp4.OptDNS: {192, 0, 2, 53, 192, 0, 2, 54}, dhcp4.OptRelayAgentInfo: c.opt82,
	}
	for code, v := range want {
		if got, _ := m.Option(code); !bytes.Equal(got, v) {
			t.Errorf("OFFER option %d = %x, want %x", code, got, v)
		}
	}
	p.plane.mu.Lock()
	early := len(p.plane.ests)
	p.plane.mu.Unlock()
	if early != 0 {
		t.Fatal("installed before the REQUEST")
	}
	c.send(dhcp4.Request, func(m *dhcp4.Message) {
		m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway))
		m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr))
		m.Flags = dhcp4.FlagBroadcast
	}, false)
	ack := c.expectDHCP(dhcp4.Ack)
	if ack.dhcp.YIAddr != c.addr || ack.dhcpF.Dst != [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff} ||
		ack.dhcpF.DstIP != netip.MustParseAddr("255.255.255.255") {
		t.Fatalf("ACK %s to %x %s (broadcast flag set)", ack.dhcp.YIAddr, ack.dhcpF.Dst, ack.dhcpF.DstIP)
	}
	p.plane.fixIPoE()
	// the DP got the IPoE shape
	p.plane.mu.Lock()
	es := p.plane.ests[0]
	p.plane.mu.Unlock()
	if !es.IPoE || es.PPPoESessionID != 0 || es.IPv4 != c.addr || es.MAC != c.mac || es.STag != podSTag ||
		es.CTag != 7 || es.LCP != nil || es.IPv6 != nil || es.QosProfile != "silver" {
		t.Fatalf("established %+v", es)
	}
	v, ok := c.session()
	if !ok || v.Kind != "ipoe" || v.State != "established" || v.IPv4 != c.addr || v.User != macString(c.mac) || v.LeaseEnd == nil {
		t.Fatalf("session %+v %v", v, ok)
	}
	// Accounting-Start: user the MAC, the access node's ids, IPoE
	p.waitFor("Accounting-Start", 2*time.Second, func() bool { _, ok := p.acct.reqs.Load(aaa.AcctStart); return ok })
	st, _ := p.acct.reqs.Load(aaa.AcctStart)
	sr := st.(*aaa.AcctRequest)
	if sr.UserName != macString(c.mac) || !sr.IPoE || sr.FramedIP != c.addr || sr.CircuitID != "olt1 1/1/1:100.7" ||
		sr.RemoteID != "cpe-1" || sr.NASPortID != "access1:100.7" || sr.SessionID != v.ID {
		t.Errorf("Accounting-Start %+v", sr)
	}
	// RENEW: unicast to ciaddr, lease extended
	first := *v.LeaseEnd
	time.Sleep(1100 * time.Millisecond)
	r := c.renew()
	if r.dhcpF.DstIP != c.addr || r.dhcpF.Dst != c.mac || r.dhcp.CIAddr != c.addr || r.dhcp.YIAddr != c.addr {
		t.Errorf("renewal ACK to %x %s ciaddr %s yiaddr %s", r.dhcpF.Dst, r.dhcpF.DstIP, r.dhcp.CIAddr, r.dhcp.YIAddr)
	}
	if v2, _ := c.session(); v2.LeaseEnd == nil || !v2.LeaseEnd.After(first) {
		t.Errorf("lease not extended: %v -> %v", first, v2.LeaseEnd)
	}
	// INFORM: an ACK without a lease
	c.send(dhcp4.Inform, func(m *dhcp4.Message) { m.CIAddr = c.addr }, true)
	inf := c.expectDHCP(dhcp4.Ack)
	if _, has := inf.dhcp.Option(dhcp4.OptLeaseTime); has || inf.dhcp.YIAddr.IsValid() && !inf.dhcp.YIAddr.IsUnspecified() {
		t.Errorf("INFORM's ACK has a lease: %+v", inf.dhcp)
	}
	// RELEASE: the session ends, User-Request
	c.send(dhcp4.Release, func(m *dhcp4.Message) {
		m.CIAddr = c.addr
		m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway))
	}, true)
	checkEnd(t, p, v.ID, 0, causeUserRequest)
	// its next renewal is refused, broadcast
	c.send(dhcp4.Request, func(m *dhcp4.Message) { m.CIAddr = c.addr }, true)
	nak := c.expectDHCP(dhcp4.Nak)
	if nak.dhcpF.Dst != [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff} || nak.dhcpF.DstIP != netip.MustParseAddr("255.255.255.255") {
		t.Errorf("NAK to %x %s", nak.dhcpF.Dst, nak.dhcpF.DstIP)
	}
	if sid, _ := nak.dhcp.Addr(dhcp4.OptServerID); sid != podGateway {
		t.Errorf("NAK server id %s", sid)
	}
}

// A REQUEST the CP has no session for is NAKed: a renewal, an INIT-REBOOT
// and a SELECTING REQUEST naming our gateway; one naming another server is
// not ours to answer.
func TestIPoEUnknownRequestsNAKed(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	c := p.dhcpClient(2, 9)
	c.addr = netip.MustParseAddr("100.80.3.3")
	c.send(dhcp4.Request, func(m *dhcp4.Message) { m.CIAddr = c.addr }, true)
	c.expectDHCP(dhcp4.Nak)
	c.send(dhcp4.Request, func(m *dhcp4.Message) { m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr)) }, false)
	c.expectDHCP(dhcp4.Nak)
	c.send(dhcp4.Request, func(m *dhcp4.Message) {
		m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway))
		m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr))
	}, false)
	c.expectDHCP(dhcp4.Nak)
	c.send(dhcp4.Request, func(m *dhcp4.Message) {
		m.Set(dhcp4.OptServerID, dhcp4.A4(netip.MustParseAddr("192.0.2.67")))
		m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr))
	}, false)
	p.quiet("a REQUEST for another server", 300*time.Millisecond)
	if len(p.sessions()) != 0 || p.poolUsed() != 0 {
		t.Fatal("a session or an address for unknown requests")
	}
}

// A lease that is not renewed ends the session: Lost-Service.
func TestIPoELeaseExpiry(t *testing.T) {
	c0 := defaultIPoE()
	c0.LeaseTime, c0.RenewTime = 2, 1 // below the configuration's bounds: a test of the expiry only
	p := newTestPod(t, ipoeTune(t, c0, "", nil), nil)
	c := p.dhcpClient(3, 11)
	c.dora()
	v, _ := c.session()
	t0 := time.Now()
	// the lease (2 s) runs from the REQUEST; the expiry check runs every second
	p.waitFor("the lease's end", 10*time.Second, func() bool { return p.acct.stops.Load() == 1 })
	if took := time.Since(t0); took < time.Second || took > 8*time.Second {
		t.Errorf("expired after %v, want about 2-3 s", took)
	}
	checkEnd(t, p, v.ID, 0, causeLostService)
}

// max_macs per line: the second MAC on a line of max_macs 1 gets nothing
// (counted); on another line it dials; with max_macs 2 both.
func TestIPoEMaxMACs(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	p.dhcpClient(4, 20).dora()
	c2 := p.dhcpClient(5, 20)
	c2.send(dhcp4.Discover, nil, false)
	p.quiet("a DISCOVER beyond max_macs", 300*time.Millisecond)
	if got := p.dropped("ipoe_max_macs"); got != 1 {
		t.Fatalf("ipoe_max_macs %v", got)
	}
	p.dhcpClient(5, 21).dora()

	c1 := defaultIPoE()
	c1.MaxMACs = 2
	p2 := newTestPod(t, ipoeTune(t, c1, "", nil), nil)
	p2.dhcpClient(4, 20).dora()
	p2.dhcpClient(5, 20).dora()
	c3 := p2.dhcpClient(6, 20)
	c3.send(dhcp4.Discover, nil, false)
	p2.quiet("a third DISCOVER on a line of max_macs 2", 300*time.Millisecond)
}

// DISCOVER floods are dropped and counted per MAC and per line.
func TestIPoEDiscoverFlood(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", func(o *Options) { o.PADIRate, o.PADIBurst = 0.1, 2 }), nil)
	c := p.dhcpClient(7, 30)
	for i := 0; i < 6; i++ {
		c.send(dhcp4.Discover, nil, false)
	}
	p.waitFor("the flood counted", 2*time.Second, func() bool { return p.dropped("dhcp_rate") == 4 })
	// many MACs on one line: the line's bucket (burst 50) empties
	c0 := defaultIPoE()
	c0.MaxMACs = 64
	p2 := newTestPod(t, ipoeTune(t, c0, "", nil), nil)
	// (per shard, as for PADIs: 4 shards of burst 50 take at most about 200)
	for i := 0; i < 300; i++ {
		p2.dhcpClient(i, 31).send(dhcp4.Discover, nil, false)
	}
	p2.waitFor("the line's flood counted", 3*time.Second, func() bool { return p2.dropped("dhcp_line_rate") >= 50 })
}

// RADIUS decides: User-Name the option 82 circuit id (ipoe.username),
// Framed-IP-Address, Filter-Id and rates honoured; a reject gets no OFFER
// and holds nothing; without the circuit id there is no user name (counted).
func TestIPoERADIUSAttributes(t *testing.T) {
	users := "\"circuit-40\" Cleartext-Password := \"ipoe\"\n\tFramed-IP-Address = 100.80.1.40,\n" +
		"\tFilter-Id = \"silver\",\n\tWISPr-Bandwidth-Max-Down = 30000000\n"
	c0 := defaultIPoE()
	c0.Username = config.IPoEUserCircuitID
	p := newTestPod(t, ipoeTune(t, c0, users, nil), nil)
	c := p.dhcpClient(40, 90)
	c.opt82 = (&dhcp4.AgentInfo{CircuitID: []byte("circuit-40")}).Encode()
	c.dora()
	if c.addr != netip.MustParseAddr("100.80.1.40") {
		t.Fatalf("address %s, RADIUS gave 100.80.1.40", c.addr)
	}
	p.plane.mu.Lock()
	es := p.plane.ests[0]
	p.plane.mu.Unlock()
	if es.DownMBR != 30000000 || es.QosProfile != "silver" {
		t.Errorf("rates/profile %+v", es)
	}
	if v, _ := c.session(); v.User != "circuit-40" {
		t.Errorf("user %q", v.User)
	}
	rej := p.dhcpClient(41, 91)
	rej.opt82 = (&dhcp4.AgentInfo{CircuitID: []byte("circuit-41")}).Encode()
	rej.send(dhcp4.Discover, nil, false)
	p.quiet("a rejected subscriber", 300*time.Millisecond)
	none := p.dhcpClient(42, 92)
	none.send(dhcp4.Discover, nil, false)
	p.quiet("no circuit id", 300*time.Millisecond)
	if p.dropped("ipoe_no_username") != 1 {
		t.Errorf("ipoe_no_username %v", p.dropped("ipoe_no_username"))
	}
	p.waitFor("only the accepted session left", 2*time.Second, func() bool { return len(p.sessions()) == 1 && p.poolUsed() == 1 })
}

// The DP refuses the session: the REQUEST is NAKed, nothing stays.
func TestIPoEDPRefusalNAK(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	p.plane.refuse.Store(true)
	c := p.dhcpClient(8, 40)
	c.send(dhcp4.Discover, nil, false)
	c.addr = c.expectDHCP(dhcp4.Offer).dhcp.YIAddr
	c.send(dhcp4.Request, func(m *dhcp4.Message) {
		m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway))
		m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr))
	}, false)
	c.expectDHCP(dhcp4.Nak)
	p.waitFor("the address back", 2*time.Second, func() bool { return p.poolUsed() == 0 && len(p.sessions()) == 0 })
	if _, ok := p.acct.reqs.Load(aaa.AcctStart); ok {
		t.Fatal("accounting started for a session the DP refused")
	}
}

// The operator (as a Disconnect-Request) ends an IPoE session: the DP
// deletion and the Accounting-Stop, no PPPoE frame; the client's next
// renewal is NAKed.
func TestIPoETerminate(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	c := p.dhcpClient(9, 50)
	c.dora()
	v, _ := c.session()
	if _, err := p.ctl.Terminate(context.Background(), v.ID); err != nil {
		t.Fatal(err)
	}
	checkEnd(t, p, v.ID, 0, causeAdminReset)
	p.quiet("after an IPoE session's end (no PADT, no LCP)", 200*time.Millisecond)
	c.send(dhcp4.Request, func(m *dhcp4.Message) { m.CIAddr = c.addr }, true)
	c.expectDHCP(dhcp4.Nak)
}

// An IPoE session persisted by a CP that stopped comes back: its renewal is
// ACKed, the DP knows it (Restore), accounting goes on with its id.
func TestIPoERestore(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	addr := netip.MustParseAddr("100.80.0.77")
	mac := ipoeMAC(10)
	r := record{
		ID: "0000000100000009", CPSEID: 1<<32 | 9, UPSEID: 900, Established: true, AcctStarted: true,
		User: macString(mac), Instance: podInstance, AccessPort: "access1", STag: podSTag, CTag: 60, MAC: mac,
		IPv4: addr, LineGroup: "lg1", QosProfile: "silver", Interim: 300, Started: now, Kind: kindIPoE,
		LeaseEnd: now.Add(time.Hour),
	}
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), func(db sessionStore) {
		if err := db.Put(bucketSessions, r.ID, r.marshal()); err != nil {
			t.Fatal(err)
		}
	})
	if p.poolUsed() != 1 {
		t.Fatalf("%d addresses held after the restore", p.poolUsed())
	}
	if cp, ok := p.plane.installed.Load(uint64(900)); !ok || cp.(uint64) != r.CPSEID {
		t.Fatalf("the user plane was not told of the restored session: %v", cp)
	}
	c := p.dhcpClient(10, 60)
	c.addr = addr
	c.renew()
	v, ok := c.session()
	if !ok || v.Kind != "ipoe" || v.ID != r.ID || v.State != "established" {
		t.Fatalf("%+v %v", v, ok)
	}
	// a second DISCOVER from the CPE (it rebooted): its address again
	c.send(dhcp4.Discover, nil, false)
	if o := c.expectDHCP(dhcp4.Offer); o.dhcp.YIAddr != addr {
		t.Errorf("OFFER %s after the restore, want %s", o.dhcp.YIAddr, addr)
	}
	// the record carries the kind for the next restart
	raw, ok, err := p.d.db.Get(bucketSessions, r.ID)
	if err != nil || !ok || !strings.Contains(string(raw), `"kind":"ipoe"`) {
		t.Fatalf("stored record %s %v %v", raw, ok, err)
	}
}

// DHCP on a line of a PPPoE-only group is dropped and counted; hostile
// DHCP frames are counted drops.
func TestIPoENotAllowedAndHostile(t *testing.T) {
	p := newTestPod(t, nil, nil)
	c := p.dhcpClient(11, 70)
	c.send(dhcp4.Discover, nil, false)
	p.quiet("DHCP in a PPPoE-only group", 200*time.Millisecond)
	if p.dropped("ipoe_not_allowed") != 1 {
		t.Fatalf("ipoe_not_allowed %v", p.dropped("ipoe_not_allowed"))
	}
	p2 := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	c2 := p2.dhcpClient(12, 71)
	good := func() dhcp4.Frame {
		m := &dhcp4.Message{Op: dhcp4.OpRequest, XID: 1, CHAddr: c2.mac[:], Type: dhcp4.Discover}
		return dhcp4.Frame{Dst: [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, Src: c2.mac, STag: podSTag, CTag: 71,
			SrcIP: netip.IPv4Unspecified(), DstIP: netip.AddrFrom4([4]byte{255, 255, 255, 255}),
			SrcPort: 68, DstPort: 67, Payload: m.Encode()}
	}
	cases := []struct {
		reason string
		frame  []byte
	}{
		{"dhcp_malformed", func() []byte { f := good(); b := dhcp4.AppendFrame(nil, &f); b[len(b)-1] ^= 0xff; return b }()},
		{"dhcp_ports", func() []byte { f := good(); f.DstPort = 53; return dhcp4.AppendFrame(nil, &f) }()},
		{"dhcp_chaddr", func() []byte {
			f := good()
			m, _ := dhcp4.Decode(f.Payload)
			m.CHAddr = []byte{2, 0, 0, 0, 0, 9}
			f.Payload = m.Encode()
			return dhcp4.AppendFrame(nil, &f)
		}()},
		{"dhcp_op", func() []byte {
			f := good()
			m, _ := dhcp4.Decode(f.Payload)
			m.Op = dhcp4.OpReply
			f.Payload = m.Encode()
			return dhcp4.AppendFrame(nil, &f)
		}()},
		{"dhcp_type", func() []byte {
			f := good()
			m, _ := dhcp4.Decode(f.Payload)
			m.Type = dhcp4.Offer
			f.Payload = m.Encode()
			return dhcp4.AppendFrame(nil, &f)
		}()},
		{"dhcp_giaddr", func() []byte {
			f := good()
			m, _ := dhcp4.Decode(f.Payload)
			m.GIAddr = netip.MustParseAddr("10.0.0.1")
			f.Payload = m.Encode()
			return dhcp4.AppendFrame(nil, &f)
		}()},
		{"dst_mac", func() []byte { f := good(); f.Dst = [6]byte{2, 9, 9, 9, 9, 9}; return dhcp4.AppendFrame(nil, &f) }()},
	}
	for _, tc := range cases {
		before := p2.dropped(tc.reason)
		p2.sendRaw(tc.frame)
		p2.waitFor(tc.reason, 2*time.Second, func() bool { return p2.dropped(tc.reason) == before+1 })
	}
	p2.quiet("hostile DHCP", 100*time.Millisecond)
	if len(p2.sessions()) != 0 {
		t.Fatal("a session from hostile frames")
	}
}

// PPPoE and IPoE side by side in one group.
func TestIPoEBesidePPPoE(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), fmt.Sprintf("%s Cleartext-Password := %q\n", podUser, podPassword), nil), nil)
	pc := p.client(0)
	pc.dial()
	c := p.dhcpClient(13, 80)
	c.dora()
	kinds := map[string]int{}
	for _, s := range p.sessions() {
		kinds[s.Kind]++
	}
	if kinds["pppoe"] != 1 || kinds["ipoe"] != 1 {
		t.Fatalf("kinds %v", kinds)
	}
	if !slices.ContainsFunc(p.log.snapshot(), func(e string) bool { return strings.HasPrefix(e, "establish ") }) {
		t.Fatal("no establishment logged")
	}
}

// What a DP restart or a line-group move re-installs (peers.go,
// placement.go: pfcpSession of the record) keeps the IPoE shape.
func TestIPoEPFCPSessionOfRecord(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	r := &record{CPSEID: 7, AccessPort: "access1", STag: 100, CTag: 9, MAC: ipoeMAC(1), Kind: kindIPoE,
		IPv4: netip.MustParseAddr("100.80.0.9"), QosProfile: "silver", RateDown: 5e6, Interim: 300, Established: true}
	ps := p.d.pfcpSession(r)
	if !ps.IPoE || ps.PPPoESessionID != 0 || ps.LCP != nil || ps.IPv6 != nil || ps.RA != nil || ps.MTU != 0 ||
		ps.IPv4 != r.IPv4 || ps.DownMBR != 5e6 || ps.MAC != r.MAC {
		t.Fatalf("%+v", ps)
	}
	r.Kind, r.PPPoESID, r.MagicTx = "", 5, 1
	if pp := p.d.pfcpSession(r); pp.IPoE || pp.PPPoESessionID != 5 {
		t.Fatalf("a PPPoE record became %+v", pp)
	}
}

// DECLINE of the session's address ends it (User-Error); one naming no
// address, or another, is dropped and counted.
func TestIPoEDecline(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	c := p.dhcpClient(14, 120)
	c.dora()
	v, _ := c.session()
	c.send(dhcp4.Decline, nil, false)
	c.send(dhcp4.Decline, func(m *dhcp4.Message) { m.Set(dhcp4.OptRequestedIP, dhcp4.A4(podGateway)) }, false)
	p.waitFor("two DECLINEs dropped", 2*time.Second, func() bool { return p.dropped("dhcp_decline_unknown") == 2 })
	if s, ok := c.session(); !ok || s.State != "established" {
		t.Fatalf("session after foreign DECLINEs: %+v %v", s, ok)
	}
	c.send(dhcp4.Decline, func(m *dhcp4.Message) { m.Set(dhcp4.OptRequestedIP, dhcp4.A4(c.addr)) }, false)
	p.waitFor("the Accounting-Stop", 3*time.Second, func() bool { return p.acct.stops.Load() == 1 })
	if st, _ := p.acct.reqs.Load(aaa.AcctStop); st.(*aaa.AcctRequest).TerminateCause != causeUserError || st.(*aaa.AcctRequest).SessionID != v.ID {
		t.Fatalf("Stop %+v", st)
	}
	// the declined address is held back: the next client gets another one
	time.Sleep(100 * time.Millisecond)
	if p.poolUsed() != 1 {
		t.Fatalf("%d addresses in use after the DECLINE, want the declined one held", p.poolUsed())
	}
	c2 := p.dhcpClient(15, 121)
	c2.dora()
	if c2.addr == c.addr {
		t.Fatalf("the declined address %s handed out again", c.addr)
	}
	// after the hold it is free again
	p.d.unquarantine(time.Now().Add(ipoeDeclineHold + time.Second))
	if p.poolUsed() != 1 {
		t.Fatalf("%d addresses in use after the hold, want 1 (c2's)", p.poolUsed())
	}
}

// RADIUS CoA and Disconnect (RFC 5176, the handler the CoA port calls)
// find an IPoE session by its address and act as for PPPoE: the rates to
// the DP, then the end (Admin-Reset) and a NAK to the next renewal.
func TestIPoECoAAndDisconnect(t *testing.T) {
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	c := p.dhcpClient(16, 130)
	c.dora()
	v, _ := c.session()
	ctx := context.Background()
	if code := p.d.dynamic(ctx, &aaa.DynRequest{FramedIP: c.addr, RateDown: 40_000_000, RateUp: 8_000_000}); code != 0 {
		t.Fatalf("CoA NAK %d", code)
	}
	p.plane.mu.Lock()
	mods := append([]*pfcpcp.Mod(nil), p.plane.mods...)
	p.plane.mu.Unlock()
	if len(mods) != 1 || mods[0].DownMBR == nil || *mods[0].DownMBR != 40_000_000 || mods[0].NoIPv4 || mods[0].IPv6PDRs {
		t.Fatalf("modifications %+v", mods)
	}
	if code := p.d.dynamic(ctx, &aaa.DynRequest{Disconnect: true, AcctSessionID: v.ID}); code != 0 {
		t.Fatalf("Disconnect NAK %d", code)
	}
	checkEnd(t, p, v.ID, 0, causeAdminReset)
	c.send(dhcp4.Request, func(m *dhcp4.Message) { m.CIAddr = c.addr }, true)
	c.expectDHCP(dhcp4.Nak)
}

// ARP ping (ipoe.arp_ping): the DP gets the IE with the group's values; its
// dead report ends the session with Lost-Carrier, like the LCP dead report.
// Off by default: no IE.
func TestIPoEARPPing(t *testing.T) {
	c := defaultIPoE()
	c.ARPPing = &config.ARPPing{Interval: 30, Count: 3}
	p := newTestPod(t, ipoeTune(t, c, "", nil), nil)
	cl := p.dhcpClient(1, 21)
	cl.dora()
	p.plane.fixIPoE()
	p.plane.mu.Lock()
	es := p.plane.ests[0]
	p.plane.mu.Unlock()
	if es.ARPPing == nil || *es.ARPPing != (pfcpcp.ARPPing{Interval: 30, Count: 3}) {
		t.Fatalf("established ARP ping %+v", es.ARPPing)
	}
	v, _ := cl.session()
	p.d.LCPDead(podInstance, es.CPSEID)
	checkEnd(t, p, v.ID, 0, causeLostCarrier)
	p.quiet("after an ARP ping death (no PADT)", 200*time.Millisecond)

	off := newTestPod(t, ipoeTune(t, defaultIPoE(), "", nil), nil)
	off.dhcpClient(1, 22).dora()
	off.plane.fixIPoE()
	off.plane.mu.Lock()
	es = off.plane.ests[0]
	off.plane.mu.Unlock()
	if es.ARPPing != nil {
		t.Fatalf("ARP ping without arp_ping: %+v", es.ARPPing)
	}
}
