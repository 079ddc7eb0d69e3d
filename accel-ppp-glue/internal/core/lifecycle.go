package core

import (
	"context"
	"errors"
	"net/netip"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pool"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

func (d *Daemon) setState(s *session, to state) {
	if s.state == to {
		return
	}
	d.m.sessions.WithLabelValues(s.state.String()).Dec()
	d.m.sessions.WithLabelValues(to.String()).Inc()
	s.state = to
}

// authorize sends the subscriber's credentials to RADIUS (or checks them
// against the users file) off the shard goroutine.
func (sh *shard) authorize(now time.Time, s *session, e ppp.EvAuth) {
	d := sh.d
	d.setState(s, stAuthorizing)
	s.rec.User = e.User
	req := &aaa.AccessRequest{
		UserName: e.User, PAPPassword: e.Password, CHAPID: e.CHAPID,
		CHAPChallenge: e.Challenge, CHAPResponse: e.Response,
		NASPortID:        s.rec.nasPort(),
		CallingStationID: callingStationID(s.rec.MAC), AcctSessionID: s.rec.ID,
		CircuitID: s.rec.CircuitID, RemoteID: s.rec.RemoteID,
	}
	go func() {
		ctx, cancel := context.WithTimeout(d.ctx, 60*time.Second)
		res, err := d.auth.Authenticate(ctx, req)
		cancel()
		sh.post(func() { sh.authDone(s, res, err) })
	}()
}

func (sh *shard) authDone(s *session, res *aaa.AccessResult, err error) {
	d := sh.d
	if s.dead {
		return
	}
	now := time.Now()
	fail := func(result, msg string, args ...any) {
		d.m.authResults.WithLabelValues(result).Inc()
		d.log.Info("authentication failed", append([]any{"session", s.rec.ID, "user", s.rec.User,
			"reason", msg}, args...)...)
		d.setState(s, stNegotiating)
		s.link.AuthResult(now, false, msg)
		d.sebaEvent(onos.EventAuthFailure, s.key.line, s.key.sid)
		sh.flush(now, s)
	}
	switch {
	case err != nil:
		d.m.radiusErrors.WithLabelValues("no_server").Inc()
		d.blog.Warn("radius_down", "no RADIUS server answered", "err", err)
		fail("error", "authentication service unavailable")
		return
	case res == nil || !res.Accept:
		msg := "authentication failed"
		if res != nil && res.ReplyMessage != "" {
			msg = res.ReplyMessage
		}
		fail("reject", msg)
		return
	}
	g := s.group
	prof := g.QosProfile
	if res.FilterID != "" {
		p, ok := d.cfg.QosProfile(res.FilterID)
		if !ok {
			fail("reject", "unknown QoS profile", "filter_id", res.FilterID)
			return
		}
		prof = p
	}
	addr, ok := d.takeIPv4(s, g.Name, res, fail)
	if !ok {
		return
	}
	d.m.authResults.WithLabelValues("accept").Inc()
	s.rec.IPv4 = addr
	s.rec.QosProfile = prof.Name
	s.rec.RateDown, s.rec.RateUp = res.RateDown, res.RateUp
	d.subscriberRates(&s.rec, res)
	s.rec.Class = res.Class
	if res.InterimInterval > 0 {
		iv := res.InterimInterval
		if iv < 60*time.Second && d.opt.Interim >= 60*time.Second {
			iv = 60 * time.Second // RFC 2869 5.16: not less than 60 s
		}
		s.rec.Interim = int64(iv / time.Second)
	}
	s.rec.SessionTimeout = int64(res.SessionTimeout / time.Second)
	var dns1, dns2 netip.Addr
	for _, p := range g.Pools {
		if p.Prefix.Contains(addr) {
			if len(p.DNS) > 0 {
				dns1 = p.DNS[0]
			}
			if len(p.DNS) > 1 {
				dns2 = p.DNS[1]
			}
		}
	}
	d.setState(s, stNegotiating)
	sh.allocIPv6(s, res)
	s.link.SetIPv4(g.CoreAddress, addr, dns1, dns2)
	s.link.AuthResult(now, true, "")
	d.sebaEvent(onos.EventAuthSuccess, s.key.line, s.key.sid)
	sh.flush(now, s)
}

// pfcpSession is what the DP gets for a session record.
func (d *Daemon) pfcpSession(r *record) *pfcpcp.Session {
	ps := &pfcpcp.Session{
		CPSEID: r.CPSEID, LogicalPort: r.AccessPort, STag: r.STag, CTag: r.CTag, MAC: r.MAC,
		PPPoESessionID: r.PPPoESID, IPv4: r.IPv4, QosProfile: r.QosProfile, MTU: r.MTU,
		URRPeriod: d.urrPeriod(r), IPoE: r.Kind == kindIPoE,
	}
	if r.IPv6Installed || (r.hasIPv6() && r.Established && r.Kind != kindIPoE) {
		// IPv6 is open: an establishment (again: a DP restart, a line-group
		// move) carries it, also when the modification that was to add it failed
		ps.IPv6, ps.RA = d.ipv6Rules(r)
	}
	if r.RateDown != 0 {
		ps.DownMBR = r.RateDown
		if r.GuaranteedDown <= r.RateDown {
			ps.DownGBR = r.GuaranteedDown // SADIS's cir+gir (seba.go)
		}
	}
	if r.RateUp != 0 {
		ps.UpMBR = r.RateUp
		ps.UpGBR = r.RateUp
		if p, ok := d.cfg.QosProfile(r.QosProfile); ok && p.UpCIR < r.RateUp {
			ps.UpGBR = p.UpCIR
		}
		if r.GuaranteedUp != 0 && r.GuaranteedUp <= r.RateUp {
			ps.UpGBR = r.GuaranteedUp // SADIS's cir+gir (seba.go)
		}
	}
	if d.lcpOffload(r.Instance) && r.MagicTx != 0 {
		ps.LCP = &pfcpcp.LCPConnectivity{
			Interval: uint16(d.opt.EchoInterval / time.Second), Count: uint8(d.opt.EchoFailures),
			TxMagic: r.MagicTx, RxMagic: r.MagicRx,
		}
	}
	if ps.IPoE && r.NoIPv4PDRs {
		ps.IPv4 = netip.Addr{} // offered, not requested yet (ipoe6.go)
	}
	if ps.IPoE {
		if g, ok := d.cfg.LineGroup(r.LineGroup); ok && g.IPoE != nil && g.IPoE.ARPPing != nil {
			ps.ARPPing = &pfcpcp.ARPPing{Interval: g.IPoE.ARPPing.Interval, Count: g.IPoE.ARPPing.Count}
		}
	}
	return ps
}

// urrPeriod is how often the DP reports a session's usage: its interim
// interval (RADIUS Acct-Interim-Interval, else --interim).
func (d *Daemon) urrPeriod(r *record) time.Duration {
	if r.Interim > 0 {
		return time.Duration(r.Interim) * time.Second
	}
	return d.opt.Interim
}

func (d *Daemon) lcpOffload(inst uint32) bool {
	d.peerMu.Lock()
	defer d.peerMu.Unlock()
	p := d.peers[inst]
	// Before the first association the DP's features are unknown: bng-dp
	// offloads, and a session cannot be installed without an association.
	return p == nil || !p.up || p.features.LCPOffload
}

// establish installs the session into its DP instance once IPCP is open.
func (sh *shard) establish(now time.Time, s *session, e ppp.EvUp) {
	d := sh.d
	if s.state != stNegotiating {
		return // IPCP renegotiated the same address: the session is installed already
	}
	if e.Peer != s.rec.IPv4 {
		sh.teardown(s, causeNASError, padtSend, "IPCP opened with an unexpected address")
		return
	}
	if s.link != nil && s.link.IPv6Pending() && s.v6WaitUntil.IsZero() && !s.rec.hasIPv6() {
		// IPv6CP is still negotiating (a dual-stack CPE runs both at once):
		// wait for it a little, so that one establishment carries both
		// families (no modification, store write and Interim more).
		s.v6WaitUntil = now.Add(v6Wait)
		sh.timed[s] = struct{}{}
		return
	}
	s.v6WaitUntil = time.Time{}
	d.setState(s, stEstablishing)
	s.rec.IPv6Installed = s.rec.hasIPv6()
	s.rec.MTU = s.link.MRU()
	s.rec.MagicTx, s.rec.MagicRx = s.link.Magic()
	sh.install(s)
}

// install stores the session's intent, has the DP establish it and stores the result,
// off the shard's goroutine; sh.established settles it. PPPoE and IPoE alike.
func (sh *shard) install(s *session) {
	d := sh.d
	s.rec.Started = time.Now().UTC().Truncate(time.Second)
	rec := s.rec // the goroutine works on a copy
	d.index(s, true)
	go func() {
		// The intent first: a CP that dies while the DP installs the session
		// finds it in the store and settles it after the restart.
		err := d.persist(&rec)
		var up uint64
		if err == nil {
			up, err = d.establishPFCP(&rec)
		}
		if err == nil {
			rec.UPSEID, rec.Established, rec.AcctStarted = up, true, true
			err = d.persist(&rec)
		}
		sh.post(func() { sh.established(s, up, err) })
	}()
}

func (d *Daemon) establishPFCP(r *record) (uint64, error) {
	ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
	defer cancel()
	up, err := d.plane.Establish(ctx, r.Instance, d.pfcpSession(r))
	if err != nil {
		d.pfcpError("establishment", err)
		return 0, err
	}
	d.m.pfcpRequests.WithLabelValues("establishment", "ok").Inc()
	return up, nil
}

func (d *Daemon) pfcpError(kind string, err error) {
	var ce *pfcpcp.CauseError
	cause := "timeout"
	if errors.As(err, &ce) {
		cause = causeLabel(ce.Cause)
	} else if errors.Is(err, context.Canceled) {
		cause = "canceled"
	}
	d.m.pfcpRequests.WithLabelValues(kind, "error").Inc()
	d.m.pfcpErrors.WithLabelValues(kind, cause).Inc()
	d.blog.Warn("pfcp_"+kind, "PFCP "+kind+" failed", "err", err)
}

func causeLabel(c uint8) string {
	switch c {
	case 64:
		return "64_request_rejected"
	case 65:
		return "65_session_not_found"
	case 66, 67, 68, 69:
		return "66-69_bad_ie"
	case 70:
		return "70_invalid_forwarding_policy"
	case 72:
		return "72_no_association"
	case 73:
		return "73_rule_failure"
	case 75:
		return "75_no_resources"
	case 76:
		return "76_not_supported"
	}
	return "other"
}

func (sh *shard) established(s *session, up uint64, err error) {
	d := sh.d
	if s.dead && s.closeWait != waitNone {
		// Torn down while the DP installed it, and the PPPoE session is
		// still ending: the DP's answer says how the end goes on.
		if err == nil {
			s.rec.UPSEID, s.endFrom = up, stEstablished
		} else {
			d.unpersist(s.rec.ID)
			s.endFrom = stNegotiating
		}
		return
	}
	if s.dead {
		// Torn down while the DP installed it: finish the teardown now.
		if err == nil {
			sh.finishTeardown(s, up, s.cause)
		} else {
			d.unpersist(s.rec.ID)
			sh.release(s)
		}
		return
	}
	if err != nil {
		if s.ipoe != nil {
			sh.ipoeNotInstalled(s)
		}
		// Nothing was installed: the end releases the address and the id
		// at once (not after a deletion), and the intent leaves the store.
		d.unpersist(s.rec.ID)
		d.setState(s, stNegotiating)
		sh.teardown(s, causeNASError, padtSend, "the DP did not install the session: "+err.Error())
		return
	}
	s.rec.UPSEID, s.rec.Established, s.rec.AcctStarted = up, true, true
	if s.heldAck != nil && s.link != nil {
		// the DP forwards the session now: IPCP may open at the subscriber (flush)
		sh.sendPPP(s, ppp.ProtoIPCP, s.heldAck)
	}
	s.heldAck = nil
	if s.rec.UsageAt.IsZero() {
		// The DP counts from the installation on: zero totals, as of now.
		s.rec.UsageAt = time.Now().UTC()
	}
	d.setState(s, stEstablished)
	d.m.setups.Inc()
	d.m.setupSeconds.Observe(time.Since(s.padrAt).Seconds())
	s.lastInterim = time.Now()
	if s.link != nil && !d.lcpOffload(s.rec.Instance) {
		// The instance does not answer echoes itself: the CP keeps the link alive.
		s.link.SetEcho(s.lastInterim, d.opt.EchoInterval, d.opt.EchoFailures)
		sh.flush(s.lastInterim, s)
	}
	d.log.Info("session established", "session", s.rec.ID, "user", s.rec.User, "instance", s.inst.Name,
		"line", nasPortID(s.rec.AccessPort, s.rec.STag, s.rec.CTag), "mac", macString(s.rec.MAC),
		"pppoe_sid", s.rec.PPPoESID, "ipv4", s.rec.IPv4.String(), "profile", s.rec.QosProfile)
	if s.ipoe != nil {
		sh.ipoeInstalled(s)
	}
	d.account(s, aaa.AcctStart, 0)
	d.reportSession(onos.EventUp, s, 0)
	if sh.wantIPv6(s) && !s.rec.IPv6Installed {
		sh.installIPv6(s) // IPv6CP opened (IPoE: DHCPv6 bound) while the DP installed the session
	}
	if srv := d.servingOf(s.rec.LineGroup); srv != s.rec.Instance {
		// Its line group moved while the DP installed it: follow the group.
		rec := s.rec
		go func() {
			if m, ok := d.moveSession(s, rec, srv); ok && d.associated(rec.Instance) {
				d.deleteMoved(rec.Instance, m)
			}
		}()
	}
}

// teardown ends a session: it leaves the line's table at once (so the CPE
// can dial again); the PPPoE session ends as padt says (closing.go), then
// the DP's and RADIUS's bookkeeping follows off the shard.
func (sh *shard) teardown(s *session, cause int, padt padtMode, why string) {
	d := sh.d
	if s.dead {
		return
	}
	prev := s.state
	s.dead, s.cause, s.endFrom = true, cause, prev
	if s.ipoe != nil {
		padt = padtNone // no PPPoE session; the CPE learns at its next renewal (NAK)
	}
	d.setState(s, stTerminating)
	if sh.byLine[s.key.line] == s {
		delete(sh.byLine, s.key.line)
	}
	delete(sh.timed, s)
	d.m.teardowns.WithLabelValues(causeName(cause)).Inc()
	d.log.Info("session terminated", "session", s.rec.ID, "user", s.rec.User, "state", prev.String(),
		"cause", causeName(cause), "why", why)
	switch {
	case padt == padtAfterPeer:
		sh.awaitClose(s, waitPADT)
		return
	case padt == padtSend && bngEndsLink(cause) && (s.link == nil || s.link.Phase() != ppp.PhaseDead):
		// The BNG ends a live link: LCP Terminate-Request first (RFC 1661
		// 3.7), the PADT once it is acknowledged or after the wait.
		sh.sendPPP(s, ppp.ProtoLCP, []byte{ppp.CodeTermReq, bngTermReqID, 0, 4})
		sh.awaitClose(s, waitTermAck)
		return
	case padt == padtSend:
		sh.sendPADT(s.inst, s.line, s.key.line, s.key.sid, "")
	}
	sh.pppoeClosed(s)
}

// finishTeardown removes an installed session from its DP, sends the
// Accounting-Stop with the final usage and forgets the session.
func (sh *shard) finishTeardown(s *session, up uint64, cause int) {
	d := sh.d
	rec := s.rec
	go func() {
		ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
		usage, err := d.plane.Delete(ctx, rec.Instance, up)
		cancel()
		if err != nil {
			d.pfcpError("deletion", err)
		} else {
			d.m.pfcpRequests.WithLabelValues("deletion", "ok").Inc()
		}
		// Out of the store here, not on the shard: a hang-up storm must not
		// hold the shard in one fsync after another. Before the release, so
		// that a restart never finds the record of an address handed out again.
		d.unpersist(rec.ID)
		sh.post(func() {
			for _, u := range usage {
				if u.Trigger&pfcpcp.TriggerTERMR != 0 {
					d.addUsage(&s.rec, u)
				}
			}
			s.stopped = true
			if s.rec.AcctStarted {
				d.account(s, aaa.AcctStop, cause)
				d.reportSession(onos.EventDown, s, cause)
			}
			sh.release(s)
		})
	}()
}

// release returns a dead session's address and session id and drops it from
// the indexes.
func (sh *shard) release(s *session) {
	d := sh.d
	if s.ipoe != nil && s.ipoe.declined && s.rec.IPv4.IsValid() {
		d.quarantine(s.group.Name, s.rec.IPv4) // the client found it in use (ipoe.go)
	} else if s.rec.IPv4.IsValid() {
		if !d.pools[s.group.Name].Release(s.rec.IPv4) {
			d.log.Error("address released twice", "session", s.rec.ID, "ipv4", s.rec.IPv4.String())
		}
		d.updatePoolMetrics()
	}
	d.releaseIPv6(&s.rec, s.group.Name)
	d.sids.free(s.key.line.port, s.key.line.stag, s.key.sid)
	if s.ipoe != nil {
		d.ipoe.done(s.key.line)
		sh.relayForget(s)
	}
	d.index(s, false)
	d.m.sessions.WithLabelValues(stTerminating.String()).Dec()
}

// addUsage adds a DP usage report to the session's totals. The totals are
// then as of the report's End Time (its arrival when the DP left it out),
// never earlier than a reading before: a late report of a deleted instance
// must not set the clock back.
func addUsage(r *record, u pfcpcp.Usage) {
	switch u.URRID {
	case pfcpcp.URRIPv4:
		return // the IPv4 share is the total less the IPv6 share
	case pfcpcp.URRIPv6:
		r.V6UpOctets += u.ULOctets
		r.V6DownOctets += u.DLOctets
		r.V6UpPackets += u.ULPackets
		r.V6DownPackets += u.DLPackets
		return
	}
	r.UpOctets += u.ULOctets
	r.DownOctets += u.DLOctets
	r.UpPackets += u.ULPackets
	r.DownPackets += u.DLPackets
	r.UpDropped += u.ULDropped
	r.DownDropped += u.DLDropped
	r.UpDroppedOctets += u.ULDroppedOctets
	r.DownDroppedOctets += u.DLDroppedOctets
	at := u.End
	if at.IsZero() {
		at = time.Now()
	}
	if at.After(r.UsageAt) {
		r.UsageAt = at.UTC()
	}
}

// takeIPv4 gives a session its IPv4 address from its line group's pools: RADIUS's
// Framed-IP-Address when it lies in one of them and is free (not in use, not a pool's
// gateway), else the next free address. On failure it has called fail (counted and
// logged by the caller's kind of session) and returns false.
func (d *Daemon) takeIPv4(s *session, group string, res *aaa.AccessResult,
	fail func(result, msg string, args ...any)) (netip.Addr, bool) {
	pg := d.pools[group]
	var addr netip.Addr
	if res.FramedIP.IsValid() {
		a := res.FramedIP.Unmap()
		if !pg.Contains(a) {
			d.log.Warn("RADIUS Framed-IP-Address is outside every pool of the line group: rejected",
				"session", s.rec.ID, "user", s.rec.User, "address", a.String(), "line_group", group)
			fail("reject", "address not permitted on this line")
			return addr, false
		}
		if err := pg.Reserve(a); err != nil {
			fail("reject", "address in use or reserved (gateway)", "address", a.String(), "err", err)
			return addr, false
		}
		addr = a
	} else {
		a, err := pg.Allocate()
		if err != nil {
			if errors.Is(err, pool.ErrExhausted) {
				d.m.drops.WithLabelValues("pool_exhausted").Inc()
				d.blog.Warn("pool_exhausted", "address pool exhausted: session refused", "line_group", group)
			}
			fail("reject", "no address available")
			return addr, false
		}
		addr = a
	}
	d.updatePoolMetrics()
	return addr, true
}
