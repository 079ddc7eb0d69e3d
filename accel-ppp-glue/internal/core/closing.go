package core

import (
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

// The end of a PPPoE session. LCP ends first (RFC 1661 3.7: Terminate-Request,
// Terminate-Ack), then the PADT ends the PPPoE session (RFC 2516 5.5). The
// two must not leave together: on the way to the subscriber a switch may
// deliver the PADT first (the emulated pod's OVS did in 98 of 100
// hang-ups), and a CPE that takes the PADT as the end of the session never
// sees the Terminate exchange finish. So the PADT waits:
//
//   - The subscriber sent Terminate-Request: we acknowledge, and its own
//     PADT (which a CPE sends once it has the Ack) ends the PPPoE session;
//     we send ours only when none came within --terminate-wait. RFC 1661
//     has the acknowledging end wait a restart period (Stopping) for the
//     peer to bring the lower layer down; the wait is shorter, because every
//     second of it holds the session's address and its Accounting-Stop.
//   - The BNG ends a live link (operator, Disconnect-Request,
//     Session-Timeout, a failed installation): Terminate-Request, and the
//     PADT once the Terminate-Ack came, or after --terminate-wait.
//
// Meanwhile the session stays in the shard's session table (its PADT and
// Terminate frames find it), out of the line's (the CPE can dial again at
// once). The PFCP deletion, the Accounting-Stop and the release of the
// address and the session id follow the end of the PPPoE session, in that
// order, as for any teardown. The waits are a FIFO on the shard, worked off
// by its timer tick: no goroutine and no timer per session, so a hang-up
// storm of thousands of sessions costs a slice entry each.

// padtMode says how a teardown ends the PPPoE session.
type padtMode uint8

const (
	padtNone      padtMode = iota // the subscriber ended it (its PADT), or dials again (a new PADR)
	padtSend                      // the CP sends the PADT (after its own Terminate-Request, if it ends a live link)
	padtAfterPeer                 // the subscriber's Terminate-Request was acked: its PADT ends it, else ours after the wait
)

// closeWait is what a session whose LCP is ending waits for.
type closeWait uint8

const (
	waitNone    closeWait = iota
	waitPADT              // the subscriber's PADT, after our Terminate-Ack
	waitTermAck           // the subscriber's Terminate-Ack of our Terminate-Request
)

// bngTermReqID is the Identifier of the CP's own Terminate-Request.
const bngTermReqID = 0xfe

// bngEndsLink reports whether a teardown for cause ends a link the
// subscriber still runs, so LCP is terminated before the PADT.
func bngEndsLink(cause int) bool {
	switch cause {
	case causeAdminReset, causeSessionTimout, causeNASError, causeNASRequest:
		return true
	}
	return false
}

// closeQueue holds the sessions waiting to end their PPPoE session, in the
// order they started waiting: with one wait for all, that is deadline order.
// Sessions that ended early stay in it until their deadline and are skipped.
type closeQueue struct {
	q    []*session
	head int
}

func (cq *closeQueue) push(s *session) { cq.q = append(cq.q, s) }

func (cq *closeQueue) len() int { return len(cq.q) - cq.head }

// expire calls fn for every session still waiting whose deadline is not
// after now.
func (cq *closeQueue) expire(now time.Time, fn func(*session)) {
	for cq.head < len(cq.q) {
		s := cq.q[cq.head]
		if s.closeWait != waitNone && now.Before(s.closeAt) {
			break
		}
		cq.q[cq.head] = nil
		cq.head++
		if s.closeWait != waitNone {
			fn(s)
		}
	}
	if cq.head == len(cq.q) {
		cq.q, cq.head = cq.q[:0], 0
	} else if cq.head > 1024 && cq.head*2 > len(cq.q) {
		n := copy(cq.q, cq.q[cq.head:])
		clear(cq.q[n:])
		cq.q, cq.head = cq.q[:n], 0
	}
}

// awaitClose lets the PPPoE session of a torn-down session end on the
// subscriber's answer, or after the terminate wait.
func (sh *shard) awaitClose(s *session, w closeWait) {
	wait := sh.d.opt.TerminateWait
	if wait <= 0 {
		sh.sendPADT(s.inst, s.line, s.key.line, s.key.sid, "")
		sh.pppoeClosed(s)
		return
	}
	s.closeWait, s.closeAt = w, time.Now().Add(wait)
	sh.closing.push(s)
}

// closeTimeout: the subscriber did not answer in time; the PADT ends the
// PPPoE session (RFC 2516: whether or not LCP finished).
func (sh *shard) closeTimeout(s *session) {
	s.closeWait = waitNone
	sh.sendPADT(s.inst, s.line, s.key.line, s.key.sid, "")
	sh.pppoeClosed(s)
}

// closingIn handles a PPP frame of a session whose LCP is ending.
func (sh *shard) closingIn(s *session, proto uint16, data []byte) {
	if s.closeWait == waitNone || proto != ppp.ProtoLCP || len(data) < 4 {
		return
	}
	switch data[0] {
	case ppp.CodeTermReq:
		// Our Terminate-Ack was lost, or both ends terminate at once:
		// acknowledged again (RFC 1661: Closing and Stopping answer RTR with sta).
		sh.sendPPP(s, ppp.ProtoLCP, []byte{ppp.CodeTermAck, data[1], 0, 4})
	case ppp.CodeTermAck:
		if s.closeWait == waitTermAck && data[1] == bngTermReqID {
			s.closeWait = waitNone
			sh.sendPADT(s.inst, s.line, s.key.line, s.key.sid, "")
			sh.pppoeClosed(s)
		}
	}
}

// closingPADT: the subscriber's PADT for a session that is waiting for it (or
// for a Terminate-Ack: the PADT ends the PPPoE session all the same).
func (sh *shard) closingPADT(s *session) {
	s.closeWait = waitNone
	sh.pppoeClosed(s)
}

// pppoeClosed: the PPPoE session is over. The session leaves the shard's
// table, then the DP's and RADIUS's bookkeeping follows off the shard.
func (sh *shard) pppoeClosed(s *session) {
	if sh.sessions[s.key] == s {
		delete(sh.sessions, s.key)
	}
	switch s.endFrom {
	case stEstablished:
		sh.finishTeardown(s, s.rec.UPSEID, s.cause)
	case stEstablishing:
		// established() finishes once the DP has answered.
	default:
		sh.release(s)
	}
}
