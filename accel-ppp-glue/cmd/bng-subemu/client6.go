package main

import (
	"bytes"
	"encoding/binary"
	"net/netip"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

// Dual stack (Config.DualStack, issue 15): after authentication the client
// runs IPv6CP beside IPCP (RFC 5072: its interface identifier is the
// modified EUI-64 of its MAC, a Nak'd one is taken), then a Router
// Solicitation until an RA gives it its /64 (SLAAC), then DHCPv6 Solicit /
// Request (RFC 8415) with IA_PD, and IA_NA when the RA's M flag says so.
// The session counts as up once IPCP is open and IPv6 is bound (or refused:
// IPv6CP Protocol-Rejected or given up, counted in ipv6_failed). Traffic to
// Target6 goes from the SLAAC address and from ::1 of the delegated prefix
// in turn.

// v6sess is one session's IPv6 state.
type v6sess struct {
	cpID                uint8
	iid                 uint64
	ourAcked, peerAcked bool
	failed              bool
	raSeen, managed     bool
	prefix              uint64 // the /64 of the RA (upper 64 bits)
	dhcp                uint8  // dhcpIdle, dhcpSoliciting, dhcpRequesting, dhcpBound
	xid                 uint32
	serverID            []byte
	pd                  netip.Prefix
	na                  netip.Addr
	fromPD              bool // the next datagram's source: the delegated prefix
	txPkts, rxPkts      uint64
}

const (
	dhcpIdle uint8 = iota
	dhcpSoliciting
	dhcpRequesting
	dhcpBound
)

const (
	iaidPD = 1
	iaidNA = 2
)

func eui64(mac [6]byte) uint64 {
	return uint64(mac[0]^0x02)<<56 | uint64(mac[1])<<48 | uint64(mac[2])<<40 | 0xfffe<<24 |
		uint64(mac[3])<<16 | uint64(mac[4])<<8 | uint64(mac[5])
}

func (s *sess) linkLocal() netip.Addr {
	var a [16]byte
	a[0], a[1] = 0xfe, 0x80
	binary.BigEndian.PutUint64(a[8:], s.v6.iid)
	return netip.AddrFrom16(a)
}

// slaac is the address of the session's /64 with our identifier.
func (s *sess) slaac() netip.Addr {
	var a [16]byte
	binary.BigEndian.PutUint64(a[:8], s.v6.prefix)
	binary.BigEndian.PutUint64(a[8:], s.v6.iid)
	return netip.AddrFrom16(a)
}

// pdAddr is ::1 of the delegated prefix (a host behind the CPE).
func (s *sess) pdAddr() netip.Addr {
	a := s.v6.pd.Addr().As16()
	a[15] = 1
	return netip.AddrFrom16(a)
}

// v6Done: nothing of IPv6 is pending any more.
func (e *Emu) v6Done(s *sess) bool {
	return !e.cfg.DualStack || s.v6.failed || s.v6.dhcp == dhcpBound
}

func (e *Emu) v6Fail(s *sess, reason string) {
	if s.v6.failed {
		return
	}
	s.v6.failed = true
	e.st.v6Failed[reason]++
	e.ncpMaybeUp(s)
}

// startIPv6CP begins IPv6CP with IPCP.
func (e *Emu) startIPv6CP(s *sess) {
	s.v6 = v6sess{iid: eui64(s.mac), serverID: s.v6.serverID[:0], xid: uint32(e.rand64()) & 0xffffff}
	s.v6.cpID++
	e.sendIPv6CPReq(s)
}

func (e *Emu) sendIPv6CPReq(s *sess) {
	var b [10]byte
	b[0], b[1] = 1, 10
	binary.BigEndian.PutUint64(b[2:], s.v6.iid)
	e.sendCP(s, ppp.ProtoIPv6CP, ppp.CodeConfReq, s.v6.cpID, b[:])
}

// retransmit6 sends again what IPv6 waits for (the phase's restart timer).
func (e *Emu) retransmit6(s *sess) {
	v := &s.v6
	switch {
	case !e.cfg.DualStack || v.failed:
	case !v.ourAcked:
		e.sendIPv6CPReq(s)
	case !v.peerAcked:
	case !v.raSeen:
		e.sendRS(s)
	case v.dhcp == dhcpSoliciting:
		e.sendDHCP(s, 1)
	case v.dhcp == dhcpRequesting:
		e.sendDHCP(s, 3)
	}
}

func (e *Emu) ipv6cp(s *sess, p cpPacket) {
	if s.state < stIPCP || !e.cfg.DualStack {
		e.unexpected()
		return
	}
	v := &s.v6
	switch p.code {
	case ppp.CodeConfReq:
		if !validOptions(p.data) {
			e.st.rxMalformed++
			return
		}
		var rej [64]byte
		r := rej[:0]
		for o := p.data; len(o) > 0; {
			typ, val, whole, rest := nextOption(o)
			o = rest
			if typ == 1 && len(val) == 8 && binary.BigEndian.Uint64(val) != v.iid && binary.BigEndian.Uint64(val) != 0 {
				continue
			}
			if len(r)+len(whole) <= cap(r) {
				r = append(r, whole...)
			}
		}
		if len(r) > 0 {
			e.sendCP(s, ppp.ProtoIPv6CP, ppp.CodeConfRej, p.id, r)
			return
		}
		e.sendCP(s, ppp.ProtoIPv6CP, ppp.CodeConfAck, p.id, p.data)
		if !v.peerAcked {
			v.peerAcked = true
			e.ipv6cpMaybeOpen(s)
		}
	case ppp.CodeConfAck:
		if p.id != v.cpID || v.ourAcked || len(p.data) != 10 || binary.BigEndian.Uint64(p.data[2:]) != v.iid {
			e.unexpected()
			return
		}
		v.ourAcked = true
		e.ipv6cpMaybeOpen(s)
	case ppp.CodeConfNak:
		if p.id != v.cpID || v.ourAcked || !validOptions(p.data) {
			e.unexpected()
			return
		}
		for o := p.data; len(o) > 0; {
			typ, val, _, rest := nextOption(o)
			o = rest
			if typ == 1 && len(val) == 8 && binary.BigEndian.Uint64(val) != 0 {
				v.iid = binary.BigEndian.Uint64(val)
			}
		}
		v.cpID++
		e.sendIPv6CPReq(s)
	case ppp.CodeConfRej:
		if p.id == v.cpID && !v.ourAcked {
			e.v6Fail(s, "ipv6cp_rejected")
		}
	case ppp.CodeTermReq:
		e.sendCP(s, ppp.ProtoIPv6CP, ppp.CodeTermAck, p.id, nil)
		e.v6Fail(s, "ipv6cp_terminated")
	default:
		e.unexpected()
	}
}

func (e *Emu) ipv6cpMaybeOpen(s *sess) {
	if s.v6.ourAcked && s.v6.peerAcked && !s.v6.raSeen && !s.v6.failed {
		e.sendRS(s)
	}
}

// protoRejected: the server Protocol-Rejected proto (LCP, RFC 1661 5.7).
func (e *Emu) protoRejected(s *sess, proto uint16) {
	if proto == ppp.ProtoIPv6CP && e.cfg.DualStack && s.state == stIPCP {
		e.v6Fail(s, "ipv6cp_protocol_rejected")
	}
}

// --- IPv6 packets

// beginIPv6 starts an IPv6 packet in a session frame; it returns the offset
// of the IPv6 header.
func beginIPv6(fb *frameBuilder, src, dst netip.Addr, next, hop uint8, plen int) int {
	fb.b = binary.BigEndian.AppendUint16(fb.b, ppp.ProtoIPv6)
	off := len(fb.b)
	fb.b = append(fb.b, 0x60, 0, 0, 0, byte(plen>>8), byte(plen), next, hop)
	a, d := src.As16(), dst.As16()
	fb.b = append(fb.b, a[:]...)
	fb.b = append(fb.b, d[:]...)
	return off
}

// csum6 is the upper-layer checksum of the IPv6 packet at b (RFC 8200 8.1).
func csum6(b []byte) uint16 {
	var ph [40]byte
	copy(ph[:32], b[8:40])
	binary.BigEndian.PutUint32(ph[32:], uint32(len(b)-40))
	ph[39] = b[6]
	return ^csumAdd(uint32(csumAdd(0, ph[:])), b[40:])
}

var allRouters = netip.MustParseAddr("ff02::2")
var allDHCP = netip.MustParseAddr("ff02::1:2")

func (e *Emu) sendRS(s *sess) {
	var fb frameBuilder
	e.beginSession(&fb, s)
	off := beginIPv6(&fb, s.linkLocal(), allRouters, 58, 255, 8)
	fb.b = append(fb.b, 133, 0, 0, 0, 0, 0, 0, 0)
	binary.BigEndian.PutUint16(fb.b[off+42:], csum6(fb.b[off:]))
	e.commit(fb.end())
	e.st.v6Sent["rs"]++
}

// sendDHCP sends a Solicit (1) or a Request (3).
func (e *Emu) sendDHCP(s *sess, typ uint8) {
	v := &s.v6
	var m [160]byte
	b := append(m[:0], typ, byte(v.xid>>16), byte(v.xid>>8), byte(v.xid))
	b = append(b, 0, 1, 0, 10, 0, 3, 0, 1) // Client Identifier: DUID-LL, Ethernet
	b = append(b, s.mac[:]...)
	if typ == 3 {
		b = append(b, 0, 2, byte(len(v.serverID)>>8), byte(len(v.serverID)))
		b = append(b, v.serverID...)
	}
	b = append(b, 0, 8, 0, 2, 0, 0)  // Elapsed Time
	b = append(b, 0, 6, 0, 2, 0, 23) // ORO: DNS servers
	b = append(b, 0, 25, 0, 12)      // IA_PD
	b = binary.BigEndian.AppendUint32(b, iaidPD)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	if v.managed && (typ == 1 || v.na.IsValid()) {
		b = append(b, 0, 3, 0, 12) // IA_NA
		b = binary.BigEndian.AppendUint32(b, iaidNA)
		b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	var fb frameBuilder
	e.beginSession(&fb, s)
	off := beginIPv6(&fb, s.linkLocal(), allDHCP, 17, 1, 8+len(b))
	fb.b = append(fb.b, 0x02, 0x22, 0x02, 0x23, byte((8+len(b))>>8), byte(8+len(b)), 0, 0)
	fb.b = append(fb.b, b...)
	binary.BigEndian.PutUint16(fb.b[off+46:], csum6(fb.b[off:]))
	e.commit(fb.end())
	if typ == 1 {
		e.st.v6Sent["solicit"]++
	} else {
		e.st.v6Sent["request"]++
	}
}

// ipv6In takes an IPv6 packet of the session (hostile).
func (e *Emu) ipv6In(s *sess, p []byte) {
	if !e.cfg.DualStack || len(p) < 40 || p[0]>>4 != 6 {
		e.st.rxMalformed++
		return
	}
	n := int(binary.BigEndian.Uint16(p[4:]))
	if 40+n > len(p) {
		e.st.rxMalformed++
		return
	}
	p = p[:40+n]
	if csum6(p) != 0 {
		e.st.v6Bad++
		return
	}
	switch {
	case p[6] == 58 && n >= 16 && p[40] == 134:
		e.ra(s, p)
	case p[6] == 17 && n >= 12 && binary.BigEndian.Uint16(p[40:]) == 547 && binary.BigEndian.Uint16(p[42:]) == 546:
		e.dhcpIn(s, p[48:])
	case p[6] == 17 && s.state == stUp:
		e.rxUDP6(s, p)
	default:
		e.unexpected()
	}
}

// ra takes a Router Advertisement: its /64 (Prefix Information, L and A,
// length 64) and its M flag.
func (e *Emu) ra(s *sess, p []byte) {
	v := &s.v6
	if p[7] != 255 || p[8] != 0xfe || p[9]&0xc0 != 0x80 || v.failed || !v.ourAcked {
		e.st.v6Bad++
		return
	}
	e.st.v6Rx["ra"]++
	managed := p[45]&0x80 != 0
	var prefix uint64
	found := false
	for o := p[56:]; len(o) >= 8; {
		l := int(o[1]) * 8
		if l == 0 || l > len(o) {
			e.st.v6Bad++
			return
		}
		if o[0] == 3 && l == 32 && o[2] == 64 && o[3]&0xc0 == 0xc0 {
			prefix, found = binary.BigEndian.Uint64(o[16:24]), true
		}
		o = o[l:]
	}
	if !found {
		return
	}
	v.prefix, v.managed = prefix, managed
	if !v.raSeen {
		v.raSeen = true
		if v.dhcp == dhcpIdle {
			v.dhcp = dhcpSoliciting
			e.sendDHCP(s, 1)
		}
	}
}

// dhcp6Answer reads what a DHCPv6 Advertise or Reply (after its 4-octet
// header) gives: the Server Identifier, the delegated prefix (IA_PD's
// IAPREFIX) and the address (IA_NA's IAADDR). ok is false when an option
// overruns the message.
func dhcp6Answer(m []byte) (sid []byte, pd netip.Prefix, na netip.Addr, ok bool) {
	for o := m[4:]; len(o) > 0; {
		if len(o) < 4 || 4+int(binary.BigEndian.Uint16(o[2:])) > len(o) {
			return nil, netip.Prefix{}, netip.Addr{}, false
		}
		code, val := binary.BigEndian.Uint16(o), o[4:4+int(binary.BigEndian.Uint16(o[2:]))]
		o = o[4+len(val):]
		switch {
		case code == 2 && len(val) >= 2 && len(val) <= 130:
			sid = val
		case (code == 25 || code == 3) && len(val) >= 12:
			for so := val[12:]; len(so) >= 4; {
				sl := int(binary.BigEndian.Uint16(so[2:]))
				if 4+sl > len(so) {
					break
				}
				sv := so[4 : 4+sl]
				switch {
				case code == 25 && binary.BigEndian.Uint16(so) == 26 && sl >= 25 && sv[8] <= 64:
					pd = netip.PrefixFrom(netip.AddrFrom16([16]byte(sv[9:25])), int(sv[8])).Masked()
				case code == 3 && binary.BigEndian.Uint16(so) == 5 && sl >= 24:
					na = netip.AddrFrom16([16]byte(sv[:16]))
				}
				so = so[4+sl:]
			}
		}
	}
	return sid, pd, na, true
}

// dhcpIn takes a DHCPv6 Advertise or Reply for our transaction.
func (e *Emu) dhcpIn(s *sess, m []byte) {
	v := &s.v6
	if len(m) < 4 || uint32(m[1])<<16|uint32(m[2])<<8|uint32(m[3]) != v.xid || v.failed {
		e.unexpected()
		return
	}
	sid, pd, na, ok := dhcp6Answer(m)
	if !ok {
		e.st.v6Bad++
		return
	}
	switch {
	case m[0] == 2 && v.dhcp == dhcpSoliciting && sid != nil:
		e.st.v6Rx["advertise"]++
		if !pd.IsValid() {
			e.v6Fail(s, "no_prefix_offered")
			return
		}
		v.serverID = append(v.serverID[:0], sid...)
		v.na = na
		v.dhcp = dhcpRequesting
		e.sendDHCP(s, 3)
	case m[0] == 7 && v.dhcp == dhcpRequesting && bytes.Equal(sid, v.serverID):
		e.st.v6Rx["reply"]++
		if !pd.IsValid() {
			e.v6Fail(s, "no_prefix_bound")
			return
		}
		v.pd, v.na, v.dhcp = pd, na, dhcpBound
		e.st.v6Bound++
		e.ncpMaybeUp(s)
	default:
		e.unexpected()
	}
}

// sendUDP6 sends one datagram to Target6, from the SLAAC address and from
// the delegated prefix in turn.
func (e *Emu) sendUDP6(s *sess) {
	v := &s.v6
	src := s.slaac()
	if v.fromPD {
		src = s.pdAddr()
		e.st.tr6TxPD++
	}
	v.fromPD = !v.fromPD
	var fb frameBuilder
	e.beginSession(&fb, s)
	off := beginIPv6(&fb, src, e.cfg.Target6.Addr(), 17, 64, 8+e.cfg.Size)
	fb.b = binary.BigEndian.AppendUint16(fb.b, s.port)
	fb.b = binary.BigEndian.AppendUint16(fb.b, e.cfg.Target6.Port())
	fb.b = binary.BigEndian.AppendUint16(fb.b, uint16(8+e.cfg.Size))
	fb.b = append(fb.b, 0, 0)
	pl := len(fb.b)
	fb.b = fb.b[:pl+e.cfg.Size]
	binary.BigEndian.PutUint32(fb.b[pl:], payloadMagic)
	binary.BigEndian.PutUint32(fb.b[pl+4:], s.sub.Index)
	binary.BigEndian.PutUint64(fb.b[pl+8:], v.txPkts)
	binary.BigEndian.PutUint64(fb.b[pl+16:], uint64(e.now))
	clear(fb.b[pl+payloadMin:])
	c := csum6(fb.b[off:])
	if c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(fb.b[off+46:], c)
	e.commit(fb.end())
	v.txPkts++
	e.st.tr6Tx++
}

// rxUDP6 counts the echo of one of our IPv6 datagrams.
func (e *Emu) rxUDP6(s *sess, p []byte) {
	v := &s.v6
	dst := netip.AddrFrom16([16]byte(p[24:40]))
	u := p[40:]
	if netip.AddrFrom16([16]byte(p[8:24])) != e.cfg.Target6.Addr() || (dst != s.slaac() && dst != s.pdAddr()) ||
		len(u) < 8+payloadMin || binary.BigEndian.Uint16(u) != e.cfg.Target6.Port() ||
		binary.BigEndian.Uint16(u[2:]) != s.port || binary.BigEndian.Uint32(u[8:]) != payloadMagic ||
		binary.BigEndian.Uint32(u[12:]) != s.sub.Index {
		e.st.tr6RxBad++
		return
	}
	v.rxPkts++
	e.st.tr6Rx++
	if dst == s.pdAddr() {
		e.st.tr6RxPD++
	}
}

// IPv6Stats are the IPv6 totals of a dual-stack emulator.
type IPv6Stats struct {
	Sent     map[string]uint64 `json:"sent"`     // rs, solicit, request
	Received map[string]uint64 `json:"received"` // ra, advertise, reply
	Bound    uint64            `json:"bound"`    // sessions that bound a delegated prefix (each attempt)
	Failed   map[string]uint64 `json:"failed"`   // attempts whose IPv6 failed (the session came up with IPv4), by reason
	Bad      uint64            `json:"bad"`      // IPv6 packets with a bad checksum or RA
	TxPkts   uint64            `json:"tx_pkts"`  // datagrams to --target6
	TxPD     uint64            `json:"tx_pd"`    // of them from the address in the delegated prefix
	RxPkts   uint64            `json:"rx_pkts"`  // their echoes
	RxPD     uint64            `json:"rx_pd"`    // echoes to the address in the delegated prefix
	RxBad    uint64            `json:"rx_bad"`
}

func (e *Emu) v6Stats() *IPv6Stats {
	if !e.cfg.DualStack {
		return nil
	}
	return &IPv6Stats{Sent: copyMap(e.st.v6Sent), Received: copyMap(e.st.v6Rx), Bound: e.st.v6Bound,
		Failed: copyMap(e.st.v6Failed), Bad: e.st.v6Bad, TxPkts: e.st.tr6Tx, TxPD: e.st.tr6TxPD, RxPkts: e.st.tr6Rx,
		RxPD: e.st.tr6RxPD, RxBad: e.st.tr6RxBad}
}
