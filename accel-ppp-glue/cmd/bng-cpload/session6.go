package main

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"time"
)

// Dual-stack dials (Config.DualStackEvery): IPv6CP beside IPCP, a Router
// Solicitation answered by an RA with the session's /64, a DHCPv6 Solicit
// with Rapid Commit and IA_PD answered by a Reply with the delegated
// prefix. Such a session is complete once the CP's Session Establishment
// matched it, the DP got its IPv6 PDRs (with the establishment or by a
// Session Modification), and its prefix is bound. Written from RFC 5072,
// 4861 and 8415, sharing no code with bng-cp.

const (
	protoIPv6CP = 0x8057
	protoIPv6   = 0x0057
)

type v6cpe struct {
	id                  uint8
	iid                 uint64
	req                 []byte
	ourAcked, peerAcked bool
	raSeen              bool
	prefix              uint64
	xid                 uint32
	bound               bool
	pd                  netip.Prefix
	pdrs                bool // the DP has the session's IPv6 PDRs
	pending             []byte
	lastSent            time.Time
	retx                uint
}

func (s *session) startIPv6CP(now time.Time) {
	if !s.dual || s.v6.id != 0 {
		return
	}
	s.v6.iid = uint64(s.mac[0]^2)<<56 | uint64(s.mac[1])<<48 | uint64(s.mac[2])<<40 | 0xfffe<<24 |
		uint64(s.mac[3])<<16 | uint64(s.mac[4])<<8 | uint64(s.mac[5])
	s.v6.xid = uint32(s.idx) & 0xffffff
	s.sendIPv6CPConfReq(now)
}

// send6 sends a PPP frame of the IPv6 side, kept for retransmission when a
// request (apart from the IPv4 side's pending request).
func (s *session) send6(payload []byte, request bool, now time.Time) {
	keep := s.pending
	s.send(codeSession, etherTypeSession, payload, true, now)
	if request {
		s.v6.pending, s.v6.lastSent, s.v6.retx = s.pending, now, 0
	}
	s.pending = keep
}

func (s *session) sendIPv6CPConfReq(now time.Time) {
	s.v6.id++
	s.v6.req = appendOption(nil, 1, binary.BigEndian.AppendUint64(nil, s.v6.iid))
	s.send6(appendPPP(nil, protoIPv6CP, cpConfReq, s.v6.id, s.v6.req), true, now)
}

func (s *session) onIPv6CP(p cpPacket, now time.Time) {
	if !s.dual && s.lcpOpen {
		// An IPv4-only CPE: LCP Protocol-Reject (RFC 1661 5.7)
		rej := appendPPP(nil, protoIPv6CP, p.code, p.id, p.data) // protocol + the rejected packet
		s.rejID++
		s.sendPPP(protoLCP, cpProtoRej, s.rejID, rej, false, now)
		s.l.count(&s.l.st.protoRejects)
		return
	}
	if !s.dual || !s.lcpOpen || !s.authOK {
		s.l.count(&s.l.st.unexpected)
		return
	}
	switch p.code {
	case cpConfReq:
		if _, err := parseOptions(p.data); err != nil {
			s.l.count(&s.l.st.malformed)
			return
		}
		s.send6(appendPPP(nil, protoIPv6CP, cpConfAck, p.id, p.data), false, now)
		s.v6.peerAcked = true
		s.ipv6cpMaybeOpen(now)
	case cpConfAck:
		if p.id != s.v6.id || s.v6.ourAcked || !bytes.Equal(p.data, s.v6.req) {
			s.l.count(&s.l.st.badAck)
			return
		}
		s.v6.ourAcked = true
		s.v6.pending = nil
		s.ipv6cpMaybeOpen(now)
	case cpConfNak:
		opts, err := parseOptions(p.data)
		if err != nil || p.id != s.v6.id {
			s.l.count(&s.l.st.malformed)
			return
		}
		for _, o := range opts {
			if o.typ == 1 && len(o.data) == 8 {
				s.v6.iid = binary.BigEndian.Uint64(o.data)
			}
		}
		s.sendIPv6CPConfReq(now)
	default:
		s.fail("ipv6cp: code " + string(rune('0'+p.code)) + " from the CP")
	}
}

func (s *session) ipv6cpMaybeOpen(now time.Time) {
	if s.v6.ourAcked && s.v6.peerAcked && !s.v6.raSeen {
		s.sendRS(now)
	}
}

// ipv6Packet builds an IPv6 packet from our link-local address with the
// upper-layer checksum at csumAt of the payload.
func (s *session) ipv6Packet(dst netip.Addr, next, hop uint8, pl []byte, csumAt int) []byte {
	p := make([]byte, 2, 2+40+len(pl))
	binary.BigEndian.PutUint16(p, protoIPv6)
	p = append(p, 0x60, 0, 0, 0, byte(len(pl)>>8), byte(len(pl)), next, hop)
	p = append(p, 0xfe, 0x80, 0, 0, 0, 0, 0, 0)
	p = binary.BigEndian.AppendUint64(p, s.v6.iid)
	d := dst.As16()
	p = append(p, d[:]...)
	p = append(p, pl...)
	binary.BigEndian.PutUint16(p[2+40+csumAt:], inetCsum6(p[2:]))
	return p
}

