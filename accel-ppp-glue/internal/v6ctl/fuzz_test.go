package v6ctl

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"
	"time"
)

// FuzzHandle feeds hostile IPv6 packets to the handler: no panic, a reply
// only with a valid header, a dropped packet never answered.
func FuzzHandle(f *testing.F) {
	f.Add(rs(clientLL, 255, nil))
	f.Add(dhcp(msgSolicit, opt(optClientID, duidC), iaPD(7), iaNA(9), oroDNS, opt(optRapidCommit, nil)))
	f.Add(dhcp(msgRenew, opt(optClientID, duidC), opt(optServerID, srv.DUID), iaPD(7, opt(optIAPrefix, make([]byte, 25)))))
	f.Add(dhcp(msgInfoReq))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newSession()
		r := srv.Handle(s, b, time.Time{})
		if r.Drop != (r.Reply == nil) || r.Kind == "" {
			t.Fatalf("inconsistent result %+v", r)
		}
		if r.Reply != nil {
			if _, bad := parseIPv6(r.Reply); bad != "" {
				t.Fatalf("reply not IPv6: %s", bad)
			}
			if len(r.Reply) > 1280 {
				t.Fatalf("reply of %d bytes", len(r.Reply))
			}
		}
		// the same input again (the binding now set) must not panic either
		srv.Handle(s, b, time.Time{})
	})
}

// FuzzFrameAndPeek feeds hostile redirected IPoE frames to the Ethernet
// decoder, Peek and the handler of a session on Ethernet (SLLA set, with
// and without a /64): no panic; Peek agrees with Handle on what a DHCPv6
// message is; a decoded frame encodes back to the same bytes.
func FuzzFrameAndPeek(f *testing.F) {
	mac := [6]byte{2, 0, 0, 0, 0, 9}
	for _, p := range [][]byte{rs(clientLL, 255, nil), dhcp(msgSolicit, opt(optClientID, duidC), iaPD(7), iaNA(9), opt(optRapidCommit, nil))} {
		f.Add(AppendFrame(nil, &Frame{Dst: mac, Src: mac, STag: 10, CTag: 20, Packet: p}))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		IsIPv6Frame(b)
		fr, err := DecodeFrame(b)
		if err != nil {
			return
		}
		if fr.CTag != 0 && fr.STag == binary.BigEndian.Uint16(b[14:])&0xfff && binary.BigEndian.Uint16(b[14:])&0xf000 == 0 &&
			binary.BigEndian.Uint16(b[18:])&0xf000 == 0 {
			if got := AppendFrame(nil, &fr); !bytes.Equal(got, b) {
				t.Fatalf("re-encoded %x, was %x", got, b)
			}
		}
		pk, bad := Peek(fr.Packet)
		for _, withWAN := range []bool{false, true} {
			s := newSession()
			s.SLLA = mac[:]
			if !withWAN {
				s.WAN, s.PD, s.IANA = netip.Prefix{}, netip.Prefix{}, netip.Addr{}
			}
			r := srv.Handle(s, fr.Packet, time.Time{})
			if r.Drop != (r.Reply == nil) {
				t.Fatalf("inconsistent result %+v", r)
			}
			if !r.Drop && bad != "" && !pk.RS && pk.DHCP == 0 && r.Kind != "na" {
				t.Fatalf("Peek dropped (%s) what Handle answered (%s)", bad, r.Kind)
			}
		}
	})
}
