package core

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
)

// The order of frames a subscriber sees. A switch may deliver the CP's
// first session frame ahead of its PADS (the emulated pod's OVS did, for 94
// of 100 cold dials), and its PADT ahead of its Terminate-Ack (98 of 100
// hang-ups); a strict CPE drops session frames before the PADS and takes a
// PADT as the end of the session. So the CP speaks first in a session only
// when the CPE is known to have the PADS (its own LCP frame came), or after a
// short start delay; it sends its first Configure-Request again soon, not
// after one 3 s restart period; and the PADT follows the Terminate exchange
// instead of leaving with it.

// The CP sends nothing in a new session until the client's first LCP frame
// (the client has the PADS then), and then its Configure-Request at once.
func TestLCPWaitsForTheClientsFirstFrame(t *testing.T) {
	p := newTestPod(t, nil, nil)
	c := p.client(1)
	c.discover()
	p.quiet("after the PADS, before the client's first LCP frame", 60*time.Millisecond)
	t0 := time.Now()
	c.negotiate() // the client's Configure-Request first; the CP's must follow it
	if took := time.Since(t0); took > time.Second {
		t.Fatalf("negotiation took %v", took)
	}
	c.established()
}

// A client that waits for the CP to speak first gets the CP's
// Configure-Request after the start delay (default 100 ms), not with the PADS.
func TestLCPStartsAfterTheStartDelay(t *testing.T) {
	p := newTestPod(t, nil, nil)
	c := p.client(1)
	pads := c.discover()
	r := p.expect("the CP's Configure-Request", time.Second, func(r rxFrame) bool {
		return r.is(ppp.ProtoLCP, ppp.CodeConfReq)
	})
	if after := r.at.Sub(pads.at); after < 90*time.Millisecond || after > 500*time.Millisecond {
		t.Fatalf("the CP's Configure-Request came %v after the PADS, want the start delay (100 ms)", after)
	}
	p.send(c.cpFrame(ppp.ProtoLCP, ppp.CodeConfAck, r.id, r.body))
	c.lcpAcked = true
	c.negotiate()
	c.established()
}

// A client that dropped the CP's first Configure-Request (it came before the
// PADS) and says nothing gets it again within half a second, then after
// 1 s, 2 s: not after the 3 s restart period.
func TestFirstConfigureRequestIsRetransmittedSoon(t *testing.T) {
	p := newTestPod(t, nil, nil)
	c := p.client(1)
	pads := c.discover()
	var reqs []rxFrame
	deadline := pads.at.Add(2500 * time.Millisecond)
	for {
		r, ok := p.recv(time.Until(deadline))
		if !ok {
			break
		}
		if !r.is(ppp.ProtoLCP, ppp.CodeConfReq) {
			t.Fatalf("got %v, want Configure-Requests", r)
		}
		reqs = append(reqs, r)
	}
	if len(reqs) < 3 {
		t.Fatalf("%d Configure-Requests in the first 2.5 s after the PADS, want 3 (at about 0.1, 0.6, 1.6 s)", len(reqs))
	}
	for i, want := range []time.Duration{500 * time.Millisecond, time.Second} {
		gap := reqs[i+1].at.Sub(reqs[i].at)
		if gap < want-60*time.Millisecond || gap > want+300*time.Millisecond {
			t.Errorf("retransmission %d after %v, want %v", i+1, gap, want)
		}
		if string(reqs[i+1].body) != string(reqs[0].body) {
			t.Errorf("retransmission %d changed the options: %x, was %x", i+1, reqs[i+1].body, reqs[0].body)
		}
	}
	// Answered late, it still comes up.
	p.send(c.cpFrame(ppp.ProtoLCP, ppp.CodeConfAck, reqs[len(reqs)-1].id, reqs[len(reqs)-1].body))
	c.lcpAcked = true
	c.negotiate()
	c.established()
}

