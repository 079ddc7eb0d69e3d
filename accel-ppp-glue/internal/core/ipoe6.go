package core

import (
	"context"
	"net/netip"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
)

// Dual stack over IPoE (issue 19, docs/cp/ipoe.md "IPv6"): on the IPoE lines
// of a line group with ipv6_pools the DP redirects Router Solicitations and
// DHCPv6 (QinQ + IPv6); the CP answers them with internal/v6ctl as for PPPoE,
// on Ethernet: from ac_mac and fe80::EUI-64(ac_mac), RAs with a Source
// Link-Layer Address option.
//
// An IPoE session may carry IPv4, IPv6 or both. The family that commits
// first (a DHCPv4 REQUEST, or a DHCPv6 Request / Rapid-Commit Solicit)
// installs the session (one Access-Request, made by the first DISCOVER or
// Solicit/Request; one Accounting-Start); the other joins by a Session
// Modification (IPv6: Create PDR 3, 4, 5 + the RA offload; IPv4: Create PDR
// 1, 2). A family whose lease ends (RELEASE, DHCPv6 Release, expiry) leaves
// by a modification (Remove PDR) while the other stays; the session ends
// with its last family. The IPv6 family of an IPoE session is active while
// its DHCPv6 binding (IA_NA or IA_PD) is: a CPE that only does SLAAC gets
// RAs without the DP's forwarding.

// ipoe6In is an IPv6 control frame from an IPoE subscriber, checked and placed.
type ipoe6In struct {
	inst *config.Instance
	line *config.Line
	lk   lineKey
	pkt  []byte // the IPv6 packet
	pk   v6ctl.Peeked
}

func isMulticastMAC33(m [6]byte) bool { return m[0] == 0x33 && m[1] == 0x33 }

// ipoe6Frame handles an IPv6 frame redirected by a DP: RS or DHCPv6 of an
// IPoE subscriber (the DP punts nothing else IPv6 of IPoE lines).
func (sh *shard) ipoe6Frame(in inFrame) {
	d := sh.d
	f, err := v6ctl.DecodeFrame(in.data)
	if err != nil {
		sh.drop("ipoe6_malformed", "malformed IPoE IPv6 frame", "instance", in.inst.Name, "err", err)
		return
	}
	line, port, ok := sh.frameLine(in, f.STag, f.CTag, f.Src)
	if !ok {
		return
	}
	g := line.Group
	if g.IPoE == nil {
		sh.drop("ipoe_not_allowed", "IPv6 IPoE frame on a line whose group does not allow IPoE", "line_group", g.Name)
		return
	}
	if d.pools6[g.Name] == nil {
		sh.drop("ipoe6_no_pools", "IPv6 IPoE frame on a line whose group has no IPv6 pools", "line_group", g.Name)
		return
	}
	if g.IPoE.Mode == config.IPoEModeRelay {
		sh.drop("ipoe6_relay", "IPv6 on an IPoE line in relay mode (bng-cp relays DHCPv4 only)", "line_group", g.Name)
		return
	}
	var ac [6]byte
	copy(ac[:], g.ACMAC)
	if f.Dst != ac && !isMulticastMAC33(f.Dst) {
		sh.drop("dst_mac", "IPv6 control frame to a foreign MAC", "instance", in.inst.Name)
		return
	}
	pk, bad := v6ctl.Peek(f.Packet)
	if bad != "" {
		d.m.v6Drops.WithLabelValues(bad).Inc()
		return
	}
	x := &ipoe6In{inst: in.inst, line: line, lk: lineKey{port: port.Name, stag: f.STag, ctag: f.CTag, mac: f.Src}, pkt: f.Packet, pk: pk}
	now := time.Now()
	s := sh.sessions[sessKey{x.lk, 0}]
	if s != nil && s.dead {
		s = nil
	}
	binds := pk.DHCP == v6ctl.Solicit || pk.DHCP == v6ctl.Request
	switch {
	case s == nil && binds:
		sh.ipoe6New(now, x)
	case s != nil && s.state == stAuthorizing && binds && s.ipoe.v6first == nil:
		s.ipoe.v6wait = x // DHCPv4 and DHCPv6 at once: answered after the Access-Accept
	case s == nil, s.state == stAuthorizing:
		// RS, Renew, Rebind, Release, Information-Request of no session:
		// answered as from a session without prefixes (an RA without
		// Prefix Information, NoBinding), so the CPE starts over. A session
		// being authorized: its CPE retransmits.
		if s != nil && !pk.RS {
			return
		}
		vs := sh.d.v6Bare(g)
		sh.ipoe6Answer(x, &vs, now)
	default:
		sh.ipoe6Session(now, s, x)
	}
}

