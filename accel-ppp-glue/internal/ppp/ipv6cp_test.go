package ppp

import (
	"testing"
	"time"
)

const (
	ourIID     = 0x00bbfffe00000001 // as a BNG derives it from an AC MAC
	suggestIID = 0x0200000000000042
	ourV6Req   = "8057 01 01 000e 010a 00bbfffe00000001"
)

// authPAP6 completes PAP with IPv4 and IPv6 enabled: both NCPs send their
// Configure-Request.
func (h *harness) authPAP6() {
	h.t.Helper()
	h.in(ProtoPAP, "01 05 000c 04 75736572 02 7077")
	h.expectEv([]Event{EvAuth{Method: AuthPAP, User: "user", Password: []byte("pw")}})
	h.l.SetIPv4(local, peer, dns1, dns2)
	h.l.SetIPv6(ourIID, suggestIID)
	h.l.AuthResult(h.now, true, "welcome")
	h.expect("c023 02 05 000c 07 77656c636f6d65", "8021 01 01 000a 0306 0a000001", ourV6Req)
}

func setup6(t *testing.T) *harness {
	h := newHarness(t, baseConfig(AuthPAP))
	h.openLCP(ourLCPReqPAP)
	h.expect()
	h.authPAP6()
	return h
}

func TestIPv6CPRequests(t *testing.T) {
	for _, tc := range []struct {
		name, req, reply string
	}{
		{"ack unique id", "01 01 000e 010a 0211223344556677", "8057 02 01 000e 010a 0211223344556677"},
		{"nak zero id", "01 01 000e 010a 0000000000000000", "8057 03 01 000e 010a 0200000000000042"},
		{"nak our id", "01 01 000e 010a 00bbfffe00000001", "8057 03 01 000e 010a 0200000000000042"},
		{"reject compression", "01 01 0012 010a 0211223344556677 0204 004f", "8057 04 01 0008 0204004f"},
		{"reject bad length", "01 01 000d 0109 02112233445566", "8057 04 01 000d 010902112233445566"},
		{"ack without id", "01 01 0004", "8057 02 01 0004"},
		{"malformed", "01 01 0006 0108", ""},
		{"unknown code", "0c 01 0004", "8057 07 02 0008 0c010004"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setup6(t)
			h.in(ProtoIPv6CP, tc.req)
			if tc.reply == "" {
				h.expect()
			} else {
				h.expect(tc.reply)
			}
		})
	}
}

func TestIPv6CPOpens(t *testing.T) {
	h := setup6(t)
	h.openIPCP()
	h.in(ProtoIPv6CP, "01 07 000e 010a 0000000000000000")
	h.expect("8057 03 07 000e 010a 0200000000000042")
	h.in(ProtoIPv6CP, "01 08 000e 010a 0200000000000042")
	h.expect("8057 02 08 000e 010a 0200000000000042")
	h.in(ProtoIPv6CP, "02 01 000e 010a 00bbfffe00000001")
	h.expectEv([]Event{EvUp6{Local: ourIID, Peer: suggestIID}})
	if o, p := h.l.IIDs(); o != ourIID || p != suggestIID {
		t.Fatalf("IIDs %x %x", o, p)
	}
	// IPv6 data is the caller's (RS, DHCPv6): not rejected
	h.in(ProtoIPv6, "6000000000083aff fe80")
	h.expect()
}

func TestIPv6CPOurIDNakd(t *testing.T) {
	h := setup6(t)
	// the peer says our id collides with its own and suggests another
	h.in(ProtoIPv6CP, "03 01 000e 010a 0a0b0c0d0e0f1011")
	h.expect("8057 01 02 000e 010a 0a0b0c0d0e0f1011")
	// a Nak of zero: we pick another ourselves
	h.in(ProtoIPv6CP, "03 02 000e 010a 0000000000000000")
	got, _ := h.drain()
	if len(got) != 1 || got[0][:len("8057 0103000e010a")] != "8057 0103000e010a" || got[0] == "8057 0103000e010a0000000000000000" {
		t.Fatalf("%q", got)
	}
}

func TestIPv6OnlySession(t *testing.T) {
	h := setup6(t)
	// the CPE runs no IPv4: it Protocol-Rejects IPCP; the link stays for IPv6
	h.in(ProtoLCP, "08 09 000e 8021 01 01 000a 0306 0a000001")
	h.expectEv([]Event{EvNCPDown{Proto: ProtoIPCP, Detail: "IPCP negotiation failed"}})
	h.in(ProtoIPv6CP, "01 01 000e 010a 0211223344556677")
	h.expect("8057 02 01 000e 010a 0211223344556677")
	h.in(ProtoIPv6CP, "02 01 000e 010a 00bbfffe00000001")
	h.expectEv([]Event{EvUp6{Local: ourIID, Peer: 0x0211223344556677}})
	// the IPCP deadline is off: nothing happens later
	h.advance(time.Minute)
	h.expect()
	// and IPv6CP failing now ends the link
	h.in(ProtoIPv6CP, "05 02 0004")
	h.expect("8057 06 02 0004", "c021 05 02 0004")
	h.in(ProtoLCP, "06 02 0004")
	h.expectEv([]Event{EvDown{Reason: DownIPCPFailed, Detail: "peer terminated IPv6CP"}})
}

func TestIPv6CPRejectedByPeerKeepsIPv4(t *testing.T) {
	h := setup6(t)
	h.openIPCP()
	h.in(ProtoLCP, "08 09 0012 8057 01 01 000e 010a 00bbfffe00000001")
	h.expectEv([]Event{EvNCPDown{Proto: ProtoIPv6CP, Detail: "IPv6CP negotiation failed"}})
	h.advance(time.Minute)
	h.expect()
	if h.l.Done() {
		t.Fatal("link down")
	}
}

func TestIPv6CPGivesUpKeepsIPv4(t *testing.T) {
	h := setup6(t)
	h.openIPCP()
	// IPv6CP retransmits up to Max-Configure, then fails alone
	for i := 0; i < 9; i++ {
		h.advance(3 * time.Second)
		h.drain()
	}
	h.advance(3 * time.Second)
	h.expectEv([]Event{EvNCPDown{Proto: ProtoIPv6CP, Detail: "IPv6CP negotiation failed"}})
	if h.l.Done() {
		t.Fatal("link down")
	}
}

func TestIPv6CPWithoutSetIPv6IsProtocolRejected(t *testing.T) {
	h := newHarness(t, baseConfig(AuthPAP))
	h.up()
	h.in(ProtoIPv6CP, "01 01 000e 010a 0211223344556677")
	h.expect("c021 08 02 0014 8057 01 01 000e 010a 0211223344556677")
	h.in(ProtoIPv6, "60000000")
	h.expect("c021 08 03 000a 0057 60000000")
}

func TestBothNCPsFail(t *testing.T) {
	h := setup6(t)
	h.in(ProtoLCP, "08 09 0012 8057 01 01 000e 010a 00bbfffe00000001")
	h.expectEv([]Event{EvNCPDown{Proto: ProtoIPv6CP, Detail: "IPv6CP negotiation failed"}})
	h.in(ProtoLCP, "08 0a 000e 8021 01 01 000a 0306 0a000001")
	h.expect("c021 05 02 0004")
	h.in(ProtoLCP, "06 02 0004")
	h.expectEv([]Event{EvDown{Reason: DownIPCPFailed, Detail: "peer rejected IPCP"}})
}
