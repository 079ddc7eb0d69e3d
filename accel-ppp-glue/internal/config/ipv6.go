package config

import (
	"fmt"
	"gopkg.in/yaml.v3"
	"net/netip"
	"sort"
	"time"
)

// IPv6 of the pod (issue 15, docs/config-formats.md): the core subnet, the
// Router Advertisement timers and the line groups' IPv6 pools.

// RA timer bounds (RFC 4861 6.2.1) and the defaults when ipv6_ra is absent.
const (
	DefaultRAInterval       = 200 * time.Second
	DefaultRARouterLifetime = 1800 * time.Second
	minRAIntervalS          = 4
	maxRAIntervalS          = 1800
	maxRALifetimeS          = 9000
	minWANPrefixLen         = 32
	maxWANPrefixLen         = 63
	minDelegatedLen         = 40
	maxDelegatedLen         = 64
	maxPool6DNS             = 2
)

// Values of Radius.IPv6OctetsAttribute (docs/cp/radius.md).
const (
	IPv6OctetsERX  = "erx"  // Juniper/ERX IPv6 accounting VSAs
	IPv6OctetsNone = "none" // no per-family attribute
)

// Core6 is the core side's IPv6 subnet and router (nil: no IPv6 in the pod).
type Core6 struct {
	Subnet netip.Prefix
	Router netip.Addr
}

// IPv6RA holds the Router Advertisement timers.
type IPv6RA struct {
	Interval       time.Duration // unsolicited RA period (the DP sends them)
	RouterLifetime time.Duration
}

// IPv6Pool is a line group's IPv6 pool: each session gets one /64 of
// WANPrefix and one prefix of DelegatedLength bits of DelegatedPrefix, and,
// with IANA, an address of its /64 by DHCPv6 IA_NA.
type IPv6Pool struct {
	Name            string
	WANPrefix       netip.Prefix
	DelegatedPrefix netip.Prefix
	DelegatedLength int
	IANA            bool
	DNS             []netip.Addr // RDNSS and DHCPv6 option 23, at most two
	LineGroup       *LineGroup
}

// IPv6Pool returns the IPv6 pool with the given name.
func (c *Config) IPv6Pool(name string) (*IPv6Pool, bool) {
	p, ok := c.ipv6Pools[name]
	return p, ok
}

type pool6Meta struct {
	path      string
	lineGroup ref
	ok        bool
}

func (b *builder) core6(r *rawCore6) {
	if r == nil {
		return
	}
	c6 := &Core6{}
	var ok1, ok2 bool
	c6.Subnet, ok1 = b.prefix6(&r.Subnet, "core6.subnet")
	c6.Router, ok2 = b.addr6(&r.Router, "core6.router")
	if ok1 && ok2 && !c6.Subnet.Contains(c6.Router) {
		b.errorf("core6.router", r.Router.Line, "%s is not in core6.subnet %s", c6.Router, c6.Subnet)
	}
	b.cfg.Core6 = c6
}

func (b *builder) ipv6RA(r *rawIPv6RA) {
	ra := IPv6RA{Interval: DefaultRAInterval, RouterLifetime: DefaultRARouterLifetime}
	if r != nil {
		iv, ok1 := b.uintIn(&r.Interval, "ipv6_ra.interval", minRAIntervalS, maxRAIntervalS)
		lt, ok2 := b.uintIn(&r.RouterLifetime, "ipv6_ra.router_lifetime", 0, maxRALifetimeS)
		if ok1 && ok2 && lt != 0 && lt < iv {
			b.errorf("ipv6_ra.router_lifetime", r.RouterLifetime.Line, "%d is below the interval %d: must be 0 or interval..%d (RFC 4861 6.2.1)", lt, iv, maxRALifetimeS)
		}
		ra.Interval, ra.RouterLifetime = time.Duration(iv)*time.Second, time.Duration(lt)*time.Second
	}
	b.cfg.IPv6RA = ra
}

