package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"
)

// Outer tag protocol identifiers accepted on access ports.
const (
	TPID8021Q  uint16 = 0x8100 // IEEE 802.1Q C-VLAN TPID
	TPID8021AD uint16 = 0x88a8 // IEEE 802.1ad S-VLAN TPID
)

// VLAN id bounds (inclusive); 0 and 4095 are reserved.
const (
	MinVLANID = 1
	MaxVLANID = 4094
)

// MaxInstanceID is the largest DP instance id: the id is also the 24-bit
// VXLAN network identifier of the instance's control redirect.
const MaxInstanceID = 1<<24 - 1

// Traffic classes of the DP's hierarchical scheduler: classes 0..11 are
// strict-priority classes with one queue each, class 12 is best effort with
// BestEffortQueues queues served by weighted round robin.
const (
	NumTrafficClasses = 13
	BestEffortTC      = 12
	BestEffortQueues  = 4
	MaxDSCP           = 63
	// DSCPKeep in QosProfile.UpDSCP: upstream packets keep their own DSCP.
	DSCPKeep = 0xff
)

// Config is a validated cp.yaml. All references are resolved; a Config
// returned by Parse or Load is immutable by convention and safe for
// concurrent readers.
type Config struct {
	Pod          string
	ControlPlane ControlPlane
	Management   Management
	Radius       Radius
	AccessPorts  []*AccessPort
	Pools        []*Pool
	QosProfiles  []*QosProfile
	LineGroups   []*LineGroup
	Instances    []*Instance
	ONOS         *ONOS  // nil: no ONOS, the stated placement only
	Core6        *Core6 // nil: no IPv6 in the pod
	IPv6RA       IPv6RA
	IPv6Pools    []*IPv6Pool

	accessPorts map[string]*AccessPort
	pools       map[string]*Pool
	qosProfiles map[string]*QosProfile
	lineGroups  map[string]*LineGroup
	instances   map[uint32]*Instance
	ipv6Pools   map[string]*IPv6Pool
}

// ControlPlane is where this control plane listens.
type ControlPlane struct {
	Address   netip.Addr
	PFCPPort  uint16
	VXLANPort uint16
	// PFCP heartbeats to each DP instance: one every Heartbeat; a heartbeat is
	// sent HeartbeatTries times, HeartbeatTimeout apart, before the instance
	// is declared dead (docs/cp/sessions.md). Other requests keep 29.244's
	// T1 3 s, N1 3.
	Heartbeat        time.Duration
	HeartbeatTimeout time.Duration
	HeartbeatTries   int
}

// Management is the network shared by the control plane and the DP
// instances' control interfaces.
type Management struct {
	Subnet netip.Prefix
}

// Radius holds the RADIUS client settings.
type Radius struct {
	NASIdentifier string
	CoAPort       uint16
	Timeout       time.Duration
	Retries       int
	Servers       []*RadiusServer
	// IPv6OctetsAttribute: the vendor attributes carrying the IPv6 share of
	// the accounting counters, IPv6OctetsERX (default) or IPv6OctetsNone
	IPv6OctetsAttribute string
}

// RadiusServer is one RADIUS server.
type RadiusServer struct {
	Name     string
	Address  netip.Addr
	AuthPort uint16
	AcctPort uint16
	Secret   Secret
}

// Secret is a shared secret. It prints as "<redacted>" so that logging a
// configuration does not leak it; convert with string(s) to use it.
type Secret string

// String implements fmt.Stringer without revealing the secret.
func (Secret) String() string { return "<redacted>" }

// GoString implements fmt.GoStringer without revealing the secret.
func (Secret) GoString() string { return `"<redacted>"` }