// v6Bare is what the IPv6 control handler knows of a line without session.
func (d *Daemon) v6Bare(g *config.LineGroup) v6ctl.Session {
	vs := v6ctl.Session{OurIID: eui64(g.ACMAC), SLLA: g.ACMAC, MTU: 1500,
		RouterLifetime: uint16(d.cfg.IPv6RA.RouterLifetime / time.Second)}
	if len(g.IPv6Pools) > 0 {
		vs.DNS = g.IPv6Pools[0].DNS
	}
	return vs
}

// ipoe6Answer runs the handler on x for vs and sends the answer.
func (sh *shard) ipoe6Answer(x *ipoe6In, vs *v6ctl.Session, now time.Time) v6ctl.Result {
	res := sh.d.v6srv.Handle(vs, x.pkt, now)
	if res.Drop {
		sh.d.m.v6Drops.WithLabelValues(res.Kind).Inc()
		return res
	}
	sh.sendIPoE6(x.inst, x.line, x.lk, res.Reply, res.Kind)
	return res
}

// sendIPoE6 sends an IPv6 packet to the subscriber of lk: QinQ, from ac_mac
// to the client MAC.
func (sh *shard) sendIPoE6(inst *config.Instance, line *config.Line, lk lineKey, pkt []byte, kind string) {
	if pkt == nil {
		return
	}
	f := v6ctl.Frame{Dst: lk.mac, OuterTPID: line.AccessPort.TPID, STag: lk.stag, CTag: lk.ctag, Packet: pkt}
	copy(f.Src[:], line.Group.ACMAC)
	sh.out = v6ctl.AppendFrame(sh.out[:0], &f)
	sh.emit(inst, sh.out)
	sh.d.m.v6Sent.WithLabelValues(kind).Inc()
}

// ipoe6New: a Solicit or Request from a MAC without session authorizes an
// IPoE session (IPv6 first).
func (sh *shard) ipoe6New(now time.Time, x *ipoe6In) {
	d := sh.d
	g := x.line.Group
	if !sh.admitDHCP(now, &ipoeIn{inst: x.inst, lk: x.lk}) {
		return
	}
	if g.IPoE.Username != config.IPoEUserMAC {
		// circuit/remote id come with DHCPv4's option 82; DHCPv6 has no
		// relay agent here to add them
		sh.drop("ipoe6_no_username", "DHCPv6 first on a line group whose ipoe.username is not mac", "mac", macString(x.lk.mac))
		return
	}
	if !d.ipoe.take(x.lk, g.IPoE.MaxMACs) {
		sh.drop("ipoe_max_macs", "DHCPv6 beyond the line's ipoe.max_macs", "port", x.lk.port,
			"stag", x.lk.stag, "ctag", x.lk.ctag, "mac", macString(x.lk.mac))
		return
	}
	s := sh.newIPoESession(now, x.inst, x.line, x.lk, macString(x.lk.mac))
	s.ipoe.v6first = x
	sh.ipoeAuthorize(s, &ipoeIn{inst: x.inst, line: x.line, lk: x.lk})
}

// ipoe6Authorized: the Access-Accept of a session its IPv6 created.
func (sh *shard) ipoe6Authorized(s *session, res *aaa.AccessResult, fail func(result, msg string, args ...any)) {
	x := s.ipoe.v6first
	s.ipoe.v6first = nil
	if !sh.ipoeAllocIPv6(s, res) {
		fail("reject", "no IPv6 prefix available")
		return
	}
	sh.d.setState(s, stNegotiating)
	now := time.Now()
	s.ipoe.offerUntil = now.Add(ipoeOfferHold)
	sh.ipoe6Session(now, s, x)
	if m := s.ipoe.discover; m != nil && !s.dead {
		// a DISCOVER came while the Solicit was authorized
		s.ipoe.discover = nil
		sh.ipoeOfferIPv4(now, s, &ipoeIn{inst: s.inst, line: s.line, lk: s.key.line, m: m})
	}
}

