package config

import (
	"fmt"
	"math"
	"net/netip"
	"sort"
	"time"
)

const (
	maxNASIdentifierLen = 253 // RADIUS attribute value limit
	maxTimeoutMS        = 3600 * 1000
	// PFCP heartbeats (control_plane.heartbeat_*): 29.244's defaults, and bounds
	// that keep a DP answering in time while its control thread works
	DefaultHeartbeat        = 5 * time.Second
	DefaultHeartbeatTimeout = 3 * time.Second
	DefaultHeartbeatTries   = 3
	minHeartbeatMS          = 50
	maxHeartbeatMS          = 3600 * 1000
	minHeartbeatTimeoutMS   = 20
	maxHeartbeatTimeoutMS   = 60 * 1000
	maxHeartbeatTries       = 10
	maxRetries              = 255
	maxPoolDNS              = 2 // IPCP offers a primary and a secondary DNS server
)

// builder turns a rawConfig into a Config, collecting every problem.
type builder struct {
	errs errorList
	cfg  *Config

	poolMeta  map[*Pool]*poolMeta
	pool6Meta map[*IPv6Pool]*pool6Meta
	groupMeta map[*LineGroup]*groupMeta
	instMeta  map[*Instance]*instMeta
	lines     []*Line // every line whose own fields are valid
}

type ref struct {
	name string
	path string
	line int
}

type poolMeta struct {
	path      string
	lineGroup ref
	ok        bool // line_group present and well-formed
}

type groupMeta struct {
	path       string
	pools      []ref
	poolNames  map[string]bool // names in pools
	pools6     []ref
	pool6Names map[string]bool
	qosProfile ref
	qosOK      bool
	instance   uint32
	instPath   string
	instLine   int
	instOK     bool
}

type instMeta struct {
	path   string
	idOK   bool // id well-formed (possibly a duplicate)
	groups []ref
	listed map[string]bool // names in line_groups
}

func newBuilder() *builder {
	return &builder{
		poolMeta:  make(map[*Pool]*poolMeta),
		pool6Meta: make(map[*IPv6Pool]*pool6Meta),
		groupMeta: make(map[*LineGroup]*groupMeta),
		instMeta:  make(map[*Instance]*instMeta),
	}
}

// build validates raw. The returned Config is complete only when b.errs is
// empty.
func (b *builder) build(raw *rawConfig) *Config {
	c := &Config{
		accessPorts: make(map[string]*AccessPort),
		pools:       make(map[string]*Pool),
		qosProfiles: make(map[string]*QosProfile),
		lineGroups:  make(map[string]*LineGroup),
		instances:   make(map[uint32]*Instance),
		ipv6Pools:   make(map[string]*IPv6Pool),
	}
	b.cfg = c
	c.Pod, _ = b.name(&raw.Pod, "pod")
	b.controlPlane(raw.ControlPlane)
	b.management(raw.Management)
	b.radius(raw.Radius)
	b.accessPorts(raw.AccessPorts)
	b.qosProfiles(raw.QosProfiles)
	b.pools(raw.Pools)
	b.core6(raw.Core6)
	b.ipv6RA(raw.IPv6RA)
	b.ipv6Pools(raw.IPv6Pools)
	b.lineGroups(raw.LineGroups)
	b.instances(raw.Instances)
	b.onos(raw.ONOS)
	b.resolve()
	b.resolve6()
	b.resolveIPoE()
	b.checkManagementAddresses()
	b.checkPoolOverlaps()
	b.checkSTagPorts()
	b.checkLineOverlaps()
	if !b.errs.empty() {
		return nil
	}
	for _, inst := range c.Instances {
		inst.index = buildLineIndex(inst.Lines)
	}
	return c
}

func (b *builder) errorf(path string, line int, format string, args ...interface{}) {
	b.errs.add(path, line, format, args...)
}

