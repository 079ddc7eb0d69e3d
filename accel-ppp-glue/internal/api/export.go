package api

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
)

// ExportedSession is one session as the line-rate tools take it (bngcpctl
// sessions --export; tests/linerate/profiles): everything a traffic
// generator needs to send a session's frames and to expect them back.
// JSON and CSV carry the same fields under the same names.
type ExportedSession struct {
	ID              string `json:"id"`
	Kind            string `json:"kind"` // pppoe or ipoe
	User            string `json:"user"`
	Instance        uint32 `json:"instance"`
	LineGroup       string `json:"line_group"`
	Port            string `json:"port"`
	TPID            uint16 `json:"tpid"` // the access port's outer TPID (downstream)
	STag            uint16 `json:"stag"`
	CTag            uint16 `json:"ctag"`     // 0: single-tagged line
	PPPoEID         uint16 `json:"pppoe_id"` // 0 for IPoE
	MAC             string `json:"mac"`      // the subscriber's
	ACMAC           string `json:"ac_mac"`   // the line group's: the subscriber's gateway
	Address         string `json:"address"`  // IPv4, "" before IPCP
	IPv6Prefix      string `json:"ipv6_prefix"`
	DelegatedPrefix string `json:"delegated_prefix"`
	QosProfile      string `json:"qos_profile"`
	RateDown        uint64 `json:"rate_down"` // bit/s, 0: the profile's
	RateUp          uint64 `json:"rate_up"`
}

// ExportColumns are the CSV columns, in order (the JSON names).
var ExportColumns = []string{"id", "kind", "user", "instance", "line_group", "port", "tpid", "stag", "ctag",
	"pppoe_id", "mac", "ac_mac", "address", "ipv6_prefix", "delegated_prefix", "qos_profile", "rate_down", "rate_up"}

// Export turns session views into export records.
func Export(list []SessionView) []ExportedSession {
	out := make([]ExportedSession, 0, len(list))
	for i := range list {
		s := &list[i]
		e := ExportedSession{ID: s.ID, Kind: s.Kind, User: s.User, Instance: s.Instance, LineGroup: s.LineGroup,
			Port: s.AccessPort, TPID: s.TPID, STag: s.STag, CTag: s.CTag, PPPoEID: s.PPPoESessionID, MAC: s.MAC,
			ACMAC: s.ACMAC, QosProfile: s.QosProfile, RateDown: s.RateDown, RateUp: s.RateUp}
		if e.Kind == "" {
			e.Kind = "pppoe"
		}
		if s.IPv4.IsValid() {
			e.Address = s.IPv4.String()
		}
		if s.IPv6Prefix != nil {
			e.IPv6Prefix = s.IPv6Prefix.String()
		}
		if s.DelegatedPrefix != nil {
			e.DelegatedPrefix = s.DelegatedPrefix.String()
		}
		out = append(out, e)
	}
	return out
}

func (e *ExportedSession) row() []string {
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	return []string{e.ID, e.Kind, e.User, u(uint64(e.Instance)), e.LineGroup, e.Port, u(uint64(e.TPID)),
		u(uint64(e.STag)), u(uint64(e.CTag)), u(uint64(e.PPPoEID)), e.MAC, e.ACMAC, e.Address, e.IPv6Prefix,
		e.DelegatedPrefix, e.QosProfile, u(e.RateDown), u(e.RateUp)}
}

