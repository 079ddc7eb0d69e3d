package core

import (
	"context"
	"crypto/rand"
	"errors"
	"net/netip"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pool6"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
	"github.com/prometheus/client_golang/prometheus"
)

// Dual stack (issue 15): a session's IPv6 is a /64 of its line group's WAN
// pool (announced by RA), a delegated prefix (DHCPv6 IA_PD) and, with the
// pool's ia_na, an address of the /64 (IA_NA). They are allocated with the
// IPv4 address once the subscriber is authorized; IPv6CP opening installs
// them into the DP (PDRs 3, 4, 5 and the RA offload), with the
// establishment or by a modification after it. RS, NS and DHCPv6 of the
// session come over the redirect and are answered here (internal/v6ctl).

// v6Wait is how long an establishment waits for IPv6CP once IPCP is open.
const v6Wait = 500 * time.Millisecond

const (
	bucketDHCP6 = "dhcp6"
	keyDUID     = "server_duid"
)

// initIPv6 makes the IPv6 allocators and loads (or makes and persists) the
// DHCPv6 server's DUID: Renews of bindings made before a restart must find
// the same server.
func (d *Daemon) initIPv6() error {
	d.pools6 = make(map[string]*pool6.Group)
	for _, g := range d.cfg.LineGroups {
		if len(g.IPv6Pools) == 0 || d.cfg.Core6 == nil {
			continue
		}
		var wan, pd []pool6.Space
		for _, p := range g.IPv6Pools {
			wan = append(wan, pool6.Space{Prefix: p.WANPrefix, Length: 64})
			pd = append(pd, pool6.Space{Prefix: p.DelegatedPrefix, Length: p.DelegatedLength})
		}
		pg, err := pool6.NewGroup(g.Name, wan, pd)
		if err != nil {
			return err
		}
		d.pools6[g.Name] = pg
		for _, k := range []struct {
			kind pool6.Kind
			name string
		}{{pool6.WAN, "wan"}, {pool6.PD, "delegated"}} {
			k := k
			labels := prometheus.Labels{"line_group": g.Name, "kind": k.name}
			d.m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bngcp_ipv6_prefixes",
				Help: "IPv6 prefixes per line group and kind (wan: the sessions' /64s, delegated: IA_PD)", ConstLabels: labels},
				func() float64 { _, n := pg.Usage(k.kind); return float64(n) }))
			d.m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "bngcp_ipv6_prefixes_used",
				Help: "IPv6 prefixes in use per line group and kind", ConstLabels: labels},
				func() float64 { u, _ := pg.Usage(k.kind); return float64(u) }))
		}
	}
	duid, ok, err := d.db.Get(bucketDHCP6, keyDUID)
	if err != nil {
		return err
	}
	if !ok || len(duid) < 2 {
		var id [8]byte
		if _, err := rand.Read(id[:]); err != nil {
			return err
		}
		duid = v6ctl.NewDUID(id)
		if err := d.db.Put(bucketDHCP6, keyDUID, duid); err != nil {
			return err
		}
	}
	d.v6srv = &v6ctl.Server{DUID: duid}
	return nil
}

// eui64 is the modified EUI-64 interface identifier of a MAC (RFC 4291 2.5.1).
func eui64(mac []byte) uint64 {
	if len(mac) != 6 {
		return 0
	}
	return uint64(mac[0]^0x02)<<56 | uint64(mac[1])<<48 | uint64(mac[2])<<40 | 0xfffe<<24 |
		uint64(mac[3])<<16 | uint64(mac[4])<<8 | uint64(mac[5])
}

// pool6Of returns the IPv6 pool of the line group holding p.
func pool6Of(g *config.LineGroup, wan netip.Prefix) *config.IPv6Pool {
	for _, p := range g.IPv6Pools {
		if p.WANPrefix.Contains(wan.Addr()) {
			return p
		}
	}
	return nil
}

