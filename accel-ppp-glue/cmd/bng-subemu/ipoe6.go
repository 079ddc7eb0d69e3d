package main

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"time"
)

// --ipoe --dual-stack (issue 19, dual stack over IPoE): beside DHCPv4 each
// client sends a Router Solicitation from fe80::EUI-64(MAC) (SLLA option)
// until an RA answers, then DHCPv6 Solicit / Advertise / Request / Reply
// (RFC 8415) with IA_NA and IA_PD; once bound, an RS again when the first RA
// had no prefix. With --rate and --target6, a bound client sends UDP
// datagrams to the target from its IA_NA address (else its SLAAC address)
// and from ::1 of its delegated prefix in turn, to the router's MAC (the
// RA's source). RELEASE at the stop releases the DHCPv6 binding too.

const (
	v6Idle uint8 = iota
	v6RS
	v6Soliciting
	v6Requesting
	v6Bound
)

// ipoe6 is one IPoE client's IPv6 state.
type ipoe6 struct {
	stage      uint8
	xid        uint32
	next       time.Time
	phaseStart time.Time
	serverID   []byte
	prefix     uint64 // the RA's /64 (upper 64 bits); 0: none yet
	router     [6]byte
	na         netip.Addr
	pd         netip.Prefix
	fromPD     bool
	nextTx     time.Time
	seq        uint32
	txPkts     uint64
	rxPkts     uint64
}

const (
	ipoeIAIDNA = 1
	ipoeIAIDPD = 2
)

func (c *ipoeClient) linkLocal() netip.Addr {
	var a [16]byte
	a[0], a[1] = 0xfe, 0x80
	binary.BigEndian.PutUint64(a[8:], eui64(c.mac))
	return netip.AddrFrom16(a)
}

// src6 is the address the client's datagrams come from besides the
// delegated prefix: the IA_NA address, else the SLAAC one.
func (c *ipoeClient) src6() netip.Addr {
	if c.v6.na.IsValid() {
		return c.v6.na
	}
	if c.v6.prefix == 0 {
		return netip.Addr{}
	}
	var a [16]byte
	binary.BigEndian.PutUint64(a[:8], c.v6.prefix)
	binary.BigEndian.PutUint64(a[8:], eui64(c.mac))
	return netip.AddrFrom16(a)
}

func (c *ipoeClient) pdHost() netip.Addr {
	a := c.v6.pd.Addr().As16()
	a[15] = 1
	return netip.AddrFrom16(a)
}

// frame6 is a QinQ IPv6 frame of the client (the UDP/ICMPv6 checksum at
// csumAt of the payload is filled in).
func (e *IPoEEmu) frame6(c *ipoeClient, dst [6]byte, src, dstIP netip.Addr, next, hop uint8, pl []byte, csumAt int) []byte {
	tpid := c.sub.TPID
	if tpid == 0 {
		tpid = e.cfg.TPID
	}
	if tpid == 0 {
		tpid = 0x8100
	}
	b := make([]byte, 0, 22+40+len(pl))
	b = append(b, dst[:]...)
	b = append(b, c.mac[:]...)
	b = binary.BigEndian.AppendUint16(b, tpid)
	b = binary.BigEndian.AppendUint16(b, c.sub.STag)
	b = append(b, 0x81, 0x00)
	b = binary.BigEndian.AppendUint16(b, c.sub.CTag)
	b = append(b, 0x86, 0xdd)
	off := len(b)
	b = append(b, 0x60, 0, 0, 0, byte(len(pl)>>8), byte(len(pl)), next, hop)
	s, d := src.As16(), dstIP.As16()
	b = append(b, s[:]...)
	b = append(b, d[:]...)
	b = append(b, pl...)
	cs := csum6(b[off:])
	if cs == 0 && next == 17 {
		cs = 0xffff
	}
	binary.BigEndian.PutUint16(b[off+40+csumAt:], cs)
	return b
}

var (
	mcastAllRouters = [6]byte{0x33, 0x33, 0, 0, 0, 2}
	mcastAllDHCP    = [6]byte{0x33, 0x33, 0, 1, 0, 2}
)

func (e *IPoEEmu) sendRS6(c *ipoeClient, now time.Time) {
	pl := []byte{133, 0, 0, 0, 0, 0, 0, 0, 1, 1}
	pl = append(pl, c.mac[:]...)
	e.out = append(e.out, e.frame6(c, mcastAllRouters, c.linkLocal(), allRouters, 58, 255, pl, 2))
	c.v6.next = now.Add(e.cfg.Retransmit)
	e.v6.Sent["rs"]++
}