// ONOS is the pod controller's REST endpoint (docs/cp/onos.md): where the
// control plane reports sessions and instance health and reads placement.
type ONOS struct {
	URL          *url.URL // base, e.g. http://127.0.0.1:8181/onos/bngpod (no trailing slash)
	Username     string
	Password     Secret
	CPName       string        // this control plane's name towards ONOS; default radius.nas_identifier
	PollInterval time.Duration // retry period; GET /placement period when PlacementWait is 0
	// PlacementWait: GET /placement is a long poll that ONOS answers when the
	// placement changes or after this long (whole seconds, 0..60s; 0: polling)
	PlacementWait time.Duration
	Timeout       time.Duration // per HTTP request
	// SebaStrict: PADIs (and PADRs) only from lines the SEBA app's
	// subscribers table maps (docs/cp/onos.md, "Strict admission")
	SebaStrict bool
}

// AccessPort is a switch port facing subscribers.
type AccessPort struct {
	Name string
	TPID uint16 // TPID8021Q or TPID8021AD: the outer tag's TPID
	Rate uint64 // bit/s
}

// Pool is an IPv4 address pool bound to one line group.
type Pool struct {
	Name      string
	Prefix    netip.Prefix
	DNS       []netip.Addr // at most two (IPCP primary and secondary DNS)
	LineGroup *LineGroup
	// Gateway: the IPoE subscribers' router and DHCP server identifier, an
	// address of Prefix never handed out (invalid: none; PPPoE-only pools)
	Gateway netip.Addr
}

// QosProfile is a subscriber QoS profile. Rates are Ethernet frame rates in
// bit/s on the access line.
type QosProfile struct {
	Name     string
	DownRate uint64 // downstream pipe rate
	UpPIR    uint64 // upstream two-rate three-colour marker PIR
	UpCIR    uint64 // upstream CIR; equals UpPIR when not configured
	UpDSCP   uint8  // DSCP the DP writes into upstream packets, or DSCPKeep
	Classes  []*TrafficClass

	dscpTC [MaxDSCP + 1]uint8
}

// ClassForDSCP returns the traffic class of downstream packets carrying the
// given DSCP: the class listing it, BestEffortTC when none does or when dscp
// is out of range.
func (p *QosProfile) ClassForDSCP(dscp uint8) uint8 {
	if int(dscp) >= len(p.dscpTC) {
		return BestEffortTC
	}
	return p.dscpTC[dscp]
}

// Class returns the profile's class with traffic class number tc.
func (p *QosProfile) Class(tc uint8) (*TrafficClass, bool) {
	for _, c := range p.Classes {
		if c.TC == tc {
			return c, true
		}
	}
	return nil, false
}

// TrafficClass is one class of a QoS profile.
type TrafficClass struct {
	TC      uint8 // 0..12
	Name    string
	DSCP    []uint8
	Rate    uint64  // bit/s; the profile's DownRate when not configured
	Weights []uint8 // WRR weights of the best-effort queues (TC 12 only); nil: equal weights
}

// LineGroup is a set of lines sharing an access concentrator identity, a
// core-side identity, address pools and a default QoS profile. It is served
// by exactly one DP instance.
type LineGroup struct {
	Name        string
	ACMAC       net.HardwareAddr // access concentrator MAC towards subscribers
	CoreAddress netip.Addr
	CoreMAC     net.HardwareAddr
	Pools       []*Pool
	QosProfile  *QosProfile // default profile of the group's subscribers
	Instance    *Instance
	Lines       []*Line
	// IPv6: the group's core address (ND on the core side; invalid: none)
	// and pools (none: no IPv6 for its subscribers)
	CoreAddress6 netip.Addr
	IPv6Pools    []*IPv6Pool
	// Session types the group's lines may dial (docs/cp/ipoe.md): PPPoE
	// unless session_types says otherwise; IPoE holds the IPoE settings
	// (nil when the group does not allow IPoE)
	PPPoE bool
	IPoE  *IPoE
}

// Instance is a DP (user-plane) instance.
type Instance struct {
	ID             uint32 // also the VXLAN VNI of its control redirect
	Name           string
	ControlAddress netip.Addr
	DataMAC        net.HardwareAddr
	LineGroups     []*LineGroup
	Lines          []*Line

	index lineIndex
}

