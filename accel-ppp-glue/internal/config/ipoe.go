package config

import (
	"fmt"
	"net/netip"
)

// IPoE settings of a line group (issue 19; docs/cp/ipoe.md and the pod
// file's line_groups[].ipoe in docs/config-formats.md).

// IPoE modes: bng-cp is the DHCP server, or relays to external servers.
const (
	IPoEModeServer = "server"
	IPoEModeRelay  = "relay"
)

// RADIUS User-Name of an IPoE subscriber.
const (
	IPoEUserMAC       = "mac"        // the client MAC, aa:bb:cc:dd:ee:ff
	IPoEUserCircuitID = "circuit_id" // option 82 sub-option 1
	IPoEUserRemoteID  = "remote_id"  // option 82 sub-option 2
)

// Option 82 handling in relay mode.
const (
	Option82Keep    = "keep"    // keep the access node's; add ours when absent
	Option82Replace = "replace" // always ours
)

// IPoE bounds and defaults (the contract's).
const (
	DefaultLeaseTime    = 3600
	MinLeaseTime        = 60
	MaxLeaseTime        = 604800
	DefaultRenewTime    = 300
	MinRenewTime        = 30
	MaxIPoEMACs         = 64
	MaxRelayServers     = 4
	DefaultIPoEPassword = "ipoe"
	maxIPoEPassword     = 128 // RFC 2865 User-Password
	maxIPoEPoolBits     = 30  // a pool needs a gateway, a network and a broadcast address besides its hosts
)

// IPoE is a line group's IPoE configuration.
type IPoE struct {
	Mode      string // IPoEModeServer or IPoEModeRelay
	LeaseTime uint32 // seconds
	RenewTime uint32 // T1 seconds; T2 is 7/8 of LeaseTime
	MaxMACs   int    // sessions per line
	Username  string // IPoEUserMAC, IPoEUserCircuitID or IPoEUserRemoteID
	Password  string
	ProxyARP  bool
	Relay     *IPoERelay // mode relay only
	ARPPing   *ARPPing   // nil: off (the default)
}

// RebindTime is T2: 7/8 of the lease.
func (i *IPoE) RebindTime() uint32 { return uint32(uint64(i.LeaseTime) * 7 / 8) }

// ARPPing is IPoE liveness: the DP ARP-pings a subscriber idle for Interval
// seconds and reports it dead after Count unanswered pings.
type ARPPing struct {
	Interval uint16 // seconds, 1..MaxARPPingInterval
	Count    uint8  // 1..MaxARPPingCount
}

// ARP ping bounds.
const (
	MaxARPPingInterval = 3600
	MaxARPPingCount    = 255
)

// IPoERelay is the relay mode's servers and option 82 policy.
type IPoERelay struct {
	Servers  []netip.Addr
	Option82 string
}

// poolGateway reads a pool's gateway: a host address of its prefix.
func (b *builder) poolGateway(p *Pool, r *rawPool, path string) {
	if !present(&r.Gateway) {
		return
	}
	a, ok := b.addr(&r.Gateway, path+".gateway", true)
	if !ok || !p.Prefix.IsValid() {
		return
	}
	switch {
	case !p.Prefix.Contains(a):
		b.errorf(path+".gateway", r.Gateway.Line, "%s is not in the pool's prefix %s", a, p.Prefix)
	case p.Prefix.Bits() <= maxIPoEPoolBits && a == p.Prefix.Addr():
		b.errorf(path+".gateway", r.Gateway.Line, "%s is the network address of %s", a, p.Prefix)
	case p.Prefix.Bits() <= maxIPoEPoolBits && a == lastAddr4(p.Prefix):
		b.errorf(path+".gateway", r.Gateway.Line, "%s is the broadcast address of %s", a, p.Prefix)
	default:
		p.Gateway = a
	}
}

