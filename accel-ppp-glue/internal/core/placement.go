package core

import (
	"context"
	"encoding/binary"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
)

// Line-group placement (docs/cp/onos.md). Which DP instance serves a line
// group starts as the group's stated instance in cp.yaml and changes when
// ONOS moves the group: the instance adopts it (Association Update with the
// bngpod Line Group IE), its sessions are installed there again with the
// same PPPoE session, address and accounting, and the old instance releases
// it. The serving instance is persisted so that a CP restart keeps it.

const bucketGroups = "groups"

// placement is the serving instance of every line group.
type placement struct {
	mu      sync.RWMutex
	serving map[string]uint32 // group -> instance id
	// release owed to an instance that was not associated when a group
	// moved away from it: sent after its next association.
	owed map[uint32]map[string]bool
}

// initPlacement starts from the stated placement, overridden by what a
// previous run persisted.
func (d *Daemon) initPlacement() error {
	d.place.serving = make(map[string]uint32, len(d.cfg.LineGroups))
	d.place.owed = make(map[uint32]map[string]bool)
	for _, g := range d.cfg.LineGroups {
		d.place.serving[g.Name] = g.Instance.ID
	}
	return d.db.ForEach(bucketGroups, func(k string, v []byte) error {
		g, ok := d.cfg.LineGroup(k)
		if !ok || len(v) != 4 {
			d.log.Warn("persisted placement of an unknown line group dropped", "line_group", k)
			return nil
		}
		id := binary.BigEndian.Uint32(v)
		if _, ok := d.cfg.Instance(id); !ok {
			d.log.Warn("persisted placement on an unknown instance dropped", "line_group", k, "instance", id)
			return nil
		}
		d.place.serving[g.Name] = id
		if id != g.Instance.ID {
			d.log.Info("line group served by a moved-to instance (persisted)", "line_group", k, "instance", d.instanceName(id))
		}
		return nil
	})
}

// servingOf returns the instance serving group name.
func (d *Daemon) servingOf(name string) uint32 {
	d.place.mu.RLock()
	defer d.place.mu.RUnlock()
	return d.place.serving[name]
}

func (d *Daemon) setServing(name string, inst uint32) {
	d.place.mu.Lock()
	d.place.serving[name] = inst
	d.place.mu.Unlock()
	if err := d.db.Put(bucketGroups, name, binary.BigEndian.AppendUint32(nil, inst)); err != nil {
		d.log.Error("session store write failed", "err", err)
	}
	d.m.groupInstance.WithLabelValues(name).Set(float64(inst))
}

// lineFor finds the line of a control frame redirected by inst: a line of a
// group inst serves now, its own (stated) lines first.
func (d *Daemon) lineFor(inst *config.Instance, stag, ctag uint16) (*config.Line, *config.AccessPort, bool) {
	if l, p, ok := inst.LineFor(stag, ctag); ok && d.servingOf(l.Group.Name) == inst.ID {
		return l, p, true
	}
	for _, other := range d.cfg.Instances {
		if other == inst {
			continue
		}
		if l, p, ok := other.LineFor(stag, ctag); ok && d.servingOf(l.Group.Name) == inst.ID {
			return l, p, true
		}
	}
	return nil, nil, false
}

// lineOf finds a persisted session's line in the configuration, whichever
// instance states it.
func (d *Daemon) lineOf(port string, stag, ctag uint16, group string) (*config.Line, bool) {
	for _, in := range d.cfg.Instances {
		if l, p, ok := in.LineFor(stag, ctag); ok && p.Name == port && l.Group.Name == group {
			return l, true
		}
	}
	return nil, false
}

func groupIE(g *config.LineGroup, action pfcpcp.GroupAction) *pfcpcp.LineGroup {
	lg := &pfcpcp.LineGroup{Action: action, CoreAddress: g.CoreAddress, Name: g.Name, CoreAddress6: g.CoreAddress6}
	copy(lg.ACMAC[:], g.ACMAC)
	copy(lg.CoreMAC[:], g.CoreMAC)
	return lg
}

