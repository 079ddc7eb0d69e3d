package main

import (
	"encoding/hex"
	"net/netip"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
)

// discard is a Transport that drops what it is given.
type discard struct{ n int }

func (d *discard) Recv(*RxBatch) error          { return ErrClosed }
func (d *discard) Send(f [][]byte) (int, error) { d.n += len(f); return len(f), nil }
func (d *discard) Close() error                 { return nil }

var fuzzAC = [6]byte{0x02, 0xac, 0, 0, 0, 1}

// fuzzEmu returns an emulator with one session in each state, on line
// 100/1..10, sessions with PPPoE id 0x10+index, AC MAC fuzzAC.
func fuzzEmu(tb testing.TB) *Emu {
	subs, _ := testSubs(10)
	for i := range subs {
		subs[i].STag, subs[i].CTag = 100, uint16(i+1)
	}
	cfg := fastConfig("chap")
	cfg.EchoInterval = 1e9
	cfg.Rate = 10
	cfg.Target = netip.MustParseAddrPort("198.51.100.10:7")
	cfg.DualStack = true
	cfg.Target6 = netip.MustParseAddrPort("[2001:db8:ffff::10]:7")
	e, err := NewEmu(cfg, &discard{}, subs)
	if err != nil {
		tb.Fatal(err)
	}
	e.queue, e.qHead = e.queue[:0], 0
	for i := range e.sess {
		s := &e.sess[i]
		st := state(i % int(stClosed+1))
		switch {
		case st.dialling():
			e.startDial(s)
		case st == stUp:
			e.startDial(s)
			e.dialing--
			e.st.upNow++
		case st == stQueued:
			e.queue = append(e.queue, s.idx)
		}
		s.state = st
		s.acMAC = fuzzAC
		if st >= stLCP {
			s.sid = uint16(0x10 + i)
			s.addr = [4]byte{100, 64, 0, byte(i + 2)}
		}
		if st >= stAuth {
			s.ourAcked, s.peerAcked, s.authProto = true, true, ppp.ProtoCHAP
		}
		if st >= stIPCP {
			s.v6 = v6sess{iid: eui64(s.mac), ourAcked: true, peerAcked: true, xid: 0x123456, dhcp: dhcpSoliciting}
		}
		if st == stUp {
			s.v6.raSeen, s.v6.prefix, s.v6.dhcp = true, 0x20010db801000001, dhcpBound
			s.v6.pd = netip.MustParsePrefix("2001:db8:200:100::/56")
		}
	}
	return e
}

// frameTo builds a QinQ PPPoE frame from the AC to session i.
func frameTo(e *Emu, i int, et uint16, code uint8, sid uint16, payload []byte) []byte {
	s := &e.sess[i]
	f := pppoe.Frame{Dst: s.mac, Src: fuzzAC, OuterTPID: 0x88a8, STag: s.sub.STag, CTag: s.sub.CTag,
		EtherType: et, Code: code, SessionID: sid, Payload: payload}
	return pppoe.AppendFrame(nil, &f)
}

