// Package pool6 hands out a line group's IPv6 prefixes: one /64 per session
// from the WAN pools, one prefix of the delegated length per session from
// the delegated-prefix pools (DHCPv6 IA_PD). Like the IPv4 pools, it never
// hands out a prefix twice; sessions restored after a restart reserve theirs.
//
// A pool space holds up to 2^32 prefixes (a /32 WAN pool), so the allocator
// keeps the set of prefixes in use and a cursor rather than a bitmap.
package pool6

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"sync"
)

// Errors a caller may test with errors.Is.
var (
	ErrExhausted = errors.New("pool6: no free prefix")
	ErrNotInPool = errors.New("pool6: prefix not in any pool of the line group")
	ErrInUse     = errors.New("pool6: prefix already in use")
)

// Space is one pool prefix cut into prefixes of Length bits.
type Space struct {
	Prefix netip.Prefix
	Length int
}

type space struct {
	Space
	size   uint64 // prefixes of Length in Prefix
	next   uint64 // cursor
	used   map[uint64]struct{}
	base   uint64 // upper 64 bits of Prefix
	weight uint64 // 2^(64-Length): the step between prefixes in the upper 64 bits
}

// Kind selects the WAN or the delegated-prefix spaces of a Group.
type Kind uint8

const (
	WAN Kind = iota // per-session /64s (SLAAC, RA)
	PD              // delegated prefixes (IA_PD)
)

// Group is one line group's IPv6 allocator, safe for concurrent use.
type Group struct {
	name   string
	mu     sync.Mutex
	spaces [2][]*space
}

// NewGroup makes the allocator of line group name over its WAN pools (cut
// into /64s) and delegated-prefix pools (cut into their lengths).
func NewGroup(name string, wan, pd []Space) (*Group, error) {
	g := &Group{name: name}
	for k, list := range [2][]Space{wan, pd} {
		for _, sp := range list {
			bits := sp.Prefix.Bits()
			if !sp.Prefix.Addr().Is6() || sp.Length > 64 || sp.Length < bits || sp.Length-bits > 32 {
				return nil, fmt.Errorf("pool6: %s cut into /%d: unsupported", sp.Prefix, sp.Length)
			}
			a := sp.Prefix.Masked().Addr().As16()
			g.spaces[k] = append(g.spaces[k], &space{
				Space: sp, size: uint64(1) << (sp.Length - bits), used: make(map[uint64]struct{}),
				base: binary.BigEndian.Uint64(a[:8]), weight: uint64(1) << (64 - sp.Length),
			})
		}
	}
	return g, nil
}

// Name returns the line group's name.
func (g *Group) Name() string { return g.name }

// Has reports whether the group has a space of kind k.
func (g *Group) Has(k Kind) bool { return len(g.spaces[k]) > 0 }

func (s *space) prefix(i uint64) netip.Prefix {
	var a [16]byte
	binary.BigEndian.PutUint64(a[:8], s.base+i*s.weight)
	return netip.PrefixFrom(netip.AddrFrom16(a), s.Length)
}

// find returns the space and index of p.
func (g *Group) find(k Kind, p netip.Prefix) (*space, uint64, bool) {
	if !p.IsValid() || p != p.Masked() {
		return nil, 0, false
	}
	for _, s := range g.spaces[k] {
		if p.Bits() != s.Length || !s.Prefix.Contains(p.Addr()) {
			continue
		}
		a := p.Addr().As16()
		return s, (binary.BigEndian.Uint64(a[:8]) - s.base) / s.weight, true
	}
	return nil, 0, false
}

// Allocate returns a free prefix of kind k.
func (g *Group) Allocate(k Kind) (netip.Prefix, error) {
	return g.AllocateIn(k, netip.Prefix{})
}

// AllocateIn returns a free prefix of kind k from the pool prefix within
// (invalid: any pool of the kind); ErrNotInPool when the group has no such
// pool prefix.
func (g *Group) AllocateIn(k Kind, within netip.Prefix) (netip.Prefix, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	found := false
	for _, s := range g.spaces[k] {
		if within.IsValid() && s.Prefix != within {
			continue
		}
		found = true
		if uint64(len(s.used)) >= s.size {
			continue
		}
		for {
			i := s.next
			s.next++
			if s.next == s.size {
				s.next = 0
			}
			if _, busy := s.used[i]; !busy {
				s.used[i] = struct{}{}
				return s.prefix(i), nil
			}
		}
	}
	if !found {
		return netip.Prefix{}, ErrNotInPool
	}
	return netip.Prefix{}, ErrExhausted
}

// Contains reports whether p is a prefix of kind k the group may hand out.
func (g *Group) Contains(k Kind, p netip.Prefix) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, _, ok := g.find(k, p)
	return ok
}

// Reserve marks p used (RADIUS gave it, or a restored session holds it).
func (g *Group) Reserve(k Kind, p netip.Prefix) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, i, ok := g.find(k, p)
	if !ok {
		return ErrNotInPool
	}
	if _, busy := s.used[i]; busy {
		return ErrInUse
	}
	s.used[i] = struct{}{}
	return nil
}

// Release frees p; false when it was not in use.
func (g *Group) Release(k Kind, p netip.Prefix) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	s, i, ok := g.find(k, p)
	if !ok {
		return false
	}
	if _, busy := s.used[i]; !busy {
		return false
	}
	delete(s.used, i)
	return true
}

// Usage returns the prefixes of kind k in use and in all.
func (g *Group) Usage(k Kind) (used, size uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range g.spaces[k] {
		used += uint64(len(s.used))
		size += s.size
	}
	return used, size
}
