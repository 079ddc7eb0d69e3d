package core

import (
	"context"
	"hash/fnv"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pfcpcp"
)

// acctJob is one Accounting-Request. Jobs of one session go to the same
// worker, so Start, Interims and Stop leave in order.
type acctJob struct {
	req *aaa.AcctRequest
}

var acctStatusNames = map[aaa.AcctStatus]string{aaa.AcctStart: "start", aaa.AcctInterim: "interim", aaa.AcctStop: "stop"}

// account queues an Accounting-Request for the session (shard goroutine).
func (d *Daemon) account(s *session, status aaa.AcctStatus, cause int) {
	r := &s.rec
	req := &aaa.AcctRequest{
		Status: status, SessionID: r.ID, UserName: r.User,
		NASPortID: r.nasPort(), CallingStationID: callingStationID(r.MAC),
		FramedIP: r.activeIPv4(), Class: r.Class, CircuitID: r.CircuitID, RemoteID: r.RemoteID,
		IPoE: r.Kind == kindIPoE,
	}
	if status != aaa.AcctStart {
		req.SessionTime = time.Since(r.Started).Truncate(time.Second)
		req.InOctets, req.OutOctets = r.UpOctets, r.DownOctets
		req.InPackets, req.OutPackets = r.UpPackets, r.DownPackets
	}
	if status == aaa.AcctStop {
		req.TerminateCause = cause
	}
	req.IPv6 = d.acctIPv6(r)
	h := fnv.New32a()
	h.Write([]byte(r.ID))
	ch := d.acct[h.Sum32()%uint32(len(d.acct))]
	select {
	case ch <- acctJob{req: req}:
	default:
		d.m.acctRequests.WithLabelValues(acctStatusNames[status], "queue_full").Inc()
		d.blog.Warn("acct_queue_full", "accounting queue full: record dropped", "session", r.ID)
	}
}

func (d *Daemon) acctWorker(ch chan acctJob) {
	for j := range ch {
		name := acctStatusNames[j.req.Status]
		var err error
		// A Stop carries the session's final usage: try harder than for an Interim.
		attempts := 1
		if j.req.Status == aaa.AcctStop {
			attempts = 3
		}
		for i := 0; i < attempts; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			err = d.radius.Account(ctx, j.req)
			cancel()
			if err == nil {
				break
			}
		}
		if err != nil {
			d.m.acctRequests.WithLabelValues(name, "error").Inc()
			d.blog.Warn("acct_failed", "accounting request not answered by any server", "status", name,
				"session", j.req.SessionID, "err", err)
			continue
		}
		d.m.acctRequests.WithLabelValues(name, "ok").Inc()
	}
}

// usage adds a DP usage report to the session's totals, persists them, and
// sends an Interim once the session's interim interval has passed. The DP
// reports every interim interval (the session's URR Measurement Period), so
// each periodic report is an Interim.
func (sh *shard) usage(s *session, u pfcpcp.Usage) {
	d := sh.d
	if s.stopped {
		return // the Accounting-Stop has gone out with the totals
	}
	d.addUsage(&s.rec, u)
	if s.dead || s.state != stEstablished {
		return
	}
	rec := s.rec
	go func() {
		if err := d.persist(&rec); err != nil {
			d.log.Error("session store write failed", "session", rec.ID, "err", err)
		}
	}()
	if u.More {
		return // the Interim carries the whole period: the URRs that follow too
	}
	iv := time.Duration(s.rec.Interim) * time.Second
	if iv > 0 && time.Since(s.lastInterim) >= iv-d.urrPeriod(&s.rec)/2 {
		s.lastInterim = time.Now()
		d.account(s, aaa.AcctInterim, 0)
		d.reportSession(onos.EventUpdate, s, 0)
	}
}