// ipoeAllocIPv6 gives an IPoE session its prefixes (the Access-Accept's
// IPv6 attributes, else the pools); the BNG's identifier is EUI-64(ac_mac).
func (sh *shard) ipoeAllocIPv6(s *session, res *aaa.AccessResult) bool {
	if !sh.allocPrefixes(s, res) {
		return false
	}
	// no IIDPeer: the CPE chooses its address (SLAAC, privacy): no Framed-Interface-Id
	s.rec.IIDLocal, s.rec.IIDPeer = eui64(s.group.ACMAC), 0
	return true
}

// ipoe6Session answers an RS or DHCPv6 message of an IPoE session; a binding
// made commits the IPv6 family (installs it), one released ends it.
func (sh *shard) ipoe6Session(now time.Time, s *session, x *ipoe6In) {
	d := sh.d
	binds := x.pk.DHCP == v6ctl.Solicit || x.pk.DHCP == v6ctl.Request
	if !s.rec.IPv6Prefix.IsValid() && binds && !sh.ipoeAllocIPv6(s, s.ipoe.auth) {
		d.m.drops.WithLabelValues("ipv6_refused").Inc() // answered below: no prefix, no address
	}
	var vs v6ctl.Session
	if s.rec.IPv6Prefix.IsValid() {
		vs = d.v6Session(s)
	} else {
		vs = d.v6Bare(s.group)
	}
	res := d.v6srv.Handle(&vs, x.pkt, now)
	if res.Drop {
		d.m.v6Drops.WithLabelValues(res.Kind).Inc()
		return
	}
	wasBound := s.rec.DHCP6.PDBound || s.rec.DHCP6.NABound
	if res.Changed {
		s.rec.DHCP6 = vs.Binding
	}
	bound := s.rec.DHCP6.PDBound || s.rec.DHCP6.NABound
	lease := x.pk.DHCP == v6ctl.Request || x.pk.DHCP == v6ctl.Renew || x.pk.DHCP == v6ctl.Rebind ||
		(x.pk.DHCP == v6ctl.Solicit && x.pk.Rapid)
	if bound && lease {
		s.rec.LeaseEnd6 = now.Add(v6ctl.ValidLifetime * time.Second).UTC()
	}
	switch {
	case bound && lease && !s.rec.IPv6Installed:
		sh.ipoe6Commit(s, x, res.Reply, res.Kind)
		return
	case wasBound && !bound:
		sh.sendIPoE6(x.inst, x.line, x.lk, res.Reply, res.Kind)
		sh.ipoeDropFamily(s, false, causeUserRequest, "DHCPv6 Release")
		return
	}
	if (res.Changed || (bound && lease)) && s.rec.Established {
		rec := s.rec
		go func() {
			if err := d.persist(&rec); err != nil {
				d.log.Error("session store write failed", "session", rec.ID, "err", err)
			}
			d.bindingsPersisted.Add(1)
		}()
	}
	sh.sendIPoE6(x.inst, x.line, x.lk, res.Reply, res.Kind)
}

// ipoe6Commit: the IPv6 binding is made; the reply goes once the DP has
// the IPv6 PDRs (as the DHCPv4 ACK follows the DP's answer).
func (sh *shard) ipoe6Commit(s *session, x *ipoe6In, reply []byte, kind string) {
	d := sh.d
	s.ipoe.v6reply, s.ipoe.v6kind = reply, kind
	switch s.state {
	case stNegotiating:
		// the first family to commit: the session is installed with IPv6
		// (an IPv4 address only offered joins on its REQUEST)
		s.rec.IPv6Installed = true
		if s.rec.IPv4.IsValid() {
			s.rec.NoIPv4PDRs = true
			s.rec.LeaseEnd = s.ipoe.offerUntil
		}
		d.setState(s, stEstablishing)
		sh.install(s)
	case stEstablished:
		sh.installIPv6(s)
	default:
		// stEstablishing: established() adds IPv6 (wantIPv6)
	}
}

// ipoe6Installed: the modification adding IPv6 came back; the pending
// reply goes on success.
func (sh *shard) ipoe6Installed(s *session, err error) {
	r := s.ipoe.v6reply
	s.ipoe.v6reply = nil
	if err != nil || s.dead {
		return // the CPE asks again (Request retransmission)
	}
	sh.sendIPoE6(s.inst, s.line, s.key.line, r, s.ipoe.v6kind)
}

// wantIPv6 reports whether the session's IPv6 is to be in the DP: IPv6CP
// open (PPPoE), a DHCPv6 binding (IPoE).
func (sh *shard) wantIPv6(s *session) bool {
	if s.ipoe != nil {
		return s.rec.hasIPv6() && (s.rec.DHCP6.PDBound || s.rec.DHCP6.NABound)
	}
	return s.rec.hasIPv6()
}