func (b *builder) controlPlane(r *rawControlPlane) {
	if r == nil {
		b.errorf("control_plane", 0, "required mapping missing")
		return
	}
	cp := &b.cfg.ControlPlane
	cp.Address, _ = b.addr(&r.Address, "control_plane.address", false)
	cp.PFCPPort, _ = b.port(&r.PFCPPort, "control_plane.pfcp_port")
	cp.VXLANPort, _ = b.port(&r.VXLANPort, "control_plane.vxlan_port")
	if cp.PFCPPort != 0 && cp.PFCPPort == cp.VXLANPort {
		b.errorf("control_plane.vxlan_port", r.VXLANPort.Line, "UDP port %d is already control_plane.pfcp_port", cp.VXLANPort)
	}
	cp.Heartbeat, cp.HeartbeatTimeout, cp.HeartbeatTries = DefaultHeartbeat, DefaultHeartbeatTimeout, DefaultHeartbeatTries
	if present(&r.HeartbeatMS) {
		if v, ok := b.uintIn(&r.HeartbeatMS, "control_plane.heartbeat_ms", minHeartbeatMS, maxHeartbeatMS); ok {
			cp.Heartbeat = time.Duration(v) * time.Millisecond
		}
	}
	if present(&r.HeartbeatTimeoutMS) {
		if v, ok := b.uintIn(&r.HeartbeatTimeoutMS, "control_plane.heartbeat_timeout_ms", minHeartbeatTimeoutMS, maxHeartbeatTimeoutMS); ok {
			cp.HeartbeatTimeout = time.Duration(v) * time.Millisecond
		}
	}
	if present(&r.HeartbeatTries) {
		if v, ok := b.uintIn(&r.HeartbeatTries, "control_plane.heartbeat_tries", 1, maxHeartbeatTries); ok {
			cp.HeartbeatTries = int(v)
		}
	}
}

func (b *builder) management(r *rawManagement) {
	if r == nil {
		b.errorf("management", 0, "required mapping missing")
		return
	}
	b.cfg.Management.Subnet, _ = b.prefix(&r.Subnet, "management.subnet", false)
}

func (b *builder) radius(r *rawRadius) {
	if r == nil {
		b.errorf("radius", 0, "required mapping missing")
		return
	}
	rad := &b.cfg.Radius
	if v, ok := b.str(&r.NASIdentifier, "radius.nas_identifier"); ok {
		if v == "" || len(v) > maxNASIdentifierLen {
			b.errorf("radius.nas_identifier", r.NASIdentifier.Line, "must be 1 to %d bytes long", maxNASIdentifierLen)
		} else {
			rad.NASIdentifier = v
		}
	}
	if v, ok := b.port(&r.CoAPort, "radius.coa_port"); ok {
		rad.CoAPort = v
		cp := b.cfg.ControlPlane
		switch v {
		case cp.PFCPPort:
			b.errorf("radius.coa_port", r.CoAPort.Line, "UDP port %d is already control_plane.pfcp_port", v)
		case cp.VXLANPort:
			b.errorf("radius.coa_port", r.CoAPort.Line, "UDP port %d is already control_plane.vxlan_port", v)
		}
	}
	if v, ok := b.uintIn(&r.TimeoutMS, "radius.timeout_ms", 1, maxTimeoutMS); ok {
		rad.Timeout = time.Duration(v) * time.Millisecond
	}
	if v, ok := b.uintIn(&r.Retries, "radius.retries", 0, maxRetries); ok {
		rad.Retries = int(v)
	}
	rad.IPv6OctetsAttribute = IPv6OctetsERX
	if present(&r.IPv6Octets) {
		if v, ok := b.str(&r.IPv6Octets, "radius.ipv6_octets_attribute"); ok {
			switch v {
			case IPv6OctetsERX, IPv6OctetsNone:
				rad.IPv6OctetsAttribute = v
			default:
				b.errorf("radius.ipv6_octets_attribute", r.IPv6Octets.Line, "%q: expected erx or none", v)
			}
		}
	}
	if r.Servers == nil {
		b.errorf("radius.servers", 0, "required sequence missing")
		return
	}
	if len(r.Servers) == 0 {
		b.errorf("radius.servers", 0, "at least one server is required")
	}
	names := make(map[string]string)
	endpoints := make(map[string]string)
	for i, rs := range r.Servers {
		path := fmt.Sprintf("radius.servers[%d]", i)
		if rs == nil {
			b.errorf(path, 0, "expected a mapping, found null")
			continue
		}
		s := &RadiusServer{}
		if v, ok := b.name(&rs.Name, path+".name"); ok && b.unique(names, v, "RADIUS server name", path+".name", rs.Name.Line) {
			s.Name = v
		}
		var addrOK bool
		s.Address, addrOK = b.addr(&rs.Address, path+".address", false)
		var authOK bool
		s.AuthPort, authOK = b.port(&rs.AuthPort, path+".auth_port")
		s.AcctPort, _ = b.port(&rs.AcctPort, path+".acct_port")
		if addrOK && authOK {
			ep := netip.AddrPortFrom(s.Address, s.AuthPort).String()
			b.unique(endpoints, ep, "RADIUS server "+ep, path+".auth_port", rs.AuthPort.Line)
		}
		if v, ok := b.str(&rs.Secret, path+".secret"); ok {
			if v == "" {
				b.errorf(path+".secret", rs.Secret.Line, "must not be empty")
			}
			s.Secret = Secret(v)
		}
		rad.Servers = append(rad.Servers, s)
	}
}

