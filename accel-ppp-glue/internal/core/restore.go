package core

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

// sidAllocator hands out PPPoE session ids, unique per (access port, S-tag):
// wider than RFC 2516's (MAC pair, id) scope, so that the DP's session key
// and any instance a line group moves to never see two sessions with the
// same id on one line.
type sidAllocator struct {
	mu    sync.Mutex
	lines map[sidScope]*sidSet
}

type sidScope struct {
	port string
	stag uint16
}

type sidSet struct {
	bits   [65536 / 64]uint64
	cursor uint16
	used   int
}

func newSIDAllocator() *sidAllocator { return &sidAllocator{lines: make(map[sidScope]*sidSet)} }

func (a *sidAllocator) set(port string, stag uint16) *sidSet {
	k := sidScope{port, stag}
	s := a.lines[k]
	if s == nil {
		s = &sidSet{cursor: uint16(time.Now().UnixNano()%0xfffe) + 1}
		s.bits[0] |= 1          // 0 is not a session id
		s.bits[1023] |= 1 << 63 // nor is 0xffff
		a.lines[k] = s
	}
	return s
}

// alloc returns a free id in 1..0xfffe, going round from a cursor so a
// freed id is not reused at once.
func (a *sidAllocator) alloc(port string, stag uint16) (uint16, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.set(port, stag)
	if s.used >= 0xfffe {
		return 0, false
	}
	for i := 0; i < 65536; i++ {
		id := s.cursor
		s.cursor++
		if s.bits[id/64]&(1<<(id%64)) == 0 {
			s.bits[id/64] |= 1 << (id % 64)
			s.used++
			return id, true
		}
	}
	return 0, false
}

// reserve marks a persisted session's id as used.
func (a *sidAllocator) reserve(port string, stag, id uint16) bool {
	if id == 0 || id == 0xffff {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.set(port, stag)
	if s.bits[id/64]&(1<<(id%64)) != 0 {
		return false
	}
	s.bits[id/64] |= 1 << (id % 64)
	s.used++
	return true
}

func (a *sidAllocator) free(port string, stag, id uint16) {
	if id == 0 || id == 0xffff {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.lines[sidScope{port, stag}]
	if s == nil || s.bits[id/64]&(1<<(id%64)) == 0 {
		return
	}
	s.bits[id/64] &^= 1 << (id % 64)
	s.used--
}

// restore loads the persisted sessions: their addresses and session ids
// are taken again before anything new is handed out, and they live on
// without a PPP engine (LCP and IPCP are open at both ends, the DP answers
// the echoes). A record whose line is no longer in the configuration, or
// that cannot be decoded, is dropped with a log line.
func (d *Daemon) restore() error {
	var recs []record
	var bad []string
	err := d.db.ForEach(bucketSessions, func(k string, v []byte) error {
		var r record
		if err := json.Unmarshal(v, &r); err != nil || r.ID != k {
			bad = append(bad, k)
			return nil
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range bad {
		d.log.Error("undecodable session record dropped", "key", k)
		d.unpersist(k)
	}
	now := time.Now()
	for i := range recs {
		r := recs[i]
		drop := func(why string) {
			d.log.Error("persisted session dropped", "session", r.ID, "user", r.User, "why", why)
			d.unpersist(r.ID)
		}
		inst, ok := d.cfg.Instance(r.Instance)
		if !ok {
			drop("its DP instance is no longer configured")
			continue
		}
		line, ok := d.lineOf(r.AccessPort, r.STag, r.CTag, r.LineGroup)
		if !ok {
			drop("its line is no longer in that line group")
			continue
		}
		if srv := d.servingOf(r.LineGroup); srv != r.Instance {
			// Moved while the session was written, or placed elsewhere by
			// a cp.yaml edit: it is installed on the serving instance
			// after that instance's association (resync).
			d.log.Info("persisted session follows its line group", "session", r.ID, "instance", d.instanceName(srv))
			r.Instance, r.Established, r.UPSEID = srv, false, 0
			inst, _ = d.cfg.Instance(srv)
		}
		if _, ok := d.cfg.QosProfile(r.QosProfile); !ok {
			drop("its QoS profile is no longer configured")
			continue
		}
		if err := d.reserveIPv4(&r, line.Group.Name); err != nil {
			drop("its address cannot be reserved: " + err.Error())
			continue
		}
		if err := d.reserveIPv6(&r, line.Group.Name); err != nil {
			d.releaseIPv4(&r, line.Group.Name)
			drop("its IPv6 prefixes cannot be reserved: " + err.Error())
			continue
		}
		if r.Kind == kindIPoE {
			if !d.restoreIPoE(r, inst, line, now) {
				d.releaseIPv4(&r, line.Group.Name)
				d.releaseIPv6(&r, line.Group.Name)
				drop("a second IPoE session of the same MAC on the same line, or the line group no longer allows IPoE")
			}
			continue
		}
		if !d.sids.reserve(r.AccessPort, r.STag, r.PPPoESID) {
			d.releaseIPv4(&r, line.Group.Name)
			d.releaseIPv6(&r, line.Group.Name)
			drop("its PPPoE session id is taken twice")
			continue
		}
		lk := lineKey{port: r.AccessPort, stag: r.STag, ctag: r.CTag, mac: r.MAC}
		sh := d.shardFor(r.MAC)
		s := &session{
			sh: sh, key: sessKey{lk, r.PPPoESID}, state: stEstablished, inst: inst, line: line,
			group: line.Group, rec: r, lastInterim: now, restored: ppp.NewRestored(r.MagicTx),
		}
		if old := sh.byLine[lk]; old != nil {
			d.releaseIPv4(&r, line.Group.Name)
			d.releaseIPv6(&r, line.Group.Name)
			d.sids.free(r.AccessPort, r.STag, r.PPPoESID)
			drop("a second session of the same CPE on the same line")
			continue
		}
		sh.sessions[s.key] = s
		sh.byLine[lk] = s
		d.index(s, true)
		if r.Established && r.UPSEID != 0 {
			d.plane.Restore(r.Instance, r.CPSEID, r.UPSEID) // so the DP's reports find it
		}
		d.m.sessions.WithLabelValues(stEstablished.String()).Inc()
	}
	return nil
}

// reserveIPv4 takes a restored session's address again (an IPv6-only
// session has none).
func (d *Daemon) reserveIPv4(r *record, group string) error {
	if !r.IPv4.IsValid() {
		return nil
	}
	return d.pools[group].Reserve(r.IPv4)
}

func (d *Daemon) releaseIPv4(r *record, group string) {
	if r.IPv4.IsValid() {
		d.pools[group].Release(r.IPv4)
	}
}
