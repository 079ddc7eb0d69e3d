package pppoe

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	macA = [6]byte{0x02, 0, 0, 0, 0, 0x01}
	macB = [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)

func TestDecodeFrameQinQPADI(t *testing.T) {
	// PADI, QinQ 88a8 S-tag 100 PCP 0, C-tag 200 PCP 3, Service-Name "" and
	// Host-Uniq 4 bytes, then Ethernet padding that must be cut.
	b := unhex(t, `ffffffffffff 020000000001 88a8 0064 8100 60c8 8863
		11 09 0000 000c  0101 0000  0103 0004 deadbeef  000000000000`)
	f, err := DecodeFrame(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Dst != macB || f.Src != macA || f.OuterTPID != 0x88a8 || f.STag != 100 || f.CTag != 200 ||
		f.SPCP != 0 || f.CPCP != 3 || f.EtherType != EtherTypeDiscovery || f.Code != CodePADI || f.SessionID != 0 {
		t.Fatalf("decoded %+v", f)
	}
	if want := unhex(t, "0101 0000 0103 0004 deadbeef"); !bytes.Equal(f.Payload, want) {
		t.Fatalf("payload % x", f.Payload)
	}
	if cap(f.Payload) != len(f.Payload) {
		t.Fatalf("payload cap %d lets appends overwrite the padding", cap(f.Payload))
	}
	// Re-encoding gives the same bytes minus the padding.
	if got := AppendFrame(nil, &f); !bytes.Equal(got, b[:len(b)-6]) {
		t.Fatalf("re-encoded\n% x\nwant\n% x", got, b[:len(b)-6])
	}
}

func TestDecodeFrameSingleTagSession(t *testing.T) {
	b := unhex(t, `020000000002 020000000001 8100 e00a 8864 11 00 1234 0006 c021 09 01 0008`)
	f, err := DecodeFrame(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.STag != 10 || f.SPCP != 7 || f.CTag != 0 || f.SessionID != 0x1234 || f.Code != CodeSession {
		t.Fatalf("decoded %+v", f)
	}
	if !bytes.Equal(f.Payload, unhex(t, "c021 0901 0008")) {
		t.Fatalf("payload % x", f.Payload)
	}
}

func TestDecodeFrameErrors(t *testing.T) {
	const eth = "020000000002 020000000001"
	for _, tc := range []struct {
		name, hex string
		err       error
	}{
		{"empty", "", ErrShort},
		{"short", eth + "8100 0001 8863 11 09 00", ErrShort},
		{"untagged", eth + "8863 11 09 0000 0000 00000000", ErrNotTagged},
		{"ipv4", eth + "8100 0001 0800 11 09 0000 0000", ErrEtherType},
		{"inner short", eth + "8100 0001 8100 0002 8863 11 09 00", ErrShort},
		{"inner ipv4", eth + "8100 0001 8100 0002 0800 11 09 0000 0000", ErrEtherType},
		{"version 2", eth + "8100 0001 8863 21 09 0000 0000", ErrVersion},
		{"type 2", eth + "8100 0001 8863 12 09 0000 0000", ErrVersion},
		{"length beyond", eth + "8100 0001 8863 11 09 0000 0005 0101 00", ErrLength},
		{"session code 9", eth + "8100 0001 8864 11 09 0001 0000", ErrCode},
		{"discovery code 0", eth + "8100 0001 8863 11 00 0001 0000", ErrCode},
		{"discovery code 1", eth + "8100 0001 8863 11 01 0000 0000", ErrCode},
		{"session id 0", eth + "8100 0001 8864 11 00 0000 0000", ErrSessionID},
		{"session id ffff", eth + "8100 0001 8864 11 00 ffff 0000", ErrSessionID},
		{"PADI with session", eth + "8100 0001 8863 11 09 0001 0000", ErrSessionID},
		{"PADR with session", eth + "8100 0001 8863 11 19 0001 0000", ErrSessionID},
		{"PADT without session", eth + "8100 0001 8863 11 a7 0000 0000", ErrSessionID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeFrame(unhex(t, tc.hex))
			if !errors.Is(err, tc.err) {
				t.Fatalf("got %v, want %v", err, tc.err)
			}
		})
	}
	// PADS with session id 0 is an error report, still a valid frame.
	if _, err := DecodeFrame(unhex(t, eth+"8100 0001 8863 11 65 0000 0000")); err != nil {
		t.Fatal(err)
	}
}

func TestAppendFrame(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Frame
		want string
	}{
		{"PADO qinq defaults", Frame{Dst: macA, Src: [6]byte{2, 0, 0, 0, 0, 0xac}, OuterTPID: 0x88a8, STag: 0xfff, CTag: 1,
			Code: CodePADO, Payload: []byte{1, 2}},
			"020000000001 0200000000ac 88a8 0fff 8100 0001 8863 11 07 0000 0002 0102"},
		{"session single tag, default tpid, pcp", Frame{Dst: macA, Src: macA, STag: 5, SPCP: 7, CPCP: 7,
			Code: CodeSession, SessionID: 9, Payload: []byte{0xc0, 0x21}},
			"020000000001 020000000001 8100 e005 8864 11 00 0009 0002 c021"},
		{"PADT explicit ethertype", Frame{STag: 1, CTag: 2, EtherType: EtherTypeDiscovery, Code: CodePADT, SessionID: 1},
			"000000000000 000000000000 8100 0001 8100 0002 8863 11 a7 0001 0000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendFrame([]byte{0xee}, &tc.f)
			if want := append([]byte{0xee}, unhex(t, tc.want)...); !bytes.Equal(got, want) {
				t.Fatalf("got\n% x\nwant\n% x", got, want)
			}
		})
	}
}