func (b *builder) accessPorts(list []*rawAccessPort) {
	if list == nil {
		b.errorf("access_ports", 0, "required sequence missing")
		return
	}
	seen := make(map[string]string)
	for i, r := range list {
		path := fmt.Sprintf("access_ports[%d]", i)
		if r == nil {
			b.errorf(path, 0, "expected a mapping, found null")
			continue
		}
		p := &AccessPort{}
		if v, ok := b.name(&r.Name, path+".name"); ok && b.unique(seen, v, "access port name", path+".name", r.Name.Line) {
			p.Name = v
			b.cfg.accessPorts[v] = p
		}
		if v, ok := b.uintIn(&r.TPID, path+".tpid", 0, math.MaxUint16); ok {
			if uint16(v) != TPID8021Q && uint16(v) != TPID8021AD {
				b.errorf(path+".tpid", r.TPID.Line, "TPID %#04x is not supported: use %d (0x8100) or %d (0x88a8)", v, TPID8021Q, TPID8021AD)
			} else {
				p.TPID = uint16(v)
			}
		}
		p.Rate, _ = b.rate(&r.Rate, path+".rate")
		b.cfg.AccessPorts = append(b.cfg.AccessPorts, p)
	}
}

func (b *builder) qosProfiles(list []*rawQosProfile) {
	if list == nil {
		b.errorf("qos_profiles", 0, "required sequence missing")
		return
	}
	seen := make(map[string]string)
	for i, r := range list {
		path := fmt.Sprintf("qos_profiles[%d]", i)
		if r == nil {
			b.errorf(path, 0, "expected a mapping, found null")
			continue
		}
		p := &QosProfile{}
		if v, ok := b.name(&r.Name, path+".name"); ok && b.unique(seen, v, "QoS profile name", path+".name", r.Name.Line) {
			p.Name = v
			b.cfg.qosProfiles[v] = p
		}
		var downOK, pirOK bool
		p.DownRate, downOK = b.rate(&r.DownRate, path+".down_rate")
		p.UpPIR, pirOK = b.rate(&r.UpPIR, path+".up_pir")
		if present(&r.UpCIR) {
			if v, ok := b.rate(&r.UpCIR, path+".up_cir"); ok {
				if pirOK && v > p.UpPIR {
					b.errorf(path+".up_cir", r.UpCIR.Line, "CIR %d exceeds PIR %d", v, p.UpPIR)
				}
				p.UpCIR = v
			}
		} else {
			p.UpCIR = p.UpPIR
		}
		p.UpDSCP = DSCPKeep
		if present(&r.UpDSCP) {
			if v, ok := b.uintIn(&r.UpDSCP, path+".up_dscp", 0, MaxDSCP); ok {
				p.UpDSCP = uint8(v)
			}
		}
		b.classes(p, r.Classes, path+".classes", downOK)
		b.cfg.QosProfiles = append(b.cfg.QosProfiles, p)
	}
}

