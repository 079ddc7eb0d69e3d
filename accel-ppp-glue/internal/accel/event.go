package accel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Kind is what an event asks of the glue.
type Kind uint8

// Event kinds.
const (
	Ignore Kind = iota // a known event the glue has no use for
	Up                 // install the session into its DP instance
	Down               // remove it (final usage, accounting stop)
	Change             // its attributes changed (CoA, shaper): modify it
)

func (k Kind) String() string {
	return [...]string{"ignore", "up", "down", "change"}[k]
}

// Event is one session event of accel-ppp, from either source.
type Event struct {
	Kind     Kind
	Name     string // the source's name: "session-acct-start", "ip-pre-up", ...
	SID      string // accel-ppp's session id (its Acct-Session-Id); "" from pppd-compat
	PPPIf    string // the PPP unit (pppd-compat), e.g. ppp3
	CtrlIf   string // the interface the session came in on: vx<inst>.<S>.<C>
	MAC      [6]byte
	HasMAC   bool
	IPv4     netip.Addr // the subscriber's address (invalid when not given)
	PPPoESID uint16     // 0 = not given (upstream accel-ppp)
	Username string
	Final    *Counters // pppd-compat ip-down: accel-ppp's own counters (of its kernel unit)
}

// Counters are pppd-compat's end-of-session environment.
type Counters struct {
	ConnectTime                                    uint64
	BytesSent, BytesRcvd, PacketsSent, PacketsRcvd uint64
}

// ErrEvent is the class of every refused event; errors.Is(err, ErrEvent).
var ErrEvent = errors.New("accel: bad event")

// Reason is the counter label of a refused event (a short, fixed string).
func Reason(err error) string {
	var e *eventError
	if errors.As(err, &e) {
		return e.reason
	}
	return "other"
}

type eventError struct {
	reason, detail string
}

func (e *eventError) Error() string { return "accel: bad event: " + e.reason + ": " + e.detail }
func (e *eventError) Is(t error) bool {
	return t == ErrEvent
}

func bad(reason, format string, args ...any) error {
	return &eventError{reason: reason, detail: fmt.Sprintf(format, args...)}
}

// MaxEventSize bounds one redis message and one hook request.
const MaxEventSize = 8 << 10

// redisEvents maps the fork's event names (redis.c ap_redis_dequeue) to kinds.
var redisEvents = map[string]Kind{
	"session-acct-start":   Up,
	"session-pre-finished": Down,
	"session-finished":     Down,
	"coa":                  Change,
	// after ip-pre-up time: pppd-compat's radattr file (loaded beside the redis module for
	// it) has the session's attributes only from then on
	"session-started": Change,
	"ip-changed":      Change,
	"shaper":          Change,
	// known, of no use to the glue
	"session-starting": Ignore, "session-finishing": Ignore,
	"session-authorized": Ignore, "control-starting": Ignore, "control-started": Ignore,
	"control-finished": Ignore, "session-pre-up": Ignore, "config-reload": Ignore,
	"session-auth-failed": Ignore, "mppe-keys": Ignore, "dns": Ignore, "wins": Ignore,
	"force-interim-update": Ignore, "radius-access-accept": Ignore, "register": Ignore,
	"deregister": Ignore,
}

type redisMsg struct {
	Event            *string `json:"event"`
	CtrlType         *string `json:"ctrl_type"`
	SessionID        *string `json:"session_id"`
	CallingStationID *string `json:"calling_station_id"`
	Username         *string `json:"username"`
	IPAddr           *string `json:"ip_addr"`
	PPPoESessionID   *int64  `json:"pppoe_sessionid"`
	CtrlIfname       *string `json:"ctrl_ifname"`
}

