package pfcpcp

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/wmnsk/go-pfcp/ie"
)

// Contract A vectors, written out octet by octet.
var lineGroupVectors = []struct {
	name string
	g    LineGroup
	hex  string
}{
	{"adopt lg1", LineGroup{Action: GroupAdopt, ACMAC: [6]byte{0x02, 0xbb, 0, 0, 0, 0x01}, CoreMAC: [6]byte{0x02, 0xcc, 0, 0, 0, 0x01},
		CoreAddress: netip.MustParseAddr("100.64.0.11"), Name: "lg1"},
		"8000" + "0017" + "7ed9" + "01" + "02bb00000001" + "02cc00000001" + "6440000b" + "03" + "6c6731"},
	{"release lg-east.2", LineGroup{Action: GroupRelease, ACMAC: [6]byte{0x02, 0xbb, 0, 0, 0, 0x02}, CoreMAC: [6]byte{0x02, 0xcc, 0, 0, 0, 0x02},
		CoreAddress: netip.MustParseAddr("100.64.0.12"), Name: "lg-east.2"},
		"8000" + "001d" + "7ed9" + "02" + "02bb00000002" + "02cc00000002" + "6440000c" + "09" + "6c672d656173742e32"},
	{"adopt lg1 with its core IPv6 address", LineGroup{Action: GroupAdopt, ACMAC: [6]byte{0x02, 0xbb, 0, 0, 0, 0x01},
		CoreMAC: [6]byte{0x02, 0xcc, 0, 0, 0, 0x01}, CoreAddress: netip.MustParseAddr("100.64.0.11"), Name: "lg1",
		CoreAddress6: netip.MustParseAddr("2001:db8:64::11")},
		"8000" + "0027" + "7ed9" + "01" + "02bb00000001" + "02cc00000001" + "6440000b" + "03" + "6c6731" +
			"20010db8006400000000000000000011"},
}

func TestLineGroupIEVectors(t *testing.T) {
	for _, v := range lineGroupVectors {
		want, _ := hex.DecodeString(v.hex)
		got, err := EncodeLineGroupIE(&v.g)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: encoded %x, %v; want %x", v.name, got, err, want)
		}
		g, err := DecodeLineGroupIE(want)
		if err != nil || *g != v.g {
			t.Errorf("%s: decoded %+v, %v", v.name, g, err)
		}
	}
}

func TestLineGroupIERejects(t *testing.T) {
	good, _ := hex.DecodeString(lineGroupVectors[0].hex)
	mut := func(fn func(b []byte) []byte) []byte { return fn(append([]byte(nil), good...)) }
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"header only", good[:6]},
		{"short value", mut(func(b []byte) []byte { b[3] = 0x10; return b[:4+0x10] })},
		{"trailing octet", mut(func(b []byte) []byte { b[3]++; return append(b, 'x') })},
		{"length runs past", mut(func(b []byte) []byte { b[3]++; return b })},
		{"name length 0", mut(func(b []byte) []byte { b[3] = 20; b[6+17] = 0; return b[:4+20] })},
		{"name length too big", mut(func(b []byte) []byte { b[6+17] = 4; return b })},
		{"action 0", mut(func(b []byte) []byte { b[6] = 0; return b })},
		{"action 3", mut(func(b []byte) []byte { b[6] = 3; return b })},
		{"bad name", mut(func(b []byte) []byte { b[len(b)-3] = '-'; return b })},
		{"BBF enterprise", mut(func(b []byte) []byte { b[4], b[5] = 0x0d, 0xe9; return b })},
		{"other type", mut(func(b []byte) []byte { b[1] = 1; return b })},
	} {
		if g, err := DecodeLineGroupIE(c.b); err == nil || !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %x decoded to %+v, %v", c.name, c.b, g, err)
		}
	}
	for _, g := range []LineGroup{
		{Action: 0, CoreAddress: netip.MustParseAddr("10.0.0.1"), Name: "a"},
		{Action: GroupAdopt, CoreAddress: netip.MustParseAddr("2001:db8::1"), Name: "a"},
		{Action: GroupAdopt, CoreAddress: netip.MustParseAddr("10.0.0.1"), Name: ""},
		{Action: GroupAdopt, CoreAddress: netip.MustParseAddr("10.0.0.1"), Name: strings.Repeat("a", 64)},
	} {
		if _, err := EncodeLineGroupIE(&g); err == nil {
			t.Errorf("encoded %+v", g)
		}
	}
}

func FuzzLineGroupIE(f *testing.F) {
	for _, v := range lineGroupVectors {
		b, _ := hex.DecodeString(v.hex)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := DecodeLineGroupIE(b)
		if err != nil {
			return
		}
		again, err := EncodeLineGroupIE(g)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("%x decoded to %+v, encodes to %x, %v", b, g, again, err)
		}
	})
}

// The Association Update Request on the wire: Node ID and exactly the IE,
// and the answer's cause.
func TestUpdateLineGroup(t *testing.T) {
	dp := newFakeDP(t)
	rec := newRecorder()
	f, _ := startFunction(t, fastConfig(), []Peer{{Instance: 1, Addr: dp.addr()}}, rec)
	g := lineGroupVectors[0].g

	if err := f.UpdateLineGroup(context.Background(), 1, &g); !errors.Is(err, ErrNotAssociated) {
		t.Fatalf("before the association: %v", err)
	}
	dp.associate(rec)

	type result struct{ err error }
	call := func(g LineGroup) chan result {
		ch := make(chan result, 1)
		go func() { ch <- result{f.UpdateLineGroup(context.Background(), 1, &g)} }()
		return ch
	}
	ch := call(g)
	_, m := dp.recvType(msgAssocUpdateReq, time.Second)
	if m.h.hasSEID || len(m.ies) != 2 || m.ies[0].typ != ieNodeID || !bytes.Equal(m.ies[0].val, []byte{0, 10, 200, 0, 1}) {
		t.Fatalf("request %+v", m)
	}
	want, _ := hex.DecodeString(lineGroupVectors[0].hex)
	body := m.raw[8:]
	if !bytes.Equal(body[len(body)-len(want):], want) {
		t.Fatalf("IE %x, want %x", body, want)
	}
	dp.answer(m, msgAssocUpdateRsp, false, 0, ie.New(ieNodeID, []byte{0, 10, 200, 0, 11}), ie.New(ieCause, []byte{1}))
	if r := <-ch; r.err != nil {
		t.Fatal(r.err)
	}

	g.Action = GroupRelease
	ch = call(g)
	_, m = dp.recvType(msgAssocUpdateReq, time.Second)
	dp.answer(m, msgAssocUpdateRsp, false, 0, ie.New(ieNodeID, []byte{0, 10, 200, 0, 11}), ie.New(ieCause, []byte{64}))
	var ce *CauseError
	if r := <-ch; !errors.As(r.err, &ce) || ce.Cause != CauseRequestRejected {
		t.Fatalf("refusal: %v", r.err)
	}
	if st := f.Stats(); st.Requests["association_update"] != 2 || st.Answers[64] != 1 {
		t.Fatalf("stats %+v", st)
	}
	// no answer: a timeout after N1 transmissions
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.UpdateLineGroup(ctx, 1, &g); !errors.Is(err, ErrTimeout) {
		t.Fatalf("unanswered: %v", err)
	}
}
