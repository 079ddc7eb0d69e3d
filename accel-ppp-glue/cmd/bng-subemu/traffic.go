package main

import (
	"encoding/binary"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
)

// Per-session UDP traffic: each datagram to the target carries a magic, the
// subscriber index, a sequence number and the send time; the echo server
// sends it back and the receive path checks it is ours.
const (
	payloadMagic = 0x42534531 // "BSE1"
	payloadMin   = 24
)

// sendUDP builds one IPv4/UDP datagram straight into a send slot: no allocation.
func (e *Emu) sendUDP(s *sess) {
	var fb frameBuilder
	e.beginSession(&fb, s)
	b := binary.BigEndian.AppendUint16(fb.b, ppp.ProtoIPv4)
	ipOff := len(b)
	ipLen := 20 + 8 + e.cfg.Size
	b = b[:ipOff+ipLen]
	ip := b[ipOff:]
	dst := e.cfg.Target.Addr().As4()
	ip[0], ip[1] = 0x45, 0
	binary.BigEndian.PutUint16(ip[2:], uint16(ipLen))
	binary.BigEndian.PutUint16(ip[4:], uint16(s.seq))
	ip[6], ip[7] = 0x40, 0 // DF
	ip[8], ip[9] = 64, 17
	ip[10], ip[11] = 0, 0
	copy(ip[12:16], s.addr[:])
	copy(ip[16:20], dst[:])
	binary.BigEndian.PutUint16(ip[10:], ^csumAdd(0, ip[:20]))
	u := ip[20:]
	binary.BigEndian.PutUint16(u[0:], s.port)
	binary.BigEndian.PutUint16(u[2:], e.cfg.Target.Port())
	binary.BigEndian.PutUint16(u[4:], uint16(8+e.cfg.Size))
	u[6], u[7] = 0, 0
	pl := u[8:]
	binary.BigEndian.PutUint32(pl[0:], payloadMagic)
	binary.BigEndian.PutUint32(pl[4:], s.sub.Index)
	binary.BigEndian.PutUint64(pl[8:], s.seq)
	binary.BigEndian.PutUint64(pl[16:], uint64(e.now))
	clear(pl[payloadMin:])
	// UDP checksum over the pseudo header and the datagram
	var ph [12]byte
	copy(ph[0:4], ip[12:16])
	copy(ph[4:8], ip[16:20])
	ph[9] = 17
	binary.BigEndian.PutUint16(ph[10:], uint16(8+e.cfg.Size))
	c := ^csumAdd(uint32(csumAdd(0, ph[:])), u)
	if c == 0 {
		c = 0xffff
	}
	binary.BigEndian.PutUint16(u[6:], c)
	fb.b = b
	e.commit(fb.end())
	s.seq++
	s.txPkts++
	s.txBytes += uint64(ipLen)
	e.st.trTx++
	e.st.trTxBytes += uint64(ipLen)
}

// csumAdd adds b to the ones' complement sum (RFC 1071), folded.
func csumAdd(sum uint32, b []byte) uint16 {
	for len(b) >= 2 {
		sum += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return uint16(sum)
}

// rxUDP checks an IPv4 packet of an up session: the echo of one of ours.
func (e *Emu) rxUDP(s *sess, ip []byte) {
	bad := func() {
		s.rxBad++
		e.st.trRxBad++
	}
	if len(ip) < 20 || ip[0]>>4 != 4 {
		bad()
		return
	}
	ihl := int(ip[0]&15) * 4
	tl := int(binary.BigEndian.Uint16(ip[2:]))
	if ihl < 20 || tl < ihl+8 || tl > len(ip) || ip[9] != 17 {
		bad()
		return
	}
	if !e.cfg.Target.Addr().Is4() { // no --target: nothing of ours can come back
		bad()
		return
	}
	tgt := e.cfg.Target.Addr().As4()
	if [4]byte(ip[16:20]) != s.addr || [4]byte(ip[12:16]) != tgt {
		bad()
		return
	}
	u := ip[ihl:tl]
	if binary.BigEndian.Uint16(u[0:]) != e.cfg.Target.Port() || binary.BigEndian.Uint16(u[2:]) != s.port {
		bad()
		return
	}
	ul := int(binary.BigEndian.Uint16(u[4:]))
	if ul < 8+payloadMin || ul > len(u) {
		bad()
		return
	}
	pl := u[8:ul]
	if binary.BigEndian.Uint32(pl) != payloadMagic || binary.BigEndian.Uint32(pl[4:]) != s.sub.Index ||
		binary.BigEndian.Uint64(pl[8:]) >= s.seq {
		bad()
		return
	}
	if ts := int64(binary.BigEndian.Uint64(pl[16:])); ts <= e.now && ts >= s.upAt {
		s.rttSum += uint64(e.now - ts)
	}
	if s.firstRxAt == 0 {
		s.firstRxAt = e.now + 1
		e.st.trafficEver++
		e.st.lastFirstRx = e.now
	}
	if s.lastRxAt != 0 && e.now+1-s.lastRxAt > s.maxRxGap {
		s.maxRxGap, s.maxRxGapEnd = e.now+1-s.lastRxAt, e.now+1
	}
	s.lastRxAt = e.now + 1
	s.rxPkts++
	s.rxBytes += uint64(tl)
	e.st.trRx++
	e.st.trRxBytes += uint64(tl)
}
