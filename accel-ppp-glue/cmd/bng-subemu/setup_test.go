package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
)

// The server's first LCP Configure-Request overtakes its PADS (the pod's OVS
// does that to every session): the client must not drop it and wait for the
// server's restart timer (bng-cp: 3 s), and must not count it as a wrong frame.
func TestLCPBeforePADSDoesNotWaitForServerRestart(t *testing.T) {
	for _, auth := range []string{"pap", "chap"} {
		t.Run(auth, func(t *testing.T) {
			subs, users := testSubs(2)
			cfg := fastConfig(auth)
			cfg.Retransmit, cfg.PhaseTimeout = time.Second, 10*time.Second
			r := newRig(t, cfg, subs, serverConfig{Auth: []ppp.AuthMethod{ppp.AuthPAP, ppp.AuthCHAP}, Users: users,
				Restart: 3 * time.Second, LCPBeforePADS: true})
			st := r.waitUp(2, 8*time.Second)
			if st.SetupP99 > 500 {
				t.Fatalf("setup p99 %.0f ms: waited for the server's restart timer", st.SetupP99)
			}
			if st.Wire["early"] != 2 || st.Wire["wrong_session"] != 0 || st.Wire["unexpected"] != 0 {
				t.Fatalf("wire %v", st.Wire)
			}
		})
	}
}

// Frames before the PADS with another session id than the PADS gives are not
// taken for the session.
func TestEarlyFrameOfAnotherSessionIsWrong(t *testing.T) {
	subs, _ := testSubs(1)
	e, err := NewEmu(fastConfig("pap"), &discard{}, subs)
	if err != nil {
		t.Fatal(err)
	}
	s := &e.sess[0]
	e.startDial(s)
	hu := pppoe.AppendTag(nil, pppoe.TagHostUniq, s.hostUniq[:])
	e.input(frameTo(e, 0, pppoe.EtherTypeDiscovery, pppoe.CodePADO, 0, hu))
	if s.state != stPADR {
		t.Fatalf("state %v after PADO", s.state)
	}
	lcpReq := []byte{0xc0, 0x21, 1, 1, 0, 10, 5, 6, 1, 2, 3, 4} // Configure-Request, Magic-Number
	e.input(frameTo(e, 0, pppoe.EtherTypeSession, 0, 7, lcpReq))
	e.input(frameTo(e, 0, pppoe.EtherTypeDiscovery, pppoe.CodePADS, 8, hu)) // another session id
	if s.state != stLCP || s.sid != 8 || e.st.rxEarly != 1 || e.st.rxWrongSession != 1 || s.peerAcked {
		t.Fatalf("state %v sid %d early %d wrong %d", s.state, s.sid, e.st.rxEarly, e.st.rxWrongSession)
	}
	// the same, with the PADS's id: taken (and acked)
	e2, _ := NewEmu(fastConfig("pap"), &discard{}, subs)
	s = &e2.sess[0]
	e2.startDial(s)
	hu = pppoe.AppendTag(nil, pppoe.TagHostUniq, s.hostUniq[:])
	e2.input(frameTo(e2, 0, pppoe.EtherTypeDiscovery, pppoe.CodePADO, 0, hu))
	e2.input(frameTo(e2, 0, pppoe.EtherTypeSession, 0, 7, lcpReq))
	e2.input(frameTo(e2, 0, pppoe.EtherTypeDiscovery, pppoe.CodePADS, 7, hu))
	if s.state != stLCP || s.sid != 7 || e2.st.rxEarly != 1 || e2.st.rxWrongSession != 0 || !s.peerAcked {
		t.Fatalf("state %v sid %d early %d wrong %d acked %v", s.state, s.sid, e2.st.rxEarly, e2.st.rxWrongSession, s.peerAcked)
	}
}

// At stop every session gets LCP Terminate-Request and PADT, paced at the
// hangup rate; the server ends every session, and its answers (Terminate-Ack,
// its own PADT) count as late, not wrong.
func TestPacedHangup(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate float64
		max  time.Duration
		want time.Duration // about
	}{
		{"rate", 400, 10 * time.Second, 500 * time.Millisecond},
		{"bound", 100, 250 * time.Millisecond, 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 200
			subs, users := testSubs(n)
			cfg := fastConfig("pap")
			cfg.HangupRate, cfg.HangupMax = tc.rate, tc.max
			r := newRig(t, cfg, subs, serverConfig{Users: users})
			r.waitUp(n, 10*time.Second)
			t0 := time.Now()
			r.stop()
			took := time.Since(t0)
			if took < tc.want*7/10 || took > tc.want*2+300*time.Millisecond {
				t.Fatalf("stop took %v, want about %v", took, tc.want)
			}
			waitFor(t, "the server to end every session", 2*time.Second, func() bool {
				var k int
				r.srv.with(func() { k = len(r.srv.sessions) })
				return k == 0
			})
			r.srv.with(func() {
				if r.srv.downs["peer-terminate"] != n {
					t.Fatalf("server downs %v", r.srv.downs)
				}
			})
			st := r.emu.Stats()
			if st.Up != 0 || st.Wire["hangups"] != n || st.Wire["wrong_session"] != 0 || st.Wire["late"] == 0 {
				t.Fatalf("final stats up %d wire %v", st.Up, st.Wire)
			}
		})
	}
}

