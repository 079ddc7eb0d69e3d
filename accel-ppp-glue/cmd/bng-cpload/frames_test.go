package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A PADI as RFC 2516 5.1 lays it out, double-tagged, padded to 60 octets.
func TestAppendFramePADI(t *testing.T) {
	f := frame{
		dst: [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, src: sessionMAC(0x01020304),
		outerTPID: tpid8021AD, stag: 100, ctag: 7, etherType: etherTypeDiscovery, code: codePADI,
		payload: appendTag(appendTag(nil, tagServiceName, nil), tagHostUniq, []byte{0, 0, 0, 5}),
	}
	got := appendFrame(nil, &f)
	want := unhex(t, `ffffffffffff 02b101020304 88a8 0064 8100 0007 8863
		11 09 0000 000c  0101 0000  0103 0004 00000005
		`+strings.Repeat("00", 20))
	if !bytes.Equal(got, want) {
		t.Fatalf("PADI\n got %x\nwant %x", got, want)
	}
	d, err := decodeFrame(got)
	if err != nil {
		t.Fatal(err)
	}
	if d.stag != 100 || d.ctag != 7 || d.outerTPID != tpid8021AD || d.code != codePADI || d.sessionID != 0 ||
		!bytes.Equal(d.payload, f.payload) || d.src != f.src || d.dst != f.dst {
		t.Fatalf("round trip: %+v", d)
	}
}

func TestAppendFrameSessionSingleTag(t *testing.T) {
	f := frame{dst: [6]byte{2, 0xbb, 0, 0, 0, 1}, src: sessionMAC(1), outerTPID: tpid8021Q, stag: 4094,
		etherType: etherTypeSession, code: codeSession, sessionID: 0x1234,
		payload: appendPPP(nil, protoLCP, cpEchoReq, 9, []byte{1, 2, 3, 4})}
	got := appendFrame(nil, &f)
	want := unhex(t, `02bb00000001 02b100000001 8100 0ffe 8864 11 00 1234 000a c021 09 09 0008 01020304`+
		strings.Repeat("00", 26))
	if !bytes.Equal(got, want) {
		t.Fatalf("\n got %x\nwant %x", got, want)
	}
	d, err := decodeFrame(got)
	if err != nil || d.ctag != 0 || d.stag != 4094 || d.sessionID != 0x1234 || len(d.payload) != 10 {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestDecodeFrameErrors(t *testing.T) {
	good := appendFrame(nil, &frame{outerTPID: tpid8021Q, stag: 1, ctag: 2, etherType: etherTypeSession,
		payload: []byte{0xc0, 0x21, 1, 1, 0, 4}})
	cases := []struct {
		name string
		b    []byte
		err  error
	}{
		{"empty", nil, errShort},
		{"no ethertype", good[:12], errShort},
		{"half tag", good[:14], errShort},
		{"no pppoe header", good[:22], errShort},
		{"arp", append(append([]byte{}, good[:20]...), 0x08, 0x06, 0x00), errNotPPPoE},
		{"three tags", append(append(append([]byte{}, good[:16]...), 0x81, 0x00, 0, 3), good[16:]...), errTooManyTag},
		{"ver/type", func() []byte { b := append([]byte{}, good...); b[22] = 0x12; return b }(), errVerType},
		{"length", func() []byte { b := append([]byte{}, good...); b[26], b[27] = 0x01, 0x00; return b }(), errPPPoELen},
	}
	for _, c := range cases {
		if _, err := decodeFrame(c.b); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	// IPv4 (IPoE): the packet after the tags, checked by the DHCP parser
	if d, err := decodeFrame(append(append([]byte{}, good[:20]...), 0x08, 0x00, 0x45)); err != nil ||
		d.etherType != etherTypeIPv4 || len(d.payload) != 1 || d.ctag != 2 {
		t.Fatalf("ipv4: %+v %v", d, err)
	}
	// Padding is trimmed by the PPPoE length.
	d, err := decodeFrame(good)
	if err != nil || len(d.payload) != 6 {
		t.Fatalf("%v %d", err, len(d.payload))
	}
}

func TestVXLAN(t *testing.T) {
	b := vxlanEncap(nil, 0x123456, []byte{0xaa})
	if !bytes.Equal(b, []byte{0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0, 0xaa}) {
		t.Fatalf("%x", b)
	}
	vni, f, err := vxlanDecap(b)
	if err != nil || vni != 0x123456 || !bytes.Equal(f, []byte{0xaa}) {
		t.Fatal(vni, f, err)
	}
	if _, _, err := vxlanDecap([]byte{0, 0, 0, 0, 0, 0, 1, 0}); err == nil {
		t.Fatal("I flag clear accepted")
	}
	if _, _, err := vxlanDecap([]byte{8, 0, 0}); err == nil {
		t.Fatal("short accepted")
	}
}

func TestParseTags(t *testing.T) {
	p := unhex(t, `0102 0003 616263  0104 0002 c0c1  0103 0001 01  0103 0001 02  0110 0000
		0201 0002 6e6f  0000 0000  0104 0001 ff`)
	tg, err := parseTags(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(tg.acName) != "abc" || !bytes.Equal(tg.acCookie, []byte{0xc0, 0xc1}) || !tg.hasHostUniq ||
		!bytes.Equal(tg.hostUniq, []byte{1}) || !tg.hasRelaySID || len(tg.relaySID) != 0 ||
		tg.errorTag != tagServiceNameError || string(tg.errorTagValue) != "no" {
		t.Fatalf("%+v", tg)
	}
	for _, bad := range []string{"01", "0101 0005 00", "0101"} {
		if _, err := parseTags(unhex(t, bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestPPP(t *testing.T) {
	b := appendPPP(nil, protoIPCP, cpConfReq, 3, appendOption(nil, ipcpOptAddr, []byte{0, 0, 0, 0}))
	if !bytes.Equal(b, unhex(t, "8021 01 03 000a 0306 00000000")) {
		t.Fatalf("%x", b)
	}
	proto, pkt, err := splitPPP(b)
	if err != nil || proto != protoIPCP {
		t.Fatal(err)
	}
	// Octets beyond the length field are ignored (RFC 1661 5: padding).
	p, err := parseCP(append(pkt, 0xee))
	if err != nil || p.code != cpConfReq || p.id != 3 || len(p.data) != 6 {
		t.Fatalf("%+v %v", p, err)
	}
	opts, err := parseOptions(p.data)
	if err != nil || len(opts) != 1 || opts[0].typ != ipcpOptAddr || len(opts[0].data) != 4 {
		t.Fatalf("%+v %v", opts, err)
	}
	for _, bad := range []string{"010100", "01010003", "0101 0009 00"} {
		if _, err := parseCP(unhex(t, bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	for _, bad := range []string{"03", "0301", "0307000000"} {
		if _, err := parseOptions(unhex(t, bad)); err == nil {
			t.Errorf("option %s accepted", bad)
		}
	}
}

func FuzzDecodeFrame(f *testing.F) {
	f.Add(appendFrame(nil, &frame{outerTPID: tpid8021Q, stag: 1, ctag: 2, etherType: etherTypeDiscovery,
		code: codePADO, payload: appendTag(nil, tagACCookie, []byte{1, 2})}))
	f.Add(vxlanEncap(nil, 1, appendFrame(nil, &frame{outerTPID: tpid8021Q, stag: 1, etherType: etherTypeSession,
		payload: appendPPP(nil, protoLCP, 1, 1, appendOption(nil, 1, []byte{5, 0xd4}))})))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, inner, err := vxlanDecap(b); err == nil {
			b = inner
		}
		fr, err := decodeFrame(b)
		if err != nil {
			return
		}
		_, _ = parseTags(fr.payload)
		if _, pkt, err := splitPPP(fr.payload); err == nil {
			if p, err := parseCP(pkt); err == nil {
				_, _ = parseOptions(p.data)
			}
		}
	})
}
