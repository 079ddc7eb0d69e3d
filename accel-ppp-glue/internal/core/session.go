package core

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
)

// state is where a subscriber session is in its life.
type state uint8

const (
	stNegotiating  state = iota // PADS sent: LCP, authentication, IPCP
	stAuthorizing               // waiting for RADIUS (or the users file)
	stEstablishing              // IPCP opened; PFCP Session Establishment in flight
	stEstablished               // installed in the DP
	stTerminating               // being torn down
)

var stateNames = [...]string{"negotiating", "authorizing", "establishing", "established", "terminating"}

func (s state) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// lineKey names a subscriber's line and device: the scope in which the CP
// keeps at most one PPPoE session (a second PADR from the same CPE replaces
// the first).
type lineKey struct {
	port       string // access port name
	stag, ctag uint16
	mac        [6]byte
}

// sessKey is the PPPoE session identity on the wire (RFC 2516: the pair of
// the peers' MACs and the session id; the AC MAC follows from the line).
type sessKey struct {
	line lineKey
	sid  uint16
}

// Acct-Terminate-Cause values (RFC 2866 5.10) the CP uses.
const (
	causeUserRequest   = 1
	causeLostCarrier   = 2
	causeIdleTimeout   = 4
	causeSessionTimout = 5
	causeAdminReset    = 6
	causeAdminReboot   = 7
	causeNASError      = 9
	causeNASRequest    = 10
	causePortError     = 8
	causeUserError     = 17
)

var causeNames = map[int]string{
	causeUserRequest: "user-request", causeLostCarrier: "lost-carrier", causeIdleTimeout: "idle-timeout",
	causeSessionTimout: "session-timeout", causeAdminReset: "admin-reset", causeAdminReboot: "admin-reboot",
	causePortError: "port-error", causeNASError: "nas-error", causeNASRequest: "nas-request",
	causeUserError: "user-error",
}

func causeName(c int) string {
	if n, ok := causeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("cause-%d", c)
}

// session is one subscriber's PPPoE session. It is owned by one shard: only
// that shard's goroutine reads or writes it (results of RADIUS and PFCP
// calls come back to the shard as closures).
type session struct {
	sh      *shard
	key     sessKey
	state   state
	dead    bool // torn down; late results must clean up after themselves
	stopped bool // Accounting-Stop sent: later usage reports are too late

	inst       *config.Instance
	line       *config.Line
	group      *config.LineGroup
	link       *ppp.Link     // nil for sessions restored from the store
	restored   *ppp.Restored // the PPP side of a session restored from the store
	hostUniq   []byte        // PADR's Host-Uniq and Relay-Session-Id, for a repeated PADS
	relayID    []byte
	hasRelay   bool
	maxPayload uint16
	lcpSeen    bool      // an LCP frame arrived after PADS: a repeated PADR is a new dial
	ipoe       *ipoeSess // an IPoE session's DHCP state (ipoe.go); nil for PPPoE

	ipcpFailed   bool      // IPCP gave up while IPv6CP runs on (ipv6.go)
	v6WaitUntil  time.Time // IPCP is open: the establishment waits this long for IPv6CP
	heldAck      []byte    // our IPCP Configure-Ack that opened IPCP, sent once the DP has the session
	v6Installing bool      // a modification adding the IPv6 PDRs is in flight

	rec         record    // what is persisted once established
	padrAt      time.Time // setup rate starts here
	timerOn     bool
	lastInterim time.Time
	cause       int // Acct-Terminate-Cause once dead

	// once dead: the state it was torn down in (what its end still needs),
	// and what its PPPoE session waits for until when (closing.go)
	endFrom   state
	closeWait closeWait
	closeAt   time.Time
}