// ipoeHasIPv4: the IPv4 family is in the DP.
func (r *record) ipoeHasIPv4() bool { return r.IPv4.IsValid() && !r.NoIPv4PDRs }

// activeIPv4 / activeIPv6: what RADIUS and ONOS hear of: the address in the
// DP (not one only offered); IPv6 once IPv6CP is open (PPPoE) or the DP has
// the IPv6 PDRs (IPoE: not prefixes only advertised).
func (r *record) activeIPv4() netip.Addr {
	if r.NoIPv4PDRs {
		return netip.Addr{}
	}
	return r.IPv4
}

func (r *record) activeIPv6() bool {
	return r.hasIPv6() && (r.Kind != kindIPoE || r.IPv6Installed)
}

// ipoeDropFamily ends one family of an IPoE session (v4: DHCPv4; else
// IPv6): the session ends when no other family is installed, else a
// modification removes the family's PDRs and its addresses go back.
func (sh *shard) ipoeDropFamily(s *session, v4 bool, cause int, why string) {
	d := sh.d
	if s.dead || s.state != stEstablished {
		sh.teardown(s, cause, padtNone, why)
		return
	}
	other := s.rec.IPv6Installed
	if !v4 {
		other = s.rec.ipoeHasIPv4()
	}
	if !other {
		sh.teardown(s, cause, padtNone, why)
		return
	}
	if v4 && s.rec.NoIPv4PDRs {
		// only offered: nothing in the DP
		sh.ipoeForgetIPv4(s)
		return
	}
	if !v4 && !s.rec.IPv6Installed {
		if s.v6Installing {
			// released while the DP installs it: no half state
			sh.teardown(s, cause, padtNone, why+" while IPv6 was being installed")
			return
		}
		sh.ipoeForgetIPv6(s) // only advertised: nothing in the DP
		return
	}
	if s.ipoe.removing {
		// one removal at a time: the other family's end (both released in
		// a row) is taken up when this one returns; a repeat is nothing new
		if s.ipoe.removingV4 != v4 {
			s.ipoe.pendingEnd = &familyEnd{v4: v4, cause: cause, why: why}
		}
		return
	}
	s.ipoe.removing, s.ipoe.removingV4 = true, v4
	ps := d.pfcpSession(&s.rec)
	mod := &pfcpcp.Mod{RemoveIPv6: ps}
	if v4 {
		mod = &pfcpcp.Mod{RemoveIPv4: ps}
	}
	rec := s.rec
	go func() {
		ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
		usage, err := d.plane.Modify(ctx, rec.Instance, rec.UPSEID, rec.CPSEID, mod)
		cancel()
		if err != nil {
			d.pfcpError("modification", err)
		} else {
			d.m.pfcpRequests.WithLabelValues("modification", "ok").Inc()
		}
		sh.post(func() {
			s.ipoe.removing = false
			if s.dead {
				return
			}
			if err != nil {
				// the DP's rules and ours disagree now: end it cleanly
				sh.teardown(s, causeNASError, padtNone, "the DP did not remove a family: "+err.Error())
				return
			}
			for _, u := range usage {
				d.addUsage(&s.rec, u)
			}
			d.log.Info("IPoE family ended, the session goes on", "session", s.rec.ID, "ipv4", v4, "why", why)
			if v4 {
				sh.ipoeForgetIPv4(s)
			} else {
				sh.ipoeForgetIPv6(s)
			}
			if e := s.ipoe.pendingEnd; e != nil {
				s.ipoe.pendingEnd = nil
				sh.ipoeDropFamily(s, e.v4, e.cause, e.why) // the last family: the session ends
			}
		})
	}()
}

// ipoeForgetIPv4 returns the session's IPv4 address (its PDRs are gone).
func (sh *shard) ipoeForgetIPv4(s *session) {
	d := sh.d
	if s.rec.IPv4.IsValid() {
		d.pools[s.group.Name].Release(s.rec.IPv4)
		d.updatePoolMetrics()
	}
	s.rec.IPv4, s.rec.NoIPv4PDRs, s.rec.LeaseEnd = netip.Addr{}, true, time.Time{}
	sh.ipoeFamilyChanged(s)
}