func (b *builder) ipv6Pools(list []*rawIPv6Pool) {
	seen := make(map[string]string)
	for i, r := range list {
		path := fmt.Sprintf("ipv6_pools[%d]", i)
		if r == nil {
			b.errorf(path, 0, "expected a mapping, found null")
			continue
		}
		p := &IPv6Pool{}
		m := &pool6Meta{path: path}
		b.pool6Meta[p] = m
		if v, ok := b.name(&r.Name, path+".name"); ok && b.unique(seen, v, "IPv6 pool name", path+".name", r.Name.Line) {
			p.Name = v
			b.cfg.ipv6Pools[v] = p
		}
		if v, ok := b.prefix6(&r.WANPrefix, path+".wan_prefix"); ok {
			if v.Bits() < minWANPrefixLen || v.Bits() > maxWANPrefixLen {
				b.errorf(path+".wan_prefix", r.WANPrefix.Line, "prefix length %d is out of range %d..%d (each session gets a /64 of it)", v.Bits(), minWANPrefixLen, maxWANPrefixLen)
			} else {
				p.WANPrefix = v
			}
		}
		pd, pdOK := b.prefix6(&r.DelegatedPrefix, path+".delegated_prefix")
		if dl, ok := b.uintIn(&r.DelegatedLength, path+".delegated_length", minDelegatedLen, maxDelegatedLen); ok {
			p.DelegatedLength = int(dl)
			if pdOK && pd.Bits() > int(dl) {
				b.errorf(path+".delegated_length", r.DelegatedLength.Line, "%d is shorter than delegated_prefix %s", dl, pd)
			} else if pdOK && int(dl)-pd.Bits() > 32 {
				b.errorf(path+".delegated_length", r.DelegatedLength.Line, "%s holds more than 2^32 prefixes of length %d", pd, dl)
			}
		}
		if pdOK {
			p.DelegatedPrefix = pd
		}
		if present(&r.IANA) {
			if s, ok := b.scalar(&r.IANA, path+".ia_na"); ok {
				if s.ShortTag() != "!!bool" {
					b.errorf(path+".ia_na", s.Line, "expected true or false, found %s", describe(s))
				} else {
					p.IANA = s.Value == "true"
				}
			}
		}
		if len(r.DNS) > maxPool6DNS {
			b.errorf(path+".dns", 0, "%d DNS servers given, at most %d can be offered", len(r.DNS), maxPool6DNS)
		}
		dns := make(map[string]string)
		for j := range r.DNS {
			dpath := fmt.Sprintf("%s.dns[%d]", path, j)
			if a, ok := b.addr6(&r.DNS[j], dpath); ok && b.unique(dns, a.String(), "DNS server", dpath, r.DNS[j].Line) {
				p.DNS = append(p.DNS, a)
			}
		}
		if v, ok := b.name(&r.LineGroup, path+".line_group"); ok {
			m.lineGroup = ref{name: v, path: path + ".line_group", line: r.LineGroup.Line}
			m.ok = true
		}
		b.cfg.IPv6Pools = append(b.cfg.IPv6Pools, p)
	}
}

// lineGroup6 reads a line group's IPv6 keys.
func (b *builder) lineGroup6(g *LineGroup, m *groupMeta, r *rawLineGroup, path string, coreAddrs map[string]string) {
	if present(&r.CoreAddr6) {
		if v, ok := b.addr6(&r.CoreAddr6, path+".core_address6"); ok {
			b.unique(coreAddrs, v.String(), "core address "+v.String(), path+".core_address6", r.CoreAddr6.Line)
			g.CoreAddress6 = v
		}
	}
	m.pools6 = b.refs(r.IPv6Pools, path+".ipv6_pools")
	m.pool6Names = make(map[string]bool, len(m.pools6))
	for _, p := range m.pools6 {
		m.pool6Names[p.name] = true
	}
}

