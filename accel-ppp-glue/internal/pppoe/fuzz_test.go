package pppoe

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
)

// FuzzDecodeFrame: DecodeFrame never panics; an accepted frame re-encodes to
// the input minus the Ethernet padding and the tags' DEI bits (not kept), and
// decodes again to the same Frame.
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range []string{
		"ffffffffffff020000000001" + "88a80064810000c88863" + "11090000000401010000",
		"ffffffffffff020000000001" + "88a80064" + "8864" + "110012340004c0210901",
		"ffffffffffff020000000001" + "81000064" + "8863" + "11a700010000",
	} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := DecodeFrame(b)
		if err != nil {
			return
		}
		out := AppendFrame(nil, &fr)
		want := append([]byte(nil), b[:len(out)]...)
		want[14] &^= 0x10 // DEI of the outer tag
		if fr.CTag != 0 {
			want[18] &^= 0x10
		}
		// A C-tag with VID 0 re-encodes without it (CTag 0 means "no inner tag").
		innerZero := fr.CTag == 0 && binary.BigEndian.Uint16(b[16:]) == TPID8021Q
		if !innerZero && !bytes.Equal(out, want) {
			t.Fatalf("re-encoded\n% x\ninput\n% x", out, b)
		}
		again, err := DecodeFrame(out)
		if err != nil {
			t.Fatalf("re-encoded frame rejected: %v", err)
		}
		if !bytes.Equal(again.Payload, fr.Payload) {
			t.Fatal("payload differs")
		}
		again.Payload, fr.Payload = nil, nil
		if !innerZero && !reflect.DeepEqual(again, fr) {
			t.Fatalf("round trip\n%+v\n%+v", again, fr)
		}
	})
}

// FuzzParseTags: ParseTags never panics and its slices lie within the input.
func FuzzParseTags(f *testing.F) {
	f.Add(unhex(f, "0101000001030004deadbeef01200002 05dc"))
	f.Add(unhex(f, "0105001300000de9010561626364650203726964810400000400"))
	f.Add(unhex(f, "0000000001"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tg, err := ParseTags(b)
		if err != nil {
			return
		}
		for _, s := range [][]byte{tg.ServiceName, tg.ACName, tg.HostUniq, tg.ACCookie, tg.RelaySessionID} {
			if len(s) > len(b) {
				t.Fatal("tag longer than payload")
			}
		}
		if tg.AccessLine != nil && len(tg.AccessLine.CircuitID) > 255 {
			t.Fatal("circuit id over 255")
		}
	})
}