func (b *builder) classes(p *QosProfile, list []*rawClass, path string, downOK bool) {
	for i := range p.dscpTC {
		p.dscpTC[i] = BestEffortTC
	}
	tcs := make(map[string]string)
	names := make(map[string]string)
	dscps := make(map[string]string)
	for i, r := range list {
		cpath := fmt.Sprintf("%s[%d]", path, i)
		if r == nil {
			b.errorf(cpath, 0, "expected a mapping, found null")
			continue
		}
		c := &TrafficClass{}
		tcOK := false
		if v, ok := b.uintIn(&r.TC, cpath+".tc", 0, NumTrafficClasses-1); ok {
			c.TC = uint8(v)
			tcOK = b.unique(tcs, fmt.Sprint(v), fmt.Sprintf("traffic class %d", v), cpath+".tc", r.TC.Line)
		}
		if v, ok := b.str(&r.Name, cpath+".name"); ok {
			if v == "" {
				b.errorf(cpath+".name", r.Name.Line, "must not be empty")
			} else if b.unique(names, v, "class name", cpath+".name", r.Name.Line) {
				c.Name = v
			}
		}
		for j := range r.DSCP {
			dpath := fmt.Sprintf("%s.dscp[%d]", cpath, j)
			if v, ok := b.uintIn(&r.DSCP[j], dpath, 0, MaxDSCP); ok {
				if b.unique(dscps, fmt.Sprint(v), fmt.Sprintf("DSCP %d", v), dpath, r.DSCP[j].Line) {
					c.DSCP = append(c.DSCP, uint8(v))
					if tcOK {
						p.dscpTC[v] = c.TC
					}
				}
			}
		}
		if present(&r.Rate) {
			if v, ok := b.rate(&r.Rate, cpath+".rate"); ok {
				if downOK && v > p.DownRate {
					b.errorf(cpath+".rate", r.Rate.Line, "class rate %d exceeds the profile's down_rate %d", v, p.DownRate)
				}
				c.Rate = v
			}
		} else {
			c.Rate = p.DownRate
		}
		// An empty list (the generator writes one for every class without
		// weights) means no weights: equal weights for the best-effort class.
		if len(r.Weights) > 0 {
			switch {
			case tcOK && c.TC != BestEffortTC:
				b.errorf(cpath+".weights", 0, "only the best-effort class (tc %d) has weighted queues", BestEffortTC)
			case len(r.Weights) != BestEffortQueues:
				b.errorf(cpath+".weights", 0, "expected %d weights, found %d", BestEffortQueues, len(r.Weights))
			default:
				for j := range r.Weights {
					if v, ok := b.uintIn(&r.Weights[j], fmt.Sprintf("%s.weights[%d]", cpath, j), 1, math.MaxUint8); ok {
						c.Weights = append(c.Weights, uint8(v))
					}
				}
			}
		}
		p.Classes = append(p.Classes, c)
	}
	sort.SliceStable(p.Classes, func(i, j int) bool { return p.Classes[i].TC < p.Classes[j].TC })
}

