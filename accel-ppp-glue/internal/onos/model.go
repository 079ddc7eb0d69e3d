// Package onos is bng-cp's client of the ONOS bngpod application's REST API
// (docs/cp/onos.md, Contract B): it reports sessions and instance health
// and reads the line-group placement.
package onos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"
)

// Session is a session as ONOS gets it.
type Session struct {
	ID         string    `json:"id"` // Acct-Session-Id
	LineGroup  string    `json:"lineGroup"`
	Instance   uint32    `json:"instance"`
	AccessPort string    `json:"accessPort"`
	STag       uint16    `json:"stag"`
	CTag       uint16    `json:"ctag"`
	PPPoEID    uint16    `json:"pppoeId"`
	MAC        string    `json:"mac"`
	IPv4       string    `json:"ipv4,omitempty"` // optional: ONOS refuses "" and non-addresses
	Username   string    `json:"username"`
	QosProfile string    `json:"qosProfile,omitempty"` // optional: ONOS refuses "" (not a name)
	DownRate   uint64    `json:"downRate,omitempty"`   // RADIUS/CoA rate, bit/s; left out: the profile's
	UpRate     uint64    `json:"upRate,omitempty"`     // (upstream policer peak)
	Since      time.Time `json:"since"`
	Usage      Usage     `json:"usage"`
	Cause      string    `json:"cause,omitempty"` // Acct-Terminate-Cause name, "down" only
	// IPv6 (contract B additions, issue 15), each left out when the session
	// has none: its /64, its delegated prefix, its IA_NA address
	IPv6Prefix      string `json:"ipv6Prefix,omitempty"`
	DelegatedPrefix string `json:"delegatedPrefix,omitempty"`
	IPv6Address     string `json:"ipv6Address,omitempty"`
}

// Usage is a session's totals since it started, and when the DP measured
// them (the end of its last usage report; at establishment, the totals'
// zero): ONOS divides the difference of two readings by the time between
// them for the session's traffic rate. At is left out when unknown.
type Usage struct {
	UpBytes     uint64     `json:"upBytes"`
	DownBytes   uint64     `json:"downBytes"`
	UpPackets   uint64     `json:"upPackets"`
	DownPackets uint64     `json:"downPackets"`
	At          *time.Time `json:"at,omitempty"`
	// The IPv6 share of the totals above (left out for a session without IPv6)
	V6UpBytes     uint64 `json:"v6UpBytes,omitempty"`
	V6DownBytes   uint64 `json:"v6DownBytes,omitempty"`
	V6UpPackets   uint64 `json:"v6UpPackets,omitempty"`
	V6DownPackets uint64 `json:"v6DownPackets,omitempty"`
	// The session's packets the DP dropped (both families; its usage reports'
	// bngpod Dropped Packets IE), their octets (IP packets, as upBytes; 0 from
	// a DP that reports packets only), and its PPPoE/PPP control frames the CP
	// received and sent (contract B additions, issue 16)
	UpDropPackets   uint64 `json:"upDropPackets"`
	DownDropPackets uint64 `json:"downDropPackets"`
	UpDropBytes     uint64 `json:"upDropBytes"`
	DownDropBytes   uint64 `json:"downDropBytes"`
	ControlPackets  uint64 `json:"controlPackets"`
}

// Event kinds.
const (
	EventUp     = "up"
	EventUpdate = "update"
	EventDown   = "down"
)

// Event is one session event.
type Event struct {
	Event   string  `json:"event"`
	Session Session `json:"session"`
}

type eventsBody struct {
	CP     string  `json:"cp"`
	Events []Event `json:"events"`
}

type sessionsBody struct {
	Sessions []Session `json:"sessions"`
}

type healthBody struct {
	CP     string `json:"cp"`
	Alive  bool   `json:"alive"`
	Reason string `json:"reason"`
}

// Placement is ONOS's answer to GET /placement.
type Placement struct {
	Version   int64
	Groups    []GroupPlacement
	Instances []InstanceState
}

// GroupPlacement is where ONOS places one line group.
type GroupPlacement struct {
	LineGroup string
	Instance  uint32 // 0: unplaced
	Placed    bool
	Reason    string
}

// InstanceState is a DP instance as ONOS sees it.
type InstanceState struct {
	ID        uint32
	Name      string
	Available bool
}

