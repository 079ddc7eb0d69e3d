package pfcpcp

import (
	"context"
	"fmt"
	"net/netip"
)

var msgNames = map[uint8]string{
	msgHeartbeatReq:   "heartbeat",
	msgAssocSetupReq:  "association_setup",
	msgAssocUpdateReq: "association_update",
	msgSessEstReq:     "session_establishment",
	msgSessModReq:     "session_modification",
	msgSessDelReq:     "session_deletion",
	msgSessReportReq:  "session_report",
}

func (f *Function) upPeer(inst uint32) (*peer, error) {
	p := f.byInst[inst]
	if p == nil {
		return nil, ErrUnknownPeer
	}
	f.mu.Lock()
	st := p.state
	f.mu.Unlock()
	if st != stUp {
		return nil, ErrNotAssociated
	}
	return p, nil
}

func validSession(s *Session) error {
	switch {
	case s == nil:
		return fmt.Errorf("%w: nil", ErrInvalidSession)
	case s.CPSEID == 0 || s.CPSEID&(1<<63) != 0:
		return fmt.Errorf("%w: CP SEID %#x (0 and bit 63 are reserved)", ErrInvalidSession, s.CPSEID)
	case !s.IPv4.Unmap().Is4() && s.IPv4.IsValid():
		return fmt.Errorf("%w: IPv4 address %s", ErrInvalidSession, s.IPv4)
	case !s.IPv4.IsValid() && s.IPv6 == nil:
		return fmt.Errorf("%w: no IPv4 address and no IPv6", ErrInvalidSession)
	case s.IPv6 != nil && !validIPv6(s.IPv6):
		return fmt.Errorf("%w: IPv6 prefixes %v %v", ErrInvalidSession, s.IPv6.WAN, s.IPv6.PD)
	case s.STag == 0 || s.STag > 4094 || s.CTag == 0 || s.CTag > 4094:
		return fmt.Errorf("%w: tags %d/%d", ErrInvalidSession, s.STag, s.CTag)
	case s.IPoE && (s.PPPoESessionID != 0 || s.LCP != nil):
		return fmt.Errorf("%w: IPoE is without PPPoE session id or LCP", ErrInvalidSession)
	case s.ARPPing != nil && (!s.IPoE || s.ARPPing.Interval == 0 || s.ARPPing.Count == 0):
		return fmt.Errorf("%w: ARP ping %+v (IPoE only, interval and count >= 1)", ErrInvalidSession, *s.ARPPing)
	case !s.IPoE && (s.PPPoESessionID == 0 || s.PPPoESessionID == 0xffff):
		return fmt.Errorf("%w: PPPoE session id %#x", ErrInvalidSession, s.PPPoESessionID)
	case len(s.LogicalPort) > 63 || len(s.QosProfile) > 63:
		return fmt.Errorf("%w: name longer than 63", ErrInvalidSession)
	}
	return nil
}

func validIPv6(r *IPv6Rules) bool {
	ok := func(p netip.Prefix) bool { return p.Addr().Is6() && !p.Addr().Is4In6() && p == p.Masked() }
	return ok(r.WAN) && r.WAN.Bits() == 64 && (!r.PD.IsValid() || (ok(r.PD) && r.PD.Bits() <= 64))
}

// Establish installs a subscriber session on DP inst and returns its UP SEID.
// A refusal is a *CauseError. Establishing the same session again (same CP
// SEID, same content) returns the same UP SEID.
func (f *Function) Establish(ctx context.Context, inst uint32, s *Session) (upSEID uint64, err error) {
	if err := validSession(s); err != nil {
		return 0, err
	}
	p, err := f.upPeer(inst)
	if err != nil {
		return 0, err
	}
	if s.IPoE {
		f.mu.Lock()
		ipoe := p.feat.IPoE
		f.mu.Unlock()
		if !ipoe {
			return 0, ErrIPoENotSupported
		}
	}
	cp := *s
	if cp.IPv4.IsValid() {
		cp.IPv4 = cp.IPv4.Unmap()
	}
	m, err := f.call(ctx, p, msgSessEstReq, f.encEstablish(0, &cp))
	if err != nil {
		return 0, err
	}
	c, err := m.cause()
	if err != nil {
		return 0, err
	}
	if c != CauseAccepted {
		return 0, m.causeError(c)
	}
	up, err := m.fseid()
	if err != nil {
		return 0, err
	}
	f.mu.Lock()
	f.addSessionLocked(inst, s.CPSEID, up)
	f.mu.Unlock()
	return up, nil
}

