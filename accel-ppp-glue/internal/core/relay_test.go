package core

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pool"
)

// Relay mode against a DHCP server double. The double is stricter than a
// server needs to be: it refuses (and the test fails on) any relayed
// message that is not from the CP's giaddr and relay port, without hops,
// or without option 82 carrying link selection and server identifier
// override of the group's gateway. The POD engineer's E2E runs the real
// isc-dhcp-server.

type dhcpDouble struct {
	t        *testing.T
	conn     *net.UDPConn
	giaddr   netip.Addr
	cpPort   uint16
	offer    netip.Addr  // what it hands out
	ignoreSO atomic.Bool // ignore server identifier override (its own address as server id)
	mu       sync.Mutex
	seen     []*dhcp4.Message // every relayed message, in order
	bad      []string
}

func newDHCPDouble(t *testing.T, addr, giaddr netip.Addr, cpPort uint16, offer netip.Addr) *dhcpDouble {
	c, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)))
	if err != nil {
		t.Fatal(err)
	}
	s := &dhcpDouble{t: t, conn: c, giaddr: giaddr, cpPort: cpPort, offer: offer}
	t.Cleanup(func() { c.Close() })
	go s.serve()
	return s
}

func (s *dhcpDouble) port() uint16 { return s.conn.LocalAddr().(*net.UDPAddr).AddrPort().Port() }

func (s *dhcpDouble) fail(format string, a ...any) {
	s.mu.Lock()
	s.bad = append(s.bad, fmt.Sprintf(format, a...))
	s.mu.Unlock()
}

func (s *dhcpDouble) serve() {
	buf := make([]byte, 2048)
	for {
		n, from, err := s.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		m, err := dhcp4.Decode(buf[:n])
		if err != nil {
			s.fail("undecodable relayed message: %v", err)
			continue
		}
		s.mu.Lock()
		s.seen = append(s.seen, m)
		s.mu.Unlock()
		ai, ok := m.AgentInfo()
		switch {
		case from.Addr() != s.giaddr || from.Port() != s.cpPort:
			s.fail("relayed from %s, want %s:%d", from, s.giaddr, s.cpPort)
			continue
		case m.GIAddr != s.giaddr || m.Hops == 0 || m.Op != dhcp4.OpRequest:
			s.fail("giaddr %s hops %d op %d", m.GIAddr, m.Hops, m.Op)
			continue
		case !ok || ai.LinkSelection != podGateway || ai.ServerIDOverride != podGateway || len(ai.CircuitID) == 0:
			s.fail("option 82 %+v (%v)", ai, ok)
			continue
		}
		sid := ai.ServerIDOverride // RFC 5107: the override is the server identifier
		if s.ignoreSO.Load() {
			sid = s.conn.LocalAddr().(*net.UDPAddr).AddrPort().Addr()
		}
		r := &dhcp4.Message{Op: dhcp4.OpReply, XID: m.XID, Flags: m.Flags, CIAddr: m.CIAddr, GIAddr: m.GIAddr, CHAddr: m.CHAddr}
		switch m.Type {
		case dhcp4.Discover:
			r.Type, r.YIAddr = dhcp4.Offer, s.offer
		case dhcp4.Request:
			req, _ := m.Addr(dhcp4.OptRequestedIP)
			if req != s.offer && m.CIAddr != s.offer {
				r.Type = dhcp4.Nak
			} else {
				r.Type, r.YIAddr = dhcp4.Ack, s.offer
			}
		default:
			continue // RELEASE, DECLINE: no answer
		}
		r.Set(dhcp4.OptServerID, dhcp4.A4(sid))
		if r.Type != dhcp4.Nak {
			r.Set(dhcp4.OptLeaseTime, dhcp4.U32(600))
			r.Set(dhcp4.OptSubnetMask, []byte{255, 255, 224, 0})
			r.Set(dhcp4.OptRouter, dhcp4.A4(podGateway))
		}
		v, _ := m.Option(dhcp4.OptRelayAgentInfo)
		r.Set(dhcp4.OptRelayAgentInfo, v) // RFC 3046: echoed
		s.conn.WriteToUDPAddrPort(r.Encode(), from)
	}
}

