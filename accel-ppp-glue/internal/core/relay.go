package core

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
)

// DHCP relay mode (ipoe.mode: relay; docs/cp/ipoe.md). bng-cp relays its
// subscribers' DHCP to the group's external servers from its management
// address (giaddr = control_plane.address, UDP 67 to 67; the servers answer
// giaddr:67, the only place bng-cp listens for them), with option 82 kept
// or replaced and two sub-options of its own: link selection (RFC 3527) and
// server identifier override (RFC 5107), both the gateway of the group's
// first pool, so that the server picks the subscriber's subnet and the
// subscriber's renewals come to the gateway, through the pod. A DISCOVER is
// authorized first (RADIUS, as in server mode); an ACK installs the session
// (PFCP) before it is passed on; an address outside the group's pools is
// refused (counted) and never reaches the subscriber.

// relayState is a relay-mode session's state.
type relayState struct {
	xid     uint32         // the transaction in flight to the servers
	pending *dhcp4.Message // the server's ACK waiting for the DP's install
}

// relayKey finds a session from a server's reply: client MAC and xid.
type relayKey struct {
	mac [6]byte
	xid uint32
}

// relayEnabled reports whether any line group relays.
func (d *Daemon) relayEnabled() bool {
	for _, g := range d.cfg.LineGroups {
		if g.IPoE != nil && g.IPoE.Mode == config.IPoEModeRelay {
			return true
		}
	}
	return false
}

// startRelay listens on the management address's DHCP port for the relay
// servers' replies.
func (d *Daemon) startRelay(ctx context.Context, errc chan<- error) error {
	if !d.relayEnabled() {
		return nil
	}
	port := d.opt.RelayPort
	if port == 0 {
		port = dhcp4.ServerPort
	}
	// SO_REUSEADDR: a DHCP server on the same host (a lab) holds 0.0.0.0:67;
	// the datagrams to our address still come to us, the more specific bind.
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
		}); err != nil {
			return err
		}
		return serr
	}}
	pc, err := lc.ListenPacket(ctx, "udp4", netip.AddrPortFrom(d.cfg.ControlPlane.Address, port).String())
	if err != nil {
		return fmt.Errorf("DHCP relay port: %w", err)
	}
	conn := pc.(*net.UDPConn)
	d.relayConn = conn
	d.relayServers = make(map[netip.Addr]bool)
	for _, g := range d.cfg.LineGroups {
		if g.IPoE != nil && g.IPoE.Relay != nil {
			for _, s := range g.IPoE.Relay.Servers {
				d.relayServers[s] = true
			}
		}
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		go func() { <-ctx.Done(); conn.Close() }()
		buf := make([]byte, 2048)
		for {
			n, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				if ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
					errc <- fmt.Errorf("DHCP relay: %w", err)
				}
				return
			}
			d.relayIn(from, buf[:n])
		}
	}()
	return nil
}

// relayIn takes a server's reply: from a configured server, a BOOTREPLY to
// our giaddr; it goes to the shard of the client MAC.
func (d *Daemon) relayIn(from netip.AddrPort, b []byte) {
	if !d.relayServers[from.Addr().Unmap()] {
		d.m.drops.WithLabelValues("relay_not_server").Inc()
		d.blog.Warn("relay_not_server", "DHCP datagram from an address that is no relay server", "from", from.String())
		return
	}
	m, err := dhcp4.Decode(b)
	if err != nil {
		d.m.drops.WithLabelValues("relay_malformed").Inc()
		d.blog.Warn("relay_malformed", "malformed DHCP from a relay server", "from", from.String(), "err", err)
		return
	}
	if m.Op != dhcp4.OpReply || m.GIAddr != d.cfg.ControlPlane.Address {
		d.m.drops.WithLabelValues("relay_not_reply").Inc()
		return
	}
	var mac [6]byte
	copy(mac[:], m.CHAddr)
	d.m.frames.WithLabelValues("relay_" + dhcpTypeNames[m.Type]).Inc()
	sh := d.shardFor(mac)
	sh.post(func() { sh.relayFromServer(m, mac) })
}