// FuzzInput feeds hostile frames to the receive path (frame decoder, demux,
// discovery, LCP, PAP, CHAP, IPCP, echo, IPv4): counted and dropped, never a
// panic, and every frame the client sends back is a valid PPPoE frame.
func FuzzInput(f *testing.F) {
	e := fuzzEmu(f)
	for i := range e.sess {
		s := &e.sess[i]
		f.Add(frameTo(e, i, pppoe.EtherTypeDiscovery, pppoe.CodePADO, 0, pppoe.AppendTag(nil, pppoe.TagHostUniq, s.hostUniq[:])))
		f.Add(frameTo(e, i, pppoe.EtherTypeDiscovery, pppoe.CodePADS, 7, pppoe.AppendTag(nil, pppoe.TagHostUniq, s.hostUniq[:])))
		f.Add(frameTo(e, i, pppoe.EtherTypeDiscovery, pppoe.CodePADT, s.sid|1, nil))
		for _, h := range []string{
			"c021 01 01 0013 010405d4 0305c22305 050611223344",    // LCP Configure-Request
			"c021 09 07 0008 11223344",                            // Echo-Request
			"c021 0a 07 0008 11223344",                            // Echo-Reply
			"c021 0e 07 0004",                                     // unknown code
			"c223 01 02 0015 10 000102030405060708090a0b0c0d0e0f", // CHAP Challenge
			"c223 03 02 0004",                                     // CHAP Success
			"8021 01 01 000a 0306 64400001",                       // IPCP Configure-Request
			"8021 03 01 0016 0306 64400005 8106 08080808 8306 08080404",
			"8057 01 01 0004", // IPv6CP
			"8057 01 01 000e 010a 00ac00fffe000001",
			"8057 03 02 000e 010a 0211223344556677",
			"0021 4500001c000000004011000000000000000000000000000000000000",
		} {
			b, _ := hex.DecodeString(stripSpaces(h))
			f.Add(frameTo(e, i, pppoe.EtherTypeSession, 0, s.sid|1, b))
		}
		// an RA and a DHCPv6 Advertise as bng-cp sends them
		vs := &v6ctl.Session{OurIID: 0x00ac00fffe000001, WAN: netip.MustParsePrefix("2001:db8:100:1::/64"),
			PD: netip.MustParsePrefix("2001:db8:200:100::/56"), MTU: 1492, RouterLifetime: 1800}
		f.Add(frameTo(e, i, pppoe.EtherTypeSession, 0, s.sid|1, append([]byte{0, 0x57}, v6ctl.RA(vs)...)))
		s.v6.iid = eui64(s.mac)
		s.v6.xid = 0x123456
		e.sendDHCP(s, 1)
		sol := e.txFrames[e.txN-1]
		if fr, err := pppoe.DecodeFrame(sol); err == nil && len(fr.Payload) > 2 {
			if r := (&v6ctl.Server{DUID: v6ctl.NewDUID([8]byte{1})}).Handle(vs, fr.Payload[2:], time.Time{}); r.Reply != nil {
				f.Add(frameTo(e, i, pppoe.EtherTypeSession, 0, s.sid|1, append([]byte{0, 0x57}, r.Reply...)))
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e := fuzzEmu(t)
		d := e.tr.(*discard)
		e.input(b)
		// the same bytes addressed to every session in turn
		if len(b) >= 6 {
			for i := range e.sess {
				c := append([]byte(nil), b...)
				copy(c, e.sess[i].mac[:])
				e.input(c)
			}
		}
		e.now += 3e9
		e.advance()
		for i := 0; i < e.txN; i++ {
			fr := e.txFrames[i]
			if _, err := pppoe.DecodeFrame(fr); err != nil {
				t.Fatalf("sent an invalid frame %x: %v", fr, err)
			}
		}
		e.flush()
		if d.n == 0 && e.st.txFrames != 0 {
			t.Fatal("frames counted but not sent")
		}
		if e.dialing < 0 || e.st.upNow > uint64(len(e.sess)) {
			t.Fatalf("dialing %d up %d", e.dialing, e.st.upNow)
		}
	})
}

func stripSpaces(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// TestHostileFrames: a table of malformed and unexpected frames, each counted.
func TestHostileFrames(t *testing.T) {
	e := fuzzEmu(t)
	up := int(stUp) // session index in state up
	s := &e.sess[up]
	cp := func(h string) []byte {
		b, _ := hex.DecodeString(stripSpaces(h))
		return b
	}
	for _, tc := range []struct {
		name  string
		frame []byte
		field *uint64
	}{
		{"empty", nil, &e.st.rxMalformed},
		{"untagged", append(append(s.mac[:], fuzzAC[:]...), 0x88, 0x64, 0x11, 0, 0, 1, 0, 0), &e.st.rxMalformed},
		{"not our MAC", func() []byte {
			f := frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, cp("c021 09 01 0008 00000000"))
			f[1] = 0x5c
			return f
		}(), &e.st.rxNotOurs},
		{"unknown index", func() []byte {
			f := frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, cp("c021 09 01 0008 00000000"))
			f[5] = 0xee
			return f
		}(), &e.st.rxNotOurs},
		{"wrong line", func() []byte {
			f := frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, cp("c021 09 01 0008 00000000"))
			f[15] ^= 1
			return f
		}(), &e.st.rxWrongLine},
		{"wrong session id", frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid+1, cp("c021 09 01 0008 00000000")), &e.st.rxWrongSession},
		{"LCP length beyond the frame", frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, cp("c021 09 01 00ff 00000000")), &e.st.rxMalformed},
		{"short echo", frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, cp("c021 09 01 0006 0000")), &e.st.rxUnexpected},
		{"PPP without protocol", frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, cp("c0")), &e.st.rxMalformed},
		{"bad tags in PADO", frameTo(e, int(stPADI), pppoe.EtherTypeDiscovery, pppoe.CodePADO, 0, cp("0103 00ff")), &e.st.rxMalformed},
		{"PADO without our Host-Uniq", frameTo(e, int(stPADI), pppoe.EtherTypeDiscovery, pppoe.CodePADO, 0, cp("0103 0002 0000")), &e.st.rxUnexpected},
		{"PADS in state up", frameTo(e, up, pppoe.EtherTypeDiscovery, pppoe.CodePADS, 5, pppoe.AppendTag(nil, pppoe.TagHostUniq, s.hostUniq[:])), &e.st.rxUnexpected},
		{"PADT of another session", frameTo(e, up, pppoe.EtherTypeDiscovery, pppoe.CodePADT, s.sid+1, nil), &e.st.rxWrongSession},
		{"IPCP Ack out of the blue", frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, cp("8021 02 09 000a 0306 00000000")), &e.st.rxUnexpected},
		{"IPv6CP Ack out of the blue", frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, cp("8057 02 09 000e 010a 0211223344556677")), &e.st.rxUnexpected},
	} {
		before := *tc.field
		e.input(tc.frame)
		if *tc.field != before+1 {
			t.Errorf("%s: counter did not move", tc.name)
		}
	}
	if s.state != stUp {
		t.Fatalf("the up session went %v", s.state)
	}
	// a datagram that is not our echo counts as bad traffic
	e.input(frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, cp("0021 4500001c000000004011000000000000000000000000000000000000")))
	if s.rxBad != 1 || s.rxPkts != 0 {
		t.Fatalf("rx %d bad %d", s.rxPkts, s.rxBad)
	}
}

