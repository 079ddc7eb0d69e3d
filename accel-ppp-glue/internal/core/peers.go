package core

import (
	"encoding/binary"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
)

// The pfcpcp.Handler side of the daemon: events from the PFCP function.

// PeerUp is called when a DP instance is associated (again). A Recovery Time
// Stamp other than the one persisted means the instance restarted and came
// up empty: every session it served is installed again, at once, without
// the subscribers noticing. Sessions whose establishment was in flight when
// the CP stopped are settled too.
func (d *Daemon) PeerUp(inst uint32, rts time.Time, f pfcpcp.Features) {
	d.peerMu.Lock()
	p := d.peers[inst]
	if p == nil {
		d.peerMu.Unlock()
		return
	}
	p.up, p.features, p.since = true, f, time.Now()
	prevSeen := p.rts
	p.rts = rts
	d.peerMu.Unlock()
	name := d.instanceName(inst)
	d.m.instanceUp.WithLabelValues(name).Set(1)

	key := strconv.FormatUint(uint64(inst), 10)
	stored, found, err := d.db.Get(bucketPeers, key)
	if err != nil {
		d.log.Error("session store read failed", "err", err)
	}
	var prev uint32
	if found && len(stored) == 4 {
		prev = binary.BigEndian.Uint32(stored)
	}
	now := uint32(rts.Unix())
	restarted := !found || prev != now
	if !prevSeen.IsZero() && !prevSeen.Equal(rts) {
		restarted = true
	}
	if restarted {
		if err := d.db.Put(bucketPeers, key, binary.BigEndian.AppendUint32(nil, now)); err != nil {
			d.log.Error("session store write failed", "err", err)
		}
	}
	d.log.Info("DP instance associated", "instance", name, "recovery_time", rts.UTC().Format(time.RFC3339),
		"restarted", restarted && found, "lcp_offload", f.LCPOffload)
	if restarted && found {
		d.m.instanceRestart.WithLabelValues(name).Inc()
	}
	d.reportHealth(inst, true, "PFCP association up")
	go func() {
		// The line groups first: the sessions of an adopted group are
		// refused until the instance serves it.
		d.syncGroups(inst)
		d.resync(inst, restarted)
	}()
}

// PeerDown is called when a DP instance stops answering. Its sessions are
// kept: the instance may still forward, and if it restarted they are
// installed again when it is back.
func (d *Daemon) PeerDown(inst uint32) {
	d.peerMu.Lock()
	if p := d.peers[inst]; p != nil {
		p.up, p.since = false, time.Now()
	}
	d.peerMu.Unlock()
	d.m.instanceUp.WithLabelValues(d.instanceName(inst)).Set(0)
	d.log.Warn("DP instance unreachable", "instance", d.instanceName(inst))
	d.reportHealth(inst, false, "PFCP heartbeats lost or association failed")
}

// Usage is a usage report from a DP.
func (d *Daemon) Usage(inst uint32, cpSEID uint64, u pfcpcp.Usage) {
	if u.Trigger&pfcpcp.TriggerTERMR != 0 {
		return // a deletion's final report: finishTeardown counts it from the answer
	}
	s := d.lookupSEID(cpSEID)
	if s == nil {
		d.m.drops.WithLabelValues("usage_unknown_session").Inc()
		return
	}
	s.sh.post(func() { s.sh.usage(s, u) })
}

// LCPDead is the DP's report that the subscriber stopped answering LCP echoes
// (PPPoE) or ARP pings (IPoE): the session ends with Lost-Carrier.
func (d *Daemon) LCPDead(inst uint32, cpSEID uint64) {
	s := d.lookupSEID(cpSEID)
	if s == nil {
		d.m.drops.WithLabelValues("lcp_dead_unknown_session").Inc()
		return
	}
	why := "LCP echoes unanswered (DP report)"
	if s.ipoe != nil {
		why = "ARP pings unanswered (DP report)"
	}
	s.sh.post(func() { s.sh.teardown(s, causeLostCarrier, padtSend, why) })
}

func (d *Daemon) instanceName(id uint32) string {
	if in, ok := d.cfg.Instance(id); ok {
		return in.Name
	}
	return strconv.FormatUint(uint64(id), 10)
}

// resync installs the instance's sessions again after it restarted (all of
// them), or only those whose establishment was in flight at a CP restart.
// Establishment of the same CP SEID with the same content is idempotent at
// the DP, so a session it still has is answered with its existing UP SEID.
func (d *Daemon) resync(inst uint32, all bool) {
	todo := d.pickSessions(func(s *session) bool {
		return s.rec.Instance == inst && !s.dead && s.state == stEstablished && (all || !s.rec.Established)
	})
	if len(todo) == 0 {
		return
	}
	start := time.Now()
	var ok, failed atomic.Int64
	forEachJob(todo, func(j sessionJob) {
		up, err := d.establishPFCP(&j.rec)
		if err != nil {
			failed.Add(1)
		} else {
			ok.Add(1)
		}
		j.s.sh.post(func() { j.s.sh.resynced(j.s, up, err) })
	})
	d.m.repushed.Add(float64(ok.Load()))
	d.log.Info("sessions installed again", "instance", d.instanceName(inst), "sessions", ok.Load(),
		"failed", failed.Load(), "seconds", time.Since(start).Seconds())
}

func (sh *shard) resynced(s *session, up uint64, err error) {
	d := sh.d
	if s.dead {
		if err == nil {
			go func() { _, _ = d.plane.Delete(d.ctx, s.rec.Instance, up) }()
		}
		return
	}
	if err != nil {
		sh.teardown(s, causeNASError, padtSend, "could not install the session again: "+err.Error())
		return
	}
	firstStart := !s.rec.AcctStarted
	s.rec.UPSEID, s.rec.Established, s.rec.AcctStarted = up, true, true
	rec := s.rec
	go func() {
		if err := d.persist(&rec); err != nil {
			d.log.Error("session store write failed", "session", rec.ID, "err", err)
		}
	}()
	if firstStart {
		d.account(s, aaa.AcctStart, 0)
	}
}