// A strict client (--strict) drops the server's first LCP Configure-Request
// that overtook the PADS, as common CPEs do, and counts it. It comes up on the
// server's retransmission: after half a second with bng-cp's backoff
// (RestartFirst), after the whole restart timer (3 s) without.
func TestStrictDropsLCPBeforePADS(t *testing.T) {
	for _, tc := range []struct {
		name         string
		restartFirst time.Duration
		min, max     float64 // setup ms
	}{
		{"server backs off from 0.5 s", 500 * time.Millisecond, 450, 1500},
		{"server waits its restart timer", 0, 2900, 4500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 4
			subs, users := testSubs(n)
			cfg := fastConfig("pap")
			cfg.Strict = true
			cfg.Retransmit, cfg.PhaseTimeout = time.Second, 10*time.Second
			r := newRig(t, cfg, subs, serverConfig{Auth: []ppp.AuthMethod{ppp.AuthPAP}, Users: users,
				Restart: 3 * time.Second, RestartFirst: tc.restartFirst, LCPBeforePADS: true})
			st := r.waitUp(n, 8*time.Second)
			if st.SetupP50 < tc.min || st.SetupP99 > tc.max {
				t.Fatalf("setup p50 %.0f ms, p99 %.0f ms, want %.0f..%.0f", st.SetupP50, st.SetupP99, tc.min, tc.max)
			}
			if st.Wire["early"] != n || st.Wire["early_dropped"] != n || st.Wire["wrong_session"] != 0 || st.EverUp != n {
				t.Fatalf("wire %v, ever up %d", st.Wire, st.EverUp)
			}
		})
	}
}

// A strict hang-up: Terminate-Request, and the PADT only once the server has
// acknowledged it; a server whose PADT overtakes its Terminate-Ack has ended
// the session itself (no PADT of ours), and that is counted; a server that
// does not answer gets the Terminate-Request again after Retransmit, and the
// PADT after twice that. The lenient client counts the order as well.
func TestStrictHangup(t *testing.T) {
	for _, tc := range []struct {
		name       string
		strict     bool
		srv        serverConfig
		want       []string // what the server got from each client
		padtFirst  uint64   // hang-ups that saw the server's PADT before its Terminate-Ack
		minStopDur time.Duration
	}{
		{"strict, in order", true, serverConfig{}, []string{"termreq", "padt"}, 0, 0},
		{"strict, PADT first", true, serverConfig{PADTBeforeTermAck: true}, []string{"termreq"}, 3, 0},
		{"strict, no answer", true, serverConfig{NoTermAck: true}, []string{"termreq", "termreq", "padt"}, 0, 180 * time.Millisecond},
		{"lenient, PADT first", false, serverConfig{PADTBeforeTermAck: true}, []string{"termreq", "padt"}, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 3
			subs, users := testSubs(n)
			cfg := fastConfig("pap")
			cfg.Strict = tc.strict
			cfg.HangupRate = -1
			srv := tc.srv
			srv.Users = users
			r := newRig(t, cfg, subs, srv)
			r.waitUp(n, 5*time.Second)
			t0 := time.Now()
			r.stop()
			if took := time.Since(t0); took < tc.minStopDur || took > 2*time.Second {
				t.Fatalf("stop took %v", took)
			}
			time.Sleep(100 * time.Millisecond) // the last frames on their way to the server
			r.srv.with(func() {
				for _, s := range subs {
					if got := r.srv.hangups[s.MAC()]; !reflect.DeepEqual(got, tc.want) {
						t.Errorf("client %d: the server got %v, want %v", s.Index, got, tc.want)
					}
				}
			})
			st := r.emu.Stats()
			if st.Wire["hangups"] != n || st.Wire["padt_before_term_ack"] != tc.padtFirst || st.Wire["wrong_session"] != 0 {
				t.Fatalf("wire %v", st.Wire)
			}
		})
	}
}