// inetCsum6 is the checksum of the upper-layer packet of an IPv6 packet
// with its pseudo header (RFC 8200 8.1).
func inetCsum6(ip []byte) uint16 {
	var sum uint32
	add := func(b []byte) {
		for ; len(b) >= 2; b = b[2:] {
			sum += uint32(binary.BigEndian.Uint16(b))
		}
		if len(b) == 1 {
			sum += uint32(b[0]) << 8
		}
	}
	add(ip[8:40])
	sum += uint32(len(ip)-40) + uint32(ip[6])
	add(ip[40:])
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

var (
	allRouters = netip.MustParseAddr("ff02::2")
	allDHCP    = netip.MustParseAddr("ff02::1:2")
)

func (s *session) sendRS(now time.Time) {
	s.send6(s.ipv6Packet(allRouters, 58, 255, []byte{133, 0, 0, 0, 0, 0, 0, 0}, 2), true, now)
}

func (s *session) sendSolicit(now time.Time) {
	m := []byte{1, byte(s.v6.xid >> 16), byte(s.v6.xid >> 8), byte(s.v6.xid)}
	m = append(m, 0, 1, 0, 10, 0, 3, 0, 1) // client id DUID-LL
	m = append(m, s.mac[:]...)
	m = append(m, 0, 14, 0, 0)  // Rapid Commit
	m = append(m, 0, 25, 0, 12) // IA_PD, IAID 1
	m = append(m, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0)
	udp := []byte{0x02, 0x22, 0x02, 0x23, byte((8 + len(m)) >> 8), byte(8 + len(m)), 0, 0}
	s.send6(s.ipv6Packet(allDHCP, 17, 1, append(udp, m...), 6), true, now)
}

// onIPv6 takes an IPv6 packet from the CP: an RA or a DHCPv6 Reply.
func (s *session) onIPv6(p []byte, now time.Time) {
	if !s.dual || len(p) < 48 || p[0]>>4 != 6 || 40+int(binary.BigEndian.Uint16(p[4:])) > len(p) {
		s.l.count(&s.l.st.malformed)
		return
	}
	p = p[:40+int(binary.BigEndian.Uint16(p[4:]))]
	if inetCsum6(p) != 0 {
		s.l.count(&s.l.st.malformed)
		return
	}
	switch {
	case p[6] == 58 && p[40] == 134 && len(p) >= 56:
		for o := p[56:]; len(o) >= 8 && o[1] != 0 && int(o[1])*8 <= len(o); o = o[int(o[1])*8:] {
			if o[0] == 3 && o[1] == 4 && o[2] == 64 {
				s.v6.prefix = binary.BigEndian.Uint64(o[16:24])
				if !s.v6.raSeen {
					s.v6.raSeen = true
					s.sendSolicit(now)
				}
				return
			}
		}
		s.l.count(&s.l.st.unexpected)
	case p[6] == 17 && binary.BigEndian.Uint16(p[40:]) == 547 && len(p) >= 52:
		m := p[48:]
		if m[0] != 7 || uint32(m[1])<<16|uint32(m[2])<<8|uint32(m[3]) != s.v6.xid {
			s.l.count(&s.l.st.unexpected)
			return
		}
		for o := m[4:]; len(o) >= 4; {
			n := int(binary.BigEndian.Uint16(o[2:]))
			if 4+n > len(o) {
				break
			}
			if binary.BigEndian.Uint16(o) == 25 && n >= 12+4+25 && binary.BigEndian.Uint16(o[16:]) == 26 {
				v := o[20:]
				s.v6.pd = netip.PrefixFrom(netip.AddrFrom16([16]byte(v[9:25])), int(v[8]))
			}
			o = o[4+n:]
		}
		if !s.v6.pd.IsValid() {
			s.fail("dhcpv6: Reply without a delegated prefix")
			return
		}
		s.v6.bound, s.v6.pending = true, nil
		s.maybeDone(now)
	default:
		s.l.count(&s.l.st.unexpected)
	}
}

// onIPv6PDRs: the DP got the session's IPv6 PDRs (by a modification).
func (s *session) onIPv6PDRs(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.v6.pdrs = true
	s.maybeDone(now)
}

// tick6 resends the IPv6 side's unanswered request.
func (s *session) tick6(now time.Time) {
	if s.v6.pending != nil && now.Sub(s.v6.lastSent) >= s.l.cfg.Resend<<min(s.v6.retx, 3) {
		s.dp.sendVXLAN(s.v6.pending)
		s.v6.lastSent = now
		s.v6.retx++
		s.l.count(&s.l.st.resent)
	}
}
