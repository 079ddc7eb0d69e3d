package main

import (
	"bytes"
	"encoding/hex"
	"net/netip"
	"testing"
	"time"
)

// Byte vectors from server-dp/build/tests/pfcp-encode-samples: what the CP side
// of the profile sends, and what bng-dp's own UP function answers.
const (
	cpAssocSetupReq = "2005001a00000100003c0005000ac8000100600004e80000000059000100"
	cpHeartbeatReq  = "2001000c0000020000600004e8000000"
	cpEstReq        = "21320197000000000000000000000300003c0005000ac800010039000d0200000000000010010ac8000100010077003800020001001d0004000000640002004600140001000084001f00850007010211000000070088000288640086000304000700870003040064800100090de961636365737331800400040de90107800500050de9010021800300030de903006c0004000000010051000400000001006d00040000000100010038003800020002001d0004000000640002000e0014000101005d00050664500007006c0004000000020051000400000001006d00040000000100030016006c000400000001002c00010200040005002a0001010003002b006c000400000002002c0001020004001a002a000100800200080de90200000001070029000504676f6c640006001b0051000400000001003e000103002500020100004000040000003c00070029006d0004000000010019000100001a000a0000002710000000c350001b000a00000007d00000000000800800040de905d4800c00190de9800600050de9001e038007000a0de91122334455667788"
	cpDefaultReq    = "213200da000000000000000000000400003c0005000ac800010039000d0200000000000000010ac8000100010029003800020001001d00040000000a0002000f001400010000840006008800028863006c00040000000100010030003800020002001d00040000001400020016001400010000840006008800028864800500030de904006c00040000000100010029003800020003001d00040000fde80002000f001400010000840006008800028864006c00040000000100030022006c000400000001002c00010200040011002a0001030054000804000ac8000112b5"
	cpModReq        = "2134004d0000abcd0000000100000500000a0017006c000400000002000b000b002900070673696c766572000e0016006d000400000001001a000a0000004e2000000186a0004d00080051000400000001"
	cpDelReq        = "2136000c0000abcd0000000100000700"

	upAssocSetupRsp = "2006002b00000b00003c0005000ac8000b001300010100600004e8fe6f80002b0003000010800000060de911000000"
	upHeartbeatRsp  = "2002000c00000c0000600004e8fe6f80"
	upEstRsp        = "2133002b000000000000100100000d00003c0005000ac8000b00130001010039000d020000ff00000000010ac8000b"
	upDefaultRsp    = "2133002b000000000000000100001000003c0005000ac8000b00130001010039000d020000ff00000000020ac8000b"
	upModRsp65      = "213500110000000000000000000012000013000141"
)

// withSeq rewrites a message's sequence number (the samples number their
// messages in emission order).
func withSeq(b []byte, seq uint32) []byte {
	b = append([]byte(nil), b...)
	o := 4
	if b[0]&1 != 0 {
		o = 12
	}
	b[o], b[o+1], b[o+2] = byte(seq>>16), byte(seq>>8), byte(seq)
	return b
}

