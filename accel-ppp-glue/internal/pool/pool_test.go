package pool

import (
	"errors"
	"math/rand"
	"net/netip"
	"sync"
	"testing"
)

func pfx(s ...string) []netip.Prefix {
	var out []netip.Prefix
	for _, x := range s {
		out = append(out, netip.MustParsePrefix(x))
	}
	return out
}

func ip(s string) netip.Addr { return netip.MustParseAddr(s) }

// drain allocates until exhaustion and returns what it got, in order.
func drain(t *testing.T, g *Group) []netip.Addr {
	t.Helper()
	var got []netip.Addr
	seen := map[netip.Addr]bool{}
	for {
		a, err := g.Allocate()
		if errors.Is(err, ErrExhausted) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		if seen[a] {
			t.Fatalf("%v allocated twice", a)
		}
		seen[a] = true
		got = append(got, a)
		if len(got) > MaxAddresses {
			t.Fatal("no end")
		}
	}
}

func TestExhaustion(t *testing.T) {
	g, err := NewGroup("lg1", pfx("10.0.0.0/29"), []netip.Addr{ip("10.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	if size, used := g.Usage(); size != 5 || used != 0 {
		t.Fatalf("usage = %d/%d, want 5/0", used, size)
	}
	got := drain(t, g)
	want := []string{"10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != ip(want[i]) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if _, err := g.Allocate(); !errors.Is(err, ErrExhausted) {
		t.Fatalf("after exhaustion: %v", err)
	}
	if size, used := g.Usage(); size != 5 || used != 5 {
		t.Fatalf("usage = %d/%d", used, size)
	}
	// One freed address is the next (and only) one handed out.
	if !g.Release(ip("10.0.0.4")) {
		t.Fatal("release failed")
	}
	if a, err := g.Allocate(); err != nil || a != ip("10.0.0.4") {
		t.Fatalf("after release: %v %v", a, err)
	}
	if st := g.Stats(); st.Allocations != 6 || st.Releases != 1 || st.ExhaustedRefused != 2 || st.Used != 5 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCursorDoesNotReuseAtOnce(t *testing.T) {
	g, err := NewGroup("lg", pfx("10.0.0.0/24"), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.Allocate()
	g.Release(a)
	b, _ := g.Allocate()
	if a == b {
		t.Fatalf("released %v handed out again at once", a)
	}
}

func TestReleaseReportsBadRelease(t *testing.T) {
	g, _ := NewGroup("lg", pfx("192.0.2.0/24"), []netip.Addr{ip("192.0.2.1")})
	a, _ := g.Allocate()
	if !g.Release(a) {
		t.Fatal("first release")
	}
	for _, bad := range []netip.Addr{a, ip("192.0.2.77"), ip("192.0.2.1"), ip("192.0.2.0"), ip("192.0.2.255"), ip("198.51.100.1"), ip("::1"), {}} {
		if g.Release(bad) {
			t.Errorf("release of %v succeeded", bad)
		}
	}
	if st := g.Stats(); st.BadReleases != 8 || st.Releases != 1 || st.Used != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestReserve(t *testing.T) {
	g, _ := NewGroup("lg", pfx("10.1.0.0/30", "10.2.0.0/24"), []netip.Addr{ip("10.2.0.1")})
	cases := []struct {
		a    string
		want error
	}{
		{"10.2.0.9", nil},
		{"10.2.0.9", ErrInUse},
		{"10.1.0.1", nil},
		{"10.1.0.0", ErrNotInPool}, // network
		{"10.1.0.3", ErrNotInPool}, // broadcast
		{"10.2.0.1", ErrNotInPool}, // excluded
		{"10.3.0.1", ErrNotInPool},
		{"::ffff:10.2.0.9", ErrNotInPool},
		{"2001:db8::1", ErrNotInPool},
	}
	for _, c := range cases {
		err := g.Reserve(ip(c.a))
		if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("Reserve(%s) = %v, want %v", c.a, err, c.want)
		}
	}
	if g.Reserve(netip.Addr{}) == nil {
		t.Error("zero address reserved")
	}
	if !g.InUse(ip("10.2.0.9")) || g.InUse(ip("10.2.0.10")) || g.InUse(ip("10.2.0.1")) {
		t.Error("InUse wrong")
	}
	if !g.Contains(ip("10.2.0.10")) || g.Contains(ip("10.2.0.1")) || g.Contains(ip("10.2.0.255")) || g.Contains(ip("10.9.0.1")) {
		t.Error("Contains wrong")
	}
	if size, used := g.Usage(); size != 2+253 || used != 2 {
		t.Fatalf("usage %d/%d", used, size)
	}
	if size, used, ok := g.PrefixUsage(netip.MustParsePrefix("10.2.0.0/24")); !ok || size != 253 || used != 1 {
		t.Fatalf("prefix usage %d/%d %v", used, size, ok)
	}
	if _, _, ok := g.PrefixUsage(netip.MustParsePrefix("10.2.0.0/25")); ok {
		t.Fatal("usage of a prefix that is not the group's")
	}
}

// TestRestoreAfterRestart: the addresses of restored sessions are reserved in
// a fresh group; Allocate then never returns them.
func TestRestoreAfterRestart(t *testing.T) {
	prefixes := pfx("100.64.0.0/26", "100.64.1.0/28")
	before, _ := NewGroup("lg", prefixes, nil)
	var persisted []netip.Addr
	for i := 0; i < 40; i++ {
		a, err := before.Allocate()
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 { // some sessions ended before the restart
			before.Release(a)
			continue
		}
		persisted = append(persisted, a)
	}
	after, _ := NewGroup("lg", prefixes, nil)
	for _, a := range persisted {
		if err := after.Reserve(a); err != nil {
			t.Fatal(err)
		}
	}
	size, used := after.Usage()
	if used != len(persisted) {
		t.Fatalf("used %d, want %d", used, len(persisted))
	}
	got := drain(t, after)
	if len(got) != size-used {
		t.Fatalf("allocated %d after restore, want %d", len(got), size-used)
	}
	old := map[netip.Addr]bool{}
	for _, a := range persisted {
		old[a] = true
	}
	for _, a := range got {
		if old[a] {
			t.Fatalf("%v handed out again after the restart", a)
		}
	}
}

func TestSmallPrefixes(t *testing.T) {
	// /32: its one address; /31: both (RFC 3021); /30: the two in the middle.
	g, err := NewGroup("lg", pfx("10.0.0.7/32", "10.0.1.0/31", "10.0.2.0/30"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, g)
	want := []string{"10.0.0.7", "10.0.1.0", "10.0.1.1", "10.0.2.1", "10.0.2.2"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != ip(want[i]) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// A lone /32 that is excluded leaves nothing: an error, not an empty pool.
	if _, err := NewGroup("lg", pfx("10.0.0.7/32"), []netip.Addr{ip("10.0.0.7")}); err == nil {
		t.Fatal("group without a usable address accepted")
	}
}

func TestNewGroupErrors(t *testing.T) {
	cases := []struct {
		name     string
		prefixes []netip.Prefix
		exclude  []netip.Addr
	}{
		{"none", nil, nil},
		{"ipv6", pfx("2001:db8::/120"), nil},
		{"host bits", pfx("10.0.0.1/24"), nil},
		{"overlap", pfx("10.0.0.0/24", "10.0.0.128/25"), nil},
		{"duplicate", pfx("10.0.0.0/24", "10.0.0.0/24"), nil},
		{"too big", pfx("10.0.0.0/7"), nil},
		{"too big together", pfx("10.0.0.0/8", "11.0.0.0/30"), nil},
		{"exclude outside", pfx("10.0.0.0/24"), []netip.Addr{ip("10.0.1.1")}},
		{"zero prefix", []netip.Prefix{{}}, nil},
	}
	for _, c := range cases {
		if g, err := NewGroup("lg", c.prefixes, c.exclude); err == nil {
			t.Errorf("%s: accepted (%v)", c.name, g.Prefixes())
		}
	}
	g, err := NewGroup("lg", pfx("10.0.9.0/24", "10.0.1.0/24"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := g.Prefixes(); len(p) != 2 || p[0] != netip.MustParsePrefix("10.0.1.0/24") || g.Name() != "lg" {
		t.Fatalf("prefixes %v", p)
	}
}

// TestConcurrentNoDoubleAllocation: many goroutines allocate, reserve and
// release at once (run with -race); an address is never held by two.
func TestConcurrentNoDoubleAllocation(t *testing.T) {
	g, _ := NewGroup("lg", pfx("10.0.0.0/23", "10.9.0.0/26"), []netip.Addr{ip("10.0.0.1")})
	size, _ := g.Usage()
	var owners sync.Map // addr -> worker
	var wg sync.WaitGroup
	const workers = 8
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w)))
			var mine []netip.Addr
			for i := 0; i < 3000; i++ {
				switch op := r.Intn(10); {
				case op < 5:
					a, err := g.Allocate()
					if errors.Is(err, ErrExhausted) {
						continue
					}
					if err != nil {
						t.Error(err)
						return
					}
					if prev, loaded := owners.LoadOrStore(a, w); loaded {
						t.Errorf("%v allocated to %d while held by %d", a, w, prev)
						return
					}
					mine = append(mine, a)
				case op < 7:
					a := addr(u32(ip("10.0.0.0")) + uint32(r.Intn(512)))
					if err := g.Reserve(a); err == nil {
						if prev, loaded := owners.LoadOrStore(a, w); loaded {
							t.Errorf("%v reserved by %d while held by %d", a, w, prev)
							return
						}
						mine = append(mine, a)
					}
				default:
					if len(mine) == 0 {
						continue
					}
					j := r.Intn(len(mine))
					a := mine[j]
					mine[j] = mine[len(mine)-1]
					mine = mine[:len(mine)-1]
					owners.Delete(a) // before Release: afterwards another may take it
					if !g.Release(a) {
						t.Errorf("release of held %v failed", a)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	held := 0
	owners.Range(func(k, v any) bool {
		held++
		if !g.InUse(k.(netip.Addr)) {
			t.Errorf("%v held but not in use", k)
		}
		return true
	})
	if s, used := g.Usage(); used != held || s != size {
		t.Fatalf("used %d, held %d", used, held)
	}
	if st := g.Stats(); st.BadReleases != 0 {
		t.Fatalf("bad releases %d", st.BadReleases)
	}
}
