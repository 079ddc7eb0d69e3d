package core

import (
	"context"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
)

// The ONOS side of the daemon (docs/cp/onos.md): session events, the full
// snapshot for a resync, instance health, and placement.

// startONOS creates the ONOS client when cp.yaml has an onos section.
func (d *Daemon) startONOS() error {
	o := d.cfg.ONOS
	if o == nil {
		return nil
	}
	c, err := onos.New(onos.Config{
		URL: o.URL, Username: o.Username, Password: string(o.Password), CPName: o.CPName,
		PollInterval: o.PollInterval, PlacementWait: o.PlacementWait, Timeout: o.Timeout,
		Logger:     d.log.With("component", "onos"),
		Registerer: d.m.reg, Snapshot: d.onosSnapshot, OnPlacement: d.applyPlacement,
	})
	if err != nil {
		return err
	}
	// the SEBA app's subscribers table and teardown requests, when it is installed (seba.go)
	c.NewSubscribers(0, d.m.reg).OnTeardown = d.sebaTeardown
	d.onos = c
	return nil
}

// onosSession is a session as ONOS gets it (shard goroutine, or a copy).
func (d *Daemon) onosSession(r *record) onos.Session {
	s := onos.Session{
		ID: r.ID, LineGroup: r.LineGroup, Instance: r.Instance, AccessPort: r.AccessPort,
		STag: r.STag, CTag: r.CTag, PPPoEID: r.PPPoESID, MAC: macString(r.MAC),
		Username: r.User, QosProfile: r.QosProfile, DownRate: r.RateDown, UpRate: r.RateUp, Since: r.Started.UTC(),
		Usage: onos.Usage{UpBytes: r.UpOctets, DownBytes: r.DownOctets, UpPackets: r.UpPackets, DownPackets: r.DownPackets,
			UpDropPackets: r.UpDropped, DownDropPackets: r.DownDropped,
			UpDropBytes: r.UpDroppedOctets, DownDropBytes: r.DownDroppedOctets, ControlPackets: r.CtrlPackets},
	}
	if !r.UsageAt.IsZero() {
		at := r.UsageAt.UTC()
		s.Usage.At = &at
	}
	// No address yet: leave the optional field out. The zero netip.Addr
	// prints "invalid IP", which ONOS refuses, and with it the whole batch
	// and every resync after it.
	if a := r.activeIPv4(); a.IsValid() {
		s.IPv4 = a.String()
	}
	if r.activeIPv6() {
		s.IPv6Prefix = r.IPv6Prefix.String()
		if r.DHCP6.PDBound {
			s.DelegatedPrefix = r.DelegatedPrefix.String()
		}
		if r.DHCP6.NABound {
			s.IPv6Address = r.IPv6Address.String()
		}
		s.Usage.V6UpBytes, s.Usage.V6DownBytes = r.V6UpOctets, r.V6DownOctets
		s.Usage.V6UpPackets, s.Usage.V6DownPackets = r.V6UpPackets, r.V6DownPackets
	}
	return s
}

// reportSession queues a session event for ONOS (shard goroutine); it never
// blocks. cause is the Acct-Terminate-Cause of a "down".
func (d *Daemon) reportSession(kind string, s *session, cause int) {
	if d.onos == nil {
		return
	}
	ev := onos.Event{Event: kind, Session: d.onosSession(&s.rec)}
	if kind == onos.EventDown {
		ev.Session.Cause = causeName(cause)
	}
	d.onos.Report(ev)
}

// onosSnapshot is every established session, for PUT /sessions.
func (d *Daemon) onosSnapshot(ctx context.Context) ([]onos.Session, error) {
	out := make(chan []onos.Session, len(d.shards))
	for _, sh := range d.shards {
		sh := sh
		sh.post(func() {
			var vs []onos.Session
			for _, s := range sh.sessions {
				if !s.dead && s.state == stEstablished {
					vs = append(vs, d.onosSession(&s.rec))
				}
			}
			out <- vs
		})
	}
	var all []onos.Session
	for range d.shards {
		select {
		case vs := <-out:
			all = append(all, vs...)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return all, nil
}

func (d *Daemon) reportHealth(inst uint32, alive bool, reason string) {
	if d.onos != nil {
		d.onos.Health(inst, alive, reason)
	}
}
