package v6ctl

import (
	"bytes"
	"encoding/binary"
	"net/netip"
)

// DHCPv6 message types (RFC 8415 7.3).
const (
	msgSolicit   = 1
	msgAdvertise = 2
	msgRequest   = 3
	msgConfirm   = 4
	msgRenew     = 5
	msgRebind    = 6
	msgReply     = 7
	msgRelease   = 8
	msgDecline   = 9
	msgInfoReq   = 11
)

// DHCPv6 options (RFC 8415 21, RFC 3646).
const (
	optClientID    = 1
	optServerID    = 2
	optIANA        = 3
	optIATA        = 4
	optIAAddr      = 5
	optORO         = 6
	optPreference  = 7
	optStatus      = 13
	optRapidCommit = 14
	optDNS         = 23
	optIAPD        = 25
	optIAPrefix    = 26
)

// Status codes (RFC 8415 21.13).
const (
	statusSuccess       = 0
	statusNoAddrsAvail  = 2
	statusNoBinding     = 3
	statusNoPrefixAvail = 6
)

const (
	maxOptions = 64  // per message: more is no client's
	maxDUIDLen = 130 // RFC 8415 11.1: 128 octets of DUID + the type
	maxIAs     = 8   // IA_PD + IA_NA per message: the reply stays far below the MTU
)

type option struct {
	code uint16
	data []byte
}

// message is a parsed client message.
type message struct {
	typ      uint8
	xid      [3]byte
	opts     []option
	clientID []byte
	serverID []byte
	hasSID   bool
	rapid    bool
	wantDNS  bool
	iaPD     []uint32 // IAIDs in order
	iaNA     []uint32
	iaTA     bool
	pdPrefix []netip.Prefix // IA_PREFIX options inside IA_PDs (Renew/Rebind)
}

func parseOptions(b []byte) ([]option, bool) {
	var out []option
	for len(b) > 0 {
		if len(b) < 4 || len(out) >= maxOptions {
			return nil, false
		}
		n := int(binary.BigEndian.Uint16(b[2:]))
		if 4+n > len(b) {
			return nil, false
		}
		out = append(out, option{binary.BigEndian.Uint16(b), b[4 : 4+n]})
		b = b[4+n:]
	}
	return out, true
}

// parseMessage decodes a client message; "" or a drop reason.
func parseMessage(b []byte) (*message, string) {
	if len(b) < 4 {
		return nil, "dhcp6_short"
	}
	m := &message{typ: b[0]}
	copy(m.xid[:], b[1:4])
	opts, ok := parseOptions(b[4:])
	if !ok {
		return nil, "dhcp6_malformed"
	}
	m.opts = opts
	for _, o := range opts {
		switch o.code {
		case optClientID:
			if m.clientID != nil || len(o.data) < 2 || len(o.data) > maxDUIDLen {
				return nil, "dhcp6_malformed"
			}
			m.clientID = o.data
		case optServerID:
			if m.hasSID || len(o.data) < 2 || len(o.data) > maxDUIDLen {
				return nil, "dhcp6_malformed"
			}
			m.serverID, m.hasSID = o.data, true
		case optRapidCommit:
			m.rapid = true
		case optORO:
			if len(o.data)%2 != 0 {
				return nil, "dhcp6_malformed"
			}
			for i := 0; i < len(o.data); i += 2 {
				if binary.BigEndian.Uint16(o.data[i:]) == optDNS {
					m.wantDNS = true
				}
			}
		case optIAPD:
			if len(o.data) < 12 {
				return nil, "dhcp6_malformed"
			}
			m.iaPD = append(m.iaPD, binary.BigEndian.Uint32(o.data))
			sub, ok := parseOptions(o.data[12:])
			if !ok {
				return nil, "dhcp6_malformed"
			}
			for _, so := range sub {
				if so.code == optIAPrefix && len(so.data) >= 25 && so.data[8] <= 128 {
					p := netip.PrefixFrom(netip.AddrFrom16([16]byte(so.data[9:25])), int(so.data[8]))
					m.pdPrefix = append(m.pdPrefix, p)
				}
			}
		case optIANA:
			if len(o.data) < 12 {
				return nil, "dhcp6_malformed"
			}
			if _, ok := parseOptions(o.data[12:]); !ok {
				return nil, "dhcp6_malformed"
			}
			m.iaNA = append(m.iaNA, binary.BigEndian.Uint32(o.data))
		case optIATA:
			m.iaTA = true
		}
	}
	if len(m.iaPD)+len(m.iaNA) > maxIAs {
		return nil, "dhcp6_too_many_ias"
	}
	return m, ""
}

