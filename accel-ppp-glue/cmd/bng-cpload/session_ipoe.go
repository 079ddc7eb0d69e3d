package main

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"time"
)

// An IPoE CPE (-ipoe-dp): DHCPv4 (RFC 2131) DISCOVER, OFFER, REQUEST, ACK on
// its QinQ line, with option 82 (circuit id = -ipoe-user, as an access node
// adds it), then it waits for the CP to install its IPoE session in the
// (emulated) DP: the upstream PDR from its MAC without a PPPoE session id,
// the offered address as UE IP. Done when both the ACK and the establishment
// have come. The codec is the loader's own (not internal/dhcp4).

const (
	etherTypeIPv4 = 0x0800

	dhcpDiscover = 1
	dhcpOffer    = 2
	dhcpRequest  = 3
	dhcpAck      = 5
	dhcpNak      = 6

	bootpLen = 236
)

var dhcpCookie = []byte{99, 130, 83, 99}

type dhcpCPE struct {
	xid     uint32
	state   uint8 // dhcpDiscover (selecting), dhcpRequest (requesting), dhcpAck (bound)
	offered netip.Addr
	server  netip.Addr
	acked   bool
	circuit string
}

func (s *session) ipoeStep() string {
	switch {
	case s.dhcp.state == dhcpDiscover:
		return "dhcp_discover"
	case s.dhcp.state == dhcpRequest:
		return "dhcp_request"
	case !s.est:
		return "pfcp"
	default:
		return "dhcp_ack"
	}
}

func (s *session) beginIPoE(now time.Time) {
	s.ph = phPPP
	s.dhcp.xid = uint32(s.idx)*2654435761 | 1
	s.dhcp.state = dhcpDiscover
	s.sendDHCP(dhcpDiscover, now)
}

// sendDHCP broadcasts a DISCOVER or REQUEST (SELECTING) from 0.0.0.0:68,
// kept for retransmission.
func (s *session) sendDHCP(typ uint8, now time.Time) {
	d := s.dhcpDatagram(typ)
	s.dp.sendVXLAN(d)
	s.pending = d
	s.lastSent = now
	s.retx = 0
}

// dhcpDatagram is the VXLAN datagram of the CPE's DISCOVER or REQUEST.
func (s *session) dhcpDatagram(typ uint8) []byte {
	b := make([]byte, bootpLen, bootpLen+64)
	b[0], b[1], b[2] = 1, 1, 6 // BOOTREQUEST, Ethernet, 6
	binary.BigEndian.PutUint32(b[4:], s.dhcp.xid)
	copy(b[28:34], s.mac[:])
	b = append(b, dhcpCookie...)
	b = append(b, 53, 1, typ)
	if typ == dhcpRequest {
		a, sv := s.dhcp.offered.As4(), s.dhcp.server.As4()
		b = append(b, 50, 4)
		b = append(b, a[:]...)
		b = append(b, 54, 4)
		b = append(b, sv[:]...)
	}
	if c := s.dhcp.circuit; c != "" {
		b = append(b, 82, byte(2+len(c)), 1, byte(len(c)))
		b = append(b, c...)
	}
	b = append(b, 255)
	udp := make([]byte, 8, 8+len(b))
	binary.BigEndian.PutUint16(udp[0:], 68)
	binary.BigEndian.PutUint16(udp[2:], 67)
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(b)))
	udp = append(udp, b...) // UDP checksum 0: none (RFC 768)
	ip := make([]byte, 20, 20+len(udp))
	ip[0], ip[8], ip[9] = 0x45, 64, 17
	binary.BigEndian.PutUint16(ip[2:], uint16(20+len(udp)))
	copy(ip[16:20], []byte{255, 255, 255, 255})
	binary.BigEndian.PutUint16(ip[10:], ipChecksum(ip))
	ip = append(ip, udp...)

	d := make([]byte, 0, vxlanHeaderLen+22+len(ip))
	d = append(d, 0x08, 0, 0, 0, byte(s.dp.id>>16), byte(s.dp.id>>8), byte(s.dp.id), 0)
	d = append(d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	d = append(d, s.mac[:]...)
	d = binary.BigEndian.AppendUint16(d, s.l.cfg.OuterTPID)
	d = binary.BigEndian.AppendUint16(d, s.stag&0x0fff)
	d = binary.BigEndian.AppendUint16(d, tpid8021Q)
	d = binary.BigEndian.AppendUint16(d, s.ctag&0x0fff)
	d = binary.BigEndian.AppendUint16(d, etherTypeIPv4)
	return append(d, ip...)
}

func ipChecksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// parseDHCPReply checks an IPv4 packet from the CP: UDP 67 -> 68, BOOTREPLY,
// and returns its message type, yiaddr, server identifier, xid and chaddr.
// Hostile input: every length is checked.
func parseDHCPReply(p []byte) (typ uint8, yi, sid netip.Addr, xid uint32, chaddr [6]byte, err error) {
	bad := func(why string) error { return fmt.Errorf("dhcp: %s", why) }
	if len(p) < 20 || p[0]>>4 != 4 || p[9] != 17 {
		return 0, yi, sid, 0, chaddr, bad("not IPv4 UDP")
	}
	ihl := int(p[0]&0x0f) * 4
	tot := int(binary.BigEndian.Uint16(p[2:]))
	if ihl < 20 || tot < ihl+8 || tot > len(p) {
		return 0, yi, sid, 0, chaddr, bad("IPv4 lengths")
	}
	u := p[ihl:tot]
	if binary.BigEndian.Uint16(u[0:]) != 67 || binary.BigEndian.Uint16(u[2:]) != 68 {
		return 0, yi, sid, 0, chaddr, bad("not 67 -> 68")
	}
	ul := int(binary.BigEndian.Uint16(u[4:]))
	if ul < 8 || ul > len(u) {
		return 0, yi, sid, 0, chaddr, bad("UDP length")
	}
	m := u[8:ul]
	if len(m) < bootpLen+4 || m[0] != 2 || string(m[bootpLen:bootpLen+4]) != string(dhcpCookie) {
		return 0, yi, sid, 0, chaddr, bad("not a BOOTREPLY")
	}
	xid = binary.BigEndian.Uint32(m[4:])
	yi = netip.AddrFrom4([4]byte(m[16:20]))
	copy(chaddr[:], m[28:34])
	o := m[bootpLen+4:]
	for len(o) > 0 {
		c := o[0]
		if c == 255 {
			break
		}
		if c == 0 {
			o = o[1:]
			continue
		}
		if len(o) < 2 || len(o) < 2+int(o[1]) {
			return 0, yi, sid, 0, chaddr, bad("option length")
		}
		v := o[2 : 2+int(o[1])]
		switch {
		case c == 53 && len(v) == 1:
			typ = v[0]
		case c == 54 && len(v) == 4:
			sid = netip.AddrFrom4([4]byte(v))
		}
		o = o[2+int(o[1]):]
	}
	if typ == 0 {
		return 0, yi, sid, 0, chaddr, bad("no message type")
	}
	return typ, yi, sid, xid, chaddr, nil
}

// onIPoE handles an IPv4 frame the CP sent to this CPE (s.mu held).
func (s *session) onIPoE(f *frame, now time.Time) {
	typ, yi, sid, xid, chaddr, err := parseDHCPReply(f.payload)
	if err != nil {
		s.l.count(&s.l.st.malformed)
		return
	}
	if xid != s.dhcp.xid || chaddr != s.mac {
		s.l.count(&s.l.st.unexpected)
		return
	}
	switch {
	case typ == dhcpOffer && s.dhcp.state == dhcpDiscover:
		if !yi.Is4() || yi.IsUnspecified() || !sid.IsValid() {
			s.fail(fmt.Sprintf("offer: address %v server %v", yi, sid))
			return
		}
		s.acMAC = f.src
		s.dhcp.offered, s.dhcp.server, s.dhcp.state = yi, sid, dhcpRequest
		s.mark(markPADS, now)
		s.sendDHCP(dhcpRequest, now)
	case typ == dhcpAck && s.dhcp.state == dhcpRequest:
		if yi != s.dhcp.offered || f.src != s.acMAC {
			s.fail(fmt.Sprintf("ack: address %v (offered %v), from %x", yi, s.dhcp.offered, f.src))
			return
		}
		s.dhcp.state, s.dhcp.acked = dhcpAck, true
		s.pending = nil
		s.mark(markAuth, now)
		s.maybeDone(now)
	case typ == dhcpNak:
		s.fail("nak: the CP refused the REQUEST")
	default:
		s.l.count(&s.l.st.unexpected) // a retransmitted OFFER or ACK
	}
}

// checkIPoE compares the CP's establishment with this IPoE CPE ("" when it matches).
func (s *session) checkIPoE(d *dp, e *establishment) string {
	switch {
	case d != s.dp:
		return fmt.Sprintf("establishment on another instance: %d, expected %d", d.id, s.dp.id)
	case e.pppoeSID != 0:
		return fmt.Sprintf("IPoE establishment with PPPoE session id %#x", e.pppoeSID)
	case e.stag != s.stag || e.ctag != s.ctag:
		return fmt.Sprintf("establishment tags: %d/%d, line %d/%d", e.stag, e.ctag, s.stag, s.ctag)
	case s.dhcp.state == dhcpDiscover:
		return "establishment before the REQUEST"
	case e.ueIP != s.dhcp.offered || e.upUEIP != s.dhcp.offered:
		return fmt.Sprintf("establishment address: %v (upstream %v), offered %v", e.ueIP, e.upUEIP, s.dhcp.offered)
	case e.lcpOffload:
		return "IPoE establishment with LCP keepalive offload"
	}
	return ""
}
