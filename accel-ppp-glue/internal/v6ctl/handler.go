package v6ctl

import (
	"encoding/binary"
	"net/netip"
	"time"
)

// Lifetimes of the prefixes the BNG hands out (RA Prefix Information and
// DHCPv6 IA_PD/IA_NA): valid one day, preferred four hours; DHCPv6 T1/T2 at
// 0.5 and 0.8 of the preferred lifetime (RFC 8415 21.4 recommends).
const (
	ValidLifetime     = 86400
	PreferredLifetime = 14400
	T1                = PreferredLifetime / 2
	T2                = PreferredLifetime * 4 / 5
)

// Session is what the handler knows of one PPPoE session's IPv6. The caller
// owns it; Handle updates Binding.
type Session struct {
	OurIID         uint64       // the BNG's link-local fe80::OurIID (IPv6CP)
	WAN            netip.Prefix // the session's /64 (RA); invalid: none
	PD             netip.Prefix // its delegated prefix (IA_PD); invalid: none
	IANA           netip.Addr   // its IA_NA address; invalid: IA_NA not offered
	DNS            []netip.Addr // RDNSS and option 23
	MTU            uint16       // RA MTU option; 0: none
	RouterLifetime uint16       // seconds
	Binding        Binding
	// SLLA: on Ethernet (an IPoE session, issue 19), the BNG's MAC: the RA
	// carries it as Source Link-Layer Address option, and an RS is answered
	// before the session has a /64 (an RA without Prefix Information, M and
	// O set, so that the CPE starts DHCPv6). nil on PPP.
	SLLA []byte
}

// Binding is the session's DHCPv6 client binding: who holds its delegated
// prefix and address (RFC 8415: a client DUID and the IAIDs of its IAs).
// A zero Binding is none.
type Binding struct {
	ClientID []byte `json:"client_id,omitempty"`
	PDIAID   uint32 `json:"pd_iaid,omitempty"`
	PDBound  bool   `json:"pd_bound,omitempty"`
	NAIAID   uint32 `json:"na_iaid,omitempty"`
	NABound  bool   `json:"na_bound,omitempty"`
}

// Result is what Handle made of a packet.
type Result struct {
	Reply []byte // IPv6 packet to send back (nil: none)
	Kind  string // what was answered: "ra", "na", "advertise", "reply"; or the drop reason
	Drop  bool
	// Changed: the Binding changed (bound by Request/Rapid Commit, released):
	// the caller persists it and tells accounting and the DP.
	Changed bool
}

func drop(reason string) Result { return Result{Kind: reason, Drop: true} }

// Server answers the IPv6 control packets of every session. Its DUID
// identifies the BNG to DHCPv6 clients; it must survive restarts so that
// Renews of bindings made before keep working.
type Server struct {
	DUID []byte
}

// NewDUID makes a DUID-EN (RFC 8415 11.3) of enterprise 32473 (RFC 5612's
// documentation number; bngpod's PFCP IEs use it too) and 8 octets of id.
func NewDUID(id [8]byte) []byte {
	d := []byte{0, 2, 0, 0, 0x7e, 0xd9}
	return append(d, id[:]...)
}

// Handle judges one IPv6 packet from the subscriber and answers it.
func (srv *Server) Handle(s *Session, pkt []byte, now time.Time) Result {
	h, bad := parseIPv6(pkt)
	if bad != "" {
		return drop("ipv6_" + bad)
	}
	switch h.next {
	case protoICMPv6:
		return srv.icmp(s, h)
	case protoUDP:
		return srv.udp(s, h)
	}
	return drop("ipv6_not_control")
}

func (srv *Server) icmp(s *Session, h ipv6) Result {
	p := h.payload
	if len(p) < 8 {
		return drop("icmpv6_short")
	}
	if checksum(h.src, h.dst, protoICMPv6, p) != 0 {
		return drop("icmpv6_checksum")
	}
	// RFC 4861 6.1.1, 7.1.1: hop limit 255, code 0, or the packet did not
	// come from the link.
	if h.hop != 255 || p[1] != 0 {
		return drop("nd_invalid")
	}
	switch p[0] {
	case icmpRS:
		if !s.WAN.IsValid() && s.SLLA == nil {
			return drop("ra_no_prefix")
		}
		if !h.src.IsUnspecified() && !h.src.IsLinkLocalUnicast() {
			return drop("nd_invalid")
		}
		if !ndOptionsValid(p[8:], h.src.IsUnspecified()) {
			return drop("nd_invalid")
		}
		return Result{Reply: RA(s), Kind: "ra"}
	case icmpNS:
		if len(p) < 24 || !ndOptionsValid(p[24:], h.src.IsUnspecified()) {
			return drop("nd_invalid")
		}
		target := netip.AddrFrom16([16]byte(p[8:24]))
		if target != LinkLocal(s.OurIID) {
			return drop("ns_not_ours")
		}
		if h.src.IsUnspecified() {
			// DAD for our address: defend it (RFC 4862 5.4.3) to all nodes.
			return Result{Reply: na(s, allNodes, false), Kind: "na"}
		}
		return Result{Reply: na(s, h.src, true), Kind: "na"}
	case icmpNA:
		return drop("na_ignored")
	}
	return drop("icmpv6_not_control")
}

