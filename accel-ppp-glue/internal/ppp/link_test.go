package ppp

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
	"time"
)

func TestSplitProto(t *testing.T) {
	for _, tc := range []struct {
		in    string
		proto uint16
		data  string
		err   error
	}{
		{"c021 0101", ProtoLCP, "0101", nil},
		{"0021", ProtoIPv4, "", nil},
		{"8057 01", ProtoIPv6CP, "01", nil},
		{"", 0, "", ErrShort},
		{"c0", 0, "", ErrShort},
		{"21 4500", 0, "", ErrProtocolField}, // PFC-compressed
		{"c020 01", 0, "", ErrProtocolField}, // even second octet
		{"0100", 0, "", ErrProtocolField},
	} {
		p, d, err := SplitProto(unhex(t, tc.in))
		if !errors.Is(err, tc.err) || p != tc.proto || !bytes.Equal(d, unhex(t, tc.data)) {
			t.Errorf("%q: got %04x % x %v", tc.in, p, d, err)
		}
	}
	if got := AppendProto(nil, Packet{Proto: ProtoLCP, Data: []byte{9}}); !bytes.Equal(got, []byte{0xc0, 0x21, 9}) {
		t.Errorf("AppendProto % x", got)
	}
}

// The whole PAP session of a well-behaved client, byte for byte, then
// IPv6CP rejected without harm, an echo, and the peer's Terminate.
func TestPAPHappyPath(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP))
	if h.l.Phase() != PhaseDead || !h.l.NextDeadline().IsZero() {
		t.Fatal("new link not dead and idle")
	}
	h.openLCP(ourLCPReqPAP)
	h.expect()
	if h.l.Phase() != PhaseAuthenticate || h.l.MRU() != 1492 || h.l.Auth() != AuthPAP {
		t.Fatalf("phase %v mru %d", h.l.Phase(), h.l.MRU())
	}
	if o, p := h.l.Magic(); o != 0x11223344 || p != 0xaabbccdd {
		t.Fatalf("magic %x %x", o, p)
	}
	h.authPAP()
	if h.l.Phase() != PhaseNetwork {
		t.Fatal(h.l.Phase())
	}
	h.openIPCP()
	if !h.l.NextDeadline().IsZero() {
		t.Fatalf("timer left running: %v", h.l.NextDeadline())
	}

	// IPv6CP Configure-Request: LCP Protocol-Reject (id 2: LCP's next), IPv4 unaffected.
	h.in(ProtoIPv6CP, "01 01 000e 010a 0000000000000001")
	h.expect("c021 08 02 0014 8057 01 01 000e 010a 0000000000000001")
	h.in(ProtoIPv6, "6000000000000000")
	h.expect("c021 08 03 000e 0057 6000000000000000")
	if h.l.Phase() != PhaseNetwork || h.l.Counters().ProtocolRejectsSent != 2 {
		t.Fatalf("after IPv6CP: %v %+v", h.l.Phase(), h.l.Counters())
	}
	// IPCP still answers (a renegotiation keeps the address).
	h.in(ProtoLCP, "09 07 000c aabbccdd 01020304")
	h.expect("c021 0a 07 000c " + ourMagicHex + " 01020304")
	// Data to the CP is not ours to answer.
	h.in(ProtoIPv4, "4500")
	h.expect()

	h.in(ProtoLCP, "05 09 0004")
	h.expectEv([]Event{EvDown{Reason: DownPeerTerminate, Acked: true}}, "c021 06 09 0004")
	if h.l.Phase() != PhaseDead || !h.l.NextDeadline().IsZero() {
		t.Fatal("not dead")
	}
	h.in(ProtoLCP, "09 08 0008 aabbccdd")
	h.l.Close(h.now, "x")
	h.advance(time.Hour)
	h.expect()
}

// CHAP-MD5: challenge bytes, retransmission with the same identifier and
// value, a wrong identifier ignored, success, retransmitted response.
func TestCHAPHappyPath(t *testing.T) {
	h := newHarness(t, baseConfig(AuthCHAP))
	h.openLCP(ourLCPReqCHAP)
	challenge := "c223 01 01 001b 10 000102030405060708090a0b0c0d0e0f 626e67706f64"
	h.expect(challenge)
	if h.l.NextDeadline() != t0.Add(3*time.Second) {
		t.Fatalf("deadline %v", h.l.NextDeadline())
	}
	h.advance(3 * time.Second)
	h.expect(challenge)
	// Response to another identifier, malformed value sizes, a PAP request: ignored.
	h.in(ProtoCHAP, "02 02 0019 10 ffeeddccbbaa99887766554433221100 616c696365")
	h.in(ProtoCHAP, "02 01 0018 0f eeddccbbaa99887766554433221100 616c696365")
	h.in(ProtoCHAP, "02 01 0006 10 ff")
	h.in(ProtoPAP, "01 05 000c 04 75736572 02 7077")
	h.expect()
	resp := "02 01 001a 10 ffeeddccbbaa99887766554433221100 616c696365"
	h.in(ProtoCHAP, resp)
	h.expectEv([]Event{EvAuth{Method: AuthCHAP, User: "alice", CHAPID: 1, Challenge: testChallenge,
		Response: unhex(t, "ffeeddccbbaa99887766554433221100")}})
	// No retransmission while the back end thinks.
	h.advance(10 * time.Second)
	h.expect()
	h.l.SetIPv4(local, peer, dns1, dns2)
	h.l.AuthResult(h.now, true, "")
	h.expect("c223 03 01 0004", "8021 01 01 000a 0306 0a000001")
	// The client missed our Success: it retransmits, we repeat it.
	h.in(ProtoCHAP, resp)
	h.expect("c223 03 01 0004")
	h.openIPCP()
}

