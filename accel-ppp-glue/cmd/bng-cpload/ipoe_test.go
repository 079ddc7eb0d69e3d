package main

import (
	"net/netip"
	"testing"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
)

// The loader's own DHCP codec against bng-cp's (internal/dhcp4), both ways.
func TestIPoEDHCPAgainstCPCodec(t *testing.T) {
	l := &Loader{cfg: Config{OuterTPID: tpid8021AD}}
	s := &session{l: l, dp: &dp{id: 3}, idx: 41, mac: sessionMAC(41), stag: 300, ctag: 42, ipoe: true}
	s.dhcp = dhcpCPE{xid: 0x01020304, circuit: "ipoe42", offered: netip.MustParseAddr("100.64.128.9"),
		server: netip.MustParseAddr("100.64.191.254")}
	for _, typ := range []uint8{dhcpDiscover, dhcpRequest} {
		vni, inner, err := vxlanDecap(s.dhcpDatagram(typ))
		if err != nil || vni != 3 {
			t.Fatalf("vxlan %d %v", vni, err)
		}
		f, err := dhcp4.DecodeFrame(inner)
		if err != nil {
			t.Fatal(err)
		}
		if f.OuterTPID != tpid8021AD || f.STag != 300 || f.CTag != 42 || f.Src != s.mac ||
			f.Dst != [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff} || f.SrcIP != netip.IPv4Unspecified() ||
			f.DstIP != netip.MustParseAddr("255.255.255.255") || f.SrcPort != 68 || f.DstPort != 67 {
			t.Fatalf("frame %+v", f)
		}
		m, err := dhcp4.Decode(f.Payload)
		if err != nil || m.Op != dhcp4.OpRequest || m.XID != 0x01020304 || string(m.CHAddr[:6]) != string(s.mac[:]) {
			t.Fatalf("message %+v %v", m, err)
		}
		ai, ok := m.AgentInfo()
		if m.Type != typ || !ok || string(ai.CircuitID) != "ipoe42" {
			t.Fatalf("type %d option 82 %+v", m.Type, ai)
		}
		req, _ := m.Addr(dhcp4.OptRequestedIP)
		sid, _ := m.Addr(dhcp4.OptServerID)
		if typ == dhcpRequest && (req != s.dhcp.offered || sid != s.dhcp.server) {
			t.Fatalf("REQUEST names %v at %v", req, sid)
		}
	}
	// an ACK as bng-cp writes it, read by the loader
	r := &dhcp4.Message{Op: dhcp4.OpReply, XID: 0x01020304, CHAddr: s.mac[:], YIAddr: s.dhcp.offered, Type: dhcp4.Ack}
	r.Set(dhcp4.OptServerID, dhcp4.A4(s.dhcp.server))
	r.Set(dhcp4.OptLeaseTime, dhcp4.U32(3600))
	b := dhcp4.AppendFrame(nil, &dhcp4.Frame{Dst: s.mac, Src: [6]byte{2, 0xbb, 0, 0, 0, 3}, OuterTPID: tpid8021AD,
		STag: 300, CTag: 42, SrcIP: s.dhcp.server, DstIP: s.dhcp.offered, SrcPort: 67, DstPort: 68, Payload: r.Encode()})
	fr, err := decodeFrame(b)
	if err != nil || fr.etherType != etherTypeIPv4 || fr.stag != 300 || fr.ctag != 42 {
		t.Fatalf("frame %+v %v", fr, err)
	}
	typ, yi, sid, xid, ch, err := parseDHCPReply(fr.payload)
	if err != nil || typ != dhcpAck || yi != s.dhcp.offered || sid != s.dhcp.server || xid != 0x01020304 || ch != s.mac {
		t.Fatalf("ACK: %d %v %v %#x %x %v", typ, yi, sid, xid, ch, err)
	}
	// cut short anywhere: an error, never a panic
	for n := 0; n < len(fr.payload); n++ {
		if _, _, _, _, _, err := parseDHCPReply(fr.payload[:n]); err == nil && n < 20+8+bootpLen+4 {
			t.Fatalf("%d bytes accepted", n)
		}
	}
}

// FuzzParseDHCPReply: hostile IPv4 packets never panic the loader's parser.
func FuzzParseDHCPReply(f *testing.F) {
	r := &dhcp4.Message{Op: dhcp4.OpReply, XID: 7, CHAddr: make([]byte, 6), YIAddr: netip.MustParseAddr("10.0.0.9"), Type: dhcp4.Offer}
	r.Set(dhcp4.OptServerID, dhcp4.A4(netip.MustParseAddr("10.0.0.1")))
	b := dhcp4.AppendFrame(nil, &dhcp4.Frame{Dst: [6]byte{2}, Src: [6]byte{2}, OuterTPID: 0x8100, STag: 1, CTag: 1,
		SrcIP: netip.MustParseAddr("10.0.0.1"), DstIP: netip.MustParseAddr("10.0.0.9"), SrcPort: 67, DstPort: 68, Payload: r.Encode()})
	f.Add(b[22:])
	f.Fuzz(func(t *testing.T, p []byte) {
		_, _, _, _, _, _ = parseDHCPReply(p)
	})
}