// record is a session as it is persisted in the store and shown to
// operators: everything needed to install it again into a DP, and to resume
// accounting with the same Acct-Session-Id after a CP restart.
type record struct {
	ID             string     `json:"id"` // Acct-Session-Id
	CPSEID         uint64     `json:"cp_seid"`
	UPSEID         uint64     `json:"up_seid"`
	Established    bool       `json:"established"` // false: establishment was in flight
	AcctStarted    bool       `json:"acct_started"`
	User           string     `json:"user"`
	Instance       uint32     `json:"instance"`
	AccessPort     string     `json:"access_port"`
	STag           uint16     `json:"stag"`
	CTag           uint16     `json:"ctag"`
	MAC            [6]byte    `json:"mac"`
	PPPoESID       uint16     `json:"pppoe_sid"`
	IPv4           netip.Addr `json:"ipv4"`
	LineGroup      string     `json:"line_group"`
	QosProfile     string     `json:"qos_profile"`
	RateDown       uint64     `json:"rate_down"` // RADIUS/CoA explicit rates, bit/s; 0 = the profile's
	RateUp         uint64     `json:"rate_up"`
	GuaranteedUp   uint64     `json:"guaranteed_up,omitempty"`   // SADIS's upstream guaranteed rate with its RateUp (seba.go); 0 = the profile's CIR
	GuaranteedDown uint64     `json:"guaranteed_down,omitempty"` // SADIS's downstream guaranteed rate (seba.go): QER GBR DL; 0 = none
	MTU            uint16     `json:"mtu"`
	MagicTx        uint32     `json:"magic_tx"`
	MagicRx        uint32     `json:"magic_rx"`
	Class          [][]byte   `json:"class,omitempty"`
	Interim        int64      `json:"interim_s"`
	SessionTimeout int64      `json:"session_timeout_s,omitempty"`
	CircuitID      string     `json:"circuit_id,omitempty"`
	RemoteID       string     `json:"remote_id,omitempty"`
	NASPortID      string     `json:"nas_port_id,omitempty"` // SADIS nasPortId (seba.go); "": port:stag.ctag
	Started        time.Time  `json:"started"`
	UpOctets       uint64     `json:"up_octets"`
	DownOctets     uint64     `json:"down_octets"`
	UpPackets      uint64     `json:"up_packets"`
	DownPackets    uint64     `json:"down_packets"`
	UsageAt        time.Time  `json:"usage_at"` // when the DP measured the totals; zero: not yet known
	// The session's packets the DP dropped (its usage reports' bngpod Dropped
	// Packets IE), and the PPPoE/PPP control frames of the session the CP
	// received and sent (shard.go: from its PADR on; PADI/PADO precede it)
	UpDropped   uint64 `json:"up_dropped,omitempty"`
	DownDropped uint64 `json:"down_dropped,omitempty"`
	// and their octets (the IE's 32-octet form)
	UpDroppedOctets   uint64 `json:"up_dropped_octets,omitempty"`
	DownDroppedOctets uint64 `json:"down_dropped_octets,omitempty"`
	CtrlPackets       uint64 `json:"control_packets,omitempty"`
	// IPoE (ipoe.go): Kind "ipoe" (PPPoESID 0), the lease's end
	Kind     string    `json:"kind,omitempty"` // "" = PPPoE
	LeaseEnd time.Time `json:"lease_end,omitempty"`
	// IPoE dual stack (ipoe6.go): the DHCPv6 binding's end, and whether the
	// DP lacks the IPv4 PDRs (IPv6 first; the IPv4 address only offered or
	// its lease ended while IPv6 stays)
	LeaseEnd6  time.Time `json:"lease_end6,omitempty"`
	NoIPv4PDRs bool      `json:"no_ipv4_pdrs,omitempty"`

	// IPv6 (ipv6.go): the prefixes and address allocated, the interface
	// identifiers IPv6CP agreed (ours 0: IPv6CP not open), whether the DP has
	// the IPv6 PDRs, the DHCPv6 binding, and the IPv6 share of the totals.
	IPv6Prefix      netip.Prefix  `json:"ipv6_prefix,omitempty"`
	DelegatedPrefix netip.Prefix  `json:"delegated_prefix,omitempty"`
	IPv6Address     netip.Addr    `json:"ipv6_address,omitempty"`
	IIDLocal        uint64        `json:"iid_local,omitempty"`
	IIDPeer         uint64        `json:"iid_peer,omitempty"`
	IPv6Installed   bool          `json:"ipv6_installed,omitempty"`
	DHCP6           v6ctl.Binding `json:"dhcp6"`
	DNS6            []netip.Addr  `json:"dns6,omitempty"` // RADIUS DNS-Server-IPv6-Address; none: the pool's
	V6UpOctets      uint64        `json:"v6_up_octets,omitempty"`
	V6DownOctets    uint64        `json:"v6_down_octets,omitempty"`
	V6UpPackets     uint64        `json:"v6_up_packets,omitempty"`
	V6DownPackets   uint64        `json:"v6_down_packets,omitempty"`
}

func (r *record) marshal() []byte {
	b, err := json.Marshal(r)
	if err != nil { // cannot happen for this type
		panic(err)
	}
	return b
}

func macString(m [6]byte) string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}

// callingStationID formats the client MAC as RFC 3580 3.21 recommends.
func callingStationID(m [6]byte) string {
	return fmt.Sprintf("%02X-%02X-%02X-%02X-%02X-%02X", m[0], m[1], m[2], m[3], m[4], m[5])
}

// nasPortID names the subscriber's line: "<access port>:<S-tag>.<C-tag>".
func nasPortID(port string, stag, ctag uint16) string {
	return fmt.Sprintf("%s:%d.%d", port, stag, ctag)
}