func TestAuthFailure(t *testing.T) {
	for _, m := range []AuthMethod{AuthPAP, AuthCHAP} {
		t.Run(m.String(), func(t *testing.T) {
			h := newHarness(t, baseConfig(m))
			var want string
			if m == AuthPAP {
				h.openLCP(ourLCPReqPAP)
				h.expect()
				h.in(ProtoPAP, "01 05 000c 04 75736572 02 7077")
				want = "c023 03 05 0009 04 6e6f7065"
			} else {
				h.openLCP(ourLCPReqCHAP)
				h.drain()
				h.in(ProtoCHAP, "02 01 001a 10 ffeeddccbbaa99887766554433221100 616c696365")
				want = "c223 04 01 0008 6e6f7065"
			}
			h.drain()
			h.l.AuthResult(h.now, false, "nope")
			h.expect(want, "c021 05 02 0004")
			if h.l.Phase() != PhaseTerminate {
				t.Fatal(h.l.Phase())
			}
			h.l.AuthResult(h.now, true, "late") // ignored
			h.expect()
			h.in(ProtoLCP, "06 02 0004")
			h.expectEv([]Event{EvDown{Reason: DownAuthFailed, Detail: "nope"}})
		})
	}
}

// The peer never authenticates: Terminate-Request at AuthTimeout, then
// Max-Terminate retransmissions, then EvDown.
func TestAuthTimeout(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.AuthTimeout = 10 * time.Second
	h := newHarness(t, cfg)
	h.openLCP(ourLCPReqPAP)
	h.expect()
	if h.l.NextDeadline() != t0.Add(10*time.Second) {
		t.Fatalf("deadline %v", h.l.NextDeadline())
	}
	h.advance(9 * time.Second)
	h.expect()
	h.advance(time.Second)
	h.expect("c021 05 02 0004")
	h.advance(3 * time.Second)
	h.expect("c021 05 03 0004")
	h.advance(3 * time.Second)
	h.expectEv([]Event{EvDown{Reason: DownAuthTimeout, Detail: "no authentication within 10s"}})
}

// CHAP challenges go unanswered: Max-Configure challenges, then DownAuthTimeout.
func TestCHAPNoResponse(t *testing.T) {
	cfg := baseConfig(AuthCHAP)
	cfg.MaxConfigure = 3
	h := newHarness(t, cfg)
	h.openLCP(ourLCPReqCHAP)
	for i := 0; i < 3; i++ {
		if got, _ := h.drain(); len(got) != 1 || got[0][:7] != "c223 01" {
			t.Fatalf("challenge %d: %q", i, got)
		}
		h.advance(3 * time.Second)
	}
	h.expect("c021 05 02 0004")
	h.in(ProtoLCP, "06 02 0004")
	h.expectEv([]Event{EvDown{Reason: DownAuthTimeout, Detail: "no CHAP Response"}})
}

// Our Configure-Request is never answered: Max-Configure requests, one per
// restart period, then LCP fails.
func TestLCPMaxConfigure(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.MaxConfigure = 4
	cfg.Restart = time.Second
	h := newHarness(t, cfg)
	h.l.Start(h.now)
	for id := 1; id <= 4; id++ {
		got, _ := h.drain()
		want := norm("c021 01 0" + string(rune('0'+id)) + " 0012 010405d4 0304c023 0506" + ourMagicHex)
		if len(got) != 1 || got[0] != want {
			t.Fatalf("request %d: %q want %q", id, got, want)
		}
		if h.l.NextDeadline() != h.now.Add(time.Second) {
			t.Fatalf("deadline %v", h.l.NextDeadline())
		}
		h.advance(time.Second)
	}
	h.expectEv([]Event{EvDown{Reason: DownLCPFailed, Detail: "LCP negotiation failed"}})
}

