package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"
)

// Paths of the API.
const (
	PathSessions  = "/v1/sessions"
	PathPools     = "/v1/pools"
	PathInstances = "/v1/instances"
	PathStats     = "/v1/stats"
	PathGroups    = "/v1/groups"
)

// DefaultSocket is where bng-cp listens unless told otherwise.
const DefaultSocket = "/run/bngpod/cp.sock"

// SessionView is one subscriber session.
type SessionView struct {
	ID         string     `json:"id"`
	State      string     `json:"state"`                // e.g. discovery, lcp, auth, ipcp, installing, up, terminating
	Kind       string     `json:"kind"`                 // pppoe or ipoe (IPoE: DHCP; PPPoESessionID 0)
	LeaseEnd   *time.Time `json:"lease_end,omitempty"`  // IPoE: when the DHCP lease runs out
	LeaseEnd6  *time.Time `json:"lease_end6,omitempty"` // IPoE: when the DHCPv6 binding runs out
	User       string     `json:"user"`
	Instance   uint32     `json:"instance"`
	AccessPort string     `json:"access_port"`
	STag       uint16     `json:"stag"`
	CTag       uint16     `json:"ctag"` // 0: single-tagged line
	MAC        string     `json:"mac"`  // subscriber MAC, aa:bb:cc:dd:ee:ff
	// where the session is served: its line group, that group's AC MAC (the
	// source of the session's downstream frames) and the access port's outer
	// TPID (empty or 0 from a bng-cp that does not say)
	LineGroup      string     `json:"line_group,omitempty"`
	ACMAC          string     `json:"ac_mac,omitempty"`
	TPID           uint16     `json:"tpid,omitempty"`
	PPPoESessionID uint16     `json:"pppoe_session_id"`
	IPv4           netip.Addr `json:"ipv4"` // "" before IPCP
	QosProfile     string     `json:"qos_profile"`
	RateDown       uint64     `json:"rate_down"` // bit/s, 0: the profile's
	RateUp         uint64     `json:"rate_up"`
	AcctSessionID  string     `json:"acct_session_id"`
	Started        time.Time  `json:"started"`
	UpOctets       uint64     `json:"up_octets"` // from the subscriber
	DownOctets     uint64     `json:"down_octets"`
	UpPackets      uint64     `json:"up_packets"`
	DownPackets    uint64     `json:"down_packets"`
	CPSEID         uint64     `json:"cp_seid"`
	UPSEID         uint64     `json:"up_seid"` // 0 until the DP installed it
	CircuitID      string     `json:"circuit_id"`
	RemoteID       string     `json:"remote_id"`
	// IPv6 (absent: none): the /64, the delegated prefix, the IA_NA address,
	// whether IPv6CP is open, whether the DHCPv6 client holds the delegated
	// prefix, and the IPv6 share of the octet and packet totals above
	IPv6Prefix      *netip.Prefix `json:"ipv6_prefix,omitempty"`
	DelegatedPrefix *netip.Prefix `json:"delegated_prefix,omitempty"`
	IPv6Address     *netip.Addr   `json:"ipv6_address,omitempty"`
	IPv6Up          bool          `json:"ipv6_up,omitempty"`
	PrefixBound     bool          `json:"prefix_bound,omitempty"`
	V6UpOctets      uint64        `json:"v6_up_octets,omitempty"`
	V6DownOctets    uint64        `json:"v6_down_octets,omitempty"`
	V6UpPackets     uint64        `json:"v6_up_packets,omitempty"`
	V6DownPackets   uint64        `json:"v6_down_packets,omitempty"`
}

// PoolView is one address pool and its use.
type PoolView struct {
	Name      string         `json:"name"`
	LineGroup string         `json:"line_group"`
	Prefixes  []netip.Prefix `json:"prefixes"`
	Size      int            `json:"size"` // usable addresses
	Used      int            `json:"used"`
}

// InstanceView is one DP instance as the control plane sees it.
type InstanceView struct {
	ID           uint32    `json:"id"`
	Name         string    `json:"name"`
	Address      string    `json:"address"`       // PFCP peer, address or address:port
	State        string    `json:"state"`         // e.g. associated, down
	RecoveryTime time.Time `json:"recovery_time"` // the DP's PFCP Recovery Time Stamp; zero: never associated
	Since        time.Time `json:"since"`         // when State was entered
	Sessions     int       `json:"sessions"`
	LCPOffload   bool      `json:"lcp_offload"`
	IPoE         bool      `json:"ipoe"`  // the DP announced IPoE (issue 19)
	IPoE6        bool      `json:"ipoe6"` // and took the default session's IPv6 dhcp class (dual stack over IPoE)
}

// GroupView is a line group and the DP instance serving it: the stated
// one (cp.yaml) unless ONOS moved it.
type GroupView struct {
	Name           string `json:"name"`
	StatedInstance uint32 `json:"stated_instance"`
	Instance       uint32 `json:"instance"` // serving now
	InstanceName   string `json:"instance_name"`
	Moved          bool   `json:"moved"` // Instance != StatedInstance
	Sessions       int    `json:"sessions"`
}

// Stats is the body of GET /v1/stats: counters grouped by subsystem, e.g.
// {"pppoe": {"padi": 10, ...}, "radius": {...}}. Values are numbers, strings,
// booleans or nested objects; bngcpctl prints them flattened with dots.
type Stats map[string]any

// ErrorBody is the body of every 4xx/5xx answer.
type ErrorBody struct {
	Error string `json:"error"`
}

// SessionFilter selects sessions in GET /v1/sessions. Zero fields match all.
type SessionFilter struct {
	Instance    uint32
	HasInstance bool
	User        string
	State       string
}

// Query returns the filter as URL query parameters.
func (f SessionFilter) Query() url.Values {
	q := url.Values{}
	if f.HasInstance {
		q.Set("instance", strconv.FormatUint(uint64(f.Instance), 10))
	}
	if f.User != "" {
		q.Set("user", f.User)
	}
	if f.State != "" {
		q.Set("state", f.State)
	}
	return q
}

// ParseSessionFilter is the server side of Query. Unknown parameters are an
// error, so that a typo does not silently list every session.
func ParseSessionFilter(q url.Values) (SessionFilter, error) {
	var f SessionFilter
	for k, v := range q {
		if len(v) != 1 {
			return f, fmt.Errorf("parameter %q given %d times", k, len(v))
		}
		switch k {
		case "instance":
			n, err := strconv.ParseUint(v[0], 10, 32)
			if err != nil {
				return f, fmt.Errorf("instance %q is not a number", v[0])
			}
			f.Instance, f.HasInstance = uint32(n), true
		case "user":
			f.User = v[0]
		case "state":
			f.State = v[0]
		default:
			return f, fmt.Errorf("unknown parameter %q", k)
		}
	}
	return f, nil
}

// Match reports whether s passes the filter.
func (f SessionFilter) Match(s *SessionView) bool {
	return (!f.HasInstance || s.Instance == f.Instance) &&
		(f.User == "" || s.User == f.User) &&
		(f.State == "" || s.State == f.State)
}

// WriteJSON answers with status and v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// WriteError answers with status and {"error": msg}.
func WriteError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(ErrorBody{Error: msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