// udp handles a UDP packet: DHCPv6 to the server port.
func (srv *Server) udp(s *Session, h ipv6) Result {
	p := h.payload
	if len(p) < 8 {
		return drop("udp_short")
	}
	n := int(binary.BigEndian.Uint16(p[4:]))
	if n < 8 || n > len(p) {
		return drop("udp_malformed")
	}
	p = p[:n]
	if binary.BigEndian.Uint16(p[6:]) == 0 || checksum(h.src, h.dst, protoUDP, p) != 0 {
		return drop("udp_checksum")
	}
	if binary.BigEndian.Uint16(p[2:]) != portServer || binary.BigEndian.Uint16(p[0:]) != portClient {
		return drop("udp_not_dhcp6")
	}
	if !h.src.IsLinkLocalUnicast() || (h.dst != allDHCPAgents && h.dst != LinkLocal(s.OurIID)) {
		return drop("dhcp6_scope")
	}
	m, bad := parseMessage(p[8:])
	if bad != "" {
		return drop(bad)
	}
	reply, kind, changed, bad := srv.dhcp(s, m)
	if bad != "" {
		return drop(bad)
	}
	udp := make([]byte, 8, 8+len(reply))
	binary.BigEndian.PutUint16(udp[0:], portServer)
	binary.BigEndian.PutUint16(udp[2:], portClient)
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(reply)))
	udp = append(udp, reply...)
	return Result{Reply: buildIPv6(LinkLocal(s.OurIID), h.src, protoUDP, 255, udp, 6), Kind: kind, Changed: changed}
}

// dhcp runs the server (RFC 8415 18.3) for one message.
func (srv *Server) dhcp(s *Session, m *message) (reply []byte, kind string, changed bool, drop string) {
	ours := m.hasSID && bytes.Equal(m.serverID, srv.DUID)
	switch m.typ {
	case msgSolicit, msgRebind:
		if m.clientID == nil || m.hasSID {
			return nil, "", false, "dhcp6_invalid"
		}
	case msgRequest, msgRenew, msgRelease:
		if m.clientID == nil || !m.hasSID {
			return nil, "", false, "dhcp6_invalid"
		}
		if !ours {
			return nil, "", false, "dhcp6_not_for_us"
		}
	case msgInfoReq:
		if (m.hasSID && !ours) || len(m.iaPD) > 0 || len(m.iaNA) > 0 || m.iaTA {
			return nil, "", false, "dhcp6_invalid"
		}
	case msgConfirm, msgDecline:
		// Confirm: we may stay silent (18.3.3); Decline of an address is
		// not expected on a point-to-point link.
		return nil, "", false, "dhcp6_unsupported"
	default:
		return nil, "", false, "dhcp6_not_client"
	}
	typ, kind := uint8(msgReply), "reply"
	if m.typ == msgSolicit && !m.rapid {
		typ, kind = msgAdvertise, "advertise"
	}
	out := []byte{typ, m.xid[0], m.xid[1], m.xid[2]}
	out = appendOpt(out, optServerID, srv.DUID)
	if m.clientID != nil {
		out = appendOpt(out, optClientID, m.clientID)
	}
	b := &s.Binding
	same := func(iaid uint32, bound bool, bid uint32) bool {
		return bound && bid == iaid && bytes.Equal(b.ClientID, m.clientID)
	}
	switch m.typ {
	case msgSolicit, msgRequest:
		commit := m.typ == msgRequest || m.rapid
		nb := Binding{ClientID: append([]byte(nil), m.clientID...)}
		for i, iaid := range m.iaPD {
			if i == 0 && s.PD.IsValid() {
				out = appendIAPD(out, iaid, s.PD, ValidLifetime, PreferredLifetime)
				nb.PDIAID, nb.PDBound = iaid, true
			} else {
				out = appendIAStatus(out, optIAPD, iaid, statusNoPrefixAvail, "no prefix available")
			}
		}
		for i, iaid := range m.iaNA {
			if i == 0 && s.IANA.IsValid() {
				out = appendIANA(out, iaid, s.IANA, ValidLifetime, PreferredLifetime)
				nb.NAIAID, nb.NABound = iaid, true
			} else {
				out = appendIAStatus(out, optIANA, iaid, statusNoAddrsAvail, "no address available")
			}
		}
		if m.rapid && m.typ == msgSolicit {
			out = appendOpt(out, optRapidCommit, nil)
		}
		if typ == msgAdvertise {
			out = appendOpt(out, optPreference, []byte{255})
		}
		if commit && (nb.PDBound || nb.NABound) && !bindingEqual(*b, nb) {
			*b, changed = nb, true
		}
	case msgRenew, msgRebind:
		for _, iaid := range m.iaPD {
			adopt := !b.PDBound && s.PD.IsValid() && containsPrefix(m.pdPrefix, s.PD)
			if same(iaid, b.PDBound, b.PDIAID) || adopt {
				out = appendIAPD(out, iaid, s.PD, ValidLifetime, PreferredLifetime)
				if adopt {
					b.ClientID, b.PDIAID, b.PDBound, changed = append([]byte(nil), m.clientID...), iaid, true, true
				}
			} else {
				out = appendIAStatus(out, optIAPD, iaid, statusNoBinding, "no binding")
			}
		}
		for _, iaid := range m.iaNA {
			if same(iaid, b.NABound, b.NAIAID) && s.IANA.IsValid() {
				out = appendIANA(out, iaid, s.IANA, ValidLifetime, PreferredLifetime)
			} else {
				out = appendIAStatus(out, optIANA, iaid, statusNoBinding, "no binding")
			}
		}
	case msgRelease:
		for _, iaid := range m.iaPD {
			if same(iaid, b.PDBound, b.PDIAID) {
				b.PDBound, b.PDIAID, changed = false, 0, true
			}
		}
		for _, iaid := range m.iaNA {
			if same(iaid, b.NABound, b.NAIAID) {
				b.NABound, b.NAIAID, changed = false, 0, true
			}
		}
		if !b.PDBound && !b.NABound {
			b.ClientID = nil
		}
		out = appendStatus(out, statusSuccess, "released")
	}
	if (m.wantDNS || m.typ == msgInfoReq) && len(s.DNS) > 0 {
		var d []byte
		for _, a := range s.DNS {
			x := a.As16()
			d = append(d, x[:]...)
		}
		out = appendOpt(out, optDNS, d)
	}
	return out, kind, changed, ""
}