func TestLCPPeerOptions(t *testing.T) {
	for _, tc := range []struct {
		name, req, reply string
	}{
		{"ack mru+magic", "01 01 000e 010405d4 0506aabbccdd", "c021 02 01 000e 010405d4 0506aabbccdd"},
		{"ack empty", "01 01 0004", "c021 02 01 0004"},
		{"ack small mru", "01 01 0008 01040080", "c021 02 01 0008 01040080"},
		{"nak mru above max", "01 01 000e 010405dc 0506aabbccdd", "c021 03 01 0008 010405d4"},
		{"nak mru too small", "01 01 0008 01040040", "c021 03 01 0008 01040080"},
		{"nak zero magic", "01 01 000a 050600000000", "c021 03 01 000a 0506 be1984c1"},
		{"nak our magic", "01 01 000a 0506" + ourMagicHex, "c021 03 01 000a 0506 510c4619"},
		{"reject accm pfc acfc", "01 01 0012 0206ffffffff 0702 0802 010405d4", "c021 04 01 000e 0206ffffffff 0702 0802"},
		{"reject auth pap", "01 01 0008 0304c023", "c021 04 01 0008 0304c023"},
		{"reject quality fcs numbered callback", "01 01 0016 0408c025000003e8 0903 03 0b04 0100 0d03 06",
			"c021 04 01 0016 0408c025000003e8 0903 03 0b04 0100 0d03 06"},
		{"reject multilink mrru epdisc", "01 01 000d 110405dc 1205 01 0102", "c021 04 01 000d 110405dc 1205 01 0102"},
		{"reject wins over nak", "01 01 000c 010405dc 0702 fe02", "c021 04 01 0008 0702 fe02"},
		{"reject bad mru length", "01 01 0007 010305", "c021 04 01 0007 010305"},
		{"reject bad magic length", "01 01 0009 0505 aabbcc", "c021 04 01 0009 0505aabbcc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, baseConfig(AuthPAP))
			h.l.Start(h.now)
			h.drain()
			h.in(ProtoLCP, tc.req)
			h.expect(tc.reply)
		})
	}
}

func TestLCPMalformedRequests(t *testing.T) {
	for _, req := range []string{
		"01", "010100", "01 01 0003 00", "01 01 0010 010405d4", // Length beyond the data
		"01 01 0005 01",              // option shorter than 2
		"01 01 0006 0100",            // option length < 2
		"01 01 0006 0105",            // option beyond the list
		"01 01 0009 010405d4 05",     // trailing byte
		"01 01 0009 010405d4 0506ff", // option cut by Length
	} {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Start(h.now)
		h.drain()
		h.in(ProtoLCP, req)
		h.expect()
		if h.l.Counters().Malformed != 1 {
			t.Errorf("%q: counters %+v", req, h.l.Counters())
		}
	}
	// Padding after Length is cut, not an error.
	h := newHarness(t, baseConfig(AuthPAP))
	h.l.Start(h.now)
	h.drain()
	h.in(ProtoLCP, peerLCPReq+"000000000000")
	h.expect(ourLCPAck)
}

// After Max-Failure Naks, options are rejected instead (RFC 1661 4.6).
func TestLCPMaxFailure(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.MaxFailure = 2
	h := newHarness(t, cfg)
	h.l.Start(h.now)
	h.drain()
	h.in(ProtoLCP, "01 01 0008 010405dc")
	h.expect("c021 03 01 0008 010405d4")
	h.in(ProtoLCP, "01 02 0008 010405dc")
	h.expect("c021 03 02 0008 010405d4")
	h.in(ProtoLCP, "01 03 0008 010405dc")
	h.expect("c021 04 03 0008 010405dc")
	h.in(ProtoLCP, "01 04 0004")
	h.expect("c021 02 04 0004")
	h.in(ProtoLCP, "02 01 0012 010405d4 0304c023 0506"+ourMagicHex)
	h.expect()
	if h.l.Phase() != PhaseAuthenticate || h.l.MRU() != 1492 {
		t.Fatalf("phase %v mru %d", h.l.Phase(), h.l.MRU())
	}
}

// How we react to Naks and Rejects of our own request.
func TestLCPOurRequestNakReject(t *testing.T) {
	t.Run("mru nak smaller", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Start(h.now)
		h.drain()
		h.in(ProtoLCP, "03 01 0008 010405c8")
		h.expect("c021 01 02 0012 010405c8 0304c023 0506" + ourMagicHex)
	})
	t.Run("auth nak moves to pap", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthCHAP, AuthPAP))
		h.l.Start(h.now)
		h.expect(ourLCPReqCHAP)
		h.in(ProtoLCP, "03 01 0008 0304c023")
		h.expect("c021 01 02 0012 010405d4 0304c023 0506" + ourMagicHex)
	})
	t.Run("auth nak to ms-chap moves to next", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthCHAP, AuthPAP))
		h.l.Start(h.now)
		h.drain()
		h.in(ProtoLCP, "03 01 0009 0305c22381")
		h.expect("c021 01 02 0012 010405d4 0304c023 0506" + ourMagicHex)
	})
	t.Run("auth nak with nothing left", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Start(h.now)
		h.drain()
		h.in(ProtoLCP, "03 01 0009 0305c22381")
		// The next request goes out, then the link terminates.
		h.expect(ourLCPReqPAP[:8]+"02"+ourLCPReqPAP[10:], "c021 05 03 0004")
		h.in(ProtoLCP, "06 03 0004")
		h.expectEv([]Event{EvDown{Reason: DownAuthFailed, Detail: "peer refuses our authentication protocols"}})
	})
	t.Run("auth reject", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Start(h.now)
		h.drain()
		h.in(ProtoLCP, "04 01 0008 0304c023")
		got, _ := h.drain()
		if len(got) != 2 || got[1] != "c021 05030004" {
			t.Fatalf("%q", got)
		}
		h.advance(3 * time.Second)
		h.advance(3 * time.Second)
		h.expectEv([]Event{EvDown{Reason: DownAuthFailed, Detail: "peer rejected authentication"}}, "c021 05 04 0004")
	})
	t.Run("magic and mru rejected", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Start(h.now)
		h.drain()
		h.in(ProtoLCP, "04 01 000e 010405d4 0506"+ourMagicHex)
		h.expect("c021 01 02 0008 0304c023")
		h.in(ProtoLCP, "02 02 0008 0304c023")
		h.in(ProtoLCP, peerLCPReq)
		h.expect(ourLCPAck)
		if o, p := h.l.Magic(); o != 0 || p != 0xaabbccdd {
			t.Fatalf("magic %x %x", o, p)
		}
		// Echo replies carry magic 0 when ours was not negotiated.
		h.in(ProtoLCP, "09 01 0008 aabbccdd")
		h.expect("c021 0a 01 0008 00000000")
	})
	t.Run("stale ack id or content ignored", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Start(h.now)
		h.drain()
		h.in(ProtoLCP, "02 07 0012 010405d4 0304c023 0506"+ourMagicHex)
		h.in(ProtoLCP, "02 01 0012 010405d4 0304c023 0506"+"11223345")
		h.in(ProtoLCP, "03 09 0008 010405c8")
		h.expect()
		if h.l.Counters().Discarded != 3 {
			t.Fatalf("%+v", h.l.Counters())
		}
	})
	t.Run("endless naks fail", func(t *testing.T) {
		cfg := baseConfig(AuthPAP)
		cfg.MaxFailure = 2
		h := newHarness(t, cfg)
		h.l.Start(h.now)
		h.drain()
		for id := 1; id <= 2; id++ {
			h.in(ProtoLCP, "03 0"+string(rune('0'+id))+" 0004")
			h.drain()
		}
		h.in(ProtoLCP, "03 03 0004")
		h.expectEv([]Event{EvDown{Reason: DownLCPFailed, Detail: "LCP negotiation failed"}})
	})
}

