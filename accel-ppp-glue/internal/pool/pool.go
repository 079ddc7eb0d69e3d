package pool

import (
	"errors"
	"fmt"
	"math/bits"
	"net/netip"
	"slices"
	"sync"
)

// Errors a caller may test with errors.Is.
var (
	ErrExhausted = errors.New("address pool exhausted")
	ErrInUse     = errors.New("address already in use")
	ErrNotInPool = errors.New("address not in pool")
)

// MaxAddresses bounds the addresses of one Group (a /8: a 2 MiB bitmap).
const MaxAddresses = 1 << 24

// span is one prefix laid out in the bitmap from bit off.
type span struct {
	prefix netip.Prefix
	first  uint32 // first address of the prefix
	n      uint32 // addresses in the prefix
	off    uint32 // bit of first
}

// Stats counts what a Group did.
type Stats struct {
	Size, Used       int    // as Usage
	Allocations      uint64 // successful Allocate calls
	Reservations     uint64 // successful Reserve calls
	Releases         uint64 // Release calls that freed an address
	BadReleases      uint64 // Release calls for an address not in use
	ExhaustedRefused uint64 // Allocate calls that found no free address
}

// Group is the address allocator of one line group.
type Group struct {
	name  string
	spans []span // sorted by first address, not overlapping

	mu       sync.Mutex
	taken    []uint64 // bit set: allocated, reserved or never usable
	unusable []uint64 // bit set: network, broadcast or excluded
	nbits    uint32
	size     int // usable addresses
	used     int
	cursor   uint32 // bit to start the next search at
	stats    Stats
}

// NewGroup builds the allocator of line group name over prefixes. Network and
// broadcast addresses of each prefix shorter than /31 are excluded, and so
// is every address of exclude. Prefixes must be IPv4 and must not overlap;
// an exclude outside every prefix is an error (it is a configuration
// mistake, not a no-op).
func NewGroup(name string, prefixes []netip.Prefix, exclude []netip.Addr) (*Group, error) {
	g := &Group{name: name}
	if len(prefixes) == 0 {
		return nil, fmt.Errorf("pool %s: no prefixes", name)
	}
	var total uint64
	for _, p := range prefixes {
		if !p.IsValid() || !p.Addr().Is4() {
			return nil, fmt.Errorf("pool %s: prefix %v is not an IPv4 prefix", name, p)
		}
		if p.Masked() != p {
			return nil, fmt.Errorf("pool %s: prefix %v has host bits set (want %v)", name, p, p.Masked())
		}
		n := uint64(1) << (32 - p.Bits())
		total += n
		if total > MaxAddresses {
			return nil, fmt.Errorf("pool %s: more than %d addresses", name, MaxAddresses)
		}
		g.spans = append(g.spans, span{prefix: p, first: u32(p.Addr()), n: uint32(n)})
	}
	slices.SortFunc(g.spans, func(a, b span) int {
		switch {
		case a.first < b.first:
			return -1
		case a.first > b.first:
			return 1
		}
		return 0
	})
	var off uint32
	for i := range g.spans {
		s := &g.spans[i]
		if i > 0 {
			prev := g.spans[i-1]
			if uint64(prev.first)+uint64(prev.n) > uint64(s.first) {
				return nil, fmt.Errorf("pool %s: prefixes %v and %v overlap", name, prev.prefix, s.prefix)
			}
		}
		s.off = off
		off += s.n
	}
	g.nbits = off
	words := (int(g.nbits) + 63) / 64
	g.taken = make([]uint64, words)
	g.unusable = make([]uint64, words)
	// Bits past the end of the last word are never free.
	for b := g.nbits; b < uint32(words*64); b++ {
		g.taken[b/64] |= 1 << (b % 64)
	}
	mark := func(bit uint32) {
		g.taken[bit/64] |= 1 << (bit % 64)
		g.unusable[bit/64] |= 1 << (bit % 64)
	}
	for _, s := range g.spans {
		if s.n >= 4 { // /30 and shorter: network and broadcast
			mark(s.off)
			mark(s.off + s.n - 1)
		}
	}
	for _, a := range exclude {
		bit, ok := g.bit(a)
		if !ok {
			return nil, fmt.Errorf("pool %s: exclude %v is not in any prefix", name, a)
		}
		mark(bit)
	}
	for i := range g.taken {
		g.size += 64 - bits.OnesCount64(g.taken[i])
	}
	if g.size == 0 {
		return nil, fmt.Errorf("pool %s: no usable address", name)
	}
	g.stats.Size = g.size
	return g, nil
}