// ParseRedis decodes one message the fork's redis module PUBLISHes: a JSON
// object (json-c's output) with at least "event". The fields an event kind
// needs must be there and well formed: Up needs session_id, ctrl_type
// "pppoe", ctrl_ifname, calling_station_id (a MAC), ip_addr (IPv4) and
// pppoe_sessionid (1..65534); Down and Change need session_id.
func ParseRedis(b []byte) (Event, error) {
	var ev Event
	if len(b) > MaxEventSize {
		return ev, bad("too_long", "%d bytes", len(b))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m redisMsg
	if err := dec.Decode(&m); err != nil {
		return ev, bad("json", "%v", err)
	}
	if dec.More() {
		return ev, bad("json", "data after the object")
	}
	if m.Event == nil {
		return ev, bad("no_event", "no \"event\"")
	}
	kind, ok := redisEvents[*m.Event]
	if !ok {
		return ev, bad("unknown_event", "%q", clip(*m.Event))
	}
	ev.Kind, ev.Name = kind, *m.Event
	if kind == Ignore {
		return ev, nil
	}
	if m.SessionID == nil || !validSID(*m.SessionID) {
		return ev, bad("session_id", "missing or not an accel-ppp session id")
	}
	ev.SID = *m.SessionID
	if m.Username != nil {
		ev.Username = clip(*m.Username)
	}
	if m.CtrlIfname != nil {
		ev.CtrlIf = *m.CtrlIfname
	}
	if m.CallingStationID != nil {
		if mac, err := parseMAC(*m.CallingStationID); err == nil {
			ev.MAC, ev.HasMAC = mac, true
		}
	}
	if m.IPAddr != nil && *m.IPAddr != "" {
		if a, err := netip.ParseAddr(*m.IPAddr); err == nil && a.Is4() {
			ev.IPv4 = a
		}
	}
	if m.PPPoESessionID != nil && *m.PPPoESessionID >= 1 && *m.PPPoESessionID <= 0xfffe {
		ev.PPPoESID = uint16(*m.PPPoESessionID)
	}
	if kind != Up {
		return ev, nil
	}
	switch {
	case m.CtrlType == nil || *m.CtrlType != "pppoe":
		return ev, bad("not_pppoe", "ctrl_type %v", strOrNil(m.CtrlType))
	case ev.CtrlIf == "":
		return ev, bad("ctrl_ifname", "missing")
	case !ev.HasMAC:
		return ev, bad("calling_station_id", "%v is not a MAC", strOrNil(m.CallingStationID))
	case !ev.IPv4.IsValid():
		return ev, bad("ip_addr", "%v is not an IPv4 address", strOrNil(m.IPAddr))
	case ev.PPPoESID == 0:
		return ev, bad("pppoe_sessionid", "missing or outside 1..65534")
	}
	return ev, nil
}

// hookKinds maps the pppd-compat scripts to kinds: the session is installed
// at ip-pre-up (accel-ppp waits for it and terminates the session when it
// fails), removed at ip-down, modified at ip-change (RADIUS CoA).
var hookKinds = map[string]Kind{"ip-pre-up": Up, "ip-up": Ignore, "ip-down": Down, "ip-change": Change}

// ParseHook decodes a pppd-compat script call: the script's name, its
// arguments after argv[0] (ifname, "none", "0", local address, peer address,
// Calling-Station-Id: pppd_compat.c fill_argv) and its environment.
func ParseHook(script string, args []string, env map[string]string) (Event, error) {
	var ev Event
	kind, ok := hookKinds[script]
	if !ok {
		return ev, bad("unknown_script", "%q", clip(script))
	}
	ev.Kind, ev.Name = kind, script
	if len(args) != 6 {
		return ev, bad("args", "%d arguments, pppd-compat passes 6", len(args))
	}
	if !validIfname(args[0]) {
		return ev, bad("ifname", "%q", clip(args[0]))
	}
	ev.PPPIf = args[0]
	if a, err := netip.ParseAddr(args[4]); err == nil && a.Is4() && !a.IsUnspecified() {
		ev.IPv4 = a
	}
	csid := args[5]
	if v, ok := env["CALLING_SID"]; ok && v != csid {
		return ev, bad("calling_sid", "argument %q and CALLING_SID %q differ", clip(csid), clip(v))
	}
	if mac, err := parseMAC(csid); err == nil {
		ev.MAC, ev.HasMAC = mac, true
	}
	ev.CtrlIf = env["CALLED_SID"]
	ev.Username = clip(env["PEERNAME"])
	if _, ok := env["CONNECT_TIME"]; ok {
		var c Counters
		for name, p := range map[string]*uint64{"CONNECT_TIME": &c.ConnectTime, "BYTES_SENT": &c.BytesSent,
			"BYTES_RCVD": &c.BytesRcvd, "PACKETS_SENT": &c.PacketsSent, "PACKETS_RCVD": &c.PacketsRcvd} {
			v, err := strconv.ParseUint(env[name], 10, 64)
			if err != nil {
				return ev, bad("counters", "%s=%q", name, clip(env[name]))
			}
			*p = v
		}
		ev.Final = &c
	}
	if kind == Up {
		switch {
		case !validIfname(ev.CtrlIf):
			return ev, bad("called_sid", "CALLED_SID %q is not an interface name (called-sid=ifname)", clip(ev.CtrlIf))
		case !ev.HasMAC:
			return ev, bad("calling_station_id", "%q is not a MAC", clip(csid))
		case !ev.IPv4.IsValid():
			return ev, bad("ip_addr", "peer address %q", clip(args[4]))
		}
	}
	return ev, nil
}

// parseMAC takes accel-ppp's Calling-Station-Id of a PPPoE session: six
// colon-separated hex octets (lower case, or upper with sid-uppercase).
func parseMAC(s string) ([6]byte, error) {
	var mac [6]byte
	if len(s) != 17 {
		return mac, fmt.Errorf("not a MAC")
	}
	hw, err := net.ParseMAC(s)
	if err != nil || len(hw) != 6 || strings.Count(s, ":") != 5 {
		return mac, fmt.Errorf("not a MAC")
	}
	copy(mac[:], hw)
	return mac, nil
}

// validSID: accel-ppp's session ids are hex strings (16 digits by default).
func validSID(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// validIfname: a Linux interface name (IFNAMSIZ - 1 octets, no '/', ':' or space).
func validIfname(s string) bool {
	if len(s) == 0 || len(s) > 15 || s == "." || s == ".." {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || c == '/' || c == ':' {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strconv.Quote(s)[1 : len(strconv.Quote(s))-1]
}

func strOrNil(p *string) string {
	if p == nil {
		return "<none>"
	}
	return strconv.Quote(clip(*p))
}