// A looped-back line: our request comes back as the peer's.
func TestLCPLoopback(t *testing.T) {
	cfg := baseConfig()
	cfg.MaxFailure = 2
	h := newHarness(t, cfg)
	h.l.Start(h.now)
	ps, _ := h.l.Drain()
	req := append([]byte(nil), ps[0].Data...)
	for i := 0; i < 10 && !h.l.dead; i++ {
		// Everything we send comes back to us.
		h.l.Input(h.now, ProtoLCP, req)
		ps, _ = h.l.Drain()
		var next []byte
		for _, p := range ps {
			if p.Data[0] == CodeConfReq {
				next = append([]byte(nil), p.Data...)
			}
		}
		for _, p := range ps {
			if p.Data[0] != CodeConfReq {
				h.l.Input(h.now, ProtoLCP, append([]byte(nil), p.Data...))
			}
		}
		if next != nil {
			req = next
		}
		h.advance(3 * time.Second)
	}
	_, evs := h.l.Drain()
	if h.l.Counters().LoopsDetected == 0 {
		t.Fatalf("no loop detected: %+v", h.l.Counters())
	}
	if !h.l.dead || len(evs) == 0 || evs[len(evs)-1].(EvDown).Reason != DownLCPFailed {
		t.Fatalf("looped link: phase %v events %#v", h.l.Phase(), evs)
	}
}

func TestLCPCodesWhenOpened(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP))
	h.up()
	for _, tc := range []struct {
		name, in string
		out      []string
	}{
		{"echo", "09 07 0008 aabbccdd", []string{"c021 0a 07 0008 " + ourMagicHex}},
		{"echo with data and padding", "09 08 000a aabbccdd 0102 0304", []string{"c021 0a 08 000a " + ourMagicHex + "0102"}},
		{"echo with zero magic", "09 09 0008 00000000", []string{"c021 0a 09 0008 " + ourMagicHex}},
		{"echo with our magic: loop", "09 0a 0008 " + ourMagicHex, nil},
		{"short echo", "09 0b 0006 aabb", nil},
		{"echo reply heard", "0a 01 0008 aabbccdd", nil},
		{"discard request", "0b 01 0008 aabbccdd", nil},
		{"identification", "0c 01 000a aabbccdd 4d53", nil},
		{"time remaining", "0d 01 000c aabbccdd 00000e10", nil},
		{"unknown code", "2a 05 0006 abcd", []string{"c021 07 02 000a 2a050006abcd"}},
		{"code 0", "00 05 0004", []string{"c021 07 03 0008 00050004"}},
		{"stray config-ack", "02 01 0012 010405d4 0304c023 0506" + ourMagicHex, nil},
		{"stray config-nak", "03 01 0004", nil},
		{"stray terminate-ack", "06 01 0004", nil},
		{"code-reject of discard", "07 01 0008 0b010004", nil},
		{"protocol-reject of something", "08 01 0008 80fd 0101", nil},
		{"truncated protocol-reject", "08 01 0005 80", nil},
		{"bad length", "09 0c 0009 aabbccdd", nil},
	} {
		h.in(ProtoLCP, tc.in)
		if len(tc.out) == 0 {
			h.expect()
		} else {
			h.expect(tc.out...)
		}
		if h.l.Phase() != PhaseNetwork {
			t.Fatalf("%s: phase %v", tc.name, h.l.Phase())
		}
	}
	c := h.l.Counters()
	if c.EchoesAnswered != 3 || c.EchoRepliesHeard != 1 || c.CodeRejectsSent != 2 || c.LoopsDetected != 1 || c.Malformed != 3 {
		t.Fatalf("counters %+v", c)
	}
	// Packets of protocols we do not run, and how Protocol-Reject is cut to the MRU.
	h.in(0x80fd, "01 01 0004")
	h.expect("c021 08 04 000a 80fd 01010004")
	big := make([]byte, 2000)
	h.l.Input(h.now, 0x8281, big)
	ps, _ := h.l.Drain()
	if len(ps) != 1 || len(ps[0].Data) != 1492 || ps[0].Data[2] != 0x05 || ps[0].Data[3] != 0xd4 {
		t.Fatalf("protocol-reject not cut to the MRU: %d", len(ps[0].Data))
	}
}