// WriteExport writes list as "json" (an indented list) or "csv" (a header
// line of ExportColumns, then one row per session).
func WriteExport(w io.Writer, format string, list []ExportedSession) error {
	switch format {
	case "json":
		if list == nil {
			list = []ExportedSession{}
		}
		b, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(ExportColumns); err != nil {
			return err
		}
		for i := range list {
			if err := cw.Write(list[i].row()); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("export format %q: want json or csv", format)
}

// ReadExport reads what WriteExport wrote, and checks every record (an
// export is handed between tools and labs: it is outside input).
func ReadExport(r io.Reader, format string) ([]ExportedSession, error) {
	var list []ExportedSession
	switch format {
	case "json":
		dec := json.NewDecoder(r)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&list); err != nil {
			return nil, fmt.Errorf("session export: %w", err)
		}
	case "csv":
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = len(ExportColumns)
		head, err := cr.Read()
		if err != nil {
			return nil, fmt.Errorf("session export: header: %w", err)
		}
		for i, c := range ExportColumns {
			if head[i] != c {
				return nil, fmt.Errorf("session export: column %d is %q, want %q", i+1, head[i], c)
			}
		}
		for line := 2; ; line++ {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("session export: %w", err)
			}
			e, err := fromRow(rec)
			if err != nil {
				return nil, fmt.Errorf("session export: line %d: %w", line, err)
			}
			list = append(list, e)
		}
	default:
		return nil, fmt.Errorf("export format %q: want json or csv", format)
	}
	for i := range list {
		if err := list[i].check(); err != nil {
			return nil, fmt.Errorf("session export: session %d: %w", i, err)
		}
	}
	return list, nil
}

func fromRow(r []string) (ExportedSession, error) {
	var bad error
	num := func(col int, bits int) uint64 {
		v, err := strconv.ParseUint(r[col], 10, bits)
		if err != nil && bad == nil {
			bad = fmt.Errorf("%s %q: want a number below 2^%d", ExportColumns[col], r[col], bits)
		}
		return v
	}
	e := ExportedSession{ID: r[0], Kind: r[1], User: r[2], Instance: uint32(num(3, 32)), LineGroup: r[4],
		Port: r[5], TPID: uint16(num(6, 16)), STag: uint16(num(7, 16)), CTag: uint16(num(8, 16)),
		PPPoEID: uint16(num(9, 16)), MAC: r[10], ACMAC: r[11], Address: r[12], IPv6Prefix: r[13],
		DelegatedPrefix: r[14], QosProfile: r[15], RateDown: num(16, 64), RateUp: num(17, 64)}
	return e, bad
}

// check refuses what no session of bng-cp can be.
func (e *ExportedSession) check() error {
	switch e.Kind {
	case "pppoe":
		if e.PPPoEID == 0 || e.PPPoEID == 0xffff {
			return fmt.Errorf("PPPoE session id %d", e.PPPoEID)
		}
	case "ipoe":
		if e.PPPoEID != 0 {
			return fmt.Errorf("an IPoE session with PPPoE session id %d", e.PPPoEID)
		}
	default:
		return fmt.Errorf("kind %q: want pppoe or ipoe", e.Kind)
	}
	if e.Port == "" {
		return errors.New("no port")
	}
	if e.TPID != 0 && e.TPID != 0x8100 && e.TPID != 0x88a8 {
		return fmt.Errorf("TPID %#04x", e.TPID)
	}
	if e.STag == 0 || e.STag > 4094 || e.CTag > 4094 {
		return fmt.Errorf("tags %d/%d", e.STag, e.CTag)
	}
	for _, m := range []struct{ name, v string }{{"mac", e.MAC}, {"ac_mac", e.ACMAC}} {
		if m.v == "" && m.name == "ac_mac" {
			continue // from a bng-cp that does not say
		}
		if hw, err := net.ParseMAC(m.v); err != nil || len(hw) != 6 {
			return fmt.Errorf("%s %q", m.name, m.v)
		}
	}
	if e.Address != "" {
		if a, err := netip.ParseAddr(e.Address); err != nil || !a.Is4() {
			return fmt.Errorf("address %q: want IPv4", e.Address)
		}
	}
	for _, p := range []struct{ name, v string }{{"ipv6_prefix", e.IPv6Prefix}, {"delegated_prefix", e.DelegatedPrefix}} {
		if p.v == "" {
			continue
		}
		if x, err := netip.ParsePrefix(p.v); err != nil || !x.Addr().Is6() {
			return fmt.Errorf("%s %q: want an IPv6 prefix", p.name, p.v)
		}
	}
	return nil
}
