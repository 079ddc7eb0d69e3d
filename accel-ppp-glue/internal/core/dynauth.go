package core

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
)

// RFC 5176 Error-Cause values the CP answers with.
const (
	errCauseInvalidValue    = 407
	errCauseContextNotFound = 503
	errCauseUnavailable     = 506
)

func (d *Daemon) startDynAuth(ctx context.Context, errc chan<- error) error {
	cp := d.cfg.ControlPlane
	conn, err := net.ListenPacket("udp4", netip.AddrPortFrom(cp.Address, d.cfg.Radius.CoAPort).String())
	if err != nil {
		return fmt.Errorf("RADIUS dynamic authorization (CoA/DM) port: %w", err)
	}
	var clients []aaa.Server
	for _, s := range d.cfg.Radius.Servers {
		clients = append(clients, aaa.Server{Name: s.Name, Secret: []byte(string(s.Secret)),
			Auth: netip.AddrPortFrom(s.Address, s.AuthPort), Acct: netip.AddrPortFrom(s.Address, s.AcctPort)})
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		go func() { <-ctx.Done(); conn.Close() }()
		if err := aaa.ServeDynamic(ctx, conn, clients, d.dynamic); err != nil && ctx.Err() == nil &&
			!errors.Is(err, net.ErrClosed) {
			errc <- fmt.Errorf("CoA/DM server: %w", err)
		}
	}()
	return nil
}

// findSession resolves an RFC 5176 request's session identification:
// Acct-Session-Id first, then Framed-IP-Address, then User-Name (with
// Calling-Station-Id and NAS-Port-Id when given).
func (d *Daemon) findSession(r *aaa.DynRequest) *session {
	d.idxMu.RLock()
	defer d.idxMu.RUnlock()
	if r.AcctSessionID != "" {
		return d.byID[r.AcctSessionID]
	}
	if r.FramedIP.IsValid() {
		return d.byIP[r.FramedIP.Unmap()]
	}
	if r.UserName == "" {
		return nil
	}
	var found *session
	for _, s := range d.byID {
		if s.rec.User != r.UserName {
			continue
		}
		if r.CallingStationID != "" && r.CallingStationID != callingStationID(s.rec.MAC) {
			continue
		}
		if r.NASPortID != "" && r.NASPortID != s.rec.nasPort() {
			continue
		}
		if found != nil {
			return nil // ambiguous: refuse rather than guess
		}
		found = s
	}
	return found
}

// onShard runs fn on s's shard and waits for it.
func onShard[T any](ctx context.Context, s *session, fn func() T) (T, error) {
	ch := make(chan T, 1)
	s.sh.post(func() { ch <- fn() })
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// dynamic handles Disconnect-Request and CoA-Request.
func (d *Daemon) dynamic(ctx context.Context, r *aaa.DynRequest) int {
	kind := "coa"
	if r.Disconnect {
		kind = "disconnect"
	}
	result := func(code int) int {
		res := "ack"
		if code != 0 {
			res = fmt.Sprintf("nak_%d", code)
		}
		d.m.coaRequests.WithLabelValues(kind, res).Inc()
		return code
	}
	s := d.findSession(r)
	if s == nil {
		d.log.Info("dynamic authorization for no session", "kind", kind, "acct_session_id", r.AcctSessionID,
			"user", r.UserName)
		return result(errCauseContextNotFound)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if r.Disconnect {
		ok, err := onShard(ctx, s, func() bool {
			if s.dead {
				return false
			}
			s.sh.teardown(s, causeAdminReset, padtSend, "RADIUS Disconnect-Request")
			return true
		})
		if err != nil || !ok {
			return result(errCauseContextNotFound)
		}
		return result(0)
	}
	var newProf string
	if r.FilterID != "" {
		p, ok := d.cfg.QosProfile(r.FilterID)
		if !ok {
			d.log.Warn("CoA names an unknown QoS profile", "session", s.rec.ID, "filter_id", r.FilterID)
			return result(errCauseInvalidValue)
		}
		newProf = p.Name
	}
	if newProf == "" && r.RateDown == 0 && r.RateUp == 0 {
		return result(errCauseInvalidValue)
	}
	type snap struct {
		rec record
		ok  bool
	}
	sn, err := onShard(ctx, s, func() snap { return snap{s.rec, !s.dead && s.state == stEstablished} })
	if err != nil || !sn.ok {
		return result(errCauseContextNotFound)
	}
	rec := sn.rec
	if newProf != "" {
		rec.QosProfile = newProf
		rec.RateDown, rec.RateUp = 0, 0 // the new profile's rates, unless given too
		rec.GuaranteedUp, rec.GuaranteedDown = 0, 0
	}
	if r.RateDown != 0 {
		rec.RateDown = r.RateDown
		rec.GuaranteedDown = 0 // SADIS's guaranteed rate went with its peak rate
	}
	if r.RateUp != 0 {
		rec.RateUp = r.RateUp
		rec.GuaranteedUp = 0 // SADIS's guaranteed rate went with its peak rate
	}
	ps := d.pfcpSession(&rec)
	prof := rec.QosProfile
	mod := &pfcpcp.Mod{QosProfile: &prof, DownMBR: &ps.DownMBR, UpMBR: &ps.UpMBR, UpGBR: &ps.UpGBR,
		DownGBR: &ps.DownGBR,
		// a QER created now must be named by every PDR, the IPv6 ones too
		IPv6PDRs: rec.IPv6Installed, HasPD: rec.IPv6Installed && rec.DelegatedPrefix.IsValid(), NoIPv4: !rec.IPv4.IsValid() || rec.NoIPv4PDRs}
	if _, err := d.plane.Modify(ctx, rec.Instance, rec.UPSEID, rec.CPSEID, mod); err != nil {
		d.pfcpError("modification", err)
		return result(errCauseUnavailable)
	}
	d.m.pfcpRequests.WithLabelValues("modification", "ok").Inc()
	_, _ = onShard(ctx, s, func() bool {
		s.rec.QosProfile, s.rec.RateDown, s.rec.RateUp = rec.QosProfile, rec.RateDown, rec.RateUp
		s.rec.GuaranteedUp, s.rec.GuaranteedDown = rec.GuaranteedUp, rec.GuaranteedDown
		if !s.dead && s.state == stEstablished {
			// ONOS shows the session's profile and rates: tell it now, not at the next interim.
			d.reportSession(onos.EventUpdate, s, 0)
		}
		cp := s.rec
		go func() {
			if err := d.persist(&cp); err != nil {
				d.log.Error("session store write failed", "session", cp.ID, "err", err)
			}
		}()
		return true
	})
	d.log.Info("session changed by CoA", "session", rec.ID, "profile", rec.QosProfile,
		"rate_down", rec.RateDown, "rate_up", rec.RateUp)
	return result(0)
}