// sendDHCP6 sends a Solicit (1), Request (3) or Release (8).
func (e *IPoEEmu) sendDHCP6(c *ipoeClient, typ uint8, now time.Time) {
	v := &c.v6
	b := []byte{typ, byte(v.xid >> 16), byte(v.xid >> 8), byte(v.xid)}
	b = append(b, 0, 1, 0, 10, 0, 3, 0, 1) // Client Identifier: DUID-LL, Ethernet
	b = append(b, c.mac[:]...)
	if typ != 1 {
		b = append(b, 0, 2, byte(len(v.serverID)>>8), byte(len(v.serverID)))
		b = append(b, v.serverID...)
	}
	b = append(b, 0, 8, 0, 2, 0, 0)  // Elapsed Time
	b = append(b, 0, 6, 0, 2, 0, 23) // ORO: DNS servers
	b = append(b, 0, 3, 0, 12)       // IA_NA
	b = binary.BigEndian.AppendUint32(b, ipoeIAIDNA)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	b = append(b, 0, 25, 0, 12) // IA_PD
	b = binary.BigEndian.AppendUint32(b, ipoeIAIDPD)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	udp := []byte{0x02, 0x22, 0x02, 0x23, byte((8 + len(b)) >> 8), byte(8 + len(b)), 0, 0}
	e.out = append(e.out, e.frame6(c, mcastAllDHCP, c.linkLocal(), allDHCP, 17, 1, append(udp, b...), 6))
	v.next = now.Add(e.cfg.Retransmit)
	e.v6.Sent[map[uint8]string{1: "solicit", 3: "request", 8: "release"}[typ]]++
}

// start6 begins a client's IPv6 (with its first DISCOVER).
func (e *IPoEEmu) start6(c *ipoeClient, now time.Time) {
	c.v6 = ipoe6{stage: v6RS, xid: rand.Uint32() & 0xffffff, phaseStart: now}
	e.sendRS6(c, now)
}

// tick6 retransmits, gives up a phase (start over) and sends traffic.
func (e *IPoEEmu) tick6(c *ipoeClient, now time.Time) {
	v := &c.v6
	switch v.stage {
	case v6Idle:
		if c.state != ipInit {
			e.start6(c, now)
		}
	case v6RS, v6Soliciting, v6Requesting:
		if now.Sub(v.phaseStart) >= e.cfg.PhaseTimeout {
			e.v6.Failed["timeout"]++
			e.start6(c, now)
			return
		}
		if now.Before(v.next) {
			return
		}
		switch v.stage {
		case v6RS:
			e.sendRS6(c, now)
		case v6Soliciting:
			e.sendDHCP6(c, 1, now)
		default:
			e.sendDHCP6(c, 3, now)
		}
	case v6Bound:
		if v.prefix == 0 && !v.na.IsValid() && !now.Before(v.next) {
			e.sendRS6(c, now) // the first RA had no /64
		}
		if e.cfg.Rate > 0 && e.cfg.Target6.IsValid() && !now.Before(v.nextTx) {
			e.sendData6(c, now)
		}
	}
}

func (e *IPoEEmu) sendData6(c *ipoeClient, now time.Time) {
	v := &c.v6
	src := c.src6()
	if v.fromPD || !src.IsValid() {
		src = c.pdHost()
		e.v6.TxPD++
	}
	v.fromPD = !v.fromPD
	v.seq++
	pl := make([]byte, 8+max(e.cfg.Size, 8))
	binary.BigEndian.PutUint16(pl, ipoeDataPort)
	binary.BigEndian.PutUint16(pl[2:], e.cfg.Target6.Port())
	binary.BigEndian.PutUint16(pl[4:], uint16(len(pl)))
	binary.BigEndian.PutUint32(pl[8:], v.seq)
	e.out = append(e.out, e.frame6(c, v.router, src, e.cfg.Target6.Addr(), 17, 64, pl, 6))
	v.txPkts++
	e.v6.TxPkts++
	v.nextTx = now.Add(time.Duration(float64(time.Second) / e.cfg.Rate))
}