// allocIPv6 gives an authorized session its IPv6 prefixes and enables
// IPv6CP on its link; without them (no pools, a pool exhausted, RADIUS
// naming a prefix or pool the line group does not have) IPv6CP is
// Protocol-Rejected and the session runs IPv4 only. RADIUS (docs/cp/radius.md):
// Framed-IPv6-Prefix or Framed-IPv6-Pool choose the /64, Delegated-IPv6-Prefix
// or Delegated-IPv6-Prefix-Pool the delegated prefix, Framed-IPv6-Address or
// Stateful-IPv6-Address-Pool turn IA_NA on, DNS-Server-IPv6-Address replaces
// the pool's DNS servers, Framed-Interface-Id is the identifier IPv6CP
// suggests to the subscriber.
func (sh *shard) allocIPv6(s *session, res *aaa.AccessResult) {
	if s.link == nil || !sh.allocPrefixes(s, res) {
		return
	}
	var a aaa.AccessIPv6
	if res != nil {
		a = res.IPv6
	}
	suggest := eui64(s.rec.MAC[:])
	if a.InterfaceID != 0 {
		suggest = a.InterfaceID
	}
	s.link.SetIPv6(eui64(s.group.ACMAC), suggest)
}

// allocPrefixes gives the session its /64, delegated prefix and IA_NA
// address as allocIPv6 says (PPPoE and IPoE alike); false: no IPv6 for it.
func (sh *shard) allocPrefixes(s *session, res *aaa.AccessResult) bool {
	d := sh.d
	pg := d.pools6[s.group.Name]
	if pg == nil {
		return false
	}
	var a aaa.AccessIPv6
	if res != nil {
		a = res.IPv6
	}
	none := func(why string, args ...any) {
		d.m.drops.WithLabelValues("ipv6_refused").Inc()
		d.log.Warn("no IPv6 for the session: "+why, append([]any{"session", s.rec.ID, "user", s.rec.User,
			"line_group", s.group.Name}, args...)...)
	}
	byName := func(name string) *config.IPv6Pool {
		for _, p := range s.group.IPv6Pools {
			if p.Name == name {
				return p
			}
		}
		return nil
	}
	var wan netip.Prefix
	var err error
	switch {
	case a.Prefix.IsValid():
		if a.Prefix.Bits() != 64 || !pg.Contains(pool6.WAN, a.Prefix) {
			none("RADIUS Framed-IPv6-Prefix is no /64 of the line group's pools", "prefix", a.Prefix.String())
			return false
		}
		if err = pg.Reserve(pool6.WAN, a.Prefix); err != nil {
			none("RADIUS Framed-IPv6-Prefix in use", "prefix", a.Prefix.String())
			return false
		}
		wan = a.Prefix
	case a.Pool != "":
		p := byName(a.Pool)
		if p == nil {
			none("RADIUS Framed-IPv6-Pool is no IPv6 pool of the line group", "pool", a.Pool)
			return false
		}
		wan, err = pg.AllocateIn(pool6.WAN, p.WANPrefix)
	default:
		wan, err = pg.Allocate(pool6.WAN)
	}
	if err != nil {
		d.m.drops.WithLabelValues("pool6_exhausted").Inc()
		d.blog.Warn("pool6_exhausted", "IPv6 WAN pool exhausted: the session gets no IPv6", "line_group", s.group.Name)
		return false
	}
	s.rec.IPv6Prefix = wan
	pool := pool6Of(s.group, wan)
	var pd netip.Prefix
	switch {
	case a.Delegated.IsValid():
		if err = pg.Reserve(pool6.PD, a.Delegated); err == nil {
			pd = a.Delegated
		} else {
			d.log.Warn("RADIUS Delegated-IPv6-Prefix not usable: no delegated prefix", "session", s.rec.ID,
				"prefix", a.Delegated.String(), "err", err)
		}
	case a.DelegatedPool != "":
		if p := byName(a.DelegatedPool); p != nil {
			pd, err = pg.AllocateIn(pool6.PD, p.DelegatedPrefix)
		} else {
			d.log.Warn("RADIUS Delegated-IPv6-Prefix-Pool is no IPv6 pool of the line group: no delegated prefix",
				"session", s.rec.ID, "pool", a.DelegatedPool)
		}
	default:
		pd, err = pg.AllocateIn(pool6.PD, pool.DelegatedPrefix)
	}
	if err != nil && !pd.IsValid() && errors.Is(err, pool6.ErrExhausted) {
		d.m.drops.WithLabelValues("pool6_pd_exhausted").Inc()
		d.blog.Warn("pool6_pd_exhausted", "delegated-prefix pool exhausted: the session gets no prefix", "line_group", s.group.Name)
	}
	s.rec.DelegatedPrefix = pd
	switch {
	case a.Address.IsValid() && wan.Contains(a.Address):
		s.rec.IPv6Address = a.Address
	case a.Address.IsValid():
		d.log.Warn("RADIUS Framed-IPv6-Address is outside the session's /64: ignored", "session", s.rec.ID,
			"address", a.Address.String())
	case pool.IANA || (a.StatefulPool != "" && byName(a.StatefulPool) != nil):
		b := wan.Addr().As16()
		b[15] = 1
		s.rec.IPv6Address = netip.AddrFrom16(b)
	}
	s.rec.DNS6 = a.DNS
	return true
}

