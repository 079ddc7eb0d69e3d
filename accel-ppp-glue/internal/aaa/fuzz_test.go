package aaa

import (
	"bytes"
	"encoding/binary"
	"testing"

	"net/netip"

	"layeh.com/radius"
	"layeh.com/radius/rfc2865"
)

var fuzzReqAuth = [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

func seedAttrs() [][]byte {
	p := &radius.Packet{Code: radius.CodeAccessAccept}
	p.Add(rfc2865.FramedIPAddress_Type, []byte{10, 0, 0, 1})
	p.Add(rfc2865.FilterID_Type, []byte("gold"))
	p.Add(rfc2865.Class_Type, []byte("c"))
	w, _ := vsa(vendorWISPr, wisprBandwidthMaxDown, u32(1000))
	p.Add(rfc2865.VendorSpecific_Type, w)
	p.Add(rfc2865.SessionTimeout_Type, u32(60))
	b, _ := p.MarshalBinary()
	return [][]byte{b[20:], {}, {26, 2}, {26, 8, 0, 0, 0x37, 0x2a, 8, 9}, {80, 18}}
}

// FuzzParseReply feeds hostile datagrams through the reply checks and the
// decoder. data is used twice: as a whole datagram (must be refused or
// verified, never panic), and as the attribute area of a correctly signed
// Access-Accept, so the decoder sees arbitrary attributes behind valid
// authenticators.
func FuzzParseReply(f *testing.F) {
	for _, s := range seedAttrs() {
		f.Add(s)
	}
	secret := []byte("fuzz")
	f.Fuzz(func(t *testing.T, data []byte) {
		// 1. Raw datagram.
		if l, err := packetLen(data); err == nil {
			if verifyReply(data[:l], &fuzzReqAuth, secret, true) == nil {
				if _, err := decodeAccess(data[:l]); err != nil {
					t.Fatalf("verified reply does not decode: %v", err)
				}
			}
		}
		// 2. Signed Access-Accept with data as attributes (after our MA).
		if len(data) > maxPacket-headerLen-18 {
			return
		}
		pkt := make([]byte, headerLen+18, headerLen+18+len(data))
		pkt[0], pkt[1] = byte(radius.CodeAccessAccept), 1
		pkt[20], pkt[21] = byte(attrMessageAuthenticator), 18
		pkt = append(pkt, data...)
		binary.BigEndian.PutUint16(pkt[2:], uint16(len(pkt)))
		ma := computeMA(pkt, 22, &fuzzReqAuth, secret)
		copy(pkt[22:], ma[:])
		ra := authHash(pkt, &fuzzReqAuth, secret)
		copy(pkt[4:20], ra[:])
		wellFormed := walkAttrs(data, nil) == nil
		extraMA := false
		if wellFormed {
			_ = walkAttrs(data, func(_ int, typ byte, _ []byte) error {
				extraMA = extraMA || typ == byte(attrMessageAuthenticator)
				return nil
			})
		}
		err := verifyReply(pkt, &fuzzReqAuth, secret, true)
		if (err == nil) != (wellFormed && !extraMA) {
			t.Fatalf("verify %v, well-formed %v, extra MA %v", err, wellFormed, extraMA)
		}
		if err != nil {
			return
		}
		r, err := decodeAccess(pkt)
		if err != nil || !r.Accept {
			t.Fatalf("decode: %v %+v", err, r)
		}
		if r.FramedIP.IsValid() && !r.FramedIP.Is4() {
			t.Fatal("non-IPv4 Framed-IP")
		}
		// Any bit flipped in a signed reply must be refused.
		bad := bytes.Clone(pkt)
		bad[len(bad)/2] ^= 0x40
		if verifyReply(bad, &fuzzReqAuth, secret, true) == nil {
			t.Fatal("tampered reply verified")
		}
	})
}

// FuzzDecodeDyn: arbitrary attributes in a CoA/Disconnect request never
// panic, and an accepted request always identifies a session.
func FuzzDecodeDyn(f *testing.F) {
	for _, s := range seedAttrs() {
		f.Add(byte(40), s)
		f.Add(byte(43), s)
	}
	f.Fuzz(func(t *testing.T, code byte, data []byte) {
		if len(data) > maxPacket-headerLen {
			return
		}
		pkt := make([]byte, headerLen, headerLen+len(data))
		pkt[0] = code
		pkt = append(pkt, data...)
		binary.BigEndian.PutUint16(pkt[2:], uint16(len(pkt)))
		r, cause := decodeDyn(pkt, "bng", netip.Addr{})
		if (r == nil) == (cause == 0) {
			t.Fatalf("result %+v with cause %d", r, cause)
		}
		if r != nil && r.AcctSessionID == "" && r.UserName == "" && r.CallingStationID == "" && r.NASPortID == "" && !r.FramedIP.IsValid() {
			t.Fatal("accepted without session identification")
		}
		// The request check must not panic either.
		_ = verifyRequest(pkt, []byte("s"))
	})
}
