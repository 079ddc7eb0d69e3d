package ppp

import (
	"encoding/binary"
)

// IPv6CP configuration option (RFC 5072 4.1); 2 (IPv6-Compression-Protocol)
// and every other option are rejected.
const IPv6CPOptIID = 1

// ipv6cpLayer is IPv6CP's part of the automaton (RFC 5072): both ends
// negotiate the interface identifiers of their link-local addresses.
type ipv6cpLayer struct{ l *Link }

func (y *ipv6cpLayer) appendOptions(dst []byte) []byte {
	if y.l.sendIID {
		dst = append(dst, IPv6CPOptIID, 10)
		dst = binary.BigEndian.AppendUint64(dst, y.l.ourIID)
	}
	return dst
}

func (y *ipv6cpLayer) classify(typ uint8, val []byte) verdict {
	if typ != IPv6CPOptIID || len(val) != 8 {
		return vRej
	}
	// RFC 5072 4.1: an identifier of zero, or one equal to ours, is Nak'd
	// with a unique one.
	if iid := binary.BigEndian.Uint64(val); iid == 0 || iid == y.l.ourIID {
		return vNak
	}
	return vAck
}

func (y *ipv6cpLayer) appendNak(dst []byte, typ uint8, val []byte) []byte {
	dst = append(dst, IPv6CPOptIID, 10)
	return binary.BigEndian.AppendUint64(dst, y.l.suggestIID())
}

func (y *ipv6cpLayer) checkRequest(opts, dst []byte, rejectOnly bool) (uint8, []byte, bool) {
	if !validOptions(opts) {
		return 0, dst, false
	}
	code, reply := judge(opts, dst, rejectOnly, y.classify, y.appendNak)
	return code, reply, true
}

func (y *ipv6cpLayer) acked(opts []byte) {
	l := y.l
	l.upPeerIID = 0
	for o := opts; len(o) > 0; {
		typ, val, _, rest := nextOption(o)
		o = rest
		if typ == IPv6CPOptIID && len(val) == 8 {
			l.upPeerIID = binary.BigEndian.Uint64(val)
		}
	}
}

func (y *ipv6cpLayer) gotNak(opts []byte) bool {
	if !validOptions(opts) {
		return false
	}
	l := y.l
	for o := opts; len(o) > 0; {
		typ, val, _, rest := nextOption(o)
		o = rest
		if typ != IPv6CPOptIID || len(val) != 8 {
			continue
		}
		// The peer's identifier collides with ours: take its suggestion
		// when usable, else pick another (RFC 5072 4.1).
		s := binary.BigEndian.Uint64(val)
		if s != 0 && s != l.ourIID && s != l.upPeerIID {
			l.ourIID = s
		} else {
			l.ourIID = uint64(xorshift32(uint32(l.ourIID)))<<32 | uint64(xorshift32(uint32(l.ourIID>>32)))
		}
	}
	return true
}

func (y *ipv6cpLayer) gotRej(opts []byte) bool {
	if !validOptions(opts) {
		return false
	}
	for o := opts; len(o) > 0; {
		typ, _, _, rest := nextOption(o)
		o = rest
		if typ == IPv6CPOptIID {
			y.l.sendIID = false
		}
	}
	return true
}

func (y *ipv6cpLayer) up() {
	l := y.l
	l.ipcpDeadline = timeZero
	l.evs = append(l.evs, EvUp6{Local: l.ourIID, Peer: l.upPeerIID})
}

func (y *ipv6cpLayer) down() {}

func (y *ipv6cpLayer) finished() {
	if !y.l.closing {
		y.l.ncpFinished(ProtoIPv6CP, "IPv6CP negotiation failed")
	}
}

// suggestIID is the identifier a Nak offers the peer: the one set by SetIPv6
// unless that is ours, then another.
func (l *Link) suggestIID() uint64 {
	s := l.peerIID
	for s == 0 || s == l.ourIID {
		s = uint64(xorshift32(uint32(s)))<<32 | uint64(xorshift32(uint32(s>>32)|1))
	}
	return s
}

// SetIPv6 enables IPv6CP (RFC 5072) with our interface identifier ours and
// the one a Nak suggests to a peer whose identifier is zero or ours. Call it
// before AuthResult(ok); without it IPv6CP is answered with an LCP
// Protocol-Reject (no IPv6 for this subscriber). ours must not be zero.
func (l *Link) SetIPv6(ours, suggest uint64) {
	if ours == 0 {
		l.v6 = false
		return
	}
	l.v6, l.sendIID, l.ourIID, l.peerIID = true, true, ours, suggest
}

// IIDs returns the interface identifiers as agreed: ours and the peer's (0
// when the peer sent none or IPv6CP is not open).
func (l *Link) IIDs() (ours, peer uint64) { return l.ourIID, l.upPeerIID }

// ncpFinished: IPCP or IPv6CP ended without (or after) being open. The link
// lives on while the other network protocol is enabled and has not failed.
func (l *Link) ncpFinished(proto uint16, detail string) {
	if proto == ProtoIPCP {
		l.ipcpFailed = true
	} else {
		l.ipv6cpFailed = true
	}
	other4 := !l.ipcpFailed
	other6 := l.v6 && !l.ipv6cpFailed
	if other4 || other6 {
		l.evs = append(l.evs, EvNCPDown{Proto: proto, Detail: detail})
		return
	}
	l.fail(DownIPCPFailed, detail)
}

// inputIPv6CP handles an IPv6CP packet (only in the network phase).
func (l *Link) inputIPv6CP(data []byte) {
	if !l.v6 {
		l.protocolReject(ProtoIPv6CP, data)
		return
	}
	if l.phase != PhaseNetwork {
		l.counters.Discarded++
		return
	}
	pkt, ok := l.packet(data)
	if !ok {
		return
	}
	if pkt[0] == CodeTermReq {
		l.ncpTerminated(&l.ipv6cp, ProtoIPv6CP, pkt[1], "peer terminated IPv6CP")
		return
	}
	if !l.ipv6cp.input(pkt) {
		l.ipv6cp.scj(pkt)
	}
}

// ncpTerminated: the peer's Terminate-Request of one network protocol. It is
// acknowledged; the link ends unless the other one runs on.
func (l *Link) ncpTerminated(c *cp, proto uint16, id uint8, detail string) {
	c.sta(id)
	if c.state == stOpened {
		c.layer.down()
	}
	c.setState(stStopped)
	l.ncpFinished(proto, detail)
}

// IPv6Pending reports whether IPv6CP is enabled and still negotiating
// (neither opened nor failed).
func (l *Link) IPv6Pending() bool {
	return l.v6 && !l.ipv6cpFailed && !l.dead && l.ipv6cp.state != stOpened
}