// relayFromClient relays a subscriber's message (shard goroutine).
func (sh *shard) relayFromClient(now time.Time, x *ipoeIn, s *session) {
	m := x.m
	switch m.Type {
	case dhcp4.Discover:
		if s != nil {
			// authorized before (or established: a rebooted CPE): relay it
			if s.state == stNegotiating || s.state == stEstablished {
				if sh.admitDHCP(now, x) {
					sh.relayToServers(s, x)
				}
			}
			return
		}
		sh.dhcpDiscover(now, x, nil) // authorization first; relayAuthorized relays it
	case dhcp4.Request, dhcp4.Inform:
		if s == nil || s.state == stAuthorizing {
			if m.Type == dhcp4.Request {
				sh.dhcpNak(now, x, "no session for this client")
			}
			return
		}
		sh.relayToServers(s, x)
	case dhcp4.Release, dhcp4.Decline:
		if s == nil {
			sh.drop("dhcp_release_unknown", "DHCPRELEASE/DECLINE for no session", "mac", macString(x.lk.mac))
			return
		}
		sh.relayToServers(s, x)
		cause, why := causeUserRequest, "DHCPRELEASE from the subscriber"
		if m.Type == dhcp4.Decline {
			cause, why = causeUserError, "DHCPDECLINE: the subscriber found its address in use"
		}
		sh.teardown(s, cause, padtNone, why)
	default:
		sh.drop("dhcp_type", "DHCP server message from the access side", "type", m.Type)
	}
}

// relayAuthorized: RADIUS accepted the subscriber of a DISCOVER; relay it.
func (sh *shard) relayAuthorized(s *session, x *ipoeIn) {
	s.ipoe.relay = &relayState{}
	sh.d.setState(s, stNegotiating)
	s.ipoe.offerUntil = time.Now().Add(ipoeOfferHold)
	if m := s.ipoe.discover; m != nil {
		s.ipoe.discover = nil
		x.m = m
		sh.relayToServers(s, x)
	}
}

// relayGateway is the gateway the relay names in link selection and server
// identifier override (RFC 3527, 5107): the subscriber's subnet. That is
// the pool of the address the client has or asks for (the session's, the
// message's ciaddr or requested address); for a new client, the first pool
// (in the line group's order) with a free address as bng-cp counts them
// (the addresses the servers' ACKs gave, relay.go reserves them); when
// every pool is full, the first.
func (d *Daemon) relayGateway(g *config.LineGroup, s *session, m *dhcp4.Message) netip.Addr {
	if len(g.Pools) == 0 {
		return netip.Addr{}
	}
	cands := []netip.Addr{}
	if s != nil {
		cands = append(cands, s.rec.IPv4)
	}
	if m != nil {
		req, _ := m.Addr(dhcp4.OptRequestedIP)
		cands = append(cands, m.CIAddr, req)
	}
	for _, a := range cands {
		if a.IsValid() && !a.IsUnspecified() {
			if p := poolOf(g, a); p != nil {
				return p.Gateway
			}
		}
	}
	if pg := d.pools[g.Name]; pg != nil {
		for _, p := range g.Pools {
			if size, used, ok := pg.PrefixUsage(p.Prefix); ok && used < size {
				return p.Gateway
			}
		}
	}
	return g.Pools[0].Gateway
}