// checkEnd checks the end of a session in the log: the PFCP deletion after
// padts PADTs had gone out, then the Accounting-Stop with cause; the address
// back in the pool; the session gone from the management API.
func checkEnd(t *testing.T, p *testPod, id string, padts, cause int) {
	t.Helper()
	p.waitFor("Accounting-Stop", 3*time.Second, func() bool {
		return slices.ContainsFunc(p.log.snapshot(), func(e string) bool { return strings.HasPrefix(e, "stop "+id) })
	})
	p.waitFor("the address back in the pool", time.Second, func() bool { return p.poolUsed() == 0 })
	var del, stop int = -1, -1
	for i, e := range p.log.snapshot() {
		switch {
		case strings.HasPrefix(e, "delete "):
			del = i
			if want := fmt.Sprintf("after %d padt", padts); !strings.HasSuffix(e, want) {
				t.Errorf("PFCP deletion %q, want it %s", e, want)
			}
		case strings.HasPrefix(e, "stop "+id):
			stop = i
			if want := fmt.Sprintf("cause %d", cause); !strings.HasSuffix(e, want) {
				t.Errorf("Accounting-Stop %q, want %s", e, want)
			}
		}
	}
	if del < 0 || stop < del {
		t.Errorf("log %q: want the PFCP deletion, then the Accounting-Stop", p.log.snapshot())
	}
	if n := len(p.sessions()); n != 0 {
		t.Errorf("%d sessions left", n)
	}
}

// The subscriber hangs up with LCP Terminate-Request. The CP acknowledges,
// and leaves the end of the PPPoE session to the subscriber's PADT (a strict
// CPE sends it once it has the Terminate-Ack); only a CPE that sends none
// gets the CP's PADT, after the terminate wait (default 1 s).
func TestClientTerminateRequest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sendPADT bool
	}{{"then its PADT", true}, {"and no PADT", false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPod(t, nil, nil)
			c := p.client(1)
			v := c.dial()
			p.send(c.cpFrame(ppp.ProtoLCP, ppp.CodeTermReq, 77, []byte("bye")))
			ack := p.expect("Terminate-Ack", time.Second, func(r rxFrame) bool {
				return r.is(ppp.ProtoLCP, ppp.CodeTermAck) && r.id == 77
			})
			if !tc.sendPADT {
				padt := p.expect("the CP's PADT", 2*time.Second, rxFrame.isPADT)
				if after := padt.at.Sub(ack.at); after < 900*time.Millisecond || after > 1500*time.Millisecond {
					t.Fatalf("PADT %v after the Terminate-Ack, want the terminate wait (1 s)", after)
				}
				if padt.f.SessionID != c.sid {
					t.Fatalf("PADT of session %d, want %d", padt.f.SessionID, c.sid)
				}
				checkEnd(t, p, v.AcctSessionID, 1, causeUserRequest)
				return
			}
			p.quiet("between the Terminate-Ack and the client's PADT", 300*time.Millisecond)
			if p.plane.deletes.Load() != 0 {
				t.Fatal("the session was deleted in the DP before the PPPoE session ended")
			}
			p.send(c.padt())
			checkEnd(t, p, v.AcctSessionID, 0, causeUserRequest)
			p.quiet("after the client's PADT", 1200*time.Millisecond)
		})
	}
}

// The operator (or RADIUS, or a Session-Timeout) ends a live session: LCP
// Terminate-Request first, then the PADT once the subscriber has
// acknowledged, or after the terminate wait when it does not.
func TestBNGTerminateRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		ack  bool
	}{{"acknowledged", true}, {"unanswered", false}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPod(t, nil, nil)
			c := p.client(1)
			v := c.dial()
			if _, err := p.ctl.Terminate(context.Background(), v.ID); err != nil {
				t.Fatal(err)
			}
			req := p.expect("Terminate-Request", time.Second, func(r rxFrame) bool {
				return r.is(ppp.ProtoLCP, ppp.CodeTermReq)
			})
			var padt rxFrame
			if tc.ack {
				p.quiet("between the Terminate-Request and its Ack", 200*time.Millisecond)
				p.send(c.cpFrame(ppp.ProtoLCP, ppp.CodeTermAck, req.id, nil))
				padt = p.expect("PADT", 300*time.Millisecond, rxFrame.isPADT)
			} else {
				padt = p.expect("PADT", 2*time.Second, rxFrame.isPADT)
				if after := padt.at.Sub(req.at); after < 900*time.Millisecond || after > 1500*time.Millisecond {
					t.Fatalf("PADT %v after the unanswered Terminate-Request, want the terminate wait (1 s)", after)
				}
			}
			if padt.f.SessionID != c.sid {
				t.Fatalf("PADT of session %d, want %d", padt.f.SessionID, c.sid)
			}
			checkEnd(t, p, v.AcctSessionID, 1, causeAdminReset)
		})
	}
}

