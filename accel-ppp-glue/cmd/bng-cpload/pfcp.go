package main

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// A minimal PFCP (3GPP TS 29.244) user-plane side, hand-written after
// docs/dp/pfcp.md: enough to associate, answer heartbeats and acknowledge
// session messages like bng-dp does, and to read from an establishment the
// fields that name the subscriber (MAC, tags, PPPoE session id, address).

const (
	pfcpHeartbeatReq   = 1
	pfcpHeartbeatResp  = 2
	pfcpAssocSetupReq  = 5
	pfcpAssocSetupResp = 6
	pfcpAssocUpdReq    = 7
	pfcpAssocUpdResp   = 8
	pfcpAssocRelReq    = 9
	pfcpAssocRelResp   = 10
	pfcpSessEstReq     = 50
	pfcpSessEstResp    = 51
	pfcpSessModReq     = 52
	pfcpSessModResp    = 53
	pfcpSessDelReq     = 54
	pfcpSessDelResp    = 55
	pfcpSessRepReq     = 56
	pfcpSessRepResp    = 57

	ieCreatePDR          = 1
	iePDI                = 2
	ieCreateFAR          = 3
	ieForwardingParams   = 4
	ieCause              = 19
	ieSourceInterface    = 20
	ieDestInterface      = 42
	ieUPFeatures         = 43
	ieFSEID              = 57
	ieNodeID             = 60
	ieUEIPAddress        = 93
	ieRecoveryTimeStamp  = 96
	ieEthPacketFilter    = 132
	ieMACAddress         = 133
	ieCTag               = 134
	ieSTag               = 135
	ieBBFUPFeatures      = 32768
	ieBBFPPPoESessionID  = 32772
	ieBBFVerifTimers     = 32774
	ieBBFLCPMagic        = 32775
	ieBBFMTU             = 32776
	ieBBFLCPConnectivity = 32780

	bbfEnterprise = 3561
	// the bngpod Line Group IE (docs/dp/pfcp.md): vendor type 32768 of enterprise 32473
	ieBngpodLineGroup = 32768
	bngpodEnterprise  = 32473

	causeAccepted           = 1
	causeSessionNotFound    = 65
	causeMandatoryMiss      = 66
	causeMandatoryIncorrect = 69
	causeNoAssociation      = 72

	pfcpMaxBundle = 16
	ntpOffset     = 2208988800 // seconds from 1900 to 1970
)

var (
	errPFCPHeader = errors.New("bad PFCP header")
	errIELen      = errors.New("PFCP IE runs past its container")
)

type pfcpMsg struct {
	typ    uint8
	hasSEI bool
	seid   uint64
	seq    uint32
	body   []byte // the IEs
	raw    []byte // the whole message
}

// splitPFCP returns the messages of a datagram (FO bundles, at most 16).
func splitPFCP(b []byte) ([]pfcpMsg, error) {
	var out []pfcpMsg
	for len(b) > 0 {
		if len(out) == pfcpMaxBundle {
			return out, errPFCPHeader
		}
		if len(b) < 8 || b[0]>>5 != 1 {
			return out, errPFCPHeader
		}
		n := 4 + int(binary.BigEndian.Uint16(b[2:]))
		if n > len(b) || n < 8 {
			return out, errPFCPHeader
		}
		m := pfcpMsg{typ: b[1], raw: b[:n]}
		hl := 8
		if b[0]&0x01 != 0 {
			hl = 16
			if n < hl {
				return out, errPFCPHeader
			}
			m.hasSEI = true
			m.seid = binary.BigEndian.Uint64(b[4:])
			m.seq = uint32(b[12])<<16 | uint32(b[13])<<8 | uint32(b[14])
		} else {
			m.seq = uint32(b[4])<<16 | uint32(b[5])<<8 | uint32(b[6])
		}
		m.body = b[hl:n]
		out = append(out, m)
		fo := b[0]&0x04 != 0
		b = b[n:]
		if !fo {
			break
		}
	}
	return out, nil
}

// forEachIE calls fn for every IE of b; a malformed IE stops with errIELen.
func forEachIE(b []byte, fn func(typ uint16, v []byte) error) error {
	for len(b) > 0 {
		if len(b) < 4 {
			return errIELen
		}
		t := binary.BigEndian.Uint16(b)
		n := int(binary.BigEndian.Uint16(b[2:]))
		if len(b) < 4+n {
			return errIELen
		}
		if err := fn(t, b[4:4+n]); err != nil {
			return err
		}
		b = b[4+n:]
	}
	return nil
}

// vendorValue strips the enterprise id of a vendor IE; ok only for BBF's.
func vendorValue(v []byte) ([]byte, bool) {
	if len(v) < 2 || binary.BigEndian.Uint16(v) != bbfEnterprise {
		return nil, false
	}
	return v[2:], true
}

// establishment is what the loader reads from a Session Establishment Request.
type establishment struct {
	cpSEID     uint64
	hasFSEID   bool
	isDefault  bool // a FAR with Destination Interface CP-function
	hasUp      bool // an upstream PDR (Source Interface Access) with a MAC
	mac        [6]byte
	stag, ctag uint16
	pppoeSID   uint16
	ueIP       netip.Addr // downstream PDR's UE IP Address
	upUEIP     netip.Addr // upstream PDR's (IPoE: the anti-spoofing source match)
	mtu        uint16
	lcpOffload bool   // BBF PPP LCP Connectivity present (with both children)
	magicTx    uint32 // the BNG's magic number in it
	magicRx    uint32 // the CPE's
	ipv6       bool   // a downstream PDR with an IPv6 UE IP Address
}

