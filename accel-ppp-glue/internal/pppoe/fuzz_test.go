package pppoe

import (
	"bytes"
	"testing"
)

// FuzzDecodeFrame: DecodeFrame never panics; an accepted frame re-encodes to
// the input minus the Ethernet padding.
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
		if !bytes.Equal(out, b[:len(out)]) {
			// Only a C-tag with VID 0 re-encodes differently (CTag 0 means
			// "no inner tag").
			if fr.CTag != 0 {
				t.Fatalf("re-encoded\n% x\ninput\n% x", out, b)
			}
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