// releaseIPv6 returns the session's prefixes to the pools.
func (d *Daemon) releaseIPv6(r *record, group string) {
	pg := d.pools6[group]
	if pg == nil {
		return
	}
	if r.IPv6Prefix.IsValid() {
		pg.Release(pool6.WAN, r.IPv6Prefix)
	}
	if r.DelegatedPrefix.IsValid() {
		pg.Release(pool6.PD, r.DelegatedPrefix)
	}
}

// reserveIPv6 takes a restored session's prefixes again.
func (d *Daemon) reserveIPv6(r *record, group string) error {
	if !r.IPv6Prefix.IsValid() {
		return nil
	}
	pg := d.pools6[group]
	if pg == nil {
		return errors.New("its line group has no IPv6 pools any more")
	}
	if err := pg.Reserve(pool6.WAN, r.IPv6Prefix); err != nil {
		return err
	}
	if r.DelegatedPrefix.IsValid() {
		if err := pg.Reserve(pool6.PD, r.DelegatedPrefix); err != nil {
			pg.Release(pool6.WAN, r.IPv6Prefix)
			return err
		}
	}
	return nil
}

// hasIPv6 reports whether IPv6 runs on the session (IPv6CP opened).
func (r *record) hasIPv6() bool { return r.IPv6Prefix.IsValid() && r.IIDLocal != 0 }

// ipv6Up: IPv6CP opened. Installed with the establishment when that is yet
// to come, by a modification otherwise.
func (sh *shard) ipv6Up(now time.Time, s *session, e ppp.EvUp6) {
	if !s.rec.IPv6Prefix.IsValid() {
		return
	}
	s.rec.IIDLocal, s.rec.IIDPeer = e.Local, e.Peer
	sh.d.m.ncpUp.WithLabelValues("ipv6cp").Inc()
	// The first RA at once (RFC 4861 6.2.4): the subscriber need not wait for
	// the DP's (which come once the IPv6 PDRs are installed) nor send an RS.
	vs := sh.d.v6Session(s)
	sh.sendPPP(s, ppp.ProtoIPv6, v6ctl.RA(&vs))
	sh.d.m.v6Sent.WithLabelValues("ra_initial").Inc()
	switch s.state {
	case stEstablished:
		sh.installIPv6(s)
	case stNegotiating:
		switch {
		case s.ipcpFailed:
			// IPCP gave up before: an IPv6-only session.
			sh.establish(now, s, ppp.EvUp{})
		case !s.v6WaitUntil.IsZero():
			// IPCP opened first and waits: both families at once.
			sh.establish(now, s, ppp.EvUp{Peer: s.rec.IPv4})
		}
	}
	// stEstablishing: established() installs it once the DP answered.
}

// ncpDown: one network protocol failed while the other runs on.
func (sh *shard) ncpDown(now time.Time, s *session, e ppp.EvNCPDown) {
	d := sh.d
	d.log.Info("network protocol down, the session goes on", "session", s.rec.ID, "protocol",
		map[uint16]string{ppp.ProtoIPCP: "IPCP", ppp.ProtoIPv6CP: "IPv6CP"}[e.Proto], "why", e.Detail)
	d.m.ncpFailed.WithLabelValues(map[uint16]string{ppp.ProtoIPCP: "ipcp", ppp.ProtoIPv6CP: "ipv6cp"}[e.Proto]).Inc()
	if e.Proto == ppp.ProtoIPCP && s.state == stNegotiating {
		s.ipcpFailed = true
		if s.rec.IPv4.IsValid() {
			if !d.pools[s.group.Name].Release(s.rec.IPv4) {
				d.log.Error("address released twice", "session", s.rec.ID, "ipv4", s.rec.IPv4.String())
			}
			s.rec.IPv4 = netip.Addr{}
			d.updatePoolMetrics()
		}
		if s.rec.hasIPv6() {
			sh.establish(now, s, ppp.EvUp{})
		}
	}
	if e.Proto == ppp.ProtoIPv6CP && s.state == stNegotiating && !s.v6WaitUntil.IsZero() {
		sh.establish(now, s, ppp.EvUp{Peer: s.rec.IPv4}) // IPv4 only, at once
	}
	// Otherwise the DP keeps the family's PDRs until the session ends: the
	// subscriber no longer sends that family (nothing to forward upstream).
}