// resolve6 binds IPv6 pools and line groups and checks addresses and overlaps.
func (b *builder) resolve6() {
	c := b.cfg
	for _, p := range c.IPv6Pools {
		m := b.pool6Meta[p]
		if !m.ok {
			continue
		}
		if g, found := c.lineGroups[m.lineGroup.name]; found {
			p.LineGroup = g
		} else {
			b.errorf(m.lineGroup.path, m.lineGroup.line, "unknown line group %q", m.lineGroup.name)
		}
	}
	anyAddr6 := false
	for _, g := range c.LineGroups {
		m := b.groupMeta[g]
		listed := make(map[string]string)
		for _, r := range m.pools6 {
			p, found := c.ipv6Pools[r.name]
			switch {
			case !found:
				b.errorf(r.path, r.line, "unknown IPv6 pool %q", r.name)
			case !b.unique(listed, r.name, fmt.Sprintf("IPv6 pool %q", r.name), r.path, r.line):
			case p.LineGroup != nil && p.LineGroup != g:
				b.errorf(r.path, r.line, "IPv6 pool %q is bound to line group %q (%s)", r.name, p.LineGroup.Name, b.pool6Meta[p].lineGroup.path)
			default:
				g.IPv6Pools = append(g.IPv6Pools, p)
			}
		}
		if len(m.pools6) > 0 && !g.CoreAddress6.IsValid() {
			b.errorf(m.path+".core_address6", 0, "required when the line group has ipv6_pools")
		}
		if g.CoreAddress6.IsValid() {
			anyAddr6 = true
			switch {
			case c.Core6 == nil || !c.Core6.Subnet.IsValid():
			case !c.Core6.Subnet.Contains(g.CoreAddress6):
				b.errorf(m.path+".core_address6", 0, "%s is not in core6.subnet %s", g.CoreAddress6, c.Core6.Subnet)
			case g.CoreAddress6 == c.Core6.Router:
				b.errorf(m.path+".core_address6", 0, "%s is core6.router", g.CoreAddress6)
			}
		}
	}
	if anyAddr6 && c.Core6 == nil {
		b.errorf("core6", 0, "required when a line group has core_address6")
	}
	for _, p := range c.IPv6Pools {
		g := p.LineGroup
		if g == nil || g.Name == "" || p.Name == "" {
			continue
		}
		if !b.groupMeta[g].pool6Names[p.Name] {
			m := b.pool6Meta[p]
			b.errorf(m.lineGroup.path, m.lineGroup.line, "line group %q does not list IPv6 pool %q in its ipv6_pools (%s.ipv6_pools)", g.Name, p.Name, b.groupMeta[g].path)
		}
	}
	b.checkPool6Overlaps()
}

// checkPool6Overlaps reports IPv6 prefixes (WAN pools, PD pools, the core
// subnet) that overlap each other.
func (b *builder) checkPool6Overlaps() {
	type item struct {
		p    netip.Prefix
		path string
	}
	var items []item
	if c6 := b.cfg.Core6; c6 != nil && c6.Subnet.IsValid() {
		items = append(items, item{c6.Subnet, "core6.subnet"})
	}
	for _, p := range b.cfg.IPv6Pools {
		path := b.pool6Meta[p].path
		if p.WANPrefix.IsValid() {
			items = append(items, item{p.WANPrefix, path + ".wan_prefix"})
		}
		if p.DelegatedPrefix.IsValid() {
			items = append(items, item{p.DelegatedPrefix, path + ".delegated_prefix"})
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if c := items[i].p.Addr().Compare(items[j].p.Addr()); c != 0 {
			return c < 0
		}
		return items[i].p.Bits() < items[j].p.Bits()
	})
	// Prefixes are nested or disjoint: in address order, a prefix overlaps
	// an earlier one exactly when one still open (on the stack) contains it.
	var open []item
	for _, it := range items {
		for len(open) > 0 && !open[len(open)-1].p.Contains(it.p.Addr()) {
			open = open[:len(open)-1]
		}
		if len(open) > 0 {
			top := open[len(open)-1]
			b.errorf(it.path, 0, "%s overlaps %s of %s", it.p, top.p, top.path)
		}
		open = append(open, it)
	}
}

// addr6 reads a unicast global IPv6 address.
func (b *builder) addr6(n *yaml.Node, path string) (netip.Addr, bool) {
	a, ok := b.addr(n, path, false)
	if !ok {
		return a, false
	}
	if !a.Is6() || a.IsLinkLocalUnicast() || a.IsLoopback() {
		b.errorf(path, n.Line, "%s is not a global IPv6 address", a)
		return netip.Addr{}, false
	}
	return a, true
}

// prefix6 reads an IPv6 prefix without host bits.
func (b *builder) prefix6(n *yaml.Node, path string) (netip.Prefix, bool) {
	p, ok := b.prefix(n, path, false)
	if !ok {
		return p, false
	}
	if !p.Addr().Is6() {
		b.errorf(path, n.Line, "%s is not an IPv6 prefix", p)
		return netip.Prefix{}, false
	}
	return p, true
}