func TestParseTags(t *testing.T) {
	al := unhex(t, `00000de9 01 05 6c696e6531 02 03 726964 81 04 00000400 82 04 00004000 90 03 000000`)
	p := AppendTag(nil, TagServiceName, nil)
	p = AppendTag(p, TagServiceName, []byte("second"))
	p = AppendTag(p, TagHostUniq, []byte{1, 2, 3})
	p = AppendTag(p, TagHostUniq, []byte{9})
	p = AppendTag(p, TagACName, []byte("bng"))
	p = AppendTag(p, TagACCookie, []byte("cookie"))
	p = AppendTag(p, TagRelaySessionID, []byte{7})
	p = AppendTag(p, TagPPPMaxPayload, []byte{0x05, 0xdc})
	p = AppendTag(p, TagVendorSpecific, []byte{0, 0, 0, 9, 1, 2}) // other enterprise: ignored
	p = AppendTag(p, TagVendorSpecific, al)
	p = AppendTag(p, TagGenericError, []byte("x"))
	p = AppendTag(p, TagACSystemError, nil)
	p = AppendTag(p, 0x0199, []byte("unknown"))
	p = AppendTag(p, TagEndOfList, nil)
	p = append(p, 0xff) // after End-Of-List: ignored
	tg, err := ParseTags(p)
	if err != nil {
		t.Fatal(err)
	}
	if !tg.HasServiceName || len(tg.ServiceName) != 0 || !tg.HasHostUniq || !bytes.Equal(tg.HostUniq, []byte{1, 2, 3}) ||
		string(tg.ACName) != "bng" || string(tg.ACCookie) != "cookie" || !tg.HasRelaySessionID ||
		!bytes.Equal(tg.RelaySessionID, []byte{7}) || tg.MaxPayload != 1500 || tg.ErrorTags != 2 {
		t.Fatalf("tags %+v", tg)
	}
	a := tg.AccessLine
	if a == nil || a.CircuitID != "line1" || a.RemoteID != "rid" || a.ActualRateUp != 1024 || a.ActualRateDown != 16384 || !bytes.Equal(a.Raw, al) {
		t.Fatalf("access line %+v", a)
	}
	// AppendAccessLine writes what ParseTags reads (unknown 0x90 aside).
	back := AppendAccessLine(nil, a)
	if !bytes.Equal(back, al[:len(al)-5]) {
		t.Fatalf("AppendAccessLine\n% x\nwant\n% x", back, al[:len(al)-5])
	}

	empty, err := ParseTags(nil)
	if err != nil || empty.HasServiceName || empty.AccessLine != nil {
		t.Fatalf("empty: %+v %v", empty, err)
	}
}

func TestParseTagsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, hex string
		err       error
	}{
		{"1 byte", "01", ErrTagShort},
		{"3 bytes", "010100", ErrTagShort},
		{"value beyond", "0101 0004 616263", ErrTagShort},
		{"second beyond", "0101 0000 0103 0002 01", ErrTagShort},
		{"max payload 1 byte", "0120 0001 05", ErrTagLength},
		{"max payload 3 bytes", "0120 0003 05dc00", ErrTagLength},
		{"vendor 3 bytes", "0105 0003 000000", ErrTagLength},
		{"tr101 sub beyond", "0105 0007 00000de9 01 05 61", ErrVendorTag},
		{"tr101 odd byte", "0105 0005 00000de9 01", ErrVendorTag},
		{"tr101 rate 2 bytes", "0105 0008 00000de9 81 02 0001", ErrVendorTag},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseTags(unhex(t, tc.hex)); !errors.Is(err, tc.err) {
				t.Fatalf("got %v, want %v", err, tc.err)
			}
		})
	}
}

func TestCookieJar(t *testing.T) {
	j := NewCookieJar([]byte("secret"), 10*time.Second)
	t0 := time.Unix(1_000_000_000, 0) // bucket boundary
	c := j.Make(macA, 100, 200, t0)
	if len(c) != CookieLen {
		t.Fatalf("len %d", len(c))
	}
	if got := j.AppendCookie([]byte{1}, macA, 100, 200, t0.Add(9*time.Second)); !bytes.Equal(got[1:], c) || got[0] != 1 {
		t.Fatal("AppendCookie differs from Make within a bucket")
	}
	other := NewCookieJar([]byte("secret2"), 10*time.Second)
	for _, tc := range []struct {
		name       string
		jar        *CookieJar
		cookie     []byte
		mac        [6]byte
		stag, ctag uint16
		at         time.Duration
		ok         bool
	}{
		{"same bucket", j, c, macA, 100, 200, 0, true},
		{"end of next bucket", j, c, macA, 100, 200, 19*time.Second + 999*time.Millisecond, true},
		{"two buckets later", j, c, macA, 100, 200, 20 * time.Second, false},
		{"before it was made", j, c, macA, 100, 200, -time.Second, false},
		{"other mac", j, c, macB, 100, 200, 0, false},
		{"other stag", j, c, macA, 101, 200, 0, false},
		{"other ctag", j, c, macA, 100, 0, 0, false},
		{"other secret", other, c, macA, 100, 200, 0, false},
		{"truncated", j, c[:15], macA, 100, 200, 0, false},
		{"empty", j, nil, macA, 100, 200, 0, false},
	} {
		if got := tc.jar.Check(tc.cookie, tc.mac, tc.stag, tc.ctag, t0.Add(tc.at)); got != tc.ok {
			t.Errorf("%s: Check = %v", tc.name, got)
		}
	}
	flip := append([]byte(nil), c...)
	flip[3] ^= 1
	if j.Check(flip, macA, 100, 200, t0) {
		t.Error("flipped bit accepted")
	}
}

func TestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	b := unhex(t, `ffffffffffff 020000000001 88a8 0064 8100 00c8 8863 11 09 0000 000c 0101 0000 0103 0004 deadbeef`)
	j := NewCookieJar([]byte("k"), time.Minute)
	now := time.Unix(5000, 0)
	c := j.Make(macA, 1, 2, now)
	buf := make([]byte, 0, 128)
	n := testing.AllocsPerRun(100, func() {
		f, err := DecodeFrame(b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseTags(f.Payload); err != nil {
			t.Fatal(err)
		}
		if !j.Check(c, macA, 1, 2, now) {
			t.Fatal("cookie")
		}
		buf = AppendFrame(buf[:0], &f)
	})
	if n != 0 {
		t.Fatalf("%v allocations per decode+parse+check+encode", n)
	}
}

func TestCookieJarConcurrent(t *testing.T) {
	j := NewCookieJar([]byte("secret"), time.Minute)
	now := time.Unix(7777, 0)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func(g int) {
			ok := true
			for i := 0; i < 200; i++ {
				mac := [6]byte{2, 0, 0, 0, byte(g), byte(i)}
				c := j.Make(mac, uint16(i), uint16(g), now)
				ok = ok && j.Check(c, mac, uint16(i), uint16(g), now) && !j.Check(c, mac, uint16(i+1), uint16(g), now)
			}
			done <- ok
		}(g)
	}
	for g := 0; g < 4; g++ {
		if !<-done {
			t.Fatal("concurrent Make/Check disagree")
		}
	}
}