// input6 takes a QinQ IPv6 frame (hostile): an RA, a DHCPv6 answer, or the
// echo of a datagram. false: not IPv6.
func (e *IPoEEmu) input6(b []byte, now time.Time) bool {
	if len(b) < 22 || b[20] != 0x86 || b[21] != 0xdd {
		return false
	}
	var dst [6]byte
	copy(dst[:], b[:6])
	c := e.byMAC[dst]
	p := b[22:]
	if c == nil || !e.cfg.DualStack || len(p) < 48 || p[0]>>4 != 6 ||
		binary.BigEndian.Uint16(b[14:16])&0xfff != c.sub.STag || binary.BigEndian.Uint16(b[18:20])&0xfff != c.sub.CTag {
		e.v6.Bad++
		return true
	}
	n := int(binary.BigEndian.Uint16(p[4:]))
	if 40+n > len(p) || csum6(p[:40+n]) != 0 {
		e.v6.Bad++
		return true
	}
	p = p[:40+n]
	v := &c.v6
	switch {
	case p[6] == 58 && n >= 16 && p[40] == 134:
		if p[7] != 255 || p[8] != 0xfe || p[9]&0xc0 != 0x80 {
			e.v6.Bad++
			return true
		}
		e.v6.Received["ra"]++
		copy(v.router[:], b[6:12])
		for o := p[56:]; len(o) >= 8; {
			l := int(o[1]) * 8
			if l == 0 || l > len(o) {
				e.v6.Bad++
				return true
			}
			if o[0] == 3 && l == 32 && o[2] == 64 && o[3]&0xc0 == 0xc0 {
				v.prefix = binary.BigEndian.Uint64(o[16:24])
			}
			o = o[l:]
		}
		if v.stage == v6RS {
			v.stage, v.phaseStart = v6Soliciting, now
			e.sendDHCP6(c, 1, now)
		}
	case p[6] == 17 && n >= 12 && binary.BigEndian.Uint16(p[40:]) == 547 && binary.BigEndian.Uint16(p[42:]) == 546:
		e.dhcp6In(c, b, p[48:], now)
	case p[6] == 17 && n >= 8 && e.cfg.Target6.IsValid() && netip.AddrFrom16([16]byte(p[8:24])) == e.cfg.Target6.Addr() &&
		binary.BigEndian.Uint16(p[40:]) == e.cfg.Target6.Port() && binary.BigEndian.Uint16(p[42:]) == ipoeDataPort:
		d := netip.AddrFrom16([16]byte(p[24:40]))
		switch {
		case v.stage != v6Bound:
		case d == c.src6():
			v.rxPkts++
			e.v6.RxPkts++
		case v.pd.IsValid() && d == c.pdHost():
			v.rxPkts++
			e.v6.RxPkts++
			e.v6.RxPD++
		default:
			e.v6.RxBad++
		}
	default:
		e.v6.Bad++
	}
	return true
}

// dhcp6In takes an Advertise or a Reply of the client's transaction.
func (e *IPoEEmu) dhcp6In(c *ipoeClient, frame, m []byte, now time.Time) {
	v := &c.v6
	if len(m) < 4 || uint32(m[1])<<16|uint32(m[2])<<8|uint32(m[3]) != v.xid {
		e.v6.Bad++
		return
	}
	sid, pd, na, ok := dhcp6Answer(m)
	if !ok {
		e.v6.Bad++
		return
	}
	switch {
	case m[0] == 2 && v.stage == v6Soliciting && sid != nil:
		e.v6.Received["advertise"]++
		if !pd.IsValid() && !na.IsValid() {
			e.v6.Failed["nothing_offered"]++
			return
		}
		v.serverID = append(v.serverID[:0], sid...)
		v.stage, v.phaseStart = v6Requesting, now
		e.sendDHCP6(c, 3, now)
	case m[0] == 7 && v.stage == v6Requesting && bytes.Equal(sid, v.serverID):
		e.v6.Received["reply"]++
		if !pd.IsValid() && !na.IsValid() {
			e.v6.Failed["nothing_bound"]++
			v.stage = v6Soliciting
			return
		}
		v.pd, v.na, v.stage = pd, na, v6Bound
		copy(v.router[:], frame[6:12])
		v.next = now
		e.v6.Bound++
	case m[0] == 7 && v.stage == v6Bound && bytes.Equal(sid, v.serverID):
		e.v6.Received["reply"]++ // to a Release
	default:
		e.v6.Bad++
	}
}