// lineGroupIPoE reads a line group's session_types and ipoe block.
func (b *builder) lineGroupIPoE(g *LineGroup, r *rawLineGroup, path string) {
	ipoe := false
	if r.SessionTypes == nil {
		g.PPPoE = true
	} else {
		if len(r.SessionTypes) == 0 {
			b.errorf(path+".session_types", 0, "at least one session type is required")
		}
		seen := make(map[string]string)
		for i := range r.SessionTypes {
			tpath := fmt.Sprintf("%s.session_types[%d]", path, i)
			v, ok := b.str(&r.SessionTypes[i], tpath)
			if !ok || !b.unique(seen, v, "session type "+v, tpath, r.SessionTypes[i].Line) {
				continue
			}
			switch v {
			case "pppoe":
				g.PPPoE = true
			case "ipoe":
				ipoe = true
			default:
				b.errorf(tpath, r.SessionTypes[i].Line, "%q: expected pppoe or ipoe", v)
			}
		}
	}
	if !ipoe {
		if r.IPoE != nil {
			b.errorf(path+".ipoe", 0, "only allowed when session_types includes ipoe")
		}
		return
	}
	path += ".ipoe"
	c := &IPoE{Mode: IPoEModeServer, LeaseTime: DefaultLeaseTime, MaxMACs: 1,
		Username: IPoEUserMAC, Password: DefaultIPoEPassword, ProxyARP: true}
	g.IPoE = c
	ri := r.IPoE
	if ri == nil {
		ri = &rawIPoE{}
	}
	if present(&ri.Mode) {
		if v, ok := b.str(&ri.Mode, path+".mode"); ok {
			switch v {
			case IPoEModeServer, IPoEModeRelay:
				c.Mode = v
			default:
				b.errorf(path+".mode", ri.Mode.Line, "%q: expected server or relay", v)
			}
		}
	}
	if present(&ri.LeaseTime) {
		if v, ok := b.uintIn(&ri.LeaseTime, path+".lease_time", MinLeaseTime, MaxLeaseTime); ok {
			c.LeaseTime = uint32(v)
		}
	}
	c.RenewTime = min(DefaultRenewTime, c.LeaseTime/2)
	if present(&ri.RenewTime) {
		if v, ok := b.uintIn(&ri.RenewTime, path+".renew_time", MinRenewTime, uint64(c.LeaseTime/2)); ok {
			c.RenewTime = uint32(v)
		}
	}
	if present(&ri.MaxMACs) {
		if v, ok := b.uintIn(&ri.MaxMACs, path+".max_macs", 1, MaxIPoEMACs); ok {
			c.MaxMACs = int(v)
		}
	}
	if present(&ri.Username) {
		if v, ok := b.str(&ri.Username, path+".username"); ok {
			switch v {
			case IPoEUserMAC, IPoEUserCircuitID, IPoEUserRemoteID:
				c.Username = v
			default:
				b.errorf(path+".username", ri.Username.Line, "%q: expected mac, circuit_id or remote_id", v)
			}
		}
	}
	if present(&ri.Password) {
		if v, ok := b.str(&ri.Password, path+".password"); ok {
			if v == "" || len(v) > maxIPoEPassword {
				b.errorf(path+".password", ri.Password.Line, "must be 1 to %d bytes long", maxIPoEPassword)
			} else {
				c.Password = v
			}
		}
	}
	if present(&ri.ProxyARP) {
		if s, ok := b.scalar(&ri.ProxyARP, path+".proxy_arp"); ok {
			var v bool
			if s.ShortTag() != "!!bool" || s.Decode(&v) != nil {
				b.errorf(path+".proxy_arp", s.Line, "expected true or false, found %s", describe(s))
			} else {
				c.ProxyARP = v
			}
		}
	}
	if ri.ARPPing != nil {
		ap := &ARPPing{}
		if v, ok := b.uintIn(&ri.ARPPing.Interval, path+".arp_ping.interval", 1, MaxARPPingInterval); ok {
			ap.Interval = uint16(v)
		}
		if v, ok := b.uintIn(&ri.ARPPing.Count, path+".arp_ping.count", 1, MaxARPPingCount); ok {
			ap.Count = uint8(v)
		}
		c.ARPPing = ap
	}
	switch {
	case c.Mode == IPoEModeRelay && ri.Relay == nil:
		b.errorf(path+".relay", 0, "required when mode is relay")
	case c.Mode != IPoEModeRelay && ri.Relay != nil:
		b.errorf(path+".relay", 0, "only allowed when mode is relay")
	case ri.Relay != nil:
		c.Relay = b.ipoeRelay(ri.Relay, path+".relay")
	}
}

func (b *builder) ipoeRelay(r *rawIPoERelay, path string) *IPoERelay {
	rel := &IPoERelay{Option82: Option82Keep}
	switch {
	case len(r.Servers) == 0:
		b.errorf(path+".servers", 0, "at least one DHCP server is required")
	case len(r.Servers) > MaxRelayServers:
		b.errorf(path+".servers", 0, "%d servers given, at most %d", len(r.Servers), MaxRelayServers)
	}
	seen := make(map[string]string)
	for i := range r.Servers {
		spath := fmt.Sprintf("%s.servers[%d]", path, i)
		if a, ok := b.addr(&r.Servers[i], spath, true); ok && b.unique(seen, a.String(), "DHCP server "+a.String(), spath, r.Servers[i].Line) {
			rel.Servers = append(rel.Servers, a)
		}
	}
	if present(&r.Option82) {
		if v, ok := b.str(&r.Option82, path+".option82"); ok {
			switch v {
			case Option82Keep, Option82Replace:
				rel.Option82 = v
			default:
				b.errorf(path+".option82", r.Option82.Line, "%q: expected keep or replace", v)
			}
		}
	}
	return rel
}

// resolveIPoE checks what spans objects: the pools of an IPoE group have
// gateways, relay servers are outside every pool.
func (b *builder) resolveIPoE() {
	c := b.cfg
	for _, g := range c.LineGroups {
		if g.IPoE == nil {
			continue
		}
		gpath := b.groupMeta[g].path
		for _, p := range g.Pools {
			ppath := b.poolMeta[p].path
			switch {
			case !p.Prefix.IsValid():
			case p.Prefix.Bits() > maxIPoEPoolBits:
				b.errorf(ppath+".prefix", 0, "%s is too small for IPoE (line group %q allows ipoe): at most /%d", p.Prefix, g.Name, maxIPoEPoolBits)
			case !p.Gateway.IsValid():
				b.errorf(ppath+".gateway", 0, "required: line group %q (%s) allows ipoe", g.Name, gpath)
			}
		}
		if g.IPoE.Relay == nil {
			continue
		}
		for i, s := range g.IPoE.Relay.Servers {
			for _, p := range c.Pools {
				if p.Prefix.IsValid() && p.Prefix.Contains(s) {
					b.errorf(fmt.Sprintf("%s.ipoe.relay.servers[%d]", gpath, i), 0, "%s is in pool %q (%s)", s, p.Name, p.Prefix)
				}
			}
		}
	}
}
