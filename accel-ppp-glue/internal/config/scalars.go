package config

// Reading the scalars of cp.yaml into Go values, reporting each problem with
// its path and line.

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"regexp"

	"gopkg.in/yaml.v3"
)

// Names of objects (pod, ports, pools, profiles, groups, instances, servers)
// end up in other components' configuration files and logs; they are kept to
// a conservative character set.
var reName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// present reports whether an optional key was given a non-null value.
func present(n *yaml.Node) bool { return n.Kind != 0 && !isNull(n) }

// scalar returns the scalar at n (aliases resolved, Line kept at the place
// of use), reporting missing keys, nulls and non-scalars.
func (b *builder) scalar(n *yaml.Node, path string) (*yaml.Node, bool) {
	if n.Kind == 0 {
		b.errorf(path, 0, "required key missing")
		return nil, false
	}
	line := n.Line
	t := deref(n)
	switch {
	case t == nil || t.Kind == yaml.AliasNode:
		b.errorf(path, line, "alias does not resolve")
		return nil, false
	case t.Kind != yaml.ScalarNode:
		b.errorf(path, line, "expected a scalar, found %s", describe(t))
		return nil, false
	case t.ShortTag() == "!!null":
		b.errorf(path, line, "must not be null")
		return nil, false
	}
	s := *t
	s.Line = line
	return &s, true
}

func (b *builder) str(n *yaml.Node, path string) (string, bool) {
	s, ok := b.scalar(n, path)
	if !ok {
		return "", false
	}
	if s.ShortTag() != "!!str" {
		b.errorf(path, s.Line, "expected a string, found %s", describe(s))
		return "", false
	}
	return s.Value, true
}

func (b *builder) name(n *yaml.Node, path string) (string, bool) {
	v, ok := b.str(n, path)
	if !ok {
		return "", false
	}
	if !reName.MatchString(v) {
		b.errorf(path, n.Line, "invalid name %q: use 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit", v)
		return "", false
	}
	return v, true
}

func (b *builder) uintIn(n *yaml.Node, path string, lo, hi uint64) (uint64, bool) {
	s, ok := b.scalar(n, path)
	if !ok {
		return 0, false
	}
	if s.ShortTag() != "!!int" {
		b.errorf(path, s.Line, "expected an integer, found %s", describe(s))
		return 0, false
	}
	var v uint64
	if err := s.Decode(&v); err != nil || v < lo || v > hi {
		if hi == math.MaxUint64 {
			b.errorf(path, s.Line, "%s is out of range: must be at least %d", s.Value, lo)
		} else {
			b.errorf(path, s.Line, "%s is out of range %d..%d", s.Value, lo, hi)
		}
		return 0, false
	}
	return v, true
}

func (b *builder) port(n *yaml.Node, path string) (uint16, bool) {
	v, ok := b.uintIn(n, path, 1, math.MaxUint16)
	return uint16(v), ok
}

// rate reads a rate in bit/s, which must be positive.
func (b *builder) rate(n *yaml.Node, path string) (uint64, bool) {
	return b.uintIn(n, path, 1, math.MaxUint64)
}

// addr reads a unicast host address.
func (b *builder) addr(n *yaml.Node, path string, v4only bool) (netip.Addr, bool) {
	v, ok := b.str(n, path)
	if !ok {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(v)
	switch {
	case err != nil:
		b.errorf(path, n.Line, "invalid IP address %q", v)
	case a.Zone() != "":
		b.errorf(path, n.Line, "IP address %q must not have a zone", v)
	case a.Is4In6():
		b.errorf(path, n.Line, "IPv4-mapped IPv6 address %q: write the IPv4 address", v)
	case v4only && !a.Is4():
		b.errorf(path, n.Line, "%s is not an IPv4 address", v)
	case a.IsUnspecified() || a.IsMulticast() || a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		b.errorf(path, n.Line, "%s is not a unicast host address", v)
	default:
		return a, true
	}
	return netip.Addr{}, false
}

// prefix reads a network prefix without host bits.
func (b *builder) prefix(n *yaml.Node, path string, v4only bool) (netip.Prefix, bool) {
	v, ok := b.str(n, path)
	if !ok {
		return netip.Prefix{}, false
	}
	p, err := netip.ParsePrefix(v)
	switch {
	case err != nil:
		b.errorf(path, n.Line, "invalid IP prefix %q", v)
	case p.Addr().Is4In6():
		b.errorf(path, n.Line, "IPv4-mapped IPv6 prefix %q: write the IPv4 prefix", v)
	case v4only && !p.Addr().Is4():
		b.errorf(path, n.Line, "%s is not an IPv4 prefix", v)
	case p != p.Masked():
		b.errorf(path, n.Line, "prefix %s has host bits set (network is %s)", v, p.Masked())
	default:
		return p, true
	}
	return netip.Prefix{}, false
}

// mac reads a unicast MAC address written aa:bb:cc:dd:ee:ff.
func (b *builder) mac(n *yaml.Node, path string) (net.HardwareAddr, bool) {
	v, ok := b.str(n, path)
	if !ok {
		return nil, false
	}
	if !isColonMAC(v) {
		b.errorf(path, n.Line, "invalid MAC address %q: expected six hex octets separated by colons", v)
		return nil, false
	}
	m, err := net.ParseMAC(v)
	if err != nil || len(m) != 6 {
		b.errorf(path, n.Line, "invalid MAC address %q", v)
		return nil, false
	}
	if m[0]&1 != 0 {
		b.errorf(path, n.Line, "MAC address %s is a multicast address", v)
		return nil, false
	}
	if string(m) == "\x00\x00\x00\x00\x00\x00" {
		b.errorf(path, n.Line, "MAC address %s is all zeros", v)
		return nil, false
	}
	return m, true
}

func isColonMAC(s string) bool {
	if len(s) != 17 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i%3 == 2 {
			if c != ':' {
				return false
			}
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// tagRange reads {min, max} with 1 <= min <= max <= 4094.
func (b *builder) tagRange(r *rawRange, path string) (TagRange, bool) {
	lo, ok1 := b.uintIn(&r.Min, path+".min", MinVLANID, MaxVLANID)
	hi, ok2 := b.uintIn(&r.Max, path+".max", MinVLANID, MaxVLANID)
	if !ok1 || !ok2 {
		return TagRange{}, false
	}
	if lo > hi {
		b.errorf(path, r.Min.Line, "min %d is greater than max %d", lo, hi)
		return TagRange{}, false
	}
	return TagRange{Min: uint16(lo), Max: uint16(hi)}, true
}

// refs reads a list of names referring to other objects.
func (b *builder) refs(list []yaml.Node, path string) []ref {
	out := make([]ref, 0, len(list))
	for i := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		if v, ok := b.name(&list[i], p); ok {
			out = append(out, ref{name: v, path: p, line: list[i].Line})
		}
	}
	return out
}

// unique records key under path in seen, reporting a duplicate.
func (b *builder) unique(seen map[string]string, key, what, path string, line int) bool {
	if first, dup := seen[key]; dup {
		b.errorf(path, line, "duplicate %s (first at %s)", what, first)
		return false
	}
	seen[key] = path
	return true
}