// relayToServers sends the client's message to every server of the group:
// giaddr ours, hops + 1, option 82 per the group's policy with link
// selection and server identifier override.
func (sh *shard) relayToServers(s *session, x *ipoeIn) {
	d := sh.d
	g := s.group
	rel := g.IPoE.Relay
	m := *x.m
	m.Options = append([]dhcp4.Option(nil), x.m.Options...)
	if m.Hops >= 16 {
		sh.drop("relay_hops", "DHCP message relayed too often", "mac", macString(x.lk.mac))
		return
	}
	m.Hops++
	m.GIAddr = d.cfg.ControlPlane.Address
	var ai dhcp4.AgentInfo
	if old, ok := x.m.AgentInfo(); ok && rel.Option82 == config.Option82Keep {
		ai = old
	} else {
		ai = dhcp4.AgentInfo{CircuitID: []byte(s.rec.nasPort())}
	}
	gw := d.relayGateway(g, s, x.m)
	ai.LinkSelection, ai.ServerIDOverride = gw, gw
	m.Set(dhcp4.OptRelayAgentInfo, ai.Encode())
	if s.ipoe.relay == nil {
		s.ipoe.relay = &relayState{}
	}
	if old := s.ipoe.relay.xid; old != 0 && old != m.XID {
		delete(sh.relayXIDs, relayKey{x.lk.mac, old})
	}
	s.ipoe.relay.xid = m.XID
	sh.relayXIDs[relayKey{x.lk.mac, m.XID}] = s
	b := m.Encode()
	port := d.opt.RelayServerPort
	if port == 0 {
		port = dhcp4.ServerPort
	}
	for _, srv := range rel.Servers {
		if _, err := d.relayConn.WriteToUDPAddrPort(b, netip.AddrPortFrom(srv, port)); err != nil {
			d.m.drops.WithLabelValues("relay_send_error").Inc()
			d.blog.Warn("relay_send", "DHCP relay send failed", "server", srv.String(), "err", err)
			continue
		}
		d.m.sent.WithLabelValues("relay_" + dhcpTypeNames[m.Type]).Inc()
	}
}

// relayFromServer handles a server's reply for a client of this shard.
func (sh *shard) relayFromServer(m *dhcp4.Message, mac [6]byte) {
	d := sh.d
	s := sh.relayXIDs[relayKey{mac, m.XID}]
	if s == nil || s.dead || s.ipoe == nil || s.ipoe.relay == nil {
		d.m.drops.WithLabelValues("relay_unknown_xid").Inc()
		return
	}
	x := &ipoeIn{inst: s.inst, line: s.line, lk: s.key.line, m: m}
	switch m.Type {
	case dhcp4.Offer, dhcp4.Ack:
		yi := m.YIAddr
		isInform := m.Type == dhcp4.Ack && (!yi.IsValid() || yi.IsUnspecified())
		if !isInform && !sh.relayAddressOK(s, yi) {
			d.m.drops.WithLabelValues("relay_outside_pools").Inc()
			d.blog.Warn("relay_outside_pools", "relay server offered an address outside the line group's pools: refused",
				"session", s.rec.ID, "address", yi.String(), "line_group", s.group.Name)
			if m.Type == dhcp4.Ack && s.state != stEstablished {
				sh.teardown(s, causeNASError, padtNone, "relay server gave an address outside the pools")
			}
			return
		}
		if m.Type == dhcp4.Offer || isInform {
			sh.relayToClient(x, s, m)
			return
		}
		sh.relayAck(s, x, m)
	case dhcp4.Nak:
		sh.relayToClient(x, s, m)
		if s.state != stAuthorizing {
			sh.teardown(s, causeLostService, padtNone, "the DHCP server refused the lease (NAK)")
		}
	default:
		d.m.drops.WithLabelValues("relay_type").Inc()
	}
}

// relayAddressOK: yi is a host address of one of the group's pools and not
// a gateway, and free or the session's own.
func (sh *shard) relayAddressOK(s *session, yi netip.Addr) bool {
	p := poolOf(s.group, yi)
	if !yi.Is4() || p == nil || yi == p.Gateway || yi == p.Prefix.Addr() || yi == lastHost(p.Prefix) {
		return false
	}
	return true
}