func (s *dhcpDouble) check() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bad {
		s.t.Error("DHCP server double: " + b)
	}
}

func (s *dhcpDouble) messages() []*dhcp4.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*dhcp4.Message(nil), s.seen...)
}

// relayPod is a test pod whose lg1 relays to a double.
func relayPod(t *testing.T, option82 string, offer netip.Addr) (*testPod, *dhcpDouble) {
	var dbl *dhcpDouble
	c := defaultIPoE()
	c.Mode = config.IPoEModeRelay
	tune := ipoeTune(t, c, "", func(o *Options) {
		cp := o.Config.ControlPlane.Address
		a := cp.As4()
		srv := netip.AddrFrom4([4]byte{a[0], a[1], a[2], 50})
		o.RelayPort = freePort(t, cp)
		dbl = newDHCPDouble(t, srv, cp, o.RelayPort, offer)
		o.Config.LineGroups[0].IPoE.Relay = &config.IPoERelay{Servers: []netip.Addr{srv}, Option82: option82}
		o.RelayServerPort = dbl.port()
	})
	p := newTestPod(t, tune, nil)
	t.Cleanup(dbl.check)
	return p, dbl
}

func TestIPoERelayKeep(t *testing.T) {
	offer := netip.MustParseAddr("100.80.0.20")
	p, dbl := relayPod(t, config.Option82Keep, offer)
	c := p.dhcpClient(20, 100)
	c.opt82 = (&dhcp4.AgentInfo{CircuitID: []byte("olt-c1"), RemoteID: []byte("cpe-20")}).Encode()
	ack := c.dora()
	if c.addr != offer || ack.dhcp.YIAddr != offer {
		t.Fatalf("leased %s, the server gave %s", c.addr, offer)
	}
	if _, has := ack.dhcp.Option(dhcp4.OptRelayAgentInfo); has {
		t.Error("option 82 passed on to the subscriber")
	}
	if sid, _ := ack.dhcp.Addr(dhcp4.OptServerID); sid != podGateway {
		t.Errorf("server id %s", sid)
	}
	// the server saw the access node's option 82 kept, ours added
	ms := dbl.messages()
	if len(ms) != 2 || ms[0].Type != dhcp4.Discover || ms[1].Type != dhcp4.Request {
		t.Fatalf("server saw %d messages", len(ms))
	}
	ai, _ := ms[0].AgentInfo()
	if string(ai.CircuitID) != "olt-c1" || string(ai.RemoteID) != "cpe-20" {
		t.Errorf("option 82 at the server %+v", ai)
	}
	p.plane.mu.Lock()
	es := p.plane.ests[0]
	p.plane.mu.Unlock()
	if !es.IPoE || es.IPv4 != offer {
		t.Fatalf("established %+v", es)
	}
	v, _ := c.session()
	if v.Kind != "ipoe" || v.State != "established" || v.IPv4 != offer {
		t.Fatalf("session %+v", v)
	}
	// renewal through the relay
	r := c.renew()
	if r.dhcpF.DstIP != offer {
		t.Errorf("renewal ACK to %s", r.dhcpF.DstIP)
	}
	if ms := dbl.messages(); len(ms) != 3 || ms[2].CIAddr != offer {
		t.Errorf("the renewal did not reach the server: %d messages", len(ms))
	}
	// release: relayed, the session ends
	c.send(dhcp4.Release, func(m *dhcp4.Message) { m.CIAddr = c.addr; m.Set(dhcp4.OptServerID, dhcp4.A4(podGateway)) }, true)
	checkEnd(t, p, v.ID, 0, causeUserRequest)
	p.waitFor("the RELEASE at the server", 2*time.Second, func() bool {
		ms := dbl.messages()
		return len(ms) == 4 && ms[3].Type == dhcp4.Release
	})
}