func (b *builder) pools(list []*rawPool) {
	if list == nil {
		b.errorf("pools", 0, "required sequence missing")
		return
	}
	seen := make(map[string]string)
	for i, r := range list {
		path := fmt.Sprintf("pools[%d]", i)
		if r == nil {
			b.errorf(path, 0, "expected a mapping, found null")
			continue
		}
		p := &Pool{}
		m := &poolMeta{path: path}
		b.poolMeta[p] = m
		if v, ok := b.name(&r.Name, path+".name"); ok && b.unique(seen, v, "pool name", path+".name", r.Name.Line) {
			p.Name = v
			b.cfg.pools[v] = p
		}
		p.Prefix, _ = b.prefix(&r.Prefix, path+".prefix", true)
		if len(r.DNS) > maxPoolDNS {
			b.errorf(path+".dns", 0, "%d DNS servers given, at most %d can be offered", len(r.DNS), maxPoolDNS)
		}
		dns := make(map[string]string)
		for j := range r.DNS {
			dpath := fmt.Sprintf("%s.dns[%d]", path, j)
			if a, ok := b.addr(&r.DNS[j], dpath, true); ok && b.unique(dns, a.String(), "DNS server", dpath, r.DNS[j].Line) {
				p.DNS = append(p.DNS, a)
			}
		}
		if v, ok := b.name(&r.LineGroup, path+".line_group"); ok {
			m.lineGroup = ref{name: v, path: path + ".line_group", line: r.LineGroup.Line}
			m.ok = true
		}
		b.poolGateway(p, r, path)
		b.cfg.Pools = append(b.cfg.Pools, p)
	}
}

func (b *builder) lineGroups(list []*rawLineGroup) {
	if list == nil {
		b.errorf("line_groups", 0, "required sequence missing")
		return
	}
	seen := make(map[string]string)
	acMACs := make(map[string]string)
	coreMACs := make(map[string]string)
	coreAddrs := make(map[string]string)
	for i, r := range list {
		path := fmt.Sprintf("line_groups[%d]", i)
		if r == nil {
			b.errorf(path, 0, "expected a mapping, found null")
			continue
		}
		g := &LineGroup{}
		m := &groupMeta{path: path}
		b.groupMeta[g] = m
		if v, ok := b.name(&r.Name, path+".name"); ok && b.unique(seen, v, "line group name", path+".name", r.Name.Line) {
			g.Name = v
			b.cfg.lineGroups[v] = g
		}
		if v, ok := b.mac(&r.ACMAC, path+".ac_mac"); ok {
			b.unique(acMACs, v.String(), "AC MAC "+v.String(), path+".ac_mac", r.ACMAC.Line)
			g.ACMAC = v
		}
		if v, ok := b.addr(&r.CoreAddress, path+".core_address", true); ok {
			b.unique(coreAddrs, v.String(), "core address "+v.String(), path+".core_address", r.CoreAddress.Line)
			g.CoreAddress = v
		}
		if v, ok := b.mac(&r.CoreMAC, path+".core_mac"); ok {
			b.unique(coreMACs, v.String(), "core MAC "+v.String(), path+".core_mac", r.CoreMAC.Line)
			g.CoreMAC = v
		}
		switch {
		case r.Pools == nil:
			b.errorf(path+".pools", 0, "required sequence missing")
		case len(r.Pools) == 0:
			b.errorf(path+".pools", 0, "at least one pool is required")
		default:
			m.pools = b.refs(r.Pools, path+".pools")
			m.poolNames = make(map[string]bool, len(m.pools))
			for _, p := range m.pools {
				m.poolNames[p.name] = true
			}
		}
		if v, ok := b.name(&r.QosProfile, path+".qos_profile"); ok {
			m.qosProfile = ref{name: v, path: path + ".qos_profile", line: r.QosProfile.Line}
			m.qosOK = true
		}
		if v, ok := b.uintIn(&r.Instance, path+".instance", 1, MaxInstanceID); ok {
			m.instance, m.instPath, m.instLine, m.instOK = uint32(v), path+".instance", r.Instance.Line, true
		}
		b.lineGroup6(g, m, r, path, coreAddrs)
		b.lineGroupIPoE(g, r, path)
		b.cfg.LineGroups = append(b.cfg.LineGroups, g)
	}
}

