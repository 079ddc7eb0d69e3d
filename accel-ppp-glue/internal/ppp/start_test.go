package ppp

import (
	"fmt"
	"testing"
	"time"
)

// With StartDelay, Start is a passive open: nothing goes out until the
// peer's Configure-Request, which gets our request and our answer at once
// (RFC 1661 Stopped + RCR: irc, scr, sca -> Ack-Sent).
func TestPassiveStartPeerFirst(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.StartDelay = 100 * time.Millisecond
	h := newHarness(t, cfg)
	h.l.Start(h.now)
	h.expect()
	if h.l.Phase() != PhaseEstablish || h.l.NextDeadline() != t0.Add(100*time.Millisecond) {
		t.Fatalf("phase %v, deadline %v", h.l.Phase(), h.l.NextDeadline())
	}
	h.advance(50 * time.Millisecond)
	h.expect()
	h.in(ProtoLCP, peerLCPReq)
	h.expect(ourLCPReqPAP, ourLCPAck)
	// The start delay is over: the next deadline is our request's restart timer.
	if dl := h.l.NextDeadline(); dl != h.now.Add(3*time.Second) {
		t.Fatalf("deadline %v, want the restart timer", dl.Sub(h.now))
	}
	h.in(ProtoLCP, "02 01 0012 010405d4 0304c023 0506"+ourMagicHex)
	h.expect()
	h.authPAP()
	h.openIPCP()
}

// A peer that says nothing gets our Configure-Request after StartDelay.
func TestPassiveStartTimesOut(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.StartDelay = 100 * time.Millisecond
	h := newHarness(t, cfg)
	h.l.Start(h.now)
	h.advance(99 * time.Millisecond)
	h.expect()
	h.advance(time.Millisecond)
	h.expect(ourLCPReqPAP)
	h.in(ProtoLCP, peerLCPReq)
	h.expect(ourLCPAck)
}

// Another LCP packet first (here an Echo-Request, not answered before LCP
// is open) opens LCP actively; a Terminate-Request during the wait is
// acknowledged and ends the link without a Configure-Request of ours.
func TestPassiveStartOtherFirst(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.StartDelay = time.Second
	h := newHarness(t, cfg)
	h.l.Start(h.now)
	h.in(ProtoLCP, "09 01 0008 aabbccdd")
	h.expect(ourLCPReqPAP)

	h = newHarness(t, cfg)
	h.l.Start(h.now)
	h.in(ProtoLCP, "05 04 0004")
	h.expectEv([]Event{EvDown{Reason: DownPeerTerminate, Acked: true}}, "c021 06 04 0004")

	// Closed during the wait: nothing to terminate, down at once.
	h = newHarness(t, cfg)
	h.l.Start(h.now)
	h.l.Close(h.now, "operator")
	h.expectEv([]Event{EvDown{Reason: DownAdmin, Detail: "operator"}})
	h.advance(time.Hour)
	h.expect()
}

// RestartFirst: the first Configure-Request is retransmitted after 0.5 s,
// then 1 s, 2 s, then the restart timer (3 s); Max-Configure still bounds
// them. The same for IPCP.
func TestRestartBackoff(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.RestartFirst = 500 * time.Millisecond
	cfg.MaxConfigure = 6
	h := newHarness(t, cfg)
	h.l.Start(h.now)
	h.expect(ourLCPReqPAP)
	for i, gap := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second} {
		if dl := h.l.NextDeadline(); dl.Sub(h.now) != gap {
			t.Fatalf("retransmission %d after %v, want %v", i+1, dl.Sub(h.now), gap)
		}
		h.advance(gap - time.Millisecond)
		h.expect()
		h.advance(time.Millisecond)
		h.expect(fmt.Sprintf("c021 01 %02x 0012 010405d4 0304c023 0506%s", i+2, ourMagicHex))
	}
	// Max-Configure (6) requests sent: the last timeout ends the link.
	h.advance(3 * time.Second)
	h.expectEv([]Event{EvDown{Reason: DownLCPFailed, Detail: "LCP negotiation failed"}})

	// A Nak is an answer: the counter starts again, and so does the backoff.
	h = newHarness(t, cfg)
	h.l.Start(h.now)
	h.expect(ourLCPReqPAP)
	h.advance(500 * time.Millisecond)
	h.expect("c021 01 02 0012 010405d4 0304c023 0506" + ourMagicHex)
	h.in(ProtoLCP, "03 02 0008 010405d0")
	h.expect("c021 01 03 0012 010405d0 0304c023 0506" + ourMagicHex)
	if dl := h.l.NextDeadline(); dl.Sub(h.now) != 500*time.Millisecond {
		t.Fatalf("after a Nak: retransmission after %v", dl.Sub(h.now))
	}

	// IPCP's first request backs off the same way.
	h = newHarness(t, cfg)
	h.openLCP(ourLCPReqPAP)
	h.expect()
	h.authPAP()
	for i, gap := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second} {
		h.advance(gap)
		h.expect(fmt.Sprintf("8021 01 %02x 000a 0306 0a000001", i+2))
	}
}
