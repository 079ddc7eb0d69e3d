package pool

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
)

// model is the obvious allocator the bitmap must agree with.
type model struct {
	usable map[netip.Addr]bool
	used   map[netip.Addr]bool
}

// run interprets ops as a program against g and a model and fails on any
// disagreement: every byte pair is an operation and an operand.
func run(t *testing.T, g *Group, m *model, ops []byte) {
	t.Helper()
	prefixes := g.Prefixes()
	pick := func(x byte) netip.Addr { // an address in or near the prefixes
		p := prefixes[int(x)%len(prefixes)]
		v := u32(p.Addr()) + uint32(x)%(uint32(1)<<(32-p.Bits())+2) - 1 // one below to one past
		return addr(v)
	}
	for i := 0; i+1 < len(ops); i += 2 {
		op, x := ops[i]%4, ops[i+1]
		switch op {
		case 0, 1:
			a, err := g.Allocate()
			if len(m.used) == len(m.usable) {
				if !errors.Is(err, ErrExhausted) {
					t.Fatalf("op %d: full pool allocated %v (%v)", i, a, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("op %d: %v with %d of %d used", i, err, len(m.used), len(m.usable))
			}
			if !m.usable[a] || m.used[a] {
				t.Fatalf("op %d: allocated %v (usable %v, used %v)", i, a, m.usable[a], m.used[a])
			}
			m.used[a] = true
		case 2:
			a := pick(x)
			err := g.Reserve(a)
			switch {
			case !m.usable[a]:
				if !errors.Is(err, ErrNotInPool) {
					t.Fatalf("op %d: Reserve(%v) = %v, want ErrNotInPool", i, a, err)
				}
			case m.used[a]:
				if !errors.Is(err, ErrInUse) {
					t.Fatalf("op %d: Reserve(%v) = %v, want ErrInUse", i, a, err)
				}
			default:
				if err != nil {
					t.Fatalf("op %d: Reserve(%v) = %v", i, a, err)
				}
				m.used[a] = true
			}
		case 3:
			a := pick(x)
			if got, want := g.Release(a), m.used[a]; got != want {
				t.Fatalf("op %d: Release(%v) = %v, want %v", i, a, got, want)
			}
			delete(m.used, a)
		}
		if size, used := g.Usage(); size != len(m.usable) || used != len(m.used) {
			t.Fatalf("op %d: usage %d/%d, model %d/%d", i, used, size, len(m.used), len(m.usable))
		}
		for _, p := range prefixes {
			size, used, ok := g.PrefixUsage(p)
			ms, mu := 0, 0
			for a := range m.usable {
				if p.Contains(a) {
					ms++
					if m.used[a] {
						mu++
					}
				}
			}
			if !ok || size != ms || used != mu {
				t.Fatalf("op %d: %v usage %d/%d %v, model %d/%d", i, p, used, size, ok, mu, ms)
			}
		}
	}
}

func newModel(prefixes []netip.Prefix, exclude []netip.Addr) *model {
	m := &model{usable: map[netip.Addr]bool{}, used: map[netip.Addr]bool{}}
	for _, p := range prefixes {
		n := uint32(1) << (32 - p.Bits())
		for v := uint32(0); v < n; v++ {
			if n >= 4 && (v == 0 || v == n-1) {
				continue
			}
			m.usable[addr(u32(p.Addr())+v)] = true
		}
	}
	for _, a := range exclude {
		delete(m.usable, a)
	}
	return m
}

// FuzzGroup: a group built from fuzzed prefixes and excludes behaves like the
// model under a fuzzed sequence of operations.
func FuzzGroup(f *testing.F) {
	f.Add([]byte{10, 0, 0, 0, 29, 1}, []byte{10, 0, 0, 1}, []byte{0, 0, 0, 0, 2, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{10, 0, 0, 7, 32, 0, 10, 0, 1, 0, 31, 0}, []byte{}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 3, 1, 2, 1, 2, 1})
	f.Add([]byte{192, 0, 2, 0, 24, 0, 198, 51, 100, 0, 26, 0}, []byte{192, 0, 2, 1, 198, 51, 100, 63}, []byte{1, 200, 2, 7, 2, 7, 3, 7, 3, 7, 0, 1})
	f.Fuzz(func(t *testing.T, pb, eb, ops []byte) {
		var prefixes []netip.Prefix
		for i := 0; i+5 <= len(pb) && len(prefixes) < 4; i += 6 {
			bitsLen := 22 + int(pb[i+4])%11 // /22 to /32: keep the model small
			a := netip.AddrFrom4([4]byte(pb[i : i+4]))
			prefixes = append(prefixes, netip.PrefixFrom(a, bitsLen).Masked())
		}
		var exclude []netip.Addr
		for i := 0; i+4 <= len(eb) && len(exclude) < 8; i += 4 {
			exclude = append(exclude, netip.AddrFrom4([4]byte(eb[i:i+4])))
		}
		g, err := NewGroup("fuzz", prefixes, exclude)
		if err != nil {
			return // overlapping prefixes, an exclude outside them, nothing usable, ...
		}
		m := newModel(prefixes, exclude)
		if len(m.usable) == 0 {
			t.Fatal("group built without a usable address")
		}
		run(t, g, m, ops)
	})
}

// TestProperty runs long random programs (deterministic seeds) through run.
func TestProperty(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		prefixes := pfx("10.0.0.0/27", "10.0.1.0/31", "10.0.2.5/32", "10.0.3.0/30")
		exclude := []netip.Addr{ip("10.0.0.1"), ip("10.0.3.2")}
		g, err := NewGroup("p", prefixes, exclude)
		if err != nil {
			t.Fatal(err)
		}
		ops := make([]byte, 4000)
		s := seed
		for i := 0; i < len(ops); i += 8 {
			s = s*6364136223846793005 + 1442695040888963407
			binary.LittleEndian.PutUint64(ops[i:], s)
		}
		run(t, g, newModel(prefixes, exclude), ops)
	}
}