func TestProtocolRejectsReceived(t *testing.T) {
	t.Run("ipcp rejected", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.up()
		h.in(ProtoLCP, "08 01 0008 8021 0101")
		h.expect("c021 05 02 0004")
		h.in(ProtoLCP, "06 02 0004")
		h.expectEv([]Event{EvDown{Reason: DownIPCPFailed, Detail: "peer rejected IPCP"}})
	})
	t.Run("code-reject of configure-request", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Start(h.now)
		h.drain()
		h.in(ProtoLCP, "07 01 0008 01010004")
		h.expectEv([]Event{EvDown{Reason: DownLCPFailed, Detail: "LCP negotiation failed"}})
	})
	t.Run("before opened discarded", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Start(h.now)
		h.drain()
		h.in(ProtoLCP, "08 01 0008 8021 0101")
		h.in(ProtoIPv6CP, "01 01 0004")
		h.in(ProtoLCP, "09 01 0008 aabbccdd")
		h.in(ProtoIPCP, "01 01 0004")
		h.in(ProtoPAP, "01 05 000c 04 75736572 02 7077")
		h.expect()
		if h.l.Counters().Discarded != 5 {
			t.Fatalf("%+v", h.l.Counters())
		}
	})
}

func TestIPCP(t *testing.T) {
	setup := func(t *testing.T) *harness {
		h := newHarness(t, baseConfig(AuthPAP))
		h.openLCP(ourLCPReqPAP)
		h.expect()
		h.authPAP()
		return h
	}
	for _, tc := range []struct {
		name, req, reply string
	}{
		{"ack right values", "01 01 0016 0306 64400005 8106 08080808 8306 08080404",
			"8021 02 01 0016 0306 64400005 8106 08080808 8306 08080404"},
		{"nak wrong address", "01 01 000a 0306 c0a80001", "8021 03 01 000a 0306 64400005"},
		{"nak missing address", "01 01 000a 8106 08080808", "8021 03 01 000a 0306 64400005"},
		{"nak empty request", "01 01 0004", "8021 03 01 000a 0306 64400005"},
		{"reject compression", "01 01 0010 0306 64400005 0206 002d0f01", "8021 04 01 000a 0206 002d0f01"},
		{"reject ip-addresses and nbns", "01 01 0014 010a 0000000000000000 8206 00000000",
			"8021 04 01 0014 010a 0000000000000000 8206 00000000"},
		{"reject bad address length", "01 01 0009 0305 644000", "8021 04 01 0009 0305644000"},
		{"malformed", "01 01 0006 0308", ""},
		{"unknown code", "0c 01 0004", "8021 07 02 0008 0c010004"},
		{"echo is not ipcp", "09 01 0008 00000000", "8021 07 02 000c 0901000800000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t)
			h.in(ProtoIPCP, tc.req)
			if tc.reply == "" {
				h.expect()
			} else {
				h.expect(tc.reply)
			}
		})
	}
	t.Run("no dns configured", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.openLCP(ourLCPReqPAP)
		h.drain()
		h.in(ProtoPAP, "01 05 000c 04 75736572 02 7077")
		h.drain()
		h.l.SetIPv4(local, peer, netip.Addr{}, netip.Addr{})
		h.l.AuthResult(h.now, true, "")
		h.drain()
		h.in(ProtoIPCP, "01 01 0016 0306 00000000 8106 00000000 8306 00000000")
		h.expect("8021 04 01 0010 8106 00000000 8306 00000000")
	})
	t.Run("our address rejected", func(t *testing.T) {
		h := setup(t)
		h.in(ProtoIPCP, "04 01 000a 0306 0a000001")
		h.expect("8021 01 02 0004")
	})
	t.Run("our address nak'd endlessly", func(t *testing.T) {
		h := setup(t)
		for id := 1; id <= 5; id++ {
			h.in(ProtoIPCP, "03 0"+string(rune('0'+id))+" 000a 0306 0a000002")
			h.expect("8021 01 0" + string(rune('1'+id)) + " 000a 0306 0a000001")
		}
		h.in(ProtoIPCP, "03 06 000a 0306 0a000002")
		h.expect("c021 05 02 0004")
		h.in(ProtoLCP, "06 02 0004")
		h.expectEv([]Event{EvDown{Reason: DownIPCPFailed, Detail: "IPCP negotiation failed"}})
	})
	t.Run("ipcp does not open in time", func(t *testing.T) {
		cfg := baseConfig(AuthPAP)
		cfg.AuthTimeout = 5 * time.Second
		cfg.Restart = 10 * time.Second
		h := newHarness(t, cfg)
		h.openLCP(ourLCPReqPAP)
		h.drain()
		h.authPAP()
		h.advance(5 * time.Second)
		h.expect("c021 05 02 0004")
		h.in(ProtoLCP, "06 02 0004")
		h.expectEv([]Event{EvDown{Reason: DownIPCPFailed, Detail: "IPCP did not open within 5s"}})
	})
	t.Run("peer terminates ipcp", func(t *testing.T) {
		h := setup(t)
		h.openIPCP()
		h.in(ProtoIPCP, "05 07 0004")
		h.expect("8021 06 07 0004", "c021 05 02 0004")
		h.in(ProtoLCP, "06 02 0004")
		h.expectEv([]Event{EvDown{Reason: DownPeerTerminate, Detail: "peer terminated IPCP"}})
	})
	t.Run("renegotiation keeps the address", func(t *testing.T) {
		h := setup(t)
		h.openIPCP()
		h.in(ProtoIPCP, "01 09 000a 0306 64400005")
		h.expect("8021 01 02 000a 0306 0a000001", "8021 02 09 000a 0306 64400005")
		h.in(ProtoIPCP, "02 02 000a 0306 0a000001")
		h.expectEv([]Event{EvUp{Peer: peer}})
	})
}