func lastHost(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v |= ^uint32(0) >> p.Bits()
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// relayAck: a lease from the server. A new session is installed first
// (address reserved, PFCP) and the ACK passed on once the DP has it; a
// renewal extends the lease.
func (sh *shard) relayAck(s *session, x *ipoeIn, m *dhcp4.Message) {
	d := sh.d
	lease := uint32(s.group.IPoE.LeaseTime)
	if v, ok := m.Uint32(dhcp4.OptLeaseTime); ok {
		lease = v
	}
	now := time.Now()
	switch s.state {
	case stEstablished:
		if m.YIAddr != s.rec.IPv4 {
			sh.relayToClient(x, s, nakOf(m))
			sh.teardown(s, causeNASError, padtNone, "relay server renewed another address")
			return
		}
		s.rec.LeaseEnd = now.Add(time.Duration(lease) * time.Second).UTC()
		rec := s.rec
		go func() {
			if err := d.persist(&rec); err != nil {
				d.log.Error("session store write failed", "session", rec.ID, "err", err)
			}
		}()
		sh.relayToClient(x, s, m)
	case stNegotiating:
		if err := d.pools[s.group.Name].Reserve(m.YIAddr); err != nil {
			d.m.drops.WithLabelValues("relay_address_in_use").Inc()
			d.blog.Warn("relay_address_in_use", "relay server gave an address another session holds",
				"session", s.rec.ID, "address", m.YIAddr.String())
			sh.teardown(s, causeNASError, padtNone, "relay server gave an address in use")
			return
		}
		d.updatePoolMetrics()
		s.rec.IPv4 = m.YIAddr
		s.ipoe.relay.pending = m
		sh.ipoeEstablish(now, s, x)
		s.ipoe.request = nil // the server's ACK is what goes to the client
		s.rec.LeaseEnd = now.Add(time.Duration(lease) * time.Second).UTC()
	case stEstablishing:
		s.ipoe.relay.pending = m
	}
}

// nakOf is a NAK for the client of a server's message.
func nakOf(m *dhcp4.Message) *dhcp4.Message {
	n := &dhcp4.Message{Op: dhcp4.OpReply, XID: m.XID, Flags: m.Flags | dhcp4.FlagBroadcast, CHAddr: m.CHAddr,
		GIAddr: m.GIAddr, Type: dhcp4.Nak}
	return n
}

// relayToClient passes a server's reply to the subscriber: option 82
// removed (RFC 3046 2.2), from the gateway and the AC MAC, the server
// identifier the gateway (a server that ignored the override is corrected,
// so renewals reach the pod).
func (sh *shard) relayToClient(x *ipoeIn, s *session, m *dhcp4.Message) {
	r := *m
	r.Options = append([]dhcp4.Option(nil), m.Options...)
	r.Del(dhcp4.OptRelayAgentInfo)
	r.GIAddr = netip.Addr{}
	r.Hops = 0
	gw := sh.d.relayGateway(s.group, s, m)
	if p := poolOf(s.group, r.YIAddr); p != nil {
		gw = p.Gateway
	}
	if sid, ok := r.Addr(dhcp4.OptServerID); !ok || sid != gw {
		if ok {
			sh.d.m.drops.WithLabelValues("relay_server_id_rewritten").Inc()
		}
		r.Set(dhcp4.OptServerID, dhcp4.A4(gw))
	}
	// the request's ciaddr says how to address the client; a reply carries it
	req := &dhcp4.Message{CIAddr: m.CIAddr}
	sh.sendDHCP(&ipoeIn{inst: x.inst, line: x.line, lk: x.lk, m: req}, &r, gw, r.Type)
}

// relayInstalled: the DP has a relayed session; its ACK goes on.
func (sh *shard) relayInstalled(s *session) {
	if s.ipoe.relay == nil || s.ipoe.relay.pending == nil {
		return
	}
	m := s.ipoe.relay.pending
	s.ipoe.relay.pending = nil
	sh.relayToClient(&ipoeIn{inst: s.inst, line: s.line, lk: s.key.line, m: m}, s, m)
}

// relayForget drops a session's relay transaction (its end).
func (sh *shard) relayForget(s *session) {
	if s.ipoe == nil || s.ipoe.relay == nil {
		return
	}
	k := relayKey{s.key.line.mac, s.ipoe.relay.xid}
	if sh.relayXIDs[k] == s {
		delete(sh.relayXIDs, k)
	}
}