// v6Session is what the IPv6 control handler knows of the session.
func (d *Daemon) v6Session(s *session) v6ctl.Session {
	r := &s.rec
	vs := v6ctl.Session{
		OurIID: r.IIDLocal, WAN: r.IPv6Prefix, PD: r.DelegatedPrefix, IANA: r.IPv6Address,
		MTU: r.MTU, RouterLifetime: uint16(d.cfg.IPv6RA.RouterLifetime / time.Second),
		Binding: r.DHCP6,
	}
	if p := pool6Of(s.group, r.IPv6Prefix); p != nil {
		vs.DNS = p.DNS
	}
	if len(r.DNS6) > 0 {
		vs.DNS = r.DNS6
	}
	if vs.MTU == 0 {
		vs.MTU = r.defaultMTU()
	}
	if r.Kind == kindIPoE {
		vs.SLLA = s.group.ACMAC
		vs.OurIID = eui64(s.group.ACMAC)
	}
	return vs
}

// defaultMTU is the session MTU the DP assumes when none is sent: 1492 on
// PPPoE, 1500 on IPoE.
func (r *record) defaultMTU() uint16 {
	if r.Kind == kindIPoE {
		return 1500
	}
	return 1492
}

// ipv6In answers an IPv6 control packet of the session (RS, NS, DHCPv6).
func (sh *shard) ipv6In(s *session, data []byte) {
	d := sh.d
	if !s.rec.hasIPv6() || s.state == stTerminating {
		d.m.drops.WithLabelValues("data_frame").Inc()
		return
	}
	vs := d.v6Session(s)
	res := d.v6srv.Handle(&vs, data, time.Now())
	if res.Drop {
		d.m.v6Drops.WithLabelValues(res.Kind).Inc()
		return
	}
	d.m.v6Sent.WithLabelValues(res.Kind).Inc()
	if res.Changed {
		wasBound := s.rec.DHCP6.PDBound || s.rec.DHCP6.NABound
		s.rec.DHCP6 = vs.Binding
		bound := vs.Binding.PDBound || vs.Binding.NABound
		if s.rec.Established {
			rec := s.rec
			go func() {
				if err := d.persist(&rec); err != nil {
					d.log.Error("session store write failed", "session", rec.ID, "err", err)
				}
				d.bindingsPersisted.Add(1)
			}()
		}
		if bound && !wasBound && s.state == stEstablished && s.rec.AcctStarted {
			// Prefixes bound after the Start: RADIUS hears of them now.
			s.lastInterim = time.Now()
			d.account(s, aaa.AcctInterim, 0)
			d.reportSession(onos.EventUpdate, s, 0)
		}
	}
	sh.sendPPP(s, ppp.ProtoIPv6, res.Reply)
}

// ipv6Rules are the session's IPv6 PDRs as the DP gets them.
func (d *Daemon) ipv6Rules(r *record) (*pfcpcp.IPv6Rules, *pfcpcp.RAOffload) {
	if !r.hasIPv6() {
		return nil, nil
	}
	rules := &pfcpcp.IPv6Rules{WAN: r.IPv6Prefix, PD: r.DelegatedPrefix}
	var flags uint8
	var dns []netip.Addr
	var ianaOn bool
	if g, ok := d.cfg.LineGroup(r.LineGroup); ok {
		if p := pool6Of(g, r.IPv6Prefix); p != nil {
			dns = p.DNS
		}
	}
	if len(r.DNS6) > 0 {
		dns = r.DNS6
	}
	ianaOn = r.IPv6Address.IsValid()
	if ianaOn {
		flags |= 0x80
	}
	if len(dns) > 0 {
		flags |= 0x40
	}
	mtu := r.MTU
	if mtu == 0 {
		mtu = r.defaultMTU()
	}
	ra := &pfcpcp.RAOffload{
		Interval: uint16(d.cfg.IPv6RA.Interval / time.Second), RouterLifetime: uint16(d.cfg.IPv6RA.RouterLifetime / time.Second),
		Flags: flags, MTU: mtu, Prefix: r.IPv6Prefix, Valid: v6ctl.ValidLifetime, Preferred: v6ctl.PreferredLifetime,
		IID: r.IIDLocal, DNS: dns,
	}
	return rules, ra
}