func TestAdminClose(t *testing.T) {
	t.Run("acked", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.up()
		h.l.Close(h.now, "operator")
		h.expect("c021 05 02 0004")
		if h.l.Phase() != PhaseTerminate {
			t.Fatal(h.l.Phase())
		}
		h.in(ProtoIPCP, "01 01 0004") // NCPs are gone
		h.in(ProtoLCP, "09 01 0008 aabbccdd")
		h.expect()
		h.l.Close(h.now, "again")
		h.expect()
		h.in(ProtoLCP, "06 02 0004")
		h.expectEv([]Event{EvDown{Reason: DownAdmin, Detail: "operator"}})
	})
	t.Run("timed out", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.up()
		h.l.Close(h.now, "operator")
		h.expect("c021 05 02 0004")
		h.advance(3 * time.Second)
		h.expect("c021 05 03 0004")
		h.advance(3 * time.Second)
		h.expectEv([]Event{EvDown{Reason: DownAdmin, Detail: "operator"}})
	})
	t.Run("crossing terminate", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.up()
		h.l.Close(h.now, "operator")
		h.drain()
		h.in(ProtoLCP, "05 09 0004")
		h.expectEv([]Event{EvDown{Reason: DownAdmin, Detail: "operator"}}, "c021 06 09 0004")
	})
	t.Run("before start", func(t *testing.T) {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Close(h.now, "gone")
		h.expectEv([]Event{EvDown{Reason: DownAdmin, Detail: "gone"}})
		h.l.Start(h.now)
		h.expect()
	})
}

func TestPeerTerminateDuringEstablish(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP))
	h.l.Start(h.now)
	h.drain()
	h.in(ProtoLCP, "05 03 0006 0000")
	h.expectEv([]Event{EvDown{Reason: DownPeerTerminate, Acked: true}}, "c021 06 03 0004")
}

func TestLCPRenegotiationEndsLink(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP))
	h.up()
	h.in(ProtoLCP, peerLCPReq)
	h.expectEv([]Event{EvDown{Reason: DownLCPFailed, Detail: "peer restarted LCP negotiation"}})
}

func TestNoAuthentication(t *testing.T) {
	h := newHarness(t, baseConfig())
	h.l.SetIPv4(local, peer, dns1, dns2)
	h.openLCP("c021 01 01 000e 010405d4 0506" + ourMagicHex)
	h.expect("8021 01 01 000a 0306 0a000001")
	h.openIPCP()
}

func TestEchoKeepalive(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.EchoInterval = 10 * time.Second
	cfg.EchoFailures = 2
	h := newHarness(t, cfg)
	h.up()
	h.now = t0
	if h.l.NextDeadline() != t0.Add(10*time.Second) {
		t.Fatalf("deadline %v", h.l.NextDeadline())
	}
	h.advance(10 * time.Second)
	h.expect("c021 09 01 0008 " + ourMagicHex)
	h.in(ProtoLCP, "0a 01 0008 aabbccdd")
	h.advance(10 * time.Second)
	h.expect("c021 09 02 0008 " + ourMagicHex)
	// A reply carrying our own magic is a loop, not liveness.
	h.in(ProtoLCP, "0a 02 0008 "+ourMagicHex)
	h.advance(10 * time.Second)
	h.expect("c021 09 03 0008 " + ourMagicHex)
	h.advance(10 * time.Second)
	h.expectEv([]Event{EvDown{Reason: DownEchoTimeout, Detail: "no LCP Echo-Reply"}})
	if c := h.l.Counters(); c.EchoesSent != 3 || c.EchoRepliesHeard != 1 {
		t.Fatalf("%+v", c)
	}
}

