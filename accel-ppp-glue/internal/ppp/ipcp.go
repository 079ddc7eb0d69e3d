package ppp

import (
	"net/netip"
	"time"
)

var timeZero time.Time

// ipcpLayer is IPCP's part of the automaton (RFC 1332, RFC 1877).
type ipcpLayer struct{ l *Link }

func (y *ipcpLayer) appendOptions(dst []byte) []byte {
	if y.l.sendAddr {
		dst = append(dst, IPCPOptAddress, 6)
		dst = append(dst, y.l.local.AsSlice()...)
	}
	return dst
}

// want returns the address we want for an option (invalid: reject it).
func (y *ipcpLayer) want(typ uint8) netip.Addr {
	switch typ {
	case IPCPOptAddress:
		return y.l.peer
	case IPCPOptDNS1:
		return y.l.dns1
	case IPCPOptDNS2:
		return y.l.dns2
	}
	return netip.Addr{}
}

func (y *ipcpLayer) classify(typ uint8, val []byte) verdict {
	w := y.want(typ)
	if !w.IsValid() || len(val) != 4 {
		// IP-Compression-Protocol, IP-Addresses, NBNS, unknown, or nothing
		// to give: rejected.
		return vRej
	}
	if netip.AddrFrom4([4]byte(val)) != w {
		return vNak
	}
	return vAck
}

func (y *ipcpLayer) appendNak(dst []byte, typ uint8, val []byte) []byte {
	dst = append(dst, typ, 6)
	return append(dst, y.want(typ).AsSlice()...)
}

func (y *ipcpLayer) checkRequest(opts, dst []byte, rejectOnly bool) (uint8, []byte, bool) {
	if !validOptions(opts) {
		return 0, dst, false
	}
	start := len(dst)
	code, reply := judge(opts, dst, rejectOnly, y.classify, y.appendNak)
	if code == CodeConfRej || rejectOnly || !y.l.peer.IsValid() {
		return code, reply, true
	}
	// A peer asking for no address gets one appended to a Nak (RFC 1332 3.3).
	for o := opts; len(o) > 0; {
		typ, _, _, rest := nextOption(o)
		o = rest
		if typ == IPCPOptAddress {
			return code, reply, true
		}
	}
	if code == CodeConfAck {
		reply = reply[:start]
	}
	reply = append(reply, IPCPOptAddress, 6)
	return CodeConfNak, append(reply, y.l.peer.AsSlice()...), true
}

func (y *ipcpLayer) acked(opts []byte) {
	l := y.l
	l.upPeer = l.peer
	for o := opts; len(o) > 0; {
		typ, val, _, rest := nextOption(o)
		o = rest
		if typ == IPCPOptAddress && len(val) == 4 {
			l.upPeer = netip.AddrFrom4([4]byte(val))
		}
	}
}

func (y *ipcpLayer) gotNak(opts []byte) bool {
	// We are the address authority: a Nak of our own address changes nothing
	// (the peer gets Max-Failure chances, see cp.rcn).
	return validOptions(opts)
}

func (y *ipcpLayer) gotRej(opts []byte) bool {
	if !validOptions(opts) {
		return false
	}
	for o := opts; len(o) > 0; {
		typ, _, _, rest := nextOption(o)
		o = rest
		if typ == IPCPOptAddress {
			y.l.sendAddr = false
		}
	}
	return true
}

func (y *ipcpLayer) up() {
	l := y.l
	l.ipcpDeadline = timeZero
	l.evs = append(l.evs, EvUp{Peer: l.upPeer})
}

func (y *ipcpLayer) down() {}

func (y *ipcpLayer) finished() {
	if !y.l.closing {
		y.l.ncpFinished(ProtoIPCP, "IPCP negotiation failed")
	}
}

// inputIPCP handles an IPCP packet: only in the network phase (RFC 1661 3.5
// says NCP packets before it are silently discarded).
func (l *Link) inputIPCP(data []byte) {
	if l.phase != PhaseNetwork {
		l.counters.Discarded++
		return
	}
	pkt, ok := l.packet(data)
	if !ok {
		return
	}
	if pkt[0] == CodeTermReq {
		if l.v6 && !l.ipv6cpFailed {
			l.ncpTerminated(&l.ipcp, ProtoIPCP, pkt[1], "peer terminated IPCP")
			return
		}
		l.ipcp.sta(pkt[1])
		l.fail(DownPeerTerminate, "peer terminated IPCP")
		return
	}
	if !l.ipcp.input(pkt) {
		l.ipcp.scj(pkt)
	}
}
