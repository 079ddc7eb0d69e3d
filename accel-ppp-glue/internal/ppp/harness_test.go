package ppp

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// challenge bytes the tests' Rand yields: 00 01 .. 0f.
var testChallenge = func() []byte {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

const ourMagicHex = "11223344"

func baseConfig(auth ...AuthMethod) LinkConfig {
	return LinkConfig{
		Auth:  auth,
		Magic: 0x11223344,
		Rand:  bytes.NewReader(bytes.Repeat(testChallenge, 8)),
	}
}

// h drives a Link with a hand-moved clock and checks what it emits.
type harness struct {
	t   *testing.T
	l   *Link
	now time.Time
}

func newHarness(t *testing.T, cfg LinkConfig) *harness {
	return &harness{t: t, l: NewLink(cfg), now: t0}
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// pkt formats a packet as "pppp hex" with the protocol in hex.
func pkt(p Packet) string { return fmt.Sprintf("%04x %x", p.Proto, p.Data) }

// norm removes the spaces of a "pppp hex hex ..." expectation after the protocol.
func norm(s string) string {
	f := strings.Fields(s)
	return f[0] + " " + strings.Join(f[1:], "")
}

// drain returns the packets as strings and the events, checking that every
// control packet's Length matches its size and fits the peer's MRU.
func (h *harness) drain() ([]string, []Event) {
	h.t.Helper()
	ps, es := h.l.Drain()
	var out []string
	for _, p := range ps {
		if len(p.Data) > int(h.l.MRU()) {
			h.t.Fatalf("packet of %d bytes beyond MRU %d", len(p.Data), h.l.MRU())
		}
		if len(p.Data) < 4 || int(p.Data[2])<<8|int(p.Data[3]) != len(p.Data) {
			h.t.Fatalf("packet length field wrong: %s", pkt(p))
		}
		out = append(out, pkt(p))
	}
	return out, append([]Event(nil), es...)
}

// expect checks the packets emitted since the last drain (byte for byte)
// and that no event came.
func (h *harness) expect(want ...string) {
	h.t.Helper()
	h.expectEv(nil, want...)
}

// expectEv checks packets and events.
func (h *harness) expectEv(evs []Event, want ...string) {
	h.t.Helper()
	got, ge := h.drain()
	for i := range want {
		want[i] = norm(want[i])
	}
	if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
		h.t.Fatalf("packets\n got  %q\n want %q", got, want)
	}
	if len(ge) != len(evs) || (len(evs) > 0 && !reflect.DeepEqual(ge, evs)) {
		h.t.Fatalf("events\n got  %#v\n want %#v", ge, evs)
	}
}

func (h *harness) in(proto uint16, hexData string) {
	h.t.Helper()
	h.l.Input(h.now, proto, unhex(h.t, hexData))
}

func (h *harness) advance(d time.Duration) {
	h.now = h.now.Add(d)
	h.l.Tick(h.now)
}

// Frequently used packets.
const (
	ourLCPReqPAP  = "c021 01 01 0012 010405d4 0304c023 0506" + ourMagicHex
	ourLCPReqCHAP = "c021 01 01 0013 010405d4 0305c22305 0506" + ourMagicHex
	peerLCPReq    = "01 01 000e 010405d4 0506aabbccdd"
	ourLCPAck     = "c021 02 01 000e 010405d4 0506aabbccdd"
)

// openLCP starts the link and completes LCP with a plain peer.
func (h *harness) openLCP(ourReq string) {
	h.t.Helper()
	h.l.Start(h.now)
	h.expect(ourReq)
	h.in(ProtoLCP, peerLCPReq)
	h.expect(ourLCPAck)
	f := strings.Fields(ourReq)
	f[1] = "02" // ack our request
	h.in(ProtoLCP, strings.Join(f[1:], ""))
}

var (
	local = netip.MustParseAddr("10.0.0.1")
	peer  = netip.MustParseAddr("100.64.0.5")
	dns1  = netip.MustParseAddr("8.8.8.8")
	dns2  = netip.MustParseAddr("8.8.4.4")
)

// authPAP completes PAP with user "user", password "pw".
func (h *harness) authPAP() {
	h.t.Helper()
	h.in(ProtoPAP, "01 05 000c 04 75736572 02 7077")
	h.expectEv([]Event{EvAuth{Method: AuthPAP, User: "user", Password: []byte("pw")}})
	h.l.SetIPv4(local, peer, dns1, dns2)
	h.l.AuthResult(h.now, true, "welcome")
	h.expect("c023 02 05 000c 07 77656c636f6d65",
		"8021 01 01 000a 0306 0a000001")
}

// openIPCP completes IPCP (peer asks for nothing, takes what is Nak'd).
func (h *harness) openIPCP() {
	h.t.Helper()
	h.in(ProtoIPCP, "01 01 0016 0306 00000000 8106 00000000 8306 00000000")
	h.expect("8021 03 01 0016 0306 64400005 8106 08080808 8306 08080404")
	h.in(ProtoIPCP, "02 01 000a 0306 0a000001")
	h.expect()
	h.in(ProtoIPCP, "01 02 0016 0306 64400005 8106 08080808 8306 08080404")
	h.expectEv([]Event{EvUp{Peer: peer}}, "8021 02 02 0016 0306 64400005 8106 08080808 8306 08080404")
}

// up brings a PAP link to the network phase with IPCP opened.
func (h *harness) up() {
	h.t.Helper()
	h.openLCP(ourLCPReqPAP)
	h.expect()
	h.authPAP()
	h.openIPCP()
	if h.l.Phase() != PhaseNetwork {
		h.t.Fatalf("phase %v", h.l.Phase())
	}
}