func testDP(t *testing.T) (*Loader, *dp) {
	t.Helper()
	l, err := New(Config{CP: netip.MustParseAddr("10.200.0.1"), DPs: []DPSpec{{ID: 1,
		Addr: netip.MustParseAddr("127.0.0.1"), STag: Range{100, 100}, CTag: Range{1, 10}}},
		Sessions: 8, Window: 1, UserFmt: "u%d", PassFmt: "p%d", Timeout: time.Second, Resend: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	d := l.dps[0]
	d.addr = netip.MustParseAddr("10.200.0.11")
	d.rts = 0xe8fe6f80
	return l, d
}

var cpPeer = netip.MustParseAddrPort("10.200.0.1:8805")

func one(t *testing.T, d *dp, req []byte) pfcpOut {
	t.Helper()
	out := d.onPFCP(req, cpPeer, time.Now())
	if len(out) != 1 {
		t.Fatalf("%d answers", len(out))
	}
	return out[0]
}

// The loader's answers are bng-dp's, byte for byte.
func TestPFCPAnswersLikeBngDP(t *testing.T) {
	l, d := testDP(t)
	// Before the association: establishment refused with cause 72.
	o := one(t, d, unhex(t, cpEstReq))
	if c := causeOf(t, o.b); c != causeNoAssociation {
		t.Fatalf("cause %d before association", c)
	}
	o = one(t, d, withSeq(unhex(t, cpAssocSetupReq), 0x0b))
	if want := unhex(t, upAssocSetupRsp); !bytes.Equal(o.b, want) {
		t.Fatalf("association\n got %x\nwant %x", o.b, want)
	}
	if !d.associated() {
		t.Fatal("not associated")
	}
	o = one(t, d, withSeq(unhex(t, cpHeartbeatReq), 0x0c))
	if want := unhex(t, upHeartbeatRsp); !bytes.Equal(o.b, want) {
		t.Fatalf("heartbeat\n got %x\nwant %x", o.b, want)
	}
	d.nextUP = 0xff0000000000
	o = one(t, d, withSeq(unhex(t, cpEstReq), 0x0d))
	if want := unhex(t, upEstRsp); !bytes.Equal(o.b, want) {
		t.Fatalf("establishment\n got %x\nwant %x", o.b, want)
	}
	if o.s != nil { // MAC 02:11:... is not one of the loader's
		t.Fatal("matched a foreign MAC")
	}
	if l.st.estUnmatched.Load() != 1 {
		t.Fatal("unmatched establishment not counted")
	}
	// A retransmission gets the same UP SEID.
	o = one(t, d, withSeq(unhex(t, cpEstReq), 0x0d))
	if want := unhex(t, upEstRsp); !bytes.Equal(o.b, want) {
		t.Fatalf("retransmission\n got %x\nwant %x", o.b, want)
	}
	d.nextUP = 0xff0000000001
	o = one(t, d, withSeq(unhex(t, cpDefaultReq), 0x10))
	if want := unhex(t, upDefaultRsp); !bytes.Equal(o.b, want) {
		t.Fatalf("default session\n got %x\nwant %x", o.b, want)
	}
	if !d.defaultSes.Load() {
		t.Fatal("default session not noticed")
	}
	o = one(t, d, withSeq(unhex(t, cpModReq), 0x12))
	if want := unhex(t, upModRsp65); !bytes.Equal(o.b, want) {
		t.Fatalf("modification of an unknown SEID\n got %x\nwant %x", o.b, want)
	}
	// Modification and deletion of the session established above (UP SEID 0xff0000000001).
	mod := unhex(t, cpModReq)
	copy(mod[4:12], []byte{0, 0, 0xff, 0, 0, 0, 0, 1})
	o = one(t, d, mod)
	if c := causeOf(t, o.b); c != causeAccepted || !bytes.Equal(o.b[4:12], []byte{0, 0, 0, 0, 0, 0, 0x10, 0x01}) {
		t.Fatalf("modification: %x", o.b)
	}
	del := unhex(t, cpDelReq)
	copy(del[4:12], []byte{0, 0, 0xff, 0, 0, 0, 0, 1})
	if o = one(t, d, del); causeOf(t, o.b) != causeAccepted || o.b[1] != pfcpSessDelResp {
		t.Fatalf("deletion: %x", o.b)
	}
	if o = one(t, d, del); causeOf(t, o.b) != causeSessionNotFound {
		t.Fatalf("second deletion: %x", o.b)
	}
}

func causeOf(t *testing.T, b []byte) uint8 {
	t.Helper()
	ms, err := splitPFCP(b)
	if err != nil || len(ms) != 1 {
		t.Fatalf("answer %x: %v", b, err)
	}
	c := -1
	_ = forEachIE(ms[0].body, func(typ uint16, v []byte) error {
		if typ == ieCause && len(v) == 1 && c < 0 {
			c = int(v[0])
		}
		return nil
	})
	if c < 0 {
		t.Fatalf("no cause in %x", b)
	}
	return uint8(c)
}

func TestParseEstablishmentSample(t *testing.T) {
	ms, err := splitPFCP(unhex(t, cpEstReq))
	if err != nil || len(ms) != 1 || ms[0].typ != pfcpSessEstReq || !ms[0].hasSEI || ms[0].seq != 3 {
		t.Fatalf("%+v %v", ms, err)
	}
	e, err := parseEstablishment(ms[0].body)
	if err != nil {
		t.Fatal(err)
	}
	want := establishment{cpSEID: 0x1001, hasFSEID: true, hasUp: true,
		mac: [6]byte{0x02, 0x11, 0, 0, 0, 0x07}, stag: 100, ctag: 7, pppoeSID: 0x0107,
		ueIP: netip.MustParseAddr("100.80.0.7"), mtu: 1492, lcpOffload: true,
		magicTx: 0x11223344, magicRx: 0x55667788}
	if e != want {
		t.Fatalf("\n got %+v\nwant %+v", e, want)
	}
	ms, _ = splitPFCP(unhex(t, cpDefaultReq))
	if e, err = parseEstablishment(ms[0].body); err != nil || !e.isDefault || e.hasUp || e.cpSEID != 1 {
		t.Fatalf("default: %+v %v", e, err)
	}
}

func TestSplitPFCP(t *testing.T) {
	hb := unhex(t, cpHeartbeatReq)
	// FO bundle of two.
	b := append(append([]byte{}, hb...), hb...)
	b[0] |= 0x04
	ms, err := splitPFCP(b)
	if err != nil || len(ms) != 2 {
		t.Fatalf("%d %v", len(ms), err)
	}
	// Without FO the rest is ignored.
	ms, err = splitPFCP(append(append([]byte{}, hb...), hb...))
	if err != nil || len(ms) != 1 {
		t.Fatalf("%d %v", len(ms), err)
	}
	for _, bad := range []string{"", "2001", "4001000c0000020000600004e8000000", "2001000d0000020000600004e8000000",
		"2101000400000000"} {
		if _, err := splitPFCP(unhex(t, bad)); err == nil && bad != "" {
			t.Errorf("%s accepted", bad)
		}
	}
	// 17 messages in a bundle: the 17th is refused.
	var many []byte
	for i := 0; i < 17; i++ {
		m := append([]byte{}, hb...)
		m[0] |= 0x04
		many = append(many, m...)
	}
	if ms, err := splitPFCP(many); err == nil || len(ms) != 16 {
		t.Fatalf("%d %v", len(ms), err)
	}
	// IEs that run past their container stop the parse.
	if _, err := parseEstablishment(unhex(t, "0001 0010 0002")); err == nil {
		t.Fatal("truncated IE accepted")
	}
}

func TestPFCPForeignSource(t *testing.T) {
	l, d := testDP(t)
	if out := d.onPFCP(unhex(t, cpAssocSetupReq), netip.MustParseAddrPort("10.200.0.9:8805"), time.Now()); out != nil {
		t.Fatal("answered a foreign peer")
	}
	if l.st.pfcpForeign.Load() != 1 || d.associated() {
		t.Fatal("foreign peer not counted or associated")
	}
}

func FuzzPFCP(f *testing.F) {
	for _, s := range []string{cpAssocSetupReq, cpHeartbeatReq, cpEstReq, cpDefaultReq, cpModReq, cpDelReq} {
		b, _ := hex.DecodeString(s)
		f.Add(b)
	}
	l, err := New(Config{CP: netip.MustParseAddr("10.200.0.1"), DPs: []DPSpec{{ID: 1,
		Addr: netip.MustParseAddr("127.0.0.1"), STag: Range{100, 100}, CTag: Range{1, 10}}},
		Sessions: 8, Window: 8, UserFmt: "u%d", PassFmt: "p%d", Timeout: time.Second, Resend: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	defer l.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, o := range l.dps[0].onPFCP(b, cpPeer, time.Now()) {
			if _, err := splitPFCP(o.b); err != nil {
				t.Fatalf("answer %x does not parse: %v", o.b, err)
			}
		}
	})
}

// An Association Update is answered as bng-dp does (66 without the bngpod Line
// Group IE, 69 with two) and only an accepted one is recorded, with the deletions.
func TestAssociationUpdateAndNodeEvents(t *testing.T) {
	d := &dp{addr: netip.MustParseAddr("127.0.0.11"), id: 2, assoc: make(chan struct{}),
		upByCP: map[uint64]uint64{7: 70}, cpByUP: map[uint64]uint64{70: 7}}
	d.l = &Loader{dps: []*dp{d}}
	close(d.assoc)
	lg := newPFCP(0, false, 0, 0).ie(ieBngpodLineGroup, 0x7e, 0xd9, 1).bytes()[8:] // the IE alone (no 8-octet header)
	cause := func(body []byte) uint8 {
		o, ok := d.answer(&pfcpMsg{typ: pfcpAssocUpdReq, seq: 1, body: body})
		if !ok {
			t.Fatal("no answer")
		}
		var c uint8
		_ = forEachIE(o.b[8:], func(typ uint16, v []byte) error {
			if typ == ieCause && len(v) == 1 {
				c = v[0]
			}
			return nil
		})
		return c
	}
	if c := cause(nil); c != causeMandatoryMiss {
		t.Fatalf("no IE: cause %d", c)
	}
	if c := cause(append(append([]byte{}, lg...), lg...)); c != causeMandatoryIncorrect {
		t.Fatalf("two IEs: cause %d", c)
	}
	if c := cause(lg); c != causeAccepted {
		t.Fatalf("one IE: cause %d", c)
	}
	d.answer(&pfcpMsg{typ: pfcpSessDelReq, seq: 2, seid: 70, hasSEI: true})
	ev := d.l.NodeEvents()[0]
	if ev.Instance != 2 || len(ev.AssocUpdates) != 1 || ev.Deletions != 1 || ev.FirstDeletion == 0 {
		t.Fatalf("node events %+v", ev)
	}
}
