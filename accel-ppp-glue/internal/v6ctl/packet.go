// Package v6ctl is the CP's IPv6 control traffic of a PPPoE session (issue
// 15): Router Solicitations answered with Router Advertisements (RFC 4861),
// Neighbor Solicitations for the BNG's link-local address, and a DHCPv6
// server (RFC 8415) for IA_PD and IA_NA. It does no I/O: Handle takes one
// IPv6 packet of the session (PPP protocol 0x0057, redirected by the DP) and
// returns the IPv6 packet to send back, or why the input was dropped.
//
// Every input is hostile: anything malformed, with a wrong checksum, hop
// limit or scope is dropped with a reason the caller counts.
package v6ctl

import (
	"encoding/binary"
	"net/netip"
)

// Protocol numbers and ports.
const (
	protoICMPv6 = 58
	protoUDP    = 17
	portClient  = 546
	portServer  = 547
	ipv6HdrLen  = 40
)

// ICMPv6 types.
const (
	icmpRS = 133
	icmpRA = 134
	icmpNS = 135
	icmpNA = 136
)

var (
	allNodes          = netip.MustParseAddr("ff02::1")
	allRouters        = netip.MustParseAddr("ff02::2")
	allDHCPAgents     = netip.MustParseAddr("ff02::1:2")
	linkLocalPrefix64 = uint64(0xfe80) << 48
)

// LinkLocal is fe80::iid.
func LinkLocal(iid uint64) netip.Addr {
	var a [16]byte
	binary.BigEndian.PutUint64(a[:8], linkLocalPrefix64)
	binary.BigEndian.PutUint64(a[8:], iid)
	return netip.AddrFrom16(a)
}

// ipv6 is a parsed IPv6 header (no extension headers: a packet with one is
// not a control packet the CP takes).
type ipv6 struct {
	src, dst netip.Addr
	next     uint8
	hop      uint8
	payload  []byte
}

func parseIPv6(b []byte) (ipv6, string) {
	var h ipv6
	if len(b) < ipv6HdrLen {
		return h, "short"
	}
	if b[0]>>4 != 6 {
		return h, "not_ipv6"
	}
	n := int(binary.BigEndian.Uint16(b[4:]))
	if ipv6HdrLen+n > len(b) {
		return h, "truncated"
	}
	h.next, h.hop = b[6], b[7]
	h.src = netip.AddrFrom16([16]byte(b[8:24]))
	h.dst = netip.AddrFrom16([16]byte(b[24:40]))
	h.payload = b[ipv6HdrLen : ipv6HdrLen+n] // bytes beyond are PPPoE padding
	return h, ""
}

// checksum is the Internet checksum of the upper-layer packet with the IPv6
// pseudo header (RFC 8200 8.1).
func checksum(src, dst netip.Addr, next uint8, payload []byte) uint16 {
	var sum uint32
	add := func(b []byte) {
		for len(b) >= 2 {
			sum += uint32(binary.BigEndian.Uint16(b))
			b = b[2:]
		}
		if len(b) == 1 {
			sum += uint32(b[0]) << 8
		}
	}
	s, d := src.As16(), dst.As16()
	add(s[:])
	add(d[:])
	sum += uint32(len(payload)>>16) + uint32(len(payload)&0xffff)
	sum += uint32(next)
	add(payload)
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// buildIPv6 returns an IPv6 packet around payload, computing the ICMPv6 or
// UDP checksum at csumOff of the payload.
func buildIPv6(src, dst netip.Addr, next, hop uint8, payload []byte, csumOff int) []byte {
	p := make([]byte, ipv6HdrLen+len(payload))
	p[0] = 0x60
	binary.BigEndian.PutUint16(p[4:], uint16(len(payload)))
	p[6], p[7] = next, hop
	s, d := src.As16(), dst.As16()
	copy(p[8:], s[:])
	copy(p[24:], d[:])
	copy(p[ipv6HdrLen:], payload)
	pl := p[ipv6HdrLen:]
	pl[csumOff], pl[csumOff+1] = 0, 0
	c := checksum(src, dst, next, pl)
	if next == protoUDP && c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(pl[csumOff:], c)
	return p
}