func u32(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func addr(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// bit returns the bitmap index of a, and false when a is in no prefix.
func (g *Group) bit(a netip.Addr) (uint32, bool) {
	if !a.Is4() { // an IPv4-mapped IPv6 address is not ours either
		return 0, false
	}
	v := u32(a)
	i, _ := slices.BinarySearchFunc(g.spans, v, func(s span, v uint32) int {
		switch {
		case uint64(s.first)+uint64(s.n) <= uint64(v):
			return -1
		case s.first > v:
			return 1
		}
		return 0
	})
	if i == len(g.spans) {
		return 0, false
	}
	s := g.spans[i]
	if v < s.first || uint64(v) >= uint64(s.first)+uint64(s.n) {
		return 0, false
	}
	return s.off + (v - s.first), true
}

// addrOf is the inverse of bit.
func (g *Group) addrOf(bit uint32) netip.Addr {
	i, _ := slices.BinarySearchFunc(g.spans, bit, func(s span, b uint32) int {
		switch {
		case s.off+s.n <= b:
			return -1
		case s.off > b:
			return 1
		}
		return 0
	})
	s := g.spans[i]
	return addr(s.first + (bit - s.off))
}

// Name returns the line group's name.
func (g *Group) Name() string { return g.name }

// Prefixes returns the prefixes in address order.
func (g *Group) Prefixes() []netip.Prefix {
	out := make([]netip.Prefix, len(g.spans))
	for i, s := range g.spans {
		out[i] = s.prefix
	}
	return out
}

// Contains reports whether a may be handed out by g: it lies in one of the
// prefixes and is neither a network/broadcast address nor excluded.
func (g *Group) Contains(a netip.Addr) bool {
	bit, ok := g.bit(a)
	if !ok {
		return false
	}
	// unusable never changes after NewGroup: no lock needed.
	return g.unusable[bit/64]&(1<<(bit%64)) == 0
}

// InUse reports whether a is currently allocated or reserved.
func (g *Group) InUse(a netip.Addr) bool {
	if !g.Contains(a) {
		return false
	}
	bit, _ := g.bit(a)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.taken[bit/64]&(1<<(bit%64)) != 0
}

// Allocate returns a free address and marks it used. It returns ErrExhausted
// when every usable address is in use.
func (g *Group) Allocate() (netip.Addr, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.used == g.size {
		g.stats.ExhaustedRefused++
		return netip.Addr{}, fmt.Errorf("pool %s: %w (%d addresses in use)", g.name, ErrExhausted, g.used)
	}
	words := uint32(len(g.taken))
	w := g.cursor / 64
	// First word: only bits at or after the cursor.
	free := ^g.taken[w] &^ (1<<(g.cursor%64) - 1)
	for i := uint32(0); free == 0; i++ {
		if i > words { // cannot happen while used < size
			panic("pool: bitmap and counters disagree")
		}
		w = (w + 1) % words
		free = ^g.taken[w]
	}
	bit := w*64 + uint32(bits.TrailingZeros64(free))
	g.taken[w] |= 1 << (bit % 64)
	g.used++
	g.stats.Allocations++
	g.cursor = (bit + 1) % (words * 64)
	return g.addrOf(bit), nil
}

// Reserve marks a used, for an address chosen elsewhere (RADIUS
// Framed-IP-Address, a session restored after a restart). ErrNotInPool when a
// is outside the prefixes or is a network, broadcast or excluded address;
// ErrInUse when a is already allocated or reserved.
func (g *Group) Reserve(a netip.Addr) error {
	bit, ok := g.bit(a)
	if !ok {
		return fmt.Errorf("pool %s: %w: %v", g.name, ErrNotInPool, a)
	}
	if g.unusable[bit/64]&(1<<(bit%64)) != 0 {
		return fmt.Errorf("pool %s: %w: %v is a network, broadcast or excluded address", g.name, ErrNotInPool, a)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.taken[bit/64]&(1<<(bit%64)) != 0 {
		return fmt.Errorf("pool %s: %w: %v", g.name, ErrInUse, a)
	}
	g.taken[bit/64] |= 1 << (bit % 64)
	g.used++
	g.stats.Reservations++
	return nil
}

// Release frees a. It returns false, and counts a bad release, when a was not
// in use (a double release, or an address the group never handed out).
func (g *Group) Release(a netip.Addr) bool {
	bit, ok := g.bit(a)
	g.mu.Lock()
	defer g.mu.Unlock()
	if !ok || g.unusable[bit/64]&(1<<(bit%64)) != 0 || g.taken[bit/64]&(1<<(bit%64)) == 0 {
		g.stats.BadReleases++
		return false
	}
	g.taken[bit/64] &^= 1 << (bit % 64)
	g.used--
	g.stats.Releases++
	return true
}

// Usage returns the number of usable addresses and how many are in use.
func (g *Group) Usage() (size, used int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.size, g.used
}

// PrefixUsage is Usage for one of the group's prefixes (a config pool), for
// per-pool views; ok is false when p is not one of them.
func (g *Group) PrefixUsage(p netip.Prefix) (size, used int, ok bool) {
	for _, s := range g.spans {
		if s.prefix != p {
			continue
		}
		bad := countRange(g.unusable, s.off, s.off+s.n)
		g.mu.Lock()
		taken := countRange(g.taken, s.off, s.off+s.n)
		g.mu.Unlock()
		return int(s.n) - bad, taken - bad, true
	}
	return 0, 0, false
}

// countRange counts the set bits of bm in [lo, hi).
func countRange(bm []uint64, lo, hi uint32) int {
	n := 0
	for lo < hi {
		w, b := lo/64, lo%64
		word := bm[w] >> b
		span := min(64-b, hi-lo)
		if span < 64 {
			word &= 1<<span - 1
		}
		n += bits.OnesCount64(word)
		lo += span
	}
	return n
}

// Stats returns the group's counters.
func (g *Group) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.stats
	s.Size, s.Used = g.size, g.used
	return s
}