func TestIPoERelayReplaceAndServerIDOverride(t *testing.T) {
	offer := netip.MustParseAddr("100.80.0.21")
	p, dbl := relayPod(t, config.Option82Replace, offer)
	dbl.ignoreSO.Store(true) // a server without RFC 5107: the CP still names the gateway
	c := p.dhcpClient(21, 101)
	c.opt82 = (&dhcp4.AgentInfo{CircuitID: []byte("olt-c2")}).Encode()
	ack := c.dora()
	if sid, _ := ack.dhcp.Addr(dhcp4.OptServerID); sid != podGateway {
		t.Errorf("server id %s passed on", sid)
	}
	ai, _ := dbl.messages()[0].AgentInfo()
	if string(ai.CircuitID) != "access1:100.101" || ai.RemoteID != nil {
		t.Errorf("option 82 replaced: %+v", ai)
	}
}

// An address outside the group's pools never reaches the subscriber.
func TestIPoERelayRefusesForeignAddress(t *testing.T) {
	p, _ := relayPod(t, config.Option82Keep, netip.MustParseAddr("192.0.2.99"))
	c := p.dhcpClient(22, 102)
	c.send(dhcp4.Discover, nil, false)
	p.quiet("an OFFER outside the pools", 500*time.Millisecond)
	if p.dropped("relay_outside_pools") != 1 {
		t.Fatalf("relay_outside_pools %v", p.dropped("relay_outside_pools"))
	}
}

// Link selection names the subscriber's subnet: the pool of the address it
// has or asks for; for a new client the first pool with a free address (as
// bng-cp counts the relayed leases), the first pool when all are full.
func TestRelayGatewaySelectsTheSubnet(t *testing.T) {
	p1 := &config.Pool{Name: "a", Prefix: netip.MustParsePrefix("100.81.0.0/30"), Gateway: netip.MustParseAddr("100.81.0.1")}
	p2 := &config.Pool{Name: "b", Prefix: netip.MustParsePrefix("100.82.0.0/24"), Gateway: netip.MustParseAddr("100.82.0.1")}
	g := &config.LineGroup{Name: "lg", Pools: []*config.Pool{p1, p2}}
	pg, err := pool.NewGroup("lg", []netip.Prefix{p1.Prefix, p2.Prefix}, []netip.Addr{p1.Gateway, p2.Gateway})
	if err != nil {
		t.Fatal(err)
	}
	d := &Daemon{pools: map[string]*pool.Group{"lg": pg}}
	if gw := d.relayGateway(g, nil, &dhcp4.Message{}); gw != p1.Gateway {
		t.Fatalf("new client, pools free: %s", gw)
	}
	// the /30's one host address taken: the next pool
	if err := pg.Reserve(netip.MustParseAddr("100.81.0.2")); err != nil {
		t.Fatal(err)
	}
	if gw := d.relayGateway(g, nil, &dhcp4.Message{}); gw != p2.Gateway {
		t.Fatalf("first pool full: %s", gw)
	}
	// a client that has or asks for an address: its pool, full or not
	m := &dhcp4.Message{CIAddr: netip.MustParseAddr("100.81.0.2")}
	if gw := d.relayGateway(g, nil, m); gw != p1.Gateway {
		t.Fatalf("renewal in the first pool: %s", gw)
	}
	m = &dhcp4.Message{}
	m.Set(dhcp4.OptRequestedIP, dhcp4.A4(netip.MustParseAddr("100.81.0.2")))
	if gw := d.relayGateway(g, nil, m); gw != p1.Gateway {
		t.Fatalf("INIT-REBOOT in the first pool: %s", gw)
	}
	s := &session{rec: record{IPv4: netip.MustParseAddr("100.82.0.9")}}
	if gw := d.relayGateway(g, s, &dhcp4.Message{}); gw != p2.Gateway {
		t.Fatalf("session in the second pool: %s", gw)
	}
	// an address of no pool: as a new client
	if gw := d.relayGateway(g, nil, &dhcp4.Message{CIAddr: netip.MustParseAddr("10.0.0.1")}); gw != p2.Gateway {
		t.Fatalf("foreign ciaddr: %s", gw)
	}
	// every pool full: the first
	for i := 2; i < 255; i++ {
		_ = pg.Reserve(netip.AddrFrom4([4]byte{100, 82, 0, byte(i)}))
	}
	if gw := d.relayGateway(g, nil, &dhcp4.Message{}); gw != p1.Gateway {
		t.Fatalf("all full: %s", gw)
	}
}
