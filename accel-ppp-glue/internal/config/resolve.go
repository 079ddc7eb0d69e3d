package config

import (
	"fmt"
	"math"
	"net/netip"
	"sort"
)

// Cross-references and checks spanning several objects. Lines are checked in
// index.go.

func (b *builder) resolve() {
	c := b.cfg
	// pools -> line group
	for _, p := range c.Pools {
		m := b.poolMeta[p]
		if !m.ok {
			continue
		}
		if g, found := c.lineGroups[m.lineGroup.name]; found {
			p.LineGroup = g
		} else {
			b.errorf(m.lineGroup.path, m.lineGroup.line, "unknown line group %q", m.lineGroup.name)
		}
	}
	for _, g := range c.LineGroups {
		m := b.groupMeta[g]
		// line group -> pools, which must name the group back
		listed := make(map[string]string)
		for _, r := range m.pools {
			p, found := c.pools[r.name]
			switch {
			case !found:
				b.errorf(r.path, r.line, "unknown pool %q", r.name)
			case !b.unique(listed, r.name, fmt.Sprintf("pool %q", r.name), r.path, r.line):
			case p.LineGroup != nil && p.LineGroup != g:
				b.errorf(r.path, r.line, "pool %q is bound to line group %q (%s)", r.name, p.LineGroup.Name, b.poolMeta[p].lineGroup.path)
			default:
				g.Pools = append(g.Pools, p)
			}
		}
		// line group -> QoS profile
		if m.qosOK {
			if q, found := c.qosProfiles[m.qosProfile.name]; found {
				g.QosProfile = q
			} else {
				b.errorf(m.qosProfile.path, m.qosProfile.line, "unknown QoS profile %q", m.qosProfile.name)
			}
		}
		// line group -> instance, which must list the group
		if m.instOK {
			inst, found := c.instances[m.instance]
			switch {
			case !found:
				b.errorf(m.instPath, m.instLine, "unknown instance %d", m.instance)
			case g.Name != "" && !b.instMeta[inst].listed[g.Name]:
				b.errorf(m.instPath, m.instLine, "instance %d (%s) does not list line group %q in its line_groups", m.instance, b.instMeta[inst].path, g.Name)
			default:
				g.Instance = inst
			}
		}
	}
	for _, p := range c.Pools {
		g := p.LineGroup
		if g == nil || g.Name == "" || p.Name == "" {
			continue
		}
		if !b.groupMeta[g].poolNames[p.Name] {
			m := b.poolMeta[p]
			b.errorf(m.lineGroup.path, m.lineGroup.line, "line group %q does not list pool %q in its pools (%s.pools)", g.Name, p.Name, b.groupMeta[g].path)
		}
	}
	// instance -> line groups, which must name the instance back
	for _, inst := range c.Instances {
		m := b.instMeta[inst]
		seen := make(map[string]string)
		for _, r := range m.groups {
			g, found := c.lineGroups[r.name]
			gm := b.groupMeta[g]
			switch {
			case !found:
				b.errorf(r.path, r.line, "unknown line group %q", r.name)
			case !b.unique(seen, r.name, fmt.Sprintf("line group %q", r.name), r.path, r.line):
			case !gm.instOK || !m.idOK:
			case gm.instance != inst.ID:
				b.errorf(r.path, r.line, "line group %q is served by instance %d (%s)", r.name, gm.instance, gm.instPath)
			default:
				inst.LineGroups = append(inst.LineGroups, g)
			}
		}
		for _, l := range inst.Lines {
			if l.Group != nil && l.Group.Instance == inst {
				l.Group.Lines = append(l.Group.Lines, l)
			}
		}
	}
}

// ---- addresses -------------------------------------------------------------

// checkManagementAddresses checks that the control plane and the instances'
// control interfaces are distinct hosts of the management subnet.
func (b *builder) checkManagementAddresses() {
	c := b.cfg
	subnet := c.Management.Subnet
	if !subnet.IsValid() {
		return
	}
	check := func(a netip.Addr, path string) {
		if !a.IsValid() {
			return
		}
		if !subnet.Contains(a) {
			b.errorf(path, 0, "%s is not in the management subnet %s", a, subnet)
			return
		}
		if a.Is4() && subnet.Bits() <= 30 {
			if a == subnet.Addr() {
				b.errorf(path, 0, "%s is the network address of the management subnet %s", a, subnet)
			} else if a == lastAddr4(subnet) {
				b.errorf(path, 0, "%s is the broadcast address of the management subnet %s", a, subnet)
			}
		}
	}
	seen := make(map[netip.Addr]string)
	check(c.ControlPlane.Address, "control_plane.address")
	if c.ControlPlane.Address.IsValid() {
		seen[c.ControlPlane.Address] = "control_plane.address"
	}
	for _, inst := range c.Instances {
		path := b.instMeta[inst].path + ".control_address"
		a := inst.ControlAddress
		check(a, path)
		if !a.IsValid() {
			continue
		}
		if first, dup := seen[a]; dup {
			b.errorf(path, 0, "address %s is already used by %s", a, first)
		} else {
			seen[a] = path
		}
	}
}

func lastAddr4(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v |= hostMask4(p.Bits())
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func hostMask4(bits int) uint32 {
	if bits <= 0 {
		return math.MaxUint32
	}
	return uint32(1)<<(32-bits) - 1
}

// checkPoolOverlaps reports pools whose prefixes overlap each other or the
// management subnet.
func (b *builder) checkPoolOverlaps() {
	type span struct {
		start, end uint32
		p          *Pool
		order      int
	}
	var spans []span
	mgmt := b.cfg.Management.Subnet
	for i, p := range b.cfg.Pools {
		if !p.Prefix.IsValid() {
			continue
		}
		if mgmt.IsValid() && p.Prefix.Overlaps(mgmt) {
			b.errorf(b.poolMeta[p].path+".prefix", 0, "%s overlaps the management subnet %s", p.Prefix, mgmt)
		}
		a := p.Prefix.Addr().As4()
		start := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
		spans = append(spans, span{start: start, end: start | hostMask4(p.Prefix.Bits()), p: p, order: i})
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		if spans[i].end != spans[j].end {
			return spans[i].end > spans[j].end
		}
		return spans[i].order < spans[j].order
	})
	// Prefixes are either nested or disjoint: in start order, a prefix
	// overlaps an earlier one exactly when the earlier prefix reaching
	// furthest covers its start.
	var cover *span
	for i := range spans {
		s := &spans[i]
		if cover != nil && s.start <= cover.end {
			first, second := cover, s
			if second.order < first.order {
				first, second = second, first
			}
			b.errorf(b.poolMeta[second.p].path+".prefix", 0, "%s overlaps %s of %s", second.p.Prefix, first.p.Prefix, b.poolMeta[first.p].path)
		}
		if cover == nil || s.end > cover.end {
			cover = s
		}
	}
}