// installIPv6 adds the IPv6 PDRs to an established session.
func (sh *shard) installIPv6(s *session) {
	d := sh.d
	if s.rec.IPv6Installed || s.v6Installing {
		return
	}
	s.v6Installing = true
	rec := s.rec
	go func() {
		ps := d.pfcpSession(&rec)
		rules, ra := d.ipv6Rules(&rec)
		ps.IPv6, ps.RA = rules, ra
		ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
		_, err := d.plane.Modify(ctx, rec.Instance, rec.UPSEID, rec.CPSEID, &pfcpcp.Mod{AddIPv6: ps, RA: ra})
		cancel()
		if err != nil {
			d.pfcpError("modification", err)
		} else {
			d.m.pfcpRequests.WithLabelValues("modification", "ok").Inc()
		}
		sh.post(func() {
			s.v6Installing = false
			if err != nil || s.dead {
				if s.ipoe != nil {
					sh.ipoe6Installed(s, err)
				}
				return
			}
			s.rec.IPv6Installed = true
			rec := s.rec
			go func() {
				if err := d.persist(&rec); err != nil {
					d.log.Error("session store write failed", "session", rec.ID, "err", err)
				}
				if s.ipoe != nil {
					// the DHCPv6 Reply only once the binding is on disk: a
					// bng-cp killed right after it restores the binding and
					// answers the CPE's Renew (not a NoBinding)
					sh.post(func() { sh.ipoe6Installed(s, nil) })
				}
			}()
			d.log.Info("IPv6 installed", "session", s.rec.ID, "prefix", s.rec.IPv6Prefix.String(),
				"delegated", s.rec.DelegatedPrefix.String())
			if s.rec.AcctStarted && s.state == stEstablished {
				s.lastInterim = time.Now()
				d.account(s, aaa.AcctInterim, 0)
				d.reportSession(onos.EventUpdate, s, 0)
			}
		})
	}()
}

// addUsage adds a usage report to the session and to the usage metrics.
func (d *Daemon) addUsage(r *record, u pfcpcp.Usage) {
	addUsage(r, u)
	family := "total"
	switch u.URRID {
	case pfcpcp.URRIPv4:
		return
	case pfcpcp.URRIPv6:
		family = "ipv6"
	}
	d.m.usageOctets.WithLabelValues(family, "up").Add(float64(u.ULOctets))
	d.m.usageOctets.WithLabelValues(family, "down").Add(float64(u.DLOctets))
	d.m.usagePackets.WithLabelValues(family, "up").Add(float64(u.ULPackets))
	d.m.usagePackets.WithLabelValues(family, "down").Add(float64(u.DLPackets))
}

// acctIPv6 is the IPv6 part of the session's Accounting-Requests: what is
// bound (the /64 once IPv6CP is open, the delegated prefix and address once
// the DHCPv6 client holds them) and the IPv6 share of the counters.
func (d *Daemon) acctIPv6(r *record) *aaa.AcctIPv6 {
	counted := aaa.AcctIPv6{InOctets: r.V6UpOctets, OutOctets: r.V6DownOctets, InPackets: r.V6UpPackets,
		OutPackets: r.V6DownPackets}
	if !r.activeIPv6() {
		if counted.InOctets == 0 && counted.OutOctets == 0 && counted.InPackets == 0 && counted.OutPackets == 0 {
			return nil
		}
		// IPv6 ended before the session (an IPoE DHCPv6 Release): nothing
		// bound any more, but its share of the session's octets stays in
		// the Interims and the Stop
		counted.Attr = aaa.IPv6OctetsERX
		if d.cfg.Radius.IPv6OctetsAttribute == config.IPv6OctetsNone {
			return nil
		}
		return &counted
	}
	a := &counted
	a.InterfaceID, a.Prefix = r.IIDPeer, r.IPv6Prefix
	if r.DHCP6.PDBound {
		a.Delegated = r.DelegatedPrefix
	}
	if r.DHCP6.NABound {
		a.Address = r.IPv6Address
	}
	if d.cfg.Radius.IPv6OctetsAttribute == config.IPv6OctetsNone {
		a.Attr = aaa.IPv6OctetsNone
	}
	return a
}
