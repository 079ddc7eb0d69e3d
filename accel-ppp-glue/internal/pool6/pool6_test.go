package pool6

import (
	"errors"
	"net/netip"
	"testing"
)

func TestAllocateReserveRelease(t *testing.T) {
	g, err := NewGroup("lg1",
		[]Space{{netip.MustParsePrefix("2001:db8:100::/62"), 64}},
		[]Space{{netip.MustParsePrefix("2001:db8:200::/54"), 56}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2001:db8:100::/64", "2001:db8:100:1::/64", "2001:db8:100:2::/64", "2001:db8:100:3::/64"}
	var got []netip.Prefix
	for i := 0; i < 4; i++ {
		p, err := g.Allocate(WAN)
		if err != nil || p.String() != want[i] {
			t.Fatalf("WAN %d: %v %v, want %s", i, p, err, want[i])
		}
		got = append(got, p)
	}
	if _, err := g.Allocate(WAN); !errors.Is(err, ErrExhausted) {
		t.Fatalf("5th /64 of a /62: %v", err)
	}
	if !g.Release(WAN, got[2]) || g.Release(WAN, got[2]) {
		t.Fatal("release / double release")
	}
	if p, err := g.Allocate(WAN); err != nil || p != got[2] {
		t.Fatalf("after release: %v %v", p, err)
	}
	pd1, _ := g.Allocate(PD)
	pd2, _ := g.Allocate(PD)
	if pd1.String() != "2001:db8:200::/56" || pd2.String() != "2001:db8:200:100::/56" {
		t.Fatalf("PD %v %v", pd1, pd2)
	}
	if err := g.Reserve(PD, netip.MustParsePrefix("2001:db8:200:300::/56")); err != nil {
		t.Fatal(err)
	}
	if err := g.Reserve(PD, pd1); !errors.Is(err, ErrInUse) {
		t.Fatalf("reserve used: %v", err)
	}
	for _, bad := range []string{"2001:db8:200:300::/60", "2001:db8:300::/56", "2001:db8:200:301::/56", "2001:db8:100::/64"} {
		if err := g.Reserve(PD, netip.MustParsePrefix(bad)); !errors.Is(err, ErrNotInPool) {
			t.Errorf("reserve %s: %v", bad, err)
		}
	}
	// the allocator skips the reserved one
	if p, _ := g.Allocate(PD); p.String() != "2001:db8:200:200::/56" {
		t.Fatalf("%v", p)
	}
	if _, err := g.Allocate(PD); !errors.Is(err, ErrExhausted) {
		t.Fatalf("PD exhausted: %v", err)
	}
	if u, n := g.Usage(PD); u != 4 || n != 4 {
		t.Fatalf("usage %d/%d", u, n)
	}
}

func TestAllocateIn(t *testing.T) {
	a, b := netip.MustParsePrefix("2001:db8:100::/63"), netip.MustParsePrefix("2001:db8:101::/63")
	g, _ := NewGroup("lg", []Space{{a, 64}, {b, 64}}, nil)
	if p, err := g.AllocateIn(WAN, b); err != nil || !b.Contains(p.Addr()) {
		t.Fatalf("%v %v", p, err)
	}
	if _, err := g.AllocateIn(WAN, netip.MustParsePrefix("2001:db8:102::/63")); !errors.Is(err, ErrNotInPool) {
		t.Fatal(err)
	}
	g.AllocateIn(WAN, b)
	if _, err := g.AllocateIn(WAN, b); !errors.Is(err, ErrExhausted) {
		t.Fatal(err)
	}
	if p, err := g.Allocate(WAN); err != nil || !a.Contains(p.Addr()) {
		t.Fatalf("%v %v", p, err)
	}
}

func TestHugeSpace(t *testing.T) {
	g, err := NewGroup("lg", []Space{{netip.MustParsePrefix("2001:db8::/32"), 64}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, n := g.Usage(WAN); n != 1<<32 {
		t.Fatalf("size %d", n)
	}
	last := netip.MustParsePrefix("2001:db8:ffff:ffff::/64")
	if err := g.Reserve(WAN, last); err != nil {
		t.Fatal(err)
	}
	if g.Has(PD) || !g.Has(WAN) {
		t.Fatal("Has")
	}
	if _, err := NewGroup("x", nil, []Space{{netip.MustParsePrefix("2001:db8::/24"), 64}}); err == nil {
		t.Fatal("2^40 prefixes accepted")
	}
}