func (b *builder) instances(list []*rawInstance) {
	if list == nil {
		b.errorf("instances", 0, "required sequence missing")
		return
	}
	names := make(map[string]string)
	ids := make(map[string]string)
	macs := make(map[string]string)
	for i, r := range list {
		path := fmt.Sprintf("instances[%d]", i)
		if r == nil {
			b.errorf(path, 0, "expected a mapping, found null")
			continue
		}
		inst := &Instance{}
		m := &instMeta{path: path, listed: make(map[string]bool)}
		b.instMeta[inst] = m
		if v, ok := b.uintIn(&r.ID, path+".id", 1, MaxInstanceID); ok {
			inst.ID, m.idOK = uint32(v), true
			if b.unique(ids, fmt.Sprint(v), fmt.Sprintf("instance id %d", v), path+".id", r.ID.Line) {
				b.cfg.instances[inst.ID] = inst
			}
		}
		if v, ok := b.name(&r.Name, path+".name"); ok && b.unique(names, v, "instance name", path+".name", r.Name.Line) {
			inst.Name = v
		}
		inst.ControlAddress, _ = b.addr(&r.ControlAddress, path+".control_address", false)
		if v, ok := b.mac(&r.DataMAC, path+".data_mac"); ok {
			b.unique(macs, v.String(), "data MAC "+v.String(), path+".data_mac", r.DataMAC.Line)
			inst.DataMAC = v
		}
		if r.LineGroups == nil {
			b.errorf(path+".line_groups", 0, "required sequence missing")
		}
		m.groups = b.refs(r.LineGroups, path+".line_groups")
		for _, g := range m.groups {
			m.listed[g.name] = true
		}
		if r.Lines == nil {
			b.errorf(path+".lines", 0, "required sequence missing")
		}
		for j, rl := range r.Lines {
			b.line(inst, rl, fmt.Sprintf("%s.lines[%d]", path, j), m)
		}
		b.cfg.Instances = append(b.cfg.Instances, inst)
	}
}

func (b *builder) line(inst *Instance, r *rawLine, path string, m *instMeta) {
	if r == nil {
		b.errorf(path, 0, "expected a mapping, found null")
		return
	}
	l := &Line{Instance: inst, Index: len(inst.Lines), path: path}
	inst.Lines = append(inst.Lines, l)
	ok := true
	if v, vok := b.name(&r.Group, path+".group"); vok {
		g, found := b.cfg.lineGroups[v]
		switch {
		case !found:
			b.errorf(path+".group", r.Group.Line, "unknown line group %q", v)
			ok = false
		case !m.listed[v]:
			b.errorf(path+".group", r.Group.Line, "line group %q is not in this instance's line_groups", v)
			ok = false
		default:
			l.Group = g
		}
	} else {
		ok = false
	}
	if v, vok := b.name(&r.AccessPort, path+".access_port"); vok {
		p, found := b.cfg.accessPorts[v]
		if found {
			l.AccessPort = p
		} else {
			b.errorf(path+".access_port", r.AccessPort.Line, "unknown access port %q", v)
			ok = false
		}
	} else {
		ok = false
	}
	if r.STag == nil {
		b.errorf(path+".stag", 0, "required mapping missing")
		ok = false
	} else if t, tok := b.tagRange(r.STag, path+".stag"); tok {
		l.STag = t
	} else {
		ok = false
	}
	if r.CTag == nil {
		l.CTag, l.AnyCTag = anyTag, true
	} else if t, tok := b.tagRange(r.CTag, path+".ctag"); tok {
		l.CTag = t
	} else {
		ok = false
	}
	if ok {
		b.lines = append(b.lines, l)
	}
}
