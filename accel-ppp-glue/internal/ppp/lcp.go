package ppp

import "encoding/binary"

// lcpLayer is LCP's part of the automaton.
type lcpLayer struct{ l *Link }

func (y *lcpLayer) appendOptions(dst []byte) []byte {
	l := y.l
	if l.sendMRU {
		dst = append(dst, LCPOptMRU, 4)
		dst = binary.BigEndian.AppendUint16(dst, l.ourMRU)
	}
	if l.authIdx >= 0 {
		if l.cfg.Auth[l.authIdx] == AuthCHAP {
			dst = append(dst, LCPOptAuth, 5, 0xc2, 0x23, CHAPMD5)
		} else {
			dst = append(dst, LCPOptAuth, 4, 0xc0, 0x23)
		}
	}
	if l.sendMagic {
		dst = append(dst, LCPOptMagic, 6)
		dst = binary.BigEndian.AppendUint32(dst, l.ourMagic)
	}
	return dst
}

func (y *lcpLayer) classify(typ uint8, val []byte) verdict {
	l := y.l
	switch typ {
	case LCPOptMRU:
		if len(val) != 2 {
			return vRej
		}
		if v := binary.BigEndian.Uint16(val); v > l.cfg.MaxMRU || v < minMRU {
			return vNak
		}
		return vAck
	case LCPOptMagic:
		if len(val) != 4 {
			return vRej
		}
		if v := binary.BigEndian.Uint32(val); v == 0 || (l.sendMagic && v == l.ourMagic) {
			return vNak
		}
		return vAck
	}
	// ACCM, Authentication-Protocol (we do not authenticate to the peer),
	// Quality-Protocol, PFC, ACFC, FCS-Alternatives, numbered mode,
	// callback, multilink, unknown: rejected.
	return vRej
}

func (y *lcpLayer) appendNak(dst []byte, typ uint8, val []byte) []byte {
	l := y.l
	switch typ {
	case LCPOptMRU:
		v := binary.BigEndian.Uint16(val)
		if v > l.cfg.MaxMRU {
			v = l.cfg.MaxMRU
		} else {
			v = minMRU
		}
		dst = append(dst, LCPOptMRU, 4)
		return binary.BigEndian.AppendUint16(dst, v)
	case LCPOptMagic:
		v := binary.BigEndian.Uint32(val)
		if v != 0 {
			// Our own number: the line may be looped back (RFC 1661 6.4).
			l.loops++
			l.counters.LoopsDetected++
			if l.loops > l.cfg.MaxFailure {
				l.fail(DownLCPFailed, "looped-back line (our Magic-Number came back)")
			}
		}
		dst = append(dst, LCPOptMagic, 6)
		return binary.BigEndian.AppendUint32(dst, xorshift32(v^l.ourMagic))
	}
	return dst
}

func (y *lcpLayer) checkRequest(opts, dst []byte, rejectOnly bool) (uint8, []byte, bool) {
	if !validOptions(opts) {
		return 0, dst, false
	}
	code, reply := judge(opts, dst, rejectOnly, y.classify, y.appendNak)
	return code, reply, true
}

func (y *lcpLayer) acked(opts []byte) {
	l := y.l
	l.peerMRU, l.peerMagic = 0, 0
	for o := opts; len(o) > 0; {
		typ, val, _, rest := nextOption(o)
		o = rest
		switch typ {
		case LCPOptMRU:
			l.peerMRU = binary.BigEndian.Uint16(val)
		case LCPOptMagic:
			l.peerMagic = binary.BigEndian.Uint32(val)
		}
	}
}

func (y *lcpLayer) gotNak(opts []byte) bool {
	if !validOptions(opts) {
		return false
	}
	l := y.l
	for o := opts; len(o) > 0; {
		typ, val, _, rest := nextOption(o)
		o = rest
		switch typ {
		case LCPOptMRU:
			if len(val) == 2 {
				if v := binary.BigEndian.Uint16(val); v >= minMRU && v <= l.cfg.MaxMRU {
					l.ourMRU = v
				}
			}
		case LCPOptAuth:
			if l.authIdx >= 0 {
				l.nakAuth(val)
			}
		case LCPOptMagic:
			if len(val) == 4 && l.sendMagic {
				l.loops++
				l.counters.LoopsDetected++
				if l.loops > l.cfg.MaxFailure {
					l.fail(DownLCPFailed, "looped-back line (Magic-Number Nak'd repeatedly)")
				}
				l.ourMagic = xorshift32(l.ourMagic ^ binary.BigEndian.Uint32(val))
			}
		}
	}
	return true
}

// nakAuth moves to the authentication protocol the peer suggested when we
// offer it, else to the next one of our list; none left fails the link.
func (l *Link) nakAuth(val []byte) {
	want := AuthMethod(0)
	if len(val) >= 2 {
		switch binary.BigEndian.Uint16(val) {
		case ProtoPAP:
			want = AuthPAP
		case ProtoCHAP:
			if len(val) == 3 && val[2] == CHAPMD5 {
				want = AuthCHAP
			}
		}
	}
	for i, m := range l.cfg.Auth {
		if m == want && i != l.authIdx {
			l.authIdx = i
			return
		}
	}
	if l.authIdx+1 < len(l.cfg.Auth) {
		l.authIdx++
		return
	}
	l.fail(DownAuthFailed, "peer refuses our authentication protocols")
}