// Limits on what DecodePlacement accepts.
const (
	MaxPlacementBody = 4 << 20
	maxGroups        = 65536
	maxInstances     = 65536
	maxReason        = 1024
	maxInstanceID    = 1<<24 - 1
)

// ErrBadPlacement wraps every reason DecodePlacement rejects a body.
var ErrBadPlacement = errors.New("onos: bad placement")

var reName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

type wirePlacement struct {
	Version   *json.Number `json:"version"`
	Groups    []*wireGroup `json:"groups"`
	Instances []*wireInst  `json:"instances"`
}

type wireGroup struct {
	LineGroup *string          `json:"lineGroup"`
	Instance  *json.RawMessage `json:"instance"`
	State     *string          `json:"state"`
	Reason    string           `json:"reason"`
}

type wireInst struct {
	ID        *json.Number `json:"id"`
	Name      string       `json:"name"`
	Available bool         `json:"available"`
}

func badf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBadPlacement}, args...)...)
}

// DecodePlacement decodes and checks a GET /placement body. Unknown fields
// are ignored (Contract B); anything else malformed is an error naming the
// field, and nothing of the body is used then.
func DecodePlacement(b []byte) (*Placement, error) {
	if len(b) > MaxPlacementBody {
		return nil, badf("body larger than %d bytes", MaxPlacementBody)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var w wirePlacement
	if err := dec.Decode(&w); err != nil {
		return nil, badf("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badf("data after the JSON object")
	}
	if w.Version == nil {
		return nil, badf("version missing")
	}
	v, err := w.Version.Int64()
	if err != nil || v < 0 {
		return nil, badf("version %q is not a non-negative integer", w.Version.String())
	}
	if len(w.Groups) > maxGroups || len(w.Instances) > maxInstances {
		return nil, badf("too many groups or instances")
	}
	p := &Placement{Version: v}
	seen := make(map[string]bool, len(w.Groups))
	for i, g := range w.Groups {
		if g == nil {
			return nil, badf("groups[%d] is null", i)
		}
		if g.LineGroup == nil || !reName.MatchString(*g.LineGroup) {
			return nil, badf("groups[%d].lineGroup missing or not a line-group name", i)
		}
		if seen[*g.LineGroup] {
			return nil, badf("groups[%d].lineGroup %q given twice", i, *g.LineGroup)
		}
		seen[*g.LineGroup] = true
		gp := GroupPlacement{LineGroup: *g.LineGroup, Reason: g.Reason}
		if len(gp.Reason) > maxReason {
			gp.Reason = gp.Reason[:maxReason]
		}
		if g.State == nil {
			return nil, badf("groups[%d].state missing", i)
		}
		var inst *uint32
		if g.Instance != nil && string(*g.Instance) != "null" {
			id, err := instanceID(*g.Instance)
			if err != nil {
				return nil, badf("groups[%d].instance: %v", i, err)
			}
			inst = &id
		}
		switch *g.State {
		case "placed":
			if inst == nil {
				return nil, badf("groups[%d]: state placed without an instance", i)
			}
			gp.Placed, gp.Instance = true, *inst
		case "unplaced":
			if inst != nil {
				return nil, badf("groups[%d]: state unplaced with instance %d", i, *inst)
			}
		default:
			return nil, badf("groups[%d].state %q is neither placed nor unplaced", i, *g.State)
		}
		p.Groups = append(p.Groups, gp)
	}
	for i, in := range w.Instances {
		if in == nil || in.ID == nil {
			return nil, badf("instances[%d].id missing", i)
		}
		id, err := instanceID(json.RawMessage(in.ID.String()))
		if err != nil {
			return nil, badf("instances[%d].id: %v", i, err)
		}
		p.Instances = append(p.Instances, InstanceState{ID: id, Name: in.Name, Available: in.Available})
	}
	return p, nil
}

func instanceID(raw json.RawMessage) (uint32, error) {
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		return 0, fmt.Errorf("not a number")
	}
	v, err := n.Int64()
	if err != nil || v < 1 || v > maxInstanceID {
		return 0, fmt.Errorf("%q is not an instance id (1..%d)", n.String(), maxInstanceID)
	}
	return uint32(v), nil
}