// Line is a range of S-tags, optionally restricted to a range of C-tags, on
// one access port, served by one line group of one instance.
type Line struct {
	Instance   *Instance
	Index      int // position in Instance.Lines
	Group      *LineGroup
	AccessPort *AccessPort
	STag       TagRange
	CTag       TagRange // 1-4094 when AnyCTag
	AnyCTag    bool     // ctag: null; the line also takes frames without C-tag

	path string // location in the document, for error messages
}

// Matches reports whether a frame with the given tags belongs to the line.
// A ctag of 0 stands for a frame without C-tag (or with a priority tag),
// which only lines taking any C-tag accept.
func (l *Line) Matches(stag, ctag uint16) bool {
	if !l.STag.Contains(stag) {
		return false
	}
	if ctag == 0 {
		return l.AnyCTag
	}
	return l.CTag.Contains(ctag)
}

// String describes the line for logs.
func (l *Line) String() string {
	ctag := "any"
	if !l.AnyCTag {
		ctag = l.CTag.String()
	}
	var inst, group, port string
	if l.Instance != nil {
		inst = l.Instance.Name
	}
	if l.Group != nil {
		group = l.Group.Name
	}
	if l.AccessPort != nil {
		port = l.AccessPort.Name
	}
	return fmt.Sprintf("%s line %d (group %s, port %s, S-tag %s, C-tag %s)",
		inst, l.Index, group, port, l.STag, ctag)
}

// TagRange is an inclusive range of VLAN ids.
type TagRange struct {
	Min, Max uint16
}

// anyTag is the range a line with ctag: null covers.
var anyTag = TagRange{Min: MinVLANID, Max: MaxVLANID}

// Contains reports whether tag lies in the range.
func (r TagRange) Contains(tag uint16) bool { return r.Min <= tag && tag <= r.Max }

// Overlaps reports whether the two ranges share a tag.
func (r TagRange) Overlaps(o TagRange) bool { return r.Min <= o.Max && o.Min <= r.Max }

// String formats the range as "min-max", or "id" for a single id.
func (r TagRange) String() string {
	if r.Min == r.Max {
		return fmt.Sprintf("%d", r.Min)
	}
	return fmt.Sprintf("%d-%d", r.Min, r.Max)
}

// intersect returns the common part of two overlapping ranges.
func (r TagRange) intersect(o TagRange) TagRange {
	out := r
	if o.Min > out.Min {
		out.Min = o.Min
	}
	if o.Max < out.Max {
		out.Max = o.Max
	}
	return out
}

// AccessPort returns the access port with the given name.
func (c *Config) AccessPort(name string) (*AccessPort, bool) {
	p, ok := c.accessPorts[name]
	return p, ok
}

// Pool returns the pool with the given name.
func (c *Config) Pool(name string) (*Pool, bool) {
	p, ok := c.pools[name]
	return p, ok
}

// QosProfile returns the QoS profile with the given name.
func (c *Config) QosProfile(name string) (*QosProfile, bool) {
	p, ok := c.qosProfiles[name]
	return p, ok
}

// LineGroup returns the line group with the given name.
func (c *Config) LineGroup(name string) (*LineGroup, bool) {
	g, ok := c.lineGroups[name]
	return g, ok
}

// Instance returns the DP instance with the given id.
func (c *Config) Instance(id uint32) (*Instance, bool) {
	i, ok := c.instances[id]
	return i, ok
}

// LineFor returns the line a frame with the given tags, redirected by DP
// instance instanceID, belongs to, and that line's access port (the line's
// group is Line.Group). A ctag of 0 stands for a frame without C-tag; it
// matches only lines with ctag: null. ok is false when the instance is
// unknown or none of its lines takes the tags.
func (c *Config) LineFor(instanceID uint32, stag, ctag uint16) (line *Line, port *AccessPort, ok bool) {
	inst, found := c.instances[instanceID]
	if !found {
		return nil, nil, false
	}
	return inst.LineFor(stag, ctag)
}

// LineFor is Config.LineFor for this instance.
func (i *Instance) LineFor(stag, ctag uint16) (line *Line, port *AccessPort, ok bool) {
	l := i.index.lookup(stag, ctag)
	if l == nil {
		return nil, nil, false
	}
	return l, l.AccessPort, true
}
