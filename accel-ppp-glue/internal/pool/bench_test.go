package pool

import (
	"net/netip"
	"testing"
)

// BenchmarkAllocateRelease: a /16 kept 90 % full; each op allocates one
// address and releases the oldest.
func BenchmarkAllocateRelease(b *testing.B) {
	g, err := NewGroup("lg", pfx("100.64.0.0/16"), nil)
	if err != nil {
		b.Fatal(err)
	}
	size, _ := g.Usage()
	ring := make([]netip.Addr, 0, size)
	for len(ring) < size*9/10 {
		a, err := g.Allocate()
		if err != nil {
			b.Fatal(err)
		}
		ring = append(ring, a)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, err := g.Allocate()
		if err != nil {
			b.Fatal(err)
		}
		old := ring[i%len(ring)]
		ring[i%len(ring)] = a
		if !g.Release(old) {
			b.Fatal("release")
		}
	}
}