func bindingEqual(a, b Binding) bool {
	return bytes.Equal(a.ClientID, b.ClientID) && a.PDIAID == b.PDIAID && a.PDBound == b.PDBound &&
		a.NAIAID == b.NAIAID && a.NABound == b.NABound
}

func containsPrefix(list []netip.Prefix, p netip.Prefix) bool {
	for _, q := range list {
		if q == p {
			return true
		}
	}
	return false
}

func appendOpt(b []byte, code uint16, data []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, code)
	b = binary.BigEndian.AppendUint16(b, uint16(len(data)))
	return append(b, data...)
}

func statusData(code uint16, msg string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, code), msg...)
}

func appendStatus(b []byte, code uint16, msg string) []byte {
	return appendOpt(b, optStatus, statusData(code, msg))
}

func iaHead(iaid, t1, t2 uint32) []byte {
	h := binary.BigEndian.AppendUint32(nil, iaid)
	h = binary.BigEndian.AppendUint32(h, t1)
	return binary.BigEndian.AppendUint32(h, t2)
}

func appendIAPD(b []byte, iaid uint32, p netip.Prefix, valid, preferred uint32) []byte {
	ia := iaHead(iaid, T1, T2)
	pfx := binary.BigEndian.AppendUint32(nil, preferred)
	pfx = binary.BigEndian.AppendUint32(pfx, valid)
	pfx = append(pfx, byte(p.Bits()))
	a := p.Addr().As16()
	pfx = append(pfx, a[:]...)
	ia = appendOpt(ia, optIAPrefix, pfx)
	return appendOpt(b, optIAPD, ia)
}

func appendIANA(b []byte, iaid uint32, addr netip.Addr, valid, preferred uint32) []byte {
	ia := iaHead(iaid, T1, T2)
	a := addr.As16()
	ad := append([]byte(nil), a[:]...)
	ad = binary.BigEndian.AppendUint32(ad, preferred)
	ad = binary.BigEndian.AppendUint32(ad, valid)
	ia = appendOpt(ia, optIAAddr, ad)
	return appendOpt(b, optIANA, ia)
}

func appendIAStatus(b []byte, code uint16, iaid uint32, status uint16, msg string) []byte {
	ia := appendOpt(iaHead(iaid, 0, 0), optStatus, statusData(status, msg))
	return appendOpt(b, code, ia)
}
