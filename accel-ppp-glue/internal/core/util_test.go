package core

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestSIDAllocatorUniquePerLine(t *testing.T) {
	a := newSIDAllocator()
	seen := map[uint16]bool{}
	for i := 0; i < 0xfffe; i++ {
		id, ok := a.alloc("access1", 100)
		if !ok {
			t.Fatalf("allocation %d failed", i)
		}
		if id == 0 || id == 0xffff || seen[id] {
			t.Fatalf("allocation %d returned %#x (seen before: %v)", i, id, seen[id])
		}
		seen[id] = true
	}
	if _, ok := a.alloc("access1", 100); ok {
		t.Fatal("allocation beyond 65534 ids succeeded")
	}
	// Other scopes are independent.
	if _, ok := a.alloc("access1", 101); !ok {
		t.Fatal("another S-tag has no ids")
	}
	if _, ok := a.alloc("access2", 100); !ok {
		t.Fatal("another port has no ids")
	}
	a.free("access1", 100, 77)
	id, ok := a.alloc("access1", 100)
	if !ok || id != 77 {
		t.Fatalf("after freeing 77 got %d %v", id, ok)
	}
	a.free("access1", 100, 0)      // ignored
	a.free("access1", 100, 0xffff) // ignored
	a.free("nowhere", 1, 5)        // ignored
}

func TestSIDAllocatorNoImmediateReuseAndReserve(t *testing.T) {
	a := newSIDAllocator()
	id1, _ := a.alloc("p", 1)
	a.free("p", 1, id1)
	id2, _ := a.alloc("p", 1)
	if id1 == id2 {
		t.Fatalf("freed id %d handed out again at once", id1)
	}
	if !a.reserve("p", 1, 4000) || a.reserve("p", 1, 4000) {
		t.Fatal("reserve of a free id must succeed once")
	}
	if a.reserve("p", 1, 0) || a.reserve("p", 1, 0xffff) {
		t.Fatal("reserved ids 0 and 0xffff")
	}
	for i := 0; i < 70000; i++ {
		id, ok := a.alloc("p", 1)
		if !ok {
			break
		}
		if id == 4000 {
			t.Fatal("reserved id allocated")
		}
	}
}

func TestBucket(t *testing.T) {
	var b bucket
	now := time.Unix(1000, 0)
	n := 0
	for i := 0; i < 100; i++ {
		if b.take(now, 2, 8) {
			n++
		}
	}
	if n != 8 {
		t.Fatalf("burst admitted %d, want 8", n)
	}
	if b.take(now.Add(100*time.Millisecond), 2, 8) {
		t.Fatal("admitted before a token accrued")
	}
	if !b.take(now.Add(600*time.Millisecond), 2, 8) {
		t.Fatal("not admitted after a token accrued")
	}
}

func TestBurstLogSuppresses(t *testing.T) {
	var buf bytes.Buffer
	bl := newBurstLog(slog.New(slog.NewTextHandler(&buf, nil)), time.Hour)
	for i := 0; i < 1000; i++ {
		bl.Warn("flood", "bad frame")
	}
	bl.Warn("other", "other thing")
	if got := strings.Count(buf.String(), "bad frame"); got != 1 {
		t.Fatalf("flood logged %d times, want 1:\n%s", got, buf.String())
	}
	if !strings.Contains(buf.String(), "other thing") {
		t.Fatal("a second kind was suppressed")
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := record{
		ID: "0000000200000001", CPSEID: 2<<32 | 1, UPSEID: 7, Established: true, User: "u",
		Instance: 1, AccessPort: "access1", STag: 100, CTag: 7, MAC: [6]byte{2, 0, 0, 0, 0, 1},
		PPPoESID: 9, IPv4: netip.MustParseAddr("100.80.0.2"), LineGroup: "lg1", QosProfile: "silver",
		MTU: 1492, MagicTx: 1, MagicRx: 2, Class: [][]byte{[]byte("c1")}, Interim: 300,
		Started: time.Unix(1700000000, 0).UTC(), UpOctets: 1 << 40,
	}
	var back record
	if err := json.Unmarshal(r.marshal(), &back); err != nil {
		t.Fatal(err)
	}
	if back.IPv4 != r.IPv4 || back.MAC != r.MAC || back.UpOctets != r.UpOctets || string(back.Class[0]) != "c1" ||
		!back.Started.Equal(r.Started) || back.CPSEID != r.CPSEID {
		t.Fatalf("round trip changed the record: %+v", back)
	}
}

func TestLineNames(t *testing.T) {
	m := [6]byte{0x02, 0xab, 0, 0, 0, 1}
	if got := callingStationID(m); got != "02-AB-00-00-00-01" {
		t.Fatal(got)
	}
	if got := nasPortID("access1", 100, 7); got != "access1:100.7" {
		t.Fatal(got)
	}
}