// ndOptionsValid checks an ND option list (RFC 4861 4.6: no zero length; no
// Source Link-Layer Address from the unspecified address).
func ndOptionsValid(o []byte, unspecified bool) bool {
	for len(o) > 0 {
		if len(o) < 2 || o[1] == 0 || int(o[1])*8 > len(o) {
			return false
		}
		if o[0] == 1 && unspecified {
			return false
		}
		o = o[int(o[1])*8:]
	}
	return true
}

// RA is the Router Advertisement of the session (to all nodes): what the CP
// answers a Router Solicitation with and sends when IPv6CP opens. On
// Ethernet (SLLA set) it carries the Source Link-Layer Address option, and
// without a /64 yet it has no Prefix Information and M and O set.
func RA(s *Session) []byte {
	m := byte(0)
	if s.IANA.IsValid() {
		m |= 0x80
	}
	if len(s.DNS) > 0 {
		m |= 0x40
	}
	if !s.WAN.IsValid() {
		m = 0x80 | 0x40
	}
	b := make([]byte, 16, 16+8+32+8+8+16*len(s.DNS))
	b[0] = icmpRA
	b[4] = 64 // Cur Hop Limit
	b[5] = m
	binary.BigEndian.PutUint16(b[6:], s.RouterLifetime)
	if len(s.SLLA) == 6 {
		b = append(b, 1, 1)
		b = append(b, s.SLLA...)
	}
	if s.WAN.IsValid() {
		// Prefix Information: /64, on-link and autonomous
		pi := make([]byte, 32)
		pi[0], pi[1], pi[2], pi[3] = 3, 4, 64, 0xc0
		binary.BigEndian.PutUint32(pi[4:], ValidLifetime)
		binary.BigEndian.PutUint32(pi[8:], PreferredLifetime)
		a := s.WAN.Addr().As16()
		copy(pi[16:], a[:8])
		b = append(b, pi...)
	}
	if s.MTU != 0 {
		mtu := []byte{5, 1, 0, 0, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(mtu[4:], uint32(s.MTU))
		b = append(b, mtu...)
	}
	if len(s.DNS) > 0 {
		r := []byte{25, byte(1 + 2*len(s.DNS)), 0, 0, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(r[4:], uint32(s.RouterLifetime))
		for _, d := range s.DNS {
			x := d.As16()
			r = append(r, x[:]...)
		}
		b = append(b, r...)
	}
	return buildIPv6(LinkLocal(s.OurIID), allNodes, protoICMPv6, 255, b, 2)
}

// na is a Neighbor Advertisement for our link-local address.
func na(s *Session, dst netip.Addr, solicited bool) []byte {
	b := make([]byte, 24)
	b[0] = icmpNA
	b[4] = 0x80 | 0x20 // Router, Override
	if solicited {
		b[4] |= 0x40
	}
	t := LinkLocal(s.OurIID).As16()
	copy(b[8:], t[:])
	return buildIPv6(LinkLocal(s.OurIID), dst, protoICMPv6, 255, b, 2)
}

// Peeked is what a control packet is, judged before a session exists for
// it (IPoE: a Solicit or Request from an unknown MAC creates one).
type Peeked struct {
	RS    bool  // a Router Solicitation
	DHCP  uint8 // a DHCPv6 client message's type (0: none)
	Rapid bool  // a Solicit with Rapid Commit
}

// Solicit and Request are the DHCPv6 messages that bind (RFC 8415 18.3.1,
// 18.3.2): they may create an IPoE session.
const (
	Solicit = msgSolicit
	Request = msgRequest
	Renew   = msgRenew
	Rebind  = msgRebind
	Release = msgRelease
)

// Peek checks pkt as Handle does (headers, checksum, hop limit, ports, the
// DHCPv6 message) and says what it is; the reason of a drop otherwise.
func Peek(pkt []byte) (Peeked, string) {
	h, bad := parseIPv6(pkt)
	if bad != "" {
		return Peeked{}, "ipv6_" + bad
	}
	p := h.payload
	switch h.next {
	case protoICMPv6:
		if len(p) < 8 || checksum(h.src, h.dst, protoICMPv6, p) != 0 {
			return Peeked{}, "icmpv6_checksum"
		}
		if p[0] != icmpRS || h.hop != 255 || p[1] != 0 || !ndOptionsValid(p[8:], h.src.IsUnspecified()) ||
			(!h.src.IsUnspecified() && !h.src.IsLinkLocalUnicast()) {
			return Peeked{}, "nd_invalid"
		}
		return Peeked{RS: true}, ""
	case protoUDP:
		if len(p) < 8 {
			return Peeked{}, "udp_short"
		}
		n := int(binary.BigEndian.Uint16(p[4:]))
		if n < 8 || n > len(p) {
			return Peeked{}, "udp_malformed"
		}
		p = p[:n]
		if binary.BigEndian.Uint16(p[6:]) == 0 || checksum(h.src, h.dst, protoUDP, p) != 0 {
			return Peeked{}, "udp_checksum"
		}
		if binary.BigEndian.Uint16(p[2:]) != portServer || binary.BigEndian.Uint16(p[0:]) != portClient {
			return Peeked{}, "udp_not_dhcp6"
		}
		if !h.src.IsLinkLocalUnicast() {
			return Peeked{}, "dhcp6_scope"
		}
		m, bad := parseMessage(p[8:])
		if bad != "" {
			return Peeked{}, bad
		}
		return Peeked{DHCP: m.typ, Rapid: m.rapid}, ""
	}
	return Peeked{}, "ipv6_not_control"
}