// groupCall sends an adopt or a release and counts it.
func (d *Daemon) groupCall(inst uint32, g *config.LineGroup, action pfcpcp.GroupAction) error {
	ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
	defer cancel()
	err := d.plane.UpdateLineGroup(ctx, inst, groupIE(g, action))
	if err != nil {
		d.pfcpError("association_update", err)
		d.m.groupCalls.WithLabelValues(action.String(), "error").Inc()
		d.log.Warn("line group "+action.String()+" refused or unanswered", "line_group", g.Name,
			"instance", d.instanceName(inst), "err", err)
		return err
	}
	d.m.pfcpRequests.WithLabelValues("association_update", "ok").Inc()
	d.m.groupCalls.WithLabelValues(action.String(), "ok").Inc()
	done := map[pfcpcp.GroupAction]string{pfcpcp.GroupAdopt: "adopted", pfcpcp.GroupRelease: "released"}[action]
	d.log.Info("line group "+done, "line_group", g.Name, "instance", d.instanceName(inst))
	return nil
}

// syncGroups runs after every (re-)association of inst, before its
// sessions are installed again: it adopts the groups inst serves that its
// INI does not state, and releases the groups stated for it (or owed a
// release) that another instance serves now.
func (d *Daemon) syncGroups(inst uint32) {
	d.place.mu.RLock()
	var adopt, release []*config.LineGroup
	for _, g := range d.cfg.LineGroups {
		s := d.place.serving[g.Name]
		switch {
		case s == inst && g.Instance.ID != inst:
			adopt = append(adopt, g)
		case s != inst && (g.Instance.ID == inst || d.place.owed[inst][g.Name]):
			release = append(release, g)
		}
	}
	d.place.mu.RUnlock()
	for _, g := range adopt {
		_ = d.groupCall(inst, g, pfcpcp.GroupAdopt)
	}
	for _, g := range release {
		if d.groupCall(inst, g, pfcpcp.GroupRelease) == nil {
			d.place.mu.Lock()
			delete(d.place.owed[inst], g.Name)
			d.place.mu.Unlock()
		}
	}
}

func (d *Daemon) associated(inst uint32) bool {
	d.peerMu.Lock()
	defer d.peerMu.Unlock()
	p := d.peers[inst]
	return p != nil && p.up
}

// applyPlacement moves every group whose placed instance is not the one
// serving it (ONOS poller goroutine: one placement at a time).
func (d *Daemon) applyPlacement(p *onos.Placement) {
	retry := false
	for _, gp := range p.Groups {
		g, ok := d.cfg.LineGroup(gp.LineGroup)
		if !ok {
			d.blog.Warn("onos_unknown_group", "ONOS places a line group this CP does not know", "line_group", gp.LineGroup)
			continue
		}
		if !gp.Placed {
			d.blog.Warn("onos_unplaced", "ONOS has no instance for a line group; it stays where it is",
				"line_group", g.Name, "reason", gp.Reason)
			continue
		}
		to := gp.Instance
		if _, ok := d.cfg.Instance(to); !ok {
			d.blog.Warn("onos_unknown_instance", "ONOS places a line group on an instance this CP does not know",
				"line_group", g.Name, "instance", to)
			continue
		}
		if d.servingOf(g.Name) == to {
			continue
		}
		if err := d.moveGroup(g, to, gp.Reason); err != nil {
			retry = true
		}
	}
	if retry && d.onos != nil {
		d.onos.ReapplyPlacement()
	}
}

var errNotAssociated = errors.New("the new instance is not associated")

// moveGroup moves line group g to instance to.
func (d *Daemon) moveGroup(g *config.LineGroup, to uint32, reason string) error {
	d.moveMu.Lock()
	defer d.moveMu.Unlock()
	from := d.servingOf(g.Name)
	if from == to {
		return nil
	}
	start := time.Now()
	log := d.log.With("line_group", g.Name, "from", d.instanceName(from), "to", d.instanceName(to))
	log.Info("moving line group", "reason", reason)
	if !d.associated(to) {
		d.m.groupMoves.WithLabelValues("failed").Inc()
		log.Warn("line group move postponed", "err", errNotAssociated)
		return errNotAssociated
	}
	if err := d.groupCall(to, g, pfcpcp.GroupAdopt); err != nil {
		d.m.groupMoves.WithLabelValues("failed").Inc()
		return err
	}
	// From here on the group's frames are taken from the new instance only.
	d.setServing(g.Name, to)

	moved := d.moveSessions(g.Name, from, to)
	if d.associated(from) {
		for _, m := range moved {
			d.deleteMoved(from, m)
		}
		if d.groupCall(from, g, pfcpcp.GroupRelease) != nil {
			d.owe(from, g.Name)
		}
	} else {
		for _, m := range moved {
			d.plane.Forget(from, m.cpSEID)
		}
		d.owe(from, g.Name) // sent after its next association
	}
	d.m.groupMoves.WithLabelValues("ok").Inc()
	log.Info("line group moved", "sessions", len(moved), "seconds", time.Since(start).Seconds())
	return nil
}