// Modify changes a session. The usage reports of the answer (QueryUsage)
// are returned and also given to Handler.Usage.
func (f *Function) Modify(ctx context.Context, inst uint32, upSEID, cpSEID uint64, m *Mod) ([]Usage, error) {
	if m == nil {
		m = &Mod{}
	}
	p, err := f.upPeer(inst)
	if err != nil {
		return nil, err
	}
	if m.AddIPv6 != nil {
		if err := validSession(m.AddIPv6); err != nil || m.AddIPv6.IPv6 == nil {
			return nil, fmt.Errorf("%w: IPv6 to add", ErrInvalidSession)
		}
	}
	rates := m.UpMBR != nil || m.UpGBR != nil || m.DownMBR != nil || m.DownGBR != nil
	ans, err := f.call(ctx, p, msgSessModReq, f.encModify(0, upSEID, m, false))
	if err != nil {
		return nil, err
	}
	c, err := ans.cause()
	if err != nil {
		return nil, err
	}
	if c == CauseRuleFailure && rates {
		// The session has no QER (established without rates): create it.
		if e := ans.causeError(c); e.HasFailedRule && e.FailedRuleType == 2 && e.FailedRule == 1 {
			ans, err = f.call(ctx, p, msgSessModReq, f.encModify(0, upSEID, m, true))
			if err != nil {
				return nil, err
			}
			if c, err = ans.cause(); err != nil {
				return nil, err
			}
		}
	}
	if c != CauseAccepted {
		return nil, ans.causeError(c)
	}
	us, err := ans.usage(ieUsageRepMod)
	if err != nil {
		return nil, err
	}
	if ans.h.seid != 0 {
		cpSEID = ans.h.seid
	}
	f.pushUsage(inst, cpSEID, us)
	return us, nil
}

// Delete removes a session and returns its final usage (also given to
// Handler.Usage).
func (f *Function) Delete(ctx context.Context, inst uint32, upSEID uint64) ([]Usage, error) {
	p, err := f.upPeer(inst)
	if err != nil {
		return nil, err
	}
	ans, err := f.call(ctx, p, msgSessDelReq, encDelete(0, upSEID))
	if err != nil {
		return nil, err
	}
	c, err := ans.cause()
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if cp, ok := f.bySEID[sessKey{inst, upSEID}]; ok && (c == CauseAccepted || c == CauseSessionNotFound) {
		delete(f.bySEID, sessKey{inst, upSEID})
		delete(f.sessions, sessKey{inst, cp})
	}
	f.mu.Unlock()
	if c != CauseAccepted {
		return nil, ans.causeError(c)
	}
	us, err := ans.usage(ieUsageRepDel)
	if err != nil {
		return nil, err
	}
	f.pushUsage(inst, ans.h.seid, us)
	return us, nil
}

func (f *Function) pushUsage(inst uint32, cp uint64, us []Usage) {
	for i, u := range us {
		u := u
		u.More = i < len(us)-1
		f.ev.push(func(h Handler) { h.Usage(inst, cp, u) })
	}
}

// Peers returns every DP's state.
func (f *Function) Peers() []PeerStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]PeerStatus, 0, len(f.order))
	for _, p := range f.order {
		ps := PeerStatus{
			Instance: p.Instance, Addr: p.Addr, State: stateNames[p.state], Since: p.since,
			Features: p.feat, Restarts: p.restarts, HeartbeatsTx: p.hbTx, HeartbeatsRx: p.hbRx,
			Reports: p.reports, Timeouts: p.timeouts,
		}
		if p.hasRTS {
			ps.RecoveryTime = fromNTP(p.rts)
		}
		out = append(out, ps)
	}
	return out
}

// Stats returns the counters.
func (f *Function) Stats() Stats {
	s := Stats{
		Requests:        map[string]uint64{},
		Answers:         map[uint8]uint64{},
		Received:        map[string]uint64{},
		Retransmissions: f.retransmissions.Load(),
		Timeouts:        f.timeouts.Load(),
		Unexpected:      f.unexpected.Load(),
		Duplicates:      f.duplicates.Load(),
		UnknownSEID:     f.unknownSEID.Load(),
		NotAllowed:      f.notAllowed.Load(),
		Malformed:       f.malformed.Load(),
		Unhandled:       f.unhandled.Load(),
	}
	for t, name := range msgNames {
		if v := f.requests[t].Load(); v != 0 {
			s.Requests[name] = v
		}
		if v := f.received[t].Load(); v != 0 {
			s.Received[name] = v
		}
	}
	for c := range f.answers {
		if v := f.answers[c].Load(); v != 0 {
			s.Answers[uint8(c)] = v
		}
	}
	f.mu.Lock()
	s.Pending = uint64(len(f.pending))
	f.mu.Unlock()
	return s
}
