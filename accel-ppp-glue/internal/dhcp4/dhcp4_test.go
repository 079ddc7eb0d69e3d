package dhcp4

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net"
	"net/netip"
	"testing"
)

// scapyRequest: a DHCPREQUEST in a QinQ frame (S-tag 100 0x88a8, C-tag 7),
// broadcast flag, requested address 100.80.0.7, server id 100.80.0.1 and
// option 82 (circuit id "port", remote id "rid"), as scapy builds it (with an outer 0x8100; the outer TPID
// patched to 0x88a8 afterwards, outside every checksum).
const scapyRequest = "ffffffffffff025b0000000188a800648100000708004500012900010000401179c400000000ffffffff004400430115305301010600112233440000800000000000000000000000000000000000025b000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000063825363350103320464500007360464500001520b0104706f72740203726964ff"

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeScapyFrame(t *testing.T) {
	f, err := DecodeFrame(unhex(t, scapyRequest))
	if err != nil {
		t.Fatal(err)
	}
	if f.OuterTPID != 0x88a8 || f.STag != 100 || f.CTag != 7 || f.SrcPort != 68 || f.DstPort != 67 ||
		f.SrcIP != netip.MustParseAddr("0.0.0.0") || f.DstIP != netip.MustParseAddr("255.255.255.255") ||
		f.Src != [6]byte{2, 0x5b, 0, 0, 0, 1} {
		t.Fatalf("frame %+v", f)
	}
	m, err := Decode(f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if m.Op != OpRequest || m.Type != Request || m.XID != 0x11223344 || m.Flags != FlagBroadcast ||
		!bytes.Equal(m.CHAddr, net.HardwareAddr{2, 0x5b, 0, 0, 0, 1}) {
		t.Fatalf("message %+v", m)
	}
	if a, ok := m.Addr(OptRequestedIP); !ok || a != netip.MustParseAddr("100.80.0.7") {
		t.Errorf("requested %v %v", a, ok)
	}
	if a, ok := m.Addr(OptServerID); !ok || a != netip.MustParseAddr("100.80.0.1") {
		t.Errorf("server id %v %v", a, ok)
	}
	ai, ok := m.AgentInfo()
	if !ok || string(ai.CircuitID) != "port" || string(ai.RemoteID) != "rid" || ai.LinkSelection.IsValid() {
		t.Errorf("agent info %+v %v", ai, ok)
	}
}

// ackFrame is the encoding of testAck, checked with scapy (IP and UDP
// checksums, every field) when it was written.
const ackFrame = "025b0000000102bb000000018100006481000007080045000148000000004011b0fd6450000164500007004300440134" +
	"ba9f02010600223344550000000000000000645000070000000000000000025b00000001000000000000000000000000" +
	"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000" +
	"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000" +
	"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000" +
	"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000006382" +
	"53633501050104ffffffc003046450000106086450000164500002330400000e103a040000012c3b0400000c4e360464" +
	"500001ff00000000000000000000"

func testAck() *Message {
	gw := netip.MustParseAddr("100.80.0.1")
	m := &Message{Op: OpReply, XID: 0x22334455, YIAddr: netip.MustParseAddr("100.80.0.7"),
		CHAddr: net.HardwareAddr{2, 0x5b, 0, 0, 0, 1}, Type: Ack}
	m.Set(OptSubnetMask, []byte{255, 255, 255, 192})
	m.Set(OptRouter, A4(gw))
	m.Set(OptDNS, append(A4(netip.MustParseAddr("100.80.0.1")), A4(netip.MustParseAddr("100.80.0.2"))...))
	m.Set(OptLeaseTime, U32(3600))
	m.Set(OptRenewalTime, U32(300))
	m.Set(OptRebindingTime, U32(3150))
	m.Set(OptServerID, A4(gw))
	return m
}

func TestEncodeGolden(t *testing.T) {
	f := Frame{Dst: [6]byte{2, 0x5b, 0, 0, 0, 1}, Src: [6]byte{2, 0xbb, 0, 0, 0, 1}, STag: 100, CTag: 7,
		SrcIP: netip.MustParseAddr("100.80.0.1"), DstIP: netip.MustParseAddr("100.80.0.7"),
		SrcPort: ServerPort, DstPort: ClientPort, Payload: testAck().Encode()}
	got := AppendFrame(nil, &f)
	want := unhex(t, ackFrame)
	if !bytes.Equal(got, want) {
		t.Fatalf("frame\n got %x\nwant %x", got, want)
	}
	back, err := DecodeFrame(got)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(back.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != Ack || m.YIAddr != netip.MustParseAddr("100.80.0.7") || len(m.Options) != 7 {
		t.Fatalf("%+v", m)
	}
	if v, _ := m.Uint32(OptRebindingTime); v != 3150 {
		t.Errorf("T2 %d", v)
	}
}

func TestLongOptionsAndOverload(t *testing.T) {
	m := &Message{Op: OpRequest, CHAddr: net.HardwareAddr{2, 0, 0, 0, 0, 1}, Type: Discover}
	long := bytes.Repeat([]byte{'x'}, 300)
	m.Set(OptHostName, long)
	b := m.Encode()
	// RFC 3396: split as 255 + 45 and joined again
	if !bytes.Contains(b, []byte{OptHostName, 255}) || !bytes.Contains(b, []byte{OptHostName, 45}) {
		t.Fatalf("not split: %x", b)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Option(OptHostName); !bytes.Equal(v, long) {
		t.Errorf("joined %d bytes", len(v))
	}
	// option overload: the host name in file, the client id in sname
	b = m.Encode()[:MinLen]
	b = append(b, OptMessageType, 1, Discover, OptOverload, 1, 3, OptEnd)
	copy(b[108:], []byte{OptHostName, 2, 'h', 'i', OptEnd})
	copy(b[44:], []byte{OptClientID, 2, 1, 9, OptEnd})
	d, err = Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Option(OptHostName); string(v) != "hi" {
		t.Errorf("host name %q", v)
	}
	if v, _ := d.Option(OptClientID); !bytes.Equal(v, []byte{1, 9}) {
		t.Errorf("client id %x", v)
	}
}

func TestAgentInfo(t *testing.T) {
	ai := AgentInfo{CircuitID: []byte("olt1 pon 1/1/1"), RemoteID: []byte("cpe-7"),
		LinkSelection: netip.MustParseAddr("100.80.0.1"), ServerIDOverride: netip.MustParseAddr("100.80.0.1"),
		Other: []Option{{Code: 9, Data: []byte{0, 0, 0x0d, 0xe9, 1, 1, 1}}}}
	b := ai.Encode()
	want := unhex(t, "010e6f6c743120706f6e20312f312f31"+"02056370652d37"+"090700000de9010101"+"050464500001"+"0b0464500001")
	if !bytes.Equal(b, want) {
		t.Fatalf("got  %x\nwant %x", b, want)
	}
	back, err := ParseAgentInfo(b)
	if err != nil || string(back.CircuitID) != "olt1 pon 1/1/1" || string(back.RemoteID) != "cpe-7" ||
		back.LinkSelection != ai.LinkSelection || back.ServerIDOverride != ai.ServerIDOverride ||
		len(back.Other) != 1 || back.Other[0].Code != 9 {
		t.Fatalf("%+v %v", back, err)
	}
	for _, bad := range []string{
		"01",             // truncated header
		"010301",         // value past the end
		"0100",           // empty circuit id
		"0200",           // empty remote id
		"050364500000",   // link selection of 3 bytes
		"0b056450000101", // override of 5 bytes
		"01016101016162", // circuit id twice
	} {
		if _, err := ParseAgentInfo(unhex(t, bad)); !errors.Is(err, ErrOption82) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestDecodeHostile(t *testing.T) {
	good := testAck().Encode()
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	opts := func(o ...byte) []byte { // the fixed part and cookie of good, then o
		return append(append([]byte(nil), good[:MinLen]...), o...)
	}
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"short", good[:MinLen-1], ErrShort},
		{"long", make([]byte, MaxLen+1), ErrLong},
		{"op", mut(func(b []byte) []byte { b[0] = 3; return b }), ErrOp},
		{"htype", mut(func(b []byte) []byte { b[1] = 6; return b }), ErrHardware},
		{"hlen", mut(func(b []byte) []byte { b[2] = 16; return b }), ErrHardware},
		{"cookie", mut(func(b []byte) []byte { b[MinLen-1] = 0; return b }), ErrCookie},
		{"no end", opts(OptMessageType, 1, Discover), ErrNoEnd},
		{"only pads", opts(0, 0, 0), ErrNoEnd},
		{"option past the end", opts(OptMessageType, 1, Discover, 12, 9, 'a', OptEnd), ErrOptionShort},
		{"option header cut", opts(OptMessageType, 1, Discover, 12), ErrOptionShort},
		{"no message type", opts(OptEnd), ErrMessageType},
		{"message type 0", opts(OptMessageType, 1, 0, OptEnd), ErrMessageType},
		{"message type 9", opts(OptMessageType, 1, 9, OptEnd), ErrMessageType},
		{"message type 2 bytes", opts(OptMessageType, 2, 1, 1, OptEnd), ErrMessageType},
		{"message type twice", opts(OptMessageType, 1, 1, OptMessageType, 1, 1, OptEnd), ErrMessageType},
		{"requested ip 3 bytes", opts(OptMessageType, 1, Request, OptRequestedIP, 3, 1, 2, 3, OptEnd), ErrOptionLen},
		{"server id 5 bytes", opts(OptMessageType, 1, Request, OptServerID, 5, 1, 2, 3, 4, 5, OptEnd), ErrOptionLen},
		{"router 0 bytes", opts(OptMessageType, 1, Request, OptRouter, 0, OptEnd), ErrOptionLen},
		{"client id 1 byte", opts(OptMessageType, 1, Request, OptClientID, 1, 1, OptEnd), ErrOptionLen},
		{"bad option 82", opts(OptMessageType, 1, Request, OptRelayAgentInfo, 2, 1, 0, OptEnd), ErrOption82},
		{"overload 4", opts(OptMessageType, 1, Request, OptOverload, 1, 4, OptEnd), ErrOverload},
		{"overload twice", opts(OptMessageType, 1, Request, OptOverload, 1, 1, OptOverload, 1, 1, OptEnd), ErrOverload},
		{"overload without end in file", opts(OptMessageType, 1, Request, OptOverload, 1, 1, OptEnd), ErrNoEnd},
	}
	for _, c := range cases {
		if _, err := Decode(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := Decode(good); err != nil {
		t.Fatalf("the unmodified message: %v", err)
	}
}

func TestDecodeFrameHostile(t *testing.T) {
	good := unhex(t, scapyRequest)
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	const ip = 22 // IPv4 header offset in the QinQ frame
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"short", good[:17], ErrFrameShort},
		{"untagged", mut(func(b []byte) []byte { b[12], b[13] = 8, 0; return b }), ErrNotTagged},
		{"not IPv4", mut(func(b []byte) []byte { b[20], b[21] = 0x86, 0xdd; return b }), ErrNotIPv4},
		{"ip cut", good[:ip+19], ErrFrameShort},
		{"version 6", mut(func(b []byte) []byte { b[ip] = 0x65; return b }), ErrIPHeader},
		{"ihl 4", mut(func(b []byte) []byte { b[ip] = 0x44; return b }), ErrIPHeader},
		{"total beyond frame", mut(func(b []byte) []byte { b[ip+2] = 0xff; return b }), ErrIPHeader},
		{"ip checksum", mut(func(b []byte) []byte { b[ip+8]--; return b }), ErrIPChecksum},
		{"udp length", mut(func(b []byte) []byte { b[ip+20+4] = 0xff; return b }), ErrUDPLength},
		{"udp checksum", mut(func(b []byte) []byte { b[len(b)-2] ^= 1; return b }), ErrUDPSum},
	}
	for _, c := range cases {
		if _, err := DecodeFrame(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
