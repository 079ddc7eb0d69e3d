package pfcpcp

import (
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// Config configures the control-plane function.
type Config struct {
	Local     netip.AddrPort // bind (CP address:8805)
	NodeID    netip.Addr     // our Node ID, also the address in our F-SEIDs
	Redirect  netip.AddrPort // CP VXLAN endpoint for the default session's Outer Header Creation (IPv4)
	T1        time.Duration  // retransmission interval (default 3 s)
	N1        int            // transmissions of a request (default 3)
	Heartbeat time.Duration  // heartbeat interval (default 5 s)
	// HeartbeatT1 and HeartbeatN1 are T1 and N1 of our heartbeat requests
	// (default T1, N1): how soon a dead DP is noticed, apart from how long a
	// busy DP may take over a session request.
	HeartbeatT1  time.Duration
	HeartbeatN1  int
	RecoveryTime time.Time     // this CP's start (zero: now)
	URRPeriod    time.Duration // periodic usage reports (interim source), 0 = none
}

// Peer is one DP instance.
type Peer struct {
	Instance uint32
	Addr     netip.AddrPort
}

// Features are what a DP announced in its Association Setup Response.
type Features struct {
	LCPOffload bool // BBF UP Function Features: LCP keepalive offload
	PPPoE      bool // BBF UP Function Features: PPPoE
	IPoE       bool // BBF UP Function Features: IPoE (issue 19; the DP accepts IPoE sessions and the dhcp class)
	MNOP       bool // UP Function Features: packet counts in usage reports
	// IPoE6: the DP took the default session with the IPv6 dhcp class
	// (DHCPv6 and RS of IPoE lines punted; issue 19's dual stack over IPoE).
	// A DP that refuses it (cause 76) gets the default session without it.
	IPoE6 bool
}

// Handler receives the DPs' events. Its methods run on one goroutine, in order.
type Handler interface {
	PeerUp(inst uint32, rts time.Time, f Features) // associated (again); default session installed
	PeerDown(inst uint32)                          // N1 heartbeats lost, the association failed, or the DP restarted
	Usage(inst uint32, cpSEID uint64, u Usage)     // Session Report USAR, and usage in modification/deletion answers
	LCPDead(inst uint32, cpSEID uint64)            // Session Report UPIR + BBF PPP LCP Connectivity or bngpod IPoE ARP ping
}

// Session is one subscriber session as the DP gets it.
type Session struct {
	CPSEID         uint64 // the caller's; bit 63 must be clear
	LogicalPort    string // "" = any port of the line
	STag, CTag     uint16
	MAC            [6]byte
	PPPoESessionID uint16 // 0 for IPoE
	// IPoE: an IPoE subscriber (docs/cp/ipoe.md, docs/dp/pfcp.md): the
	// upstream PDR matches Ethertype 0x0800 from MAC and the UE IP as source,
	// BBF Outer Header Removal 1 (Ethernet), the downstream FAR's BBF Outer
	// Header Creation without PPPoE session. IPv4 only, no LCP.
	IPoE         bool
	IPv4         netip.Addr
	QosProfile   string // "" = the line group's
	UpMBR, UpGBR uint64 // bit/s, 0 = the profile's
	DownMBR      uint64 // bit/s, 0 = the profile's
	DownGBR      uint64 // bit/s contracted downstream (the DP's qos-share weight), 0 = none
	MTU          uint16 // 0 = not sent (the DP's default 1492)
	LCP          *LCPConnectivity
	URRPeriod    time.Duration // usage report period of this session; 0 = Config.URRPeriod
	// IPv6 (docs/dp/pfcp.md "Dual stack"): nil = IPv4 only (today's message);
	// with IPv6 and no IPv4 address, an IPv6-only session.
	IPv6 *IPv6Rules
	RA   *RAOffload // the DP's unsolicited Router Advertisements; nil = none
	// ARPPing: IPoE liveness (bngpod IE 32770): the DP ARP-pings the idle
	// subscriber and reports it dead (LCPDead) after Count unanswered pings.
	// nil = off. IPoE only.
	ARPPing *ARPPing
}

// ARPPing are the parameters of bngpod's IPoE ARP ping IE (enterprise 32473,
// type 32770).
type ARPPing struct {
	Interval uint16 // seconds without an upstream frame before a ping (>= 1)
	Count    uint8  // unanswered pings before the session is dead (>= 1)
}

// URR ids of a dual-stack session: the total of both families, IPv4, IPv6.
// An IPv4-only session has URR 1 only.
const (
	URRTotal uint32 = 1
	URRIPv4  uint32 = 2
	URRIPv6  uint32 = 3
)

// IPv6Rules are a session's IPv6 PDRs: upstream PDR 3 (PPP protocol 0x0057),
// downstream PDR 4 (the /64) and PDR 5 (the delegated prefix, optional).
type IPv6Rules struct {
	WAN netip.Prefix // the session's /64
	PD  netip.Prefix // its delegated prefix; invalid: no PDR 5
}

// RAOffload are the parameters of bngpod's RA offload IE (enterprise 32473,
// type 32769).
type RAOffload struct {
	Interval, RouterLifetime uint16 // seconds
	Flags                    uint8  // M 0x80, O 0x40
	MTU                      uint16 // 0 = no MTU option
	Prefix                   netip.Prefix
	Valid, Preferred         uint32
	IID                      uint64 // the BNG's: RA source fe80::IID
	DNS                      []netip.Addr
}

// LCPConnectivity are the LCP keepalive offload parameters (TR-459).
type LCPConnectivity struct {
	Interval uint16 // seconds between echo requests
	Count    uint8  // unanswered echoes before the link is dead
	TxMagic  uint32 // the BNG's magic number
	RxMagic  uint32 // the CPE's
}

// Usage is one usage report. Octets and packets count since the previous
// report of the same URR. Trigger holds the Usage Report Trigger octets
// (TriggerPERIO, TriggerVOLTH, TriggerIMMER, TriggerTERMR).
type Usage struct {
	URRID, Seq           uint32
	Trigger              uint32
	Start, End           time.Time
	ULOctets, DLOctets   uint64
	ULPackets, DLPackets uint64
	// The session's packets the DP dropped in the same interval (bngpod's
	// Dropped Packets IE; only in the report of the URR every PDR names, and
	// zero from a DP that does not send it), and their octets (the IE's
	// 32-octet form; zero from a DP that sends the 16-octet one).
	ULDropped, DLDropped             uint64
	ULDroppedOctets, DLDroppedOctets uint64
	// More: another Usage Report of the same message follows (the DP
	// reports a session's URRs of one period together; a handler acts on
	// the period once it has all of them, e.g. one Interim with both
	// families' shares).
	More bool
}

// Mod is a Session Modification. Rates: when any of UpMBR, UpGBR, DownMBR is
// set, the session's QER gets all three (nil = 0 = the profile's).
type Mod struct {
	QosProfile            *string
	UpMBR, UpGBR, DownMBR *uint64
	DownGBR               *uint64          // with the rates: the contracted downstream rate (nil = 0 = none)
	LCP                   *LCPConnectivity // new LCP keepalive offload parameters
	LCPOff                bool             // turn LCP keepalive offload off (wins over LCP)
	QueryUsage            bool             // ask for the usage now (PFCPSMReq-Flags QAURR)
	// AddIPv6 creates the IPv6 PDRs 3, 4 (5) of a session established
	// without them: the session as it was established, with IPv6 set (its
	// line identity, rates and URR period say what the new PDRs match and
	// name; with usage reporting, URRs 2 and 3 are created and PDRs 1, 2 name
	// URRs 1, 2).
	AddIPv6 *Session
	// IPv6PDRs: the session has its IPv6 PDRs (a QER created later is named
	// by them too); HasPD: PDR 5 among them. NoIPv4: it has no PDRs 1, 2.
	IPv6PDRs, HasPD, NoIPv4 bool
	// AddIPv4 creates the IPv4 PDRs 1, 2 of an IPv6-only session (IPoE:
	// DHCPv4 after DHCPv6): the session as it is, with IPv4 set (with usage
	// reporting, URR 2 is created and PDRs 1, 2 name URRs 1, 2).
	AddIPv4 *Session
	// RemoveIPv4 / RemoveIPv6 take a family off a dual-stack session (an
	// IPoE lease of one family ended): the session as it is. Remove PDR of
	// the family's PDRs and, with usage reporting, of the per-family URRs, so
	// that what stays is exactly the single-family session's rules (the
	// other family's PDRs name URR 1 (+ 3 for IPv6-only)). RemoveIPv6 sends
	// the empty RA offload IE too.
	RemoveIPv4, RemoveIPv6 *Session
	RA                     *RAOffload // replace the RA offload parameters
	RAOff                  bool       // turn the RA offload off (wins over RA)
}

// CauseError is a PFCP refusal.
type CauseError struct {
	Cause          uint8
	OffendingIE    uint16 // 0 = none
	FailedRule     uint32 // with HasFailedRule
	FailedRuleType uint8  // 0 PDR, 1 FAR, 2 QER, 3 URR
	HasFailedRule  bool
}

func (e *CauseError) Error() string {
	s := fmt.Sprintf("pfcpcp: refused with cause %d", e.Cause)
	if e.OffendingIE != 0 {
		s += fmt.Sprintf(", offending IE %d", e.OffendingIE)
	}
	if e.HasFailedRule {
		s += fmt.Sprintf(", failed rule %d/%d", e.FailedRuleType, e.FailedRule)
	}
	return s
}

// Errors of the API.
var (
	ErrTimeout             = errors.New("pfcpcp: no answer after N1 transmissions")
	ErrNotAssociated       = errors.New("pfcpcp: DP not associated")
	ErrUnknownPeer         = errors.New("pfcpcp: unknown DP instance")
	ErrClosed              = errors.New("pfcpcp: function stopped")
	ErrInvalidSession      = errors.New("pfcpcp: invalid session")
	ErrVersionNotSupported = errors.New("pfcpcp: the DP answered Version Not Supported")
	ErrIPoENotSupported    = errors.New("pfcpcp: the DP did not announce IPoE in its BBF UP Function Features")
)

// PeerStatus is one DP's state for the management API and metrics.
type PeerStatus struct {
	Instance     uint32
	Addr         netip.AddrPort
	State        string    // "associating", "installing", "up"
	RecoveryTime time.Time // the DP's (zero before the first association)
	Since        time.Time // when State was entered
	Features     Features
	Restarts     uint64 // restarts seen (new recovery time stamp)
	HeartbeatsTx uint64
	HeartbeatsRx uint64 // heartbeat requests from the DP, answered
	Reports      uint64 // session report requests from the DP
	Timeouts     uint64 // requests to this DP that got no answer
}

// Stats are the function's counters (monotonic, except Pending).
type Stats struct {
	Requests        map[string]uint64 // sent, by message name (first transmissions)
	Answers         map[uint8]uint64  // answers to our requests, by cause
	Retransmissions uint64            // our requests sent again
	Timeouts        uint64            // our requests never answered
	Unexpected      uint64            // answers to no pending request (duplicates, late, wrong peer)
	Received        map[string]uint64 // requests from DPs, by message name
	Duplicates      uint64            // DP requests answered from the cache
	UnknownSEID     uint64            // reports for a session we do not know (answered cause 65)
	NotAllowed      uint64            // datagrams from unconfigured addresses
	Malformed       uint64            // datagrams that did not decode
	Unhandled       uint64            // messages of a type we do not serve
	Pending         uint64            // requests waiting for an answer now
}