// ipoeForgetIPv6 returns the session's prefixes (its PDRs are gone).
func (sh *shard) ipoeForgetIPv6(s *session) {
	d := sh.d
	d.releaseIPv6(&s.rec, s.group.Name)
	r := &s.rec
	r.IPv6Prefix, r.DelegatedPrefix, r.IPv6Address = netip.Prefix{}, netip.Prefix{}, netip.Addr{}
	r.IIDLocal, r.IIDPeer, r.IPv6Installed, r.DHCP6, r.LeaseEnd6, r.DNS6 = 0, 0, false, v6ctl.Binding{}, time.Time{}, nil
	sh.ipoeFamilyChanged(s)
}

// ipoeFamilyChanged persists the session and tells RADIUS (Interim) and ONOS.
func (sh *shard) ipoeFamilyChanged(s *session) {
	d := sh.d
	rec := s.rec
	go func() {
		if err := d.persist(&rec); err != nil {
			d.log.Error("session store write failed", "session", rec.ID, "err", err)
		}
	}()
	if s.rec.AcctStarted && s.state == stEstablished {
		s.lastInterim = time.Now()
		d.account(s, aaa.AcctInterim, 0)
		d.reportSession(onos.EventUpdate, s, 0)
	}
}

// ipoeAddIPv4: the REQUEST for an address offered to a session installed
// without IPv4: a modification creates PDRs 1, 2; the ACK follows.
func (sh *shard) ipoeAddIPv4(now time.Time, s *session, x *ipoeIn) {
	d := sh.d
	if s.ipoe.adding4 {
		s.ipoe.request = x.m
		return
	}
	s.ipoe.adding4, s.ipoe.request = true, x.m
	rec := s.rec
	rec.NoIPv4PDRs = false
	ps := d.pfcpSession(&rec)
	go func() {
		ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
		_, err := d.plane.Modify(ctx, rec.Instance, rec.UPSEID, rec.CPSEID, &pfcpcp.Mod{AddIPv4: ps})
		cancel()
		if err != nil {
			d.pfcpError("modification", err)
		} else {
			d.m.pfcpRequests.WithLabelValues("modification", "ok").Inc()
		}
		sh.post(func() {
			s.ipoe.adding4 = false
			if s.dead {
				return
			}
			if err != nil {
				sh.ipoeNotInstalled(s) // NAK; the address stays offered until its hold ends
				return
			}
			s.rec.NoIPv4PDRs = false
			s.rec.LeaseEnd = time.Now().Add(time.Duration(s.group.IPoE.LeaseTime) * time.Second).UTC()
			d.log.Info("IPv4 joined the IPoE session", "session", s.rec.ID, "ipv4", s.rec.IPv4.String())
			m := s.ipoe.request
			s.ipoe.request = nil
			if m != nil {
				sh.dhcpReply(&ipoeIn{inst: s.inst, line: s.line, lk: s.key.line, m: m}, s, dhcp4.Ack, true)
			}
			sh.ipoeFamilyChanged(s)
		})
	}()
}

// ipoeOfferIPv4: a DISCOVER on a session without IPv4 (IPv6 first, or its
// IPv4 lease ended): an address from the session's Access-Accept or the
// pools, offered; it joins on the REQUEST (ipoeAddIPv4).
func (sh *shard) ipoeOfferIPv4(now time.Time, s *session, x *ipoeIn) {
	d := sh.d
	if !s.rec.IPv4.IsValid() {
		res := s.ipoe.auth
		if res == nil {
			res = &aaa.AccessResult{Accept: true}
		}
		addr, ok := d.takeIPv4(s, s.group.Name, res, func(result, msg string, args ...any) {
			d.log.Info("no IPv4 for the IPoE session", append([]any{"session", s.rec.ID, "reason", msg}, args...)...)
		})
		if !ok {
			return
		}
		s.rec.IPv4, s.rec.NoIPv4PDRs = addr, true
	}
	s.ipoe.offerUntil = now.Add(ipoeOfferHold)
	s.rec.LeaseEnd = s.ipoe.offerUntil
	sh.dhcpReply(x, s, dhcp4.Offer, true)
}

// ipoe6Expire ends the IPv6 families whose binding ran out (slowTick).
func (sh *shard) ipoe6Expire(now time.Time, s *session) {
	if s.state == stEstablished && s.rec.IPv6Installed && !s.rec.LeaseEnd6.IsZero() && now.After(s.rec.LeaseEnd6) {
		sh.ipoeDropFamily(s, false, causeLostService, "DHCPv6 binding expired")
	}
}