// A hang-up storm: thousands of sessions (restored from the store after a
// CP restart) send LCP Terminate-Request at once. Every one is acknowledged
// at once; those whose CPE sends its PADT end without the CP's, the others
// get the CP's PADT after the terminate wait; all are deleted in the DP and
// accounted for. The waits cost no goroutine per session.
func TestHangupStorm(t *testing.T) {
	n := 3000
	if raceEnabled {
		n = 600
	}
	now := time.Now().UTC().Truncate(time.Second)
	clients := make([]*client, n)
	p := newTestPod(t, nil, func(db sessionStore) {
		// Written concurrently: the store's group commit shares the fsyncs.
		var wg sync.WaitGroup
		errs := make(chan error, len(clients))
		for i := range clients {
			r := record{
				ID: fmt.Sprintf("%08X%08X", 1, i+1), CPSEID: 1<<32 | uint64(i+1), UPSEID: uint64(1000 + i),
				Established: true, AcctStarted: true, User: podUser + suffix(i), Instance: podInstance,
				AccessPort: "access1", STag: podSTag, CTag: uint16(1 + i%4000), MAC: [6]byte{0x02, 0x5b, 0, 0, byte(i >> 8), byte(i)},
				PPPoESID: uint16(1 + i), IPv4: netip.AddrFrom4([4]byte{100, 80, byte((i + 2) >> 8), byte(i + 2)}),
				LineGroup: "lg1", QosProfile: "silver", MTU: 1492, MagicTx: 0x11223344, Interim: 300, Started: now,
			}
			wg.Add(1)
			go func() { defer wg.Done(); errs <- db.Put(bucketSessions, r.ID, r.marshal()) }()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	for i := range clients {
		c := p.client(i)
		c.sid = uint16(1 + i)
		clients[i] = c
	}
	if used := p.poolUsed(); used != n {
		t.Fatalf("%d sessions restored, want %d", used, n)
	}
	t0 := time.Now()
	base := goroutines()
	frames := make([]*pppoe.Frame, 0, 64)
	for i, c := range clients {
		frames = append(frames, c.cpFrame(ppp.ProtoLCP, ppp.CodeTermReq, 1, nil))
		if len(frames) == cap(frames) || i == n-1 {
			p.send(frames...)
			frames = frames[:0]
			time.Sleep(time.Millisecond) // 64 frames a millisecond: the CP's queues, not the test, set the pace
		}
	}
	acked := make(map[uint16]bool)
	for len(acked) < n {
		r := p.expect("Terminate-Acks", 5*time.Second, func(r rxFrame) bool { return r.is(ppp.ProtoLCP, ppp.CodeTermAck) })
		acked[r.f.SessionID] = true
	}
	if g := goroutines(); g > base+20 {
		t.Errorf("%d goroutines while %d sessions wait for their PADT, %d before", g, n, base)
	}
	for i := 0; i < n; i += 2 {
		p.send(clients[i].padt())
	}
	padts := make(map[uint16]bool)
	for len(padts) < n/2 {
		r := p.expect("PADTs of the sessions whose CPE sent none", 5*time.Second, rxFrame.isPADT)
		if (r.f.SessionID-1)%2 == 0 {
			t.Fatalf("PADT of session %d, whose CPE sent its own", r.f.SessionID)
		}
		padts[r.f.SessionID] = true
	}
	p.waitFor("every Accounting-Stop", 10*time.Second, func() bool { return p.acct.stops.Load() == int64(n) })
	p.waitFor("every address back", 2*time.Second, func() bool { return p.poolUsed() == 0 })
	if d := p.plane.deletes.Load(); d != int64(n) {
		t.Fatalf("%d deletions, want %d", d, n)
	}
	if s := len(p.sessions()); s != 0 {
		t.Fatalf("%d sessions left", s)
	}
	t.Logf("%d hang-ups: %v from the first Terminate-Request to the last address released", n, time.Since(t0))
}

// installingPod is a test pod whose DP holds establishments, and its client 1
// dialled up to the establishment of its session, in flight.
func installingPod(t *testing.T) (*testPod, *client) {
	p := newTestPod(t, nil, nil)
	p.plane.hold = make(chan struct{})
	c := p.client(1)
	c.discover()
	c.negotiateToInstall()
	p.waitFor("the establishment", 2*time.Second, func() bool {
		return slices.ContainsFunc(p.log.snapshot(), func(e string) bool { return strings.HasPrefix(e, "establishing") })
	})
	return p, c
}

// The subscriber hangs up while the DP installs its session: the Terminate
// is acked at once, the PPPoE session ends with the subscriber's PADT, and
// the installation, when it completes, is undone in the DP (no accounting:
// it never started).
func TestClientTerminateWhileInstalling(t *testing.T) {
	p, c := installingPod(t)
	p.send(c.cpFrame(ppp.ProtoLCP, ppp.CodeTermReq, 9, nil))
	p.expect("Terminate-Ack", time.Second, func(r rxFrame) bool { return r.is(ppp.ProtoLCP, ppp.CodeTermAck) && r.id == 9 })
	close(p.plane.hold)
	p.quiet("while the session waits for the client's PADT", 300*time.Millisecond)
	if p.plane.deletes.Load() != 0 {
		t.Fatal("deleted in the DP before the PPPoE session ended")
	}
	p.send(c.padt())
	p.waitFor("the deletion in the DP", 2*time.Second, func() bool { return p.plane.deletes.Load() == 1 })
	p.waitFor("the address back", time.Second, func() bool { return p.poolUsed() == 0 })
	p.quiet("after the client's PADT", 1200*time.Millisecond)
	if p.acct.stops.Load() != 0 {
		t.Fatal("Accounting-Stop for a session whose accounting never started")
	}
	if n := len(p.sessions()); n != 0 {
		t.Fatalf("%d sessions left", n)
	}
	var left int
	if err := p.d.db.ForEach(bucketSessions, func(string, []byte) error { left++; return nil }); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d records left in the store", left)
	}
}

// IPCP opens at the subscriber only once the DP has its session: the daemon's
// Configure-Ack of the subscriber's last IPCP request waits for the
// establishment, so the first datagrams a CPE sends the moment IPCP opens are
// not dropped by a DP that does not know the session yet (bench-seba: every
// session's first echo was lost). A DP that refuses: no Ack, the session ends.
func TestIPCPOpensOnceTheDPHasTheSession(t *testing.T) {
	p, c := installingPod(t)
	p.quiet("no IPCP Configure-Ack while the DP installs the session", 300*time.Millisecond)
	close(p.plane.hold)
	p.expect("the IPCP Configure-Ack once installed", 2*time.Second, func(r rxFrame) bool {
		return r.is(ppp.ProtoIPCP, ppp.CodeConfAck) && r.id == c.id
	})
	if !slices.ContainsFunc(p.log.snapshot(), func(e string) bool { return strings.HasPrefix(e, "establish ") }) {
		t.Fatal("the Configure-Ack before the DP answered")
	}
	c.established()

	// the DP refuses the next one: IPCP never opens at that subscriber
	p.plane.hold = nil
	p.plane.refuse.Store(true)
	c2 := p.client(2)
	c2.discover()
	c2.negotiateToInstall()
	r := p.expect("the end of the refused session", 2*time.Second, func(r rxFrame) bool {
		return r.f.SessionID == c2.sid && (r.isPADT() || r.is(ppp.ProtoLCP, ppp.CodeTermReq) || r.proto == ppp.ProtoIPCP)
	})
	if r.proto == ppp.ProtoIPCP {
		t.Fatalf("IPCP answered for a session the DP refused: %v", r)
	}
}
