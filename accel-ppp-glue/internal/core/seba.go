package core

import (
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
)

// Subscriber identities and rates from SEBA (docs/cp/onos.md, "Subscriber
// identities from SEBA"; docs/seba.md): the ONOS client keeps a local copy
// of the SEBA app's table, looked up here without waiting for ONOS.
//
// Precedence per field: a SADIS value the app gives wins over the TR-101
// tag of the PADR (SADIS is the operator's provisioning; the tag arrives
// from the access network, and SEBA's own PPPoE agent writes it from the
// same SADIS entry); where SADIS gives "" the tag's value is kept. A tag
// that disagrees with SADIS is counted (bngcp_onos_subscriber_conflicts_total)
// and logged.

// applySubscriber puts the SEBA identity of the session's line into its
// record (shard goroutine, at PADR, after the TR-101 tag's values).
func (d *Daemon) applySubscriber(r *record) {
	if d.onos == nil || d.onos.Subscribers() == nil {
		return
	}
	subs := d.onos.Subscribers()
	sub, ok := subs.Lookup(r.AccessPort, r.STag, r.CTag)
	if !ok {
		return
	}
	take := func(field string, have *string, sadis string) {
		if sadis == "" {
			return
		}
		if *have != "" && *have != sadis {
			subs.Conflict(field)
			d.blog.Warn("identity_conflict", "the PADR's TR-101 tag and SADIS disagree: SADIS's value used",
				"field", field, "tag", *have, "sadis", sadis, "port", r.AccessPort, "stag", r.STag, "ctag", r.CTag)
		}
		*have = sadis
	}
	take("circuit_id", &r.CircuitID, sub.CircuitID)
	take("remote_id", &r.RemoteID, sub.RemoteID)
	r.NASPortID = sub.NASPortID
}

// provisioned is strict admission (cp.yaml onos.seba_strict; docs/cp/onos.md,
// "Strict admission"): whether a PADI or PADR from this line may start a
// session. Without strict mode every line may. With it, only a line the SEBA
// app's table maps; before the first table is read none (the CP does not
// know yet whom SADIS provisions: it fails closed). A refused frame is
// counted (bngcp_frames_dropped_total{reason}) and dropped before any state
// of the line is made: no rate bucket, cookie or session.
func (d *Daemon) provisioned(lk lineKey) (bool, string) {
	if d.onos == nil || d.cfg == nil || d.cfg.ONOS == nil || !d.cfg.ONOS.SebaStrict {
		return true, ""
	}
	subs := d.onos.Subscribers()
	if subs == nil || !subs.Loaded() {
		return false, "seba_no_table"
	}
	if _, ok := subs.Lookup(lk.port, lk.stag, lk.ctag); !ok {
		return false, "seba_not_provisioned"
	}
	return true, ""
}

// subscriberRates makes the SADIS bandwidth profiles the session's rates
// where the Access-Accept gave none: an Access-Accept with a Filter-Id (a
// QoS profile) or explicit rates says otherwise, as a CoA does later
// (dynauth.go).
//
// What reaches the DP (PFCP QER, pfcpSession): downstream the peak rate
// (MBR DL: the HQoS pipe's rate); upstream the peak rate (MBR UL: the trTCM
// policer's PIR) and the guaranteed rate cir+gir (GBR UL: its CIR); the
// downstream guaranteed rate cir+gir as GBR DL, which does not shape: the DP
// sums it per port as its weight when instances share a port's rate
// (docs/dp/hqos.md, "Sharing an access port across instances"). No burst is
// applied: the QER carries none, the DP sizes its buckets from the rates (the
// policer's from 20 ms of CIR/PIR, at least 32 KiB; the HQoS pipe's from the
// QoS profile's tb_ms).
func (d *Daemon) subscriberRates(r *record, res *aaa.AccessResult) {
	if res.FilterID != "" || d.onos == nil || d.onos.Subscribers() == nil {
		return
	}
	sub, ok := d.onos.Subscribers().Lookup(r.AccessPort, r.STag, r.CTag)
	if !ok {
		return
	}
	if r.RateDown == 0 && sub.Down != nil {
		r.RateDown = sub.Down.Rate
		if g := sub.Down.Guaranteed; g <= sub.Down.Rate {
			r.GuaranteedDown = g
		}
	}
	if r.RateUp == 0 && sub.Up != nil {
		r.RateUp = sub.Up.Rate
		if g := sub.Up.Guaranteed; g <= sub.Up.Rate {
			r.GuaranteedUp = g // 0 (cir and gir 0): the QoS profile's CIR, as for a RADIUS rate
		}
	}
}

// sebaEvent reports a PPPoE step of a line SEBA maps for bng.pppoe (shard
// goroutine; never waits: onos/pppoe_events.go). SESSION_CONFIRMATION,
// IPCP_CONF_ACK and SESSION_TERMINATION come from the session reports.
func (d *Daemon) sebaEvent(typ string, lk lineKey, sid uint16) {
	if d.onos == nil || d.onos.Subscribers() == nil {
		return
	}
	d.onos.Subscribers().Report(onos.PppoeEvent{Type: typ, AccessPort: lk.port, STag: lk.stag, CTag: lk.ctag,
		MAC: macString(lk.mac), PPPoEID: sid})
}

// nasPort is the session's NAS-Port-Id: the SADIS nasPortId when SEBA gives
// one, else "<access port>:<S-tag>.<C-tag>".
func (r *record) nasPort() string {
	if r.NASPortID != "" {
		return r.NASPortID
	}
	return nasPortID(r.AccessPort, r.STag, r.CTag)
}

// sebaTeardown ends the sessions of a line the SEBA app asks to end (its UNI
// stayed removed for the hold-down: Lost-Carrier; its subscriber was removed
// from provisioning: Admin-Reset), as a lost carrier or a Disconnect does:
// PADT (Admin-Reset: after an LCP Terminate-Request; a lost carrier's
// subscriber is gone, closing.go), PFCP deletion, Accounting-Stop with that
// cause. Only sessions whose PADR came before the request end: a line that came back and dialled again keeps its new session.
// Called on the ONOS poller's goroutine; the work is posted to the shards.
func (d *Daemon) sebaTeardown(t onos.Teardown) {
	cause := causeLostCarrier
	if t.Cause == onos.CauseAdminReset {
		cause = causeAdminReset
	}
	why := "SEBA: " + t.Cause + " of UNI " + t.UNI
	for _, sh := range d.shards {
		sh := sh
		sh.post(func() {
			for _, s := range sh.sessions {
				if s.dead || s.rec.AccessPort != t.AccessPort || s.rec.STag != t.STag || s.rec.CTag != t.CTag {
					continue
				}
				since := s.padrAt // exact; a session restored after a CP restart has its start (whole seconds)
				if since.IsZero() {
					since = s.rec.Started
				}
				if !since.Before(t.At) {
					continue
				}
				d.log.Info("session ended at the SEBA app's request", "session", s.rec.ID, "cause", t.Cause,
					"uni", t.UNI, "port", t.AccessPort, "stag", t.STag, "ctag", t.CTag)
				sh.teardown(s, cause, padtSend, why)
			}
		})
	}
}