func (d *Daemon) owe(inst uint32, group string) {
	d.place.mu.Lock()
	if d.place.owed[inst] == nil {
		d.place.owed[inst] = make(map[string]bool)
	}
	d.place.owed[inst][group] = true
	d.place.mu.Unlock()
}

// movedSession is a session installed on the new instance; its old UP SEID
// is deleted at the old one.
type movedSession struct {
	s      *session
	cpSEID uint64
	oldUP  uint64
}

// moveSessions installs every session of group on instance to and points
// the sessions there. Sessions still negotiating follow the group (their
// frames go to the new instance); sessions being installed are moved
// once established (established() checks).
func (d *Daemon) moveSessions(group string, from, to uint32) []movedSession {
	toInst, _ := d.cfg.Instance(to)
	todo := d.pickSessions(func(s *session) bool {
		if s.dead || s.rec.LineGroup != group {
			return false
		}
		switch s.state {
		case stEstablished:
			return s.rec.Instance != to
		case stNegotiating, stAuthorizing:
			s.inst, s.rec.Instance = toInst, to
		}
		return false
	})
	var out []movedSession
	var outMu sync.Mutex
	forEachJob(todo, func(j sessionJob) {
		if m, ok := d.moveSession(j.s, j.rec, to); ok {
			outMu.Lock()
			out = append(out, m)
			outMu.Unlock()
		}
	})
	return out
}

// moveSession installs one established session on instance to (same CP
// SEID, PPPoE session, MAC, address, profile, rates, LCP magic numbers) and
// points the session there; the usage totals carry on in the record.
func (d *Daemon) moveSession(s *session, rec record, to uint32) (movedSession, bool) {
	oldUP := rec.UPSEID
	rec.Instance = to
	up, err := d.establishPFCP(&rec)
	done := make(chan bool, 1)
	s.sh.post(func() {
		if s.dead {
			if err == nil {
				go func() { _, _ = d.plane.Delete(d.ctx, to, up) }()
			}
			done <- false
			return
		}
		if err != nil {
			d.m.sessionMoves.WithLabelValues("failed").Inc()
			s.sh.teardown(s, causeNASError, padtSend, "could not install the session on the line group's new instance: "+err.Error())
			done <- false
			return
		}
		toInst, _ := d.cfg.Instance(to)
		s.inst, s.rec.Instance, s.rec.UPSEID = toInst, to, up
		r := s.rec
		go func() {
			if err := d.persist(&r); err != nil {
				d.log.Error("session store write failed", "session", r.ID, "err", err)
			}
		}()
		d.m.sessionMoves.WithLabelValues("ok").Inc()
		d.reportSession(onos.EventUpdate, s, 0)
		done <- true
	})
	if !<-done {
		return movedSession{}, false
	}
	return movedSession{s: s, cpSEID: rec.CPSEID, oldUP: oldUP}, true
}

// deleteMoved removes a moved session from its old instance; the usage the
// old instance counted since its last report is added to the totals.
func (d *Daemon) deleteMoved(from uint32, m movedSession) {
	if m.oldUP == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
	usage, err := d.plane.Delete(ctx, from, m.oldUP)
	cancel()
	if err != nil {
		d.pfcpError("deletion", err)
		d.plane.Forget(from, m.cpSEID)
		return
	}
	d.m.pfcpRequests.WithLabelValues("deletion", "ok").Inc()
	s := m.s
	s.sh.post(func() {
		for _, u := range usage {
			if u.Trigger&pfcpcp.TriggerTERMR != 0 {
				d.addUsage(&s.rec, u)
			}
		}
	})
}

// groupViews is the management API's view of the placement.
func (d *Daemon) groupViews() []groupView {
	counts := map[string]int{}
	d.idxMu.RLock()
	for _, s := range d.bySEID {
		counts[s.rec.LineGroup]++
	}
	d.idxMu.RUnlock()
	var out []groupView
	for _, g := range d.cfg.LineGroups {
		out = append(out, groupView{name: g.Name, stated: g.Instance.ID, serving: d.servingOf(g.Name), sessions: counts[g.Name]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

type groupView struct {
	name            string
	stated, serving uint32
	sessions        int
}
