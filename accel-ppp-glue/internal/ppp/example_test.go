package ppp_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

// A control plane runs one Link per PPPoE session: it feeds frames in,
// ticks the timers, answers EvAuth, and sends what Drain returns inside
// PPPoE session frames.
func ExampleLink() {
	now := time.Unix(0, 0)
	l := ppp.NewLink(ppp.LinkConfig{Auth: []ppp.AuthMethod{ppp.AuthPAP}, Magic: 0x01020304})
	show := func() {
		pkts, evs := l.Drain()
		for _, p := range pkts {
			fmt.Printf("send %04x % x\n", p.Proto, p.Data)
		}
		for _, e := range evs {
			switch e := e.(type) {
			case ppp.EvAuth:
				fmt.Printf("auth %s user %q\n", e.Method, e.User)
				l.SetIPv4(netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("100.64.0.9"), netip.Addr{}, netip.Addr{})
				l.AuthResult(now, true, "")
			case ppp.EvUp:
				fmt.Println("up", e.Peer)
			case ppp.EvDown:
				fmt.Println("down", e.Reason)
			}
		}
	}
	peer := func(frame string) {
		// In the CP: pppoe.DecodeFrame, then ppp.SplitProto on its Payload.
		var b []byte
		fmt.Sscanf(frame, "%x", &b)
		proto, data, err := ppp.SplitProto(b)
		if err != nil {
			return
		}
		l.Input(now, proto, data)
		show()
	}
	l.Start(now)
	show()
	peer("c0210101000a050655667788")                 // LCP Configure-Request (magic)
	peer("c02102010012010405d40304c023050601020304") // Configure-Ack of ours
	peer("c0230101000b03616263027077")               // PAP: user "abc", password "pw"
	show()                                           // after AuthResult
	peer("80210101000a030600000000")                 // IPCP asks for an address
	peer("80210102000a030664400009")                 // takes the one Nak'd
	peer("80210201000a03060a000001")                 // acks ours
	peer("c0210509000400")                           // Terminate-Request
	// Output:
	// send c021 01 01 00 12 01 04 05 d4 03 04 c0 23 05 06 01 02 03 04
	// send c021 02 01 00 0a 05 06 55 66 77 88
	// auth pap user "abc"
	// send c023 02 01 00 05 00
	// send 8021 01 01 00 0a 03 06 0a 00 00 01
	// send 8021 03 01 00 0a 03 06 64 40 00 09
	// send 8021 02 02 00 0a 03 06 64 40 00 09
	// up 100.64.0.9
	// send c021 06 09 00 04
	// down peer-terminate
}