func TestSetEchoLater(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP)) // no echoes configured
	h.up()
	h.now = t0
	if !h.l.NextDeadline().IsZero() {
		t.Fatal("a timer runs without echoes")
	}
	h.l.SetEcho(h.now, 5*time.Second, 1)
	h.advance(5 * time.Second)
	h.expect("c021 09 01 0008 " + ourMagicHex)
	h.advance(5 * time.Second)
	h.expectEv([]Event{EvDown{Reason: DownEchoTimeout, Detail: "no LCP Echo-Reply"}})

	h = newHarness(t, baseConfig(AuthPAP))
	h.up()
	h.l.SetEcho(h.now, 5*time.Second, 2)
	h.l.SetEcho(h.now, 0, 0) // the DP took the keepalive over
	if !h.l.NextDeadline().IsZero() {
		t.Fatal("echoes still scheduled after SetEcho(0)")
	}
}

func TestEchoCodeRejected(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.EchoInterval = 10 * time.Second
	h := newHarness(t, cfg)
	h.up()
	h.now = t0
	h.advance(10 * time.Second)
	h.drain()
	h.in(ProtoLCP, "07 09 000c 09010008"+ourMagicHex)
	h.expect()
	if !h.l.NextDeadline().IsZero() {
		t.Fatal("echoes continue after the peer code-rejected them")
	}
	h.advance(time.Hour)
	h.expect()
}

func TestRFC4638MRU(t *testing.T) {
	cfg := baseConfig(AuthPAP)
	cfg.MaxMRU = 1500
	h := newHarness(t, cfg)
	h.l.Start(h.now)
	h.expect("c021 01 01 0012 010405dc 0304c023 0506" + ourMagicHex)
	h.in(ProtoLCP, "01 01 0008 010405dc")
	h.expect("c021 02 01 0008 010405dc")
	h.in(ProtoLCP, "02 01 0012 010405dc 0304c023 0506"+ourMagicHex)
	if h.l.MRU() != 1500 {
		t.Fatal(h.l.MRU())
	}
	// Before authentication a new Configure-Request renegotiates (RFC 1661
	// Opened/RCR): our request again, and a Nak of the MRU above the limit.
	h.in(ProtoLCP, "01 02 0008 010405dd")
	h.expect("c021 01 02 0012 010405dc 0304c023 0506"+ourMagicHex, "c021 03 02 0008 010405dc")
	if h.l.Phase() != PhaseEstablish {
		t.Fatalf("phase %v after a renegotiation started", h.l.Phase())
	}
}

func TestLCPRepeatedRequestBeforeAuthRenegotiates(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP))
	h.l.Start(h.now)
	h.expect("c021 01 01 0012 010405d4 0304c023 0506" + ourMagicHex)
	h.in(ProtoLCP, "01 07 0008 010405d4")
	h.expect("c021 02 07 0008 010405d4")
	h.in(ProtoLCP, "02 01 0012 010405d4 0304c023 0506"+ourMagicHex)
	if h.l.Phase() != PhaseAuthenticate {
		t.Fatalf("phase %v", h.l.Phase())
	}
	// Our Configure-Ack was late: the peer sends the same request again.
	h.in(ProtoLCP, "01 07 0008 010405d4")
	h.expect("c021 01 02 0012 010405d4 0304c023 0506"+ourMagicHex, "c021 02 07 0008 010405d4")
	h.in(ProtoLCP, "02 02 0012 010405d4 0304c023 0506"+ourMagicHex)
	if h.l.Phase() != PhaseAuthenticate {
		t.Fatalf("phase %v after the renegotiation", h.l.Phase())
	}
	h.in(ProtoPAP, "01 01 000e 04 75736572 04 70617373")
	_, evs := h.l.Drain()
	if len(evs) != 1 {
		t.Fatalf("events %v", evs)
	}
	if a, ok := evs[0].(EvAuth); !ok || a.User != "user" || string(a.Password) != "pass" {
		t.Fatalf("event %#v", evs[0])
	}
	if c := h.l.Counters(); c.Renegotiations != 1 {
		t.Fatalf("%+v", c)
	}
}

func TestPAPMalformedAndDuplicates(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP))
	h.openLCP(ourLCPReqPAP)
	h.drain()
	for _, p := range []string{
		"01 05 0004", "01 05 0005 04", "01 05 0009 04 75736572", "01 05 000b 04 75736572 02 70",
		"01 05 00ff 00 00",
	} {
		h.in(ProtoPAP, p)
	}
	h.expect()
	if h.l.Counters().Malformed != 5 {
		t.Fatalf("%+v", h.l.Counters())
	}
	h.in(ProtoPAP, "02 05 0005 00") // an Ack from the peer: ignored
	h.in(ProtoPAP, "01 05 0006 00 00")
	h.expectEv([]Event{EvAuth{Method: AuthPAP, User: ""}})
	h.in(ProtoPAP, "01 06 0006 00 00") // while the back end thinks
	h.expect()
	h.l.SetIPv4(local, peer, dns1, dns2)
	h.l.AuthResult(h.now, true, "")
	h.expect("c023 02 05 0005 00", "8021 01 01 000a 0306 0a000001")
	h.in(ProtoPAP, "01 07 0006 00 00")
	h.expect("c023 02 07 0005 00")
}