func (y *lcpLayer) gotRej(opts []byte) bool {
	if !validOptions(opts) {
		return false
	}
	l := y.l
	for o := opts; len(o) > 0; {
		typ, _, _, rest := nextOption(o)
		o = rest
		switch typ {
		case LCPOptMRU:
			l.sendMRU = false
		case LCPOptAuth:
			if l.authIdx >= 0 {
				l.fail(DownAuthFailed, "peer rejected authentication")
			}
		case LCPOptMagic:
			l.sendMagic = false
		}
	}
	return true
}

func (y *lcpLayer) up() {
	l := y.l
	l.magicAcked = l.sendMagic
	l.lcpUp()
}

func (y *lcpLayer) down() {
	l := y.l
	l.ipcp.reset()
	l.authState = authNone
	l.chapDeadline, l.ipcpDeadline, l.echoDeadline = timeZero, timeZero, timeZero
	switch {
	case l.renegotiating:
		l.phase = PhaseEstablish
	case l.phase != PhaseDead:
		l.phase = PhaseTerminate
	}
}

func (y *lcpLayer) finished() {
	l := y.l
	if l.closing {
		l.down(l.closeReason, l.closeDetail)
		return
	}
	if l.failReason != 0 {
		r, d := l.failReason, l.failDetail
		l.failReason = 0
		l.down(r, d)
		return
	}
	l.down(DownLCPFailed, "LCP negotiation failed")
}

// inputLCP handles an LCP packet.
func (l *Link) inputLCP(data []byte) {
	pkt, ok := l.packet(data)
	if !ok {
		return
	}
	opened := l.lcp.state == stOpened
	switch code := pkt[0]; code {
	case CodeConfReq:
		if opened {
			if l.phase == PhaseAuthenticate && l.authState == authWaitPeer {
				// The peer has not seen our Configure-Ack (lost, or late
				// under load) and asks again before it authenticated:
				// renegotiate as RFC 1661 says (this-layer-down, our
				// Configure-Request, the answer to theirs), then start the
				// authentication phase afresh.
				l.counters.Renegotiations++
				l.renegotiating = true
				l.lcp.input(pkt)
				l.renegotiating = false
				return
			}
			// Later, credentials are with the CP already: no LCP
			// renegotiation on a PPPoE session (see the package doc).
			l.down(DownLCPFailed, "peer restarted LCP negotiation")
			return
		}
		l.lcp.input(pkt)
	case CodeConfAck, CodeConfNak, CodeConfRej:
		if opened {
			l.counters.Discarded++
			return
		}
		l.lcp.input(pkt)
	case CodeTermReq:
		l.lcp.sta(pkt[1])
		if l.closing {
			l.down(l.closeReason, l.closeDetail)
		} else {
			l.down(DownPeerTerminate, "")
			l.evs[len(l.evs)-1] = EvDown{Reason: DownPeerTerminate, Acked: true}
		}
	case CodeTermAck:
		if opened {
			// RFC 1661 would renegotiate; we do not (see the package doc).
			l.counters.Discarded++
			return
		}
		l.lcp.input(pkt)
	case CodeCodeRej:
		if len(pkt) > 4 && pkt[4] == CodeEchoReq {
			l.echoOff = true
			l.echoDeadline = timeZero
		}
		l.lcp.input(pkt)
	case CodeProtoRej:
		if !opened {
			l.counters.Discarded++
			return
		}
		if len(pkt) < 6 {
			l.counters.Malformed++
			return
		}
		switch binary.BigEndian.Uint16(pkt[4:]) {
		case ProtoLCP:
			l.lcp.rxj(false)
		case ProtoIPCP:
			if l.v6 && !l.ipv6cpFailed {
				l.ipcp.rxj(false)
				break
			}
			l.fail(DownIPCPFailed, "peer rejected IPCP")
		case ProtoIPv6CP:
			if l.v6 {
				l.ipv6cp.rxj(false)
			}
		case ProtoPAP, ProtoCHAP:
			if l.phase == PhaseAuthenticate {
				l.fail(DownAuthFailed, "peer rejected the authentication protocol")
			}
		}
	case CodeEchoReq, CodeEchoRep:
		if !opened {
			l.counters.Discarded++
			return
		}
		if len(pkt) < 8 {
			l.counters.Malformed++
			return
		}
		if l.magicAcked && binary.BigEndian.Uint32(pkt[4:]) == l.ourMagic {
			l.counters.LoopsDetected++
			return
		}
		if code == CodeEchoRep {
			l.counters.EchoRepliesHeard++
			l.echoPending, l.echoMisses = false, 0
			return
		}
		l.counters.EchoesAnswered++
		start := l.begin(CodeEchoRep, pkt[1])
		ours, _ := l.Magic()
		l.out = binary.BigEndian.AppendUint32(l.out, ours)
		l.out = append(l.out, pkt[8:]...)
		l.finish(ProtoLCP, start, true)
	case CodeDiscardReq, CodeIdentification, CodeTimeRemaining:
		l.counters.Discarded++
	default:
		l.lcp.scj(pkt)
	}
}
