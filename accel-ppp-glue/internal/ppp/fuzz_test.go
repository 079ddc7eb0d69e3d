package ppp

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"
	"time"
)

// FuzzLink drives a Link with a random sequence of inputs, timer ticks,
// authentication results and closes. The Link must never panic, never emit
// a packet longer than the peer's MRU (nor 1492 bytes) or with a wrong
// Length, emit at most one EvDown and nothing after it, and never leave a
// timer in the past after Tick.
//
// The input is a list of operations: a selector byte, then its arguments.
// Two operations acknowledge the last LCP / IPCP Configure-Request the Link
// sent, so that the fuzzer reaches the later phases easily.
func FuzzLink(f *testing.F) {
	f.Add([]byte{})
	// Happy PAP path: peer LCP request, ack ours, PAP, result, IPCP.
	var seed []byte
	add := func(op byte, data []byte) {
		seed = append(seed, op, byte(len(data)))
		seed = append(seed, data...)
	}
	add(0, lcpReqBytes)
	seed = append(seed, 8, 0)
	add(1, papBytes)
	seed = append(seed, 7, 10, 6, 1)
	add(3, ipcpReqBytes)
	seed = append(seed, 9, 0)
	add(3, []byte{1, 2, 0, 10, 3, 6, 100, 64, 0, 10})
	add(4, []byte{0x80, 0x57, 1, 1, 0, 4})
	add(4, []byte{0x80, 0x57, 1, 2, 0, 14, 1, 10, 0, 0, 0, 0, 0, 0, 0, 0})
	add(0, []byte{9, 1, 0, 8, 0xaa, 0xbb, 0xcc, 0xdd})
	seed = append(seed, 5, 40, 7, 0)
	f.Add(append([]byte{0}, seed...))
	f.Add(append([]byte{1}, seed...))
	f.Add([]byte{2, 5, 100, 5, 100, 5, 100, 5, 100, 5, 100})

	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		cfg := LinkConfig{Magic: 0x11223344, Rand: bytes.NewReader(make([]byte, 4096))}
		switch b[0] % 4 {
		case 0:
			cfg.Auth = []AuthMethod{AuthPAP}
		case 1:
			cfg.Auth = []AuthMethod{AuthCHAP, AuthPAP}
			cfg.EchoInterval = 5 * time.Second
		case 2:
			cfg.Auth = []AuthMethod{AuthCHAP}
			cfg.MaxMRU = 1500
		}
		if b[0]&4 != 0 { // bng-cp's start: passive, first requests retransmitted soon
			cfg.StartDelay, cfg.RestartFirst = 100*time.Millisecond, 500*time.Millisecond
		}
		b = b[1:]
		l := NewLink(cfg)
		now := t0
		l.Start(now)
		var lastLCP, lastIPCP []byte
		down := false
		check := func() {
			ps, es := l.Drain()
			for _, p := range ps {
				if down {
					t.Fatalf("packet after EvDown: %04x % x", p.Proto, p.Data)
				}
				limit := int(l.MRU())
				if limit > int(cfg.MaxMRU) && cfg.MaxMRU >= 1492 {
					t.Fatalf("MRU %d above MaxMRU %d", limit, cfg.MaxMRU)
				}
				if len(p.Data) > limit || len(p.Data) > 1500 {
					t.Fatalf("packet of %d bytes, MRU %d", len(p.Data), limit)
				}
				if len(p.Data) < 4 || int(binary.BigEndian.Uint16(p.Data[2:])) != len(p.Data) {
					t.Fatalf("bad Length: %04x % x", p.Proto, p.Data)
				}
				if p.Data[0] == CodeConfReq {
					switch p.Proto {
					case ProtoLCP:
						lastLCP = append(lastLCP[:0], p.Data...)
					case ProtoIPCP:
						lastIPCP = append(lastIPCP[:0], p.Data...)
					}
				}
			}
			for _, e := range es {
				if down {
					t.Fatalf("event after EvDown: %#v", e)
				}
				if d, ok := e.(EvDown); ok {
					if d.Reason < DownPeerTerminate || d.Reason > DownAdmin {
						t.Fatalf("bad reason %d", d.Reason)
					}
					down = true
				}
			}
			if down && (l.Phase() != PhaseDead || !l.NextDeadline().IsZero()) {
				t.Fatalf("down but phase %v deadline %v", l.Phase(), l.NextDeadline())
			}
		}
		check()
		for len(b) > 0 {
			op := b[0] % 10
			b = b[1:]
			arg := byte(0)
			if len(b) > 0 {
				arg, b = b[0], b[1:]
			}
			take := func(n int) []byte {
				if n > len(b) {
					n = len(b)
				}
				d := append([]byte(nil), b[:n]...)
				b = b[n:]
				return d
			}
			switch op {
			case 0:
				l.Input(now, ProtoLCP, take(int(arg)))
			case 1:
				l.Input(now, ProtoPAP, take(int(arg)))
			case 2:
				l.Input(now, ProtoCHAP, take(int(arg)))
			case 3:
				l.Input(now, ProtoIPCP, take(int(arg)))
			case 4:
				if p, d, err := SplitProto(take(int(arg))); err == nil {
					l.Input(now, p, d)
				}
			case 5:
				now = now.Add(time.Duration(arg) * 100 * time.Millisecond)
				l.Tick(now)
				if d := l.NextDeadline(); !d.IsZero() && !d.After(now) {
					t.Fatalf("deadline %v not after now %v", d, now)
				}
			case 6:
				l.AuthResult(now, arg&1 == 1, string(take(int(arg>>1))))
			case 7:
				if arg&1 == 1 {
					l.Close(now, "fuzz")
				} else {
					l.SetIPv4(netip.AddrFrom4([4]byte{10, 0, 0, 1}), netip.AddrFrom4([4]byte{100, 64, 0, arg}),
						netip.AddrFrom4([4]byte{8, 8, 8, 8}), netip.Addr{})
					if arg&2 != 0 { // dual stack: IPv6CP too (op 4 feeds it)
						l.SetIPv6(uint64(arg)<<8|1, 0x42)
					}
				}
			case 8, 9:
				last := lastLCP
				proto := ProtoLCP
				if op == 9 {
					last, proto = lastIPCP, ProtoIPCP
				}
				if len(last) > 0 {
					ack := append([]byte(nil), last...)
					ack[0] = CodeConfAck
					l.Input(now, proto, ack)
				}
			}
			check()
		}
		// Eventually every link dies or settles: run the clock for an hour.
		for i := 0; i < 100 && !l.NextDeadline().IsZero(); i++ {
			now = l.NextDeadline()
			l.Tick(now)
			check()
		}
		if !l.NextDeadline().IsZero() {
			t.Fatalf("timers never end: %v", l.NextDeadline())
		}
	})
}