func TestEvAuthDoesNotAlias(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP))
	h.openLCP(ourLCPReqPAP)
	h.drain()
	in := unhex(t, "01 05 000c 04 75736572 02 7077")
	h.l.Input(h.now, ProtoPAP, in)
	_, evs := h.l.Drain()
	for i := range in {
		in[i] = 0
	}
	if a := evs[0].(EvAuth); a.User != "user" || string(a.Password) != "pw" {
		t.Fatalf("%#v", a)
	}
}

// Allocations of a whole PAP session setup stay small.
func TestSetupAllocations(t *testing.T) {
	n := testing.AllocsPerRun(50, func() {
		h := newHarness(t, baseConfig(AuthPAP))
		h.l.Start(h.now)
		h.l.Drain()
		h.l.Input(h.now, ProtoLCP, lcpReqBytes)
		h.l.Input(h.now, ProtoLCP, lcpAckBytes)
		h.l.Input(h.now, ProtoPAP, papBytes)
		h.l.Drain()
		h.l.SetIPv4(local, peer, dns1, dns2)
		h.l.AuthResult(h.now, true, "")
		h.l.Input(h.now, ProtoIPCP, ipcpReqBytes)
		h.l.Input(h.now, ProtoIPCP, ipcpAckBytes)
		h.l.Drain()
	})
	t.Logf("%v allocations per session setup", n)
	if n > 25 {
		t.Fatalf("%v allocations per session setup", n)
	}
}

var (
	lcpReqBytes  = []byte{1, 1, 0, 14, 1, 4, 5, 0xd4, 5, 6, 0xaa, 0xbb, 0xcc, 0xdd}
	lcpAckBytes  = []byte{2, 1, 0, 18, 1, 4, 5, 0xd4, 3, 4, 0xc0, 0x23, 5, 6, 0x11, 0x22, 0x33, 0x44}
	papBytes     = []byte{1, 5, 0, 12, 4, 'u', 's', 'e', 'r', 2, 'p', 'w'}
	ipcpReqBytes = []byte{1, 1, 0, 10, 3, 6, 100, 64, 0, 5}
	ipcpAckBytes = []byte{2, 1, 0, 10, 3, 6, 10, 0, 0, 1}
)

func TestIPCPRetransmission(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP))
	h.openLCP(ourLCPReqPAP)
	h.drain()
	h.authPAP()
	if h.l.NextDeadline() != h.now.Add(3*time.Second) {
		t.Fatalf("deadline %v", h.l.NextDeadline())
	}
	h.advance(3 * time.Second)
	h.expect("8021 01 02 000a 0306 0a000001")
	h.advance(3 * time.Second)
	h.expect("8021 01 03 000a 0306 0a000001")
	// The peer acks the old request: stale, ignored; the current one counts.
	h.in(ProtoIPCP, "02 02 000a 0306 0a000001")
	h.in(ProtoIPCP, "02 03 000a 0306 0a000001")
	h.in(ProtoIPCP, "01 01 000a 0306 64400005")
	h.expectEv([]Event{EvUp{Peer: peer}}, "8021 02 01 000a 0306 64400005")
	if h.l.Counters().Discarded != 1 || !h.l.NextDeadline().IsZero() {
		t.Fatalf("%+v %v", h.l.Counters(), h.l.NextDeadline())
	}
}

// Every truncation of every packet of a session is dropped as malformed,
// in every phase, and changes nothing.
func TestTruncatedInputs(t *testing.T) {
	pkts := []struct {
		proto uint16
		data  []byte
	}{
		{ProtoLCP, lcpReqBytes}, {ProtoLCP, lcpAckBytes}, {ProtoLCP, []byte{9, 1, 0, 8, 0xaa, 0xbb, 0xcc, 0xdd}},
		{ProtoLCP, []byte{5, 1, 0, 4}}, {ProtoLCP, []byte{8, 1, 0, 6, 0x80, 0x21}},
		{ProtoPAP, papBytes}, {ProtoIPCP, ipcpReqBytes}, {ProtoIPCP, ipcpAckBytes},
		{ProtoCHAP, unhex(t, "02 01 001a 10 ffeeddccbbaa99887766554433221100 616c696365")},
	}
	for phase := 0; phase < 3; phase++ {
		h := newHarness(t, baseConfig(AuthPAP))
		switch phase {
		case 0:
			h.l.Start(h.now)
		case 1:
			h.openLCP(ourLCPReqPAP)
		case 2:
			h.up()
		}
		h.drain()
		before := h.l.Phase()
		malformed := h.l.Counters().Malformed
		n := 0
		for _, p := range pkts {
			for i := 0; i < len(p.data); i++ {
				h.l.Input(h.now, p.proto, p.data[:i])
				n++
			}
		}
		h.expect()
		if h.l.Phase() != before {
			t.Fatalf("phase %v -> %v", before, h.l.Phase())
		}
		// Outside the network phase IPCP is discarded before it is parsed.
		if got := h.l.Counters().Malformed - malformed; got == 0 || got > uint64(n) {
			t.Fatalf("phase %v: %d malformed of %d", before, got, n)
		}
	}
}