func parseEstablishment(body []byte) (establishment, error) {
	var e establishment
	err := forEachIE(body, func(t uint16, v []byte) error {
		switch t {
		case ieFSEID:
			if len(v) < 9 {
				return errIELen
			}
			if !e.hasFSEID {
				e.cpSEID, e.hasFSEID = binary.BigEndian.Uint64(v[1:]), true
			}
		case ieCreatePDR:
			return e.parsePDR(v)
		case ieCreateFAR:
			return forEachIE(v, func(t uint16, v []byte) error {
				if t != ieForwardingParams {
					return nil
				}
				return forEachIE(v, func(t uint16, v []byte) error {
					if t == ieDestInterface && len(v) >= 1 && v[0]&0x0f == 3 {
						e.isDefault = true
					}
					return nil
				})
			})
		case ieBBFMTU:
			if p, ok := vendorValue(v); ok && len(p) >= 2 {
				e.mtu = binary.BigEndian.Uint16(p)
			}
		case ieBBFLCPConnectivity:
			if g, ok := vendorValue(v); ok && !e.lcpOffload {
				var timers, magic bool
				err := forEachIE(g, func(t uint16, v []byte) error {
					p, ok := vendorValue(v)
					switch {
					case !ok:
					case t == ieBBFVerifTimers && len(p) >= 3:
						timers = true
					case t == ieBBFLCPMagic && len(p) >= 8:
						magic = true
						e.magicTx, e.magicRx = binary.BigEndian.Uint32(p), binary.BigEndian.Uint32(p[4:])
					}
					return nil
				})
				if err != nil {
					return err
				}
				e.lcpOffload = timers && magic
			}
		}
		return nil
	})
	return e, err
}

func (e *establishment) parsePDR(pdr []byte) error {
	return forEachIE(pdr, func(t uint16, v []byte) error {
		if t != iePDI {
			return nil
		}
		src := -1
		var mac [6]byte
		var hasMAC bool
		var stag, ctag, sid uint16
		var ue netip.Addr
		err := forEachIE(v, func(t uint16, v []byte) error {
			switch t {
			case ieSourceInterface:
				if len(v) < 1 {
					return errIELen
				}
				src = int(v[0] & 0x0f)
			case ieEthPacketFilter:
				return forEachIE(v, func(t uint16, v []byte) error {
					switch t {
					case ieMACAddress:
						if len(v) < 7 {
							return errIELen
						}
						if v[0]&0x01 != 0 { // SOUR first
							copy(mac[:], v[1:7])
							hasMAC = true
						}
					case ieSTag, ieCTag:
						if len(v) < 3 {
							return errIELen
						}
						vid := uint16(v[1]&0xf0)<<4 | uint16(v[2])
						if t == ieSTag {
							stag = vid
						} else {
							ctag = vid
						}
					}
					return nil
				})
			case ieBBFPPPoESessionID:
				if p, ok := vendorValue(v); ok {
					if len(p) < 2 {
						return errIELen
					}
					sid = binary.BigEndian.Uint16(p)
				}
			case ieUEIPAddress:
				if len(v) >= 5 && v[0]&0x02 != 0 {
					ue = netip.AddrFrom4([4]byte(v[1:5]))
				}
				if len(v) >= 17 && v[0]&0x05 == 0x05 {
					e.ipv6 = true
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		switch src {
		case 0:
			if hasMAC && !e.hasUp {
				e.hasUp = true
				e.mac, e.stag, e.ctag, e.pppoeSID, e.upUEIP = mac, stag, ctag, sid, ue
			}
		case 1:
			if ue.IsValid() && !e.ueIP.IsValid() {
				e.ueIP = ue
			}
		}
		return nil
	})
}

// pfcpBuilder writes one answer message.
type pfcpBuilder struct{ b []byte }

func newPFCP(typ uint8, withSEID bool, seid uint64, seq uint32) *pfcpBuilder {
	p := &pfcpBuilder{b: make([]byte, 0, 64)}
	if withSEID {
		p.b = append(p.b, 0x21, typ, 0, 0)
		p.b = binary.BigEndian.AppendUint64(p.b, seid)
	} else {
		p.b = append(p.b, 0x20, typ, 0, 0)
	}
	p.b = append(p.b, byte(seq>>16), byte(seq>>8), byte(seq), 0)
	return p
}

func (p *pfcpBuilder) ie(t uint16, v ...byte) *pfcpBuilder {
	p.b = binary.BigEndian.AppendUint16(p.b, t)
	p.b = binary.BigEndian.AppendUint16(p.b, uint16(len(v)))
	p.b = append(p.b, v...)
	return p
}

func (p *pfcpBuilder) nodeID(a netip.Addr) *pfcpBuilder {
	a4 := a.As4()
	return p.ie(ieNodeID, 0, a4[0], a4[1], a4[2], a4[3])
}

func (p *pfcpBuilder) cause(c uint8) *pfcpBuilder { return p.ie(ieCause, c) }

func (p *pfcpBuilder) rts(secs uint32) *pfcpBuilder {
	return p.ie(ieRecoveryTimeStamp, byte(secs>>24), byte(secs>>16), byte(secs>>8), byte(secs))
}

func (p *pfcpBuilder) fseid(seid uint64, a netip.Addr) *pfcpBuilder {
	v := []byte{0x02}
	v = binary.BigEndian.AppendUint64(v, seid)
	a4 := a.As4()
	v = append(v, a4[:]...)
	return p.ie(ieFSEID, v...)
}

func (p *pfcpBuilder) bytes() []byte {
	binary.BigEndian.PutUint16(p.b[2:], uint16(len(p.b)-4))
	return p.b
}