// TestTrafficPathAllocatesNothing: sending a datagram, receiving its echo and
// answering an LCP echo allocate nothing.
func TestTrafficPathAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	e := fuzzEmu(t)
	up := int(stUp)
	s := &e.sess[up]
	e.sendUDP(s)
	echo := append([]byte(nil), e.txFrames[e.txN-1]...)
	// turn our datagram into the echo server's answer
	ip := echo[len(echo)-(20+8+e.cfg.Size):]
	var a [4]byte
	copy(a[:], ip[12:16])
	copy(ip[12:16], ip[16:20])
	copy(ip[16:20], a[:])
	ip[20], ip[21], ip[22], ip[23] = ip[22], ip[23], ip[20], ip[21]
	copy(echo[0:6], s.mac[:])
	copy(echo[6:12], fuzzAC[:])
	e.flush()
	echoReq := frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, []byte{0xc0, 0x21, 9, 1, 0, 8, 1, 2, 3, 4})
	n := testing.AllocsPerRun(1000, func() {
		e.sendUDP(s)
		e.input(echo)
		e.input(echoReq)
	})
	if n != 0 || s.rxPkts == 0 || s.rxBad != 0 || s.echoAnswered == 0 {
		t.Fatalf("%v allocations per run; rx %d bad %d echo answered %d", n, s.rxPkts, s.rxBad, s.echoAnswered)
	}
}

// TestDatagramWithoutTarget: an emulator started without --target (it sends no traffic)
// that receives an IPv4 datagram on an up session counts it as bad traffic; the
// datagram's address check used to panic on the unset target.
func TestDatagramWithoutTarget(t *testing.T) {
	e := fuzzEmu(t)
	e.cfg.Target = netip.AddrPort{}
	up := int(stUp)
	s := &e.sess[up]
	ip, _ := hex.DecodeString(stripSpaces("0021 4500001c000000004011000000000000000000000000000000000000"))
	e.input(frameTo(e, up, pppoe.EtherTypeSession, 0, s.sid, ip))
	if s.rxBad != 1 || s.rxPkts != 0 {
		t.Fatalf("rx %d bad %d", s.rxPkts, s.rxBad)
	}
}
