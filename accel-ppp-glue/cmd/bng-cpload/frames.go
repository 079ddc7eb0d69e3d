package main

import (
	"encoding/binary"
	"errors"
)

// The loader's own minimal codecs for what a CPE behind a DP puts on the wire:
// VXLAN (RFC 7348) around Ethernet with QinQ tags, PPPoE (RFC 2516) and the PPP
// control protocols it needs (LCP RFC 1661, PAP RFC 1334, CHAP RFC 1994, IPCP
// RFC 1332). Deliberately independent of internal/pppoe and internal/ppp: the
// loader is a second implementation that checks the CP from outside.

const (
	etherTypeDiscovery = 0x8863
	etherTypeSession   = 0x8864
	tpid8021Q          = 0x8100
	tpid8021AD         = 0x88a8
	tpid9100           = 0x9100

	codePADI    = 0x09
	codePADO    = 0x07
	codePADR    = 0x19
	codePADS    = 0x65
	codePADT    = 0xa7
	codeSession = 0x00

	tagEndOfList        = 0x0000
	tagServiceName      = 0x0101
	tagACName           = 0x0102
	tagHostUniq         = 0x0103
	tagACCookie         = 0x0104
	tagRelaySessionID   = 0x0110
	tagServiceNameError = 0x0201
	tagACSystemError    = 0x0202
	tagGenericError     = 0x0203

	protoIPv4  = 0x0021
	protoLCP   = 0xc021
	protoPAP   = 0xc023
	protoCHAP  = 0xc223
	protoIPCP  = 0x8021
	protoIPv6C = 0x8057

	vxlanHeaderLen = 8
	minEthFrame    = 60 // without FCS: short frames are padded, as on a real access port
)

var (
	errShort      = errors.New("frame too short")
	errNotPPPoE   = errors.New("not a PPPoE frame")
	errVerType    = errors.New("PPPoE ver/type not 0x11")
	errPPPoELen   = errors.New("PPPoE length runs past the frame")
	errTooManyTag = errors.New("more than two VLAN tags")
	errVXLAN      = errors.New("bad VXLAN header")
	errTagLen     = errors.New("PPPoE tag runs past the payload")
	errPPPLen     = errors.New("PPP packet length invalid")
	errOptLen     = errors.New("PPP option length invalid")
)

// frame is a decoded access frame. payload aliases the decoded buffer and is
// trimmed to the PPPoE length (Ethernet padding removed).
type frame struct {
	dst, src   [6]byte
	outerTPID  uint16
	stag, ctag uint16 // VIDs; ctag 0: no inner tag
	etherType  uint16
	code       uint8
	sessionID  uint16
	payload    []byte
}

// appendFrame writes the Ethernet/QinQ/PPPoE frame of f (payload f.payload),
// padded to the Ethernet minimum.
func appendFrame(dst []byte, f *frame) []byte {
	start := len(dst)
	dst = append(dst, f.dst[:]...)
	dst = append(dst, f.src[:]...)
	dst = binary.BigEndian.AppendUint16(dst, f.outerTPID)
	dst = binary.BigEndian.AppendUint16(dst, f.stag&0x0fff)
	if f.ctag != 0 {
		dst = binary.BigEndian.AppendUint16(dst, tpid8021Q)
		dst = binary.BigEndian.AppendUint16(dst, f.ctag&0x0fff)
	}
	dst = binary.BigEndian.AppendUint16(dst, f.etherType)
	dst = append(dst, 0x11, f.code)
	dst = binary.BigEndian.AppendUint16(dst, f.sessionID)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(f.payload)))
	dst = append(dst, f.payload...)
	for len(dst)-start < minEthFrame {
		dst = append(dst, 0)
	}
	return dst
}

// decodeFrame parses an access frame (one or two VLAN tags, PPPoE). Hostile
// input: every length is checked.
func decodeFrame(b []byte) (frame, error) {
	var f frame
	if len(b) < 14 {
		return f, errShort
	}
	copy(f.dst[:], b[0:6])
	copy(f.src[:], b[6:12])
	off := 12
	ntags := 0
	for {
		if len(b) < off+2 {
			return f, errShort
		}
		t := binary.BigEndian.Uint16(b[off:])
		if t != tpid8021Q && t != tpid8021AD && t != tpid9100 {
			break
		}
		if ntags == 2 {
			return f, errTooManyTag
		}
		if len(b) < off+4 {
			return f, errShort
		}
		vid := binary.BigEndian.Uint16(b[off+2:]) & 0x0fff
		if ntags == 0 {
			f.outerTPID, f.stag = t, vid
		} else {
			f.ctag = vid
		}
		ntags++
		off += 4
	}
	f.etherType = binary.BigEndian.Uint16(b[off:])
	off += 2
	if f.etherType == etherTypeIPv4 {
		f.payload = b[off:] // IPoE: the IPv4 packet (session_ipoe.go checks it)
		return f, nil
	}
	if f.etherType != etherTypeDiscovery && f.etherType != etherTypeSession {
		return f, errNotPPPoE
	}
	if len(b) < off+6 {
		return f, errShort
	}
	if b[off] != 0x11 {
		return f, errVerType
	}
	f.code = b[off+1]
	f.sessionID = binary.BigEndian.Uint16(b[off+2:])
	n := int(binary.BigEndian.Uint16(b[off+4:]))
	off += 6
	if len(b) < off+n {
		return f, errPPPoELen
	}
	f.payload = b[off : off+n]
	return f, nil
}

// vxlanEncap prepends the VXLAN header for vni to frame.
func vxlanEncap(dst []byte, vni uint32, frame []byte) []byte {
	dst = append(dst, 0x08, 0, 0, 0, byte(vni>>16), byte(vni>>8), byte(vni), 0)
	return append(dst, frame...)
}

// vxlanDecap checks the I flag and returns the VNI and the inner frame.
func vxlanDecap(b []byte) (uint32, []byte, error) {
	if len(b) < vxlanHeaderLen || b[0]&0x08 == 0 {
		return 0, nil, errVXLAN
	}
	vni := uint32(b[4])<<16 | uint32(b[5])<<8 | uint32(b[6])
	return vni, b[vxlanHeaderLen:], nil
}

// tags holds the discovery tags the client cares about.
type tags struct {
	acName        []byte
	hostUniq      []byte
	hasHostUniq   bool
	acCookie      []byte
	hasACCookie   bool
	relaySID      []byte
	hasRelaySID   bool
	serviceName   []byte
	hasService    bool
	errorTag      uint16 // first error tag seen, 0 none
	errorTagValue []byte
}

func parseTags(p []byte) (tags, error) {
	var t tags
	for len(p) > 0 {
		if len(p) < 4 {
			return t, errTagLen
		}
		typ := binary.BigEndian.Uint16(p)
		n := int(binary.BigEndian.Uint16(p[2:]))
		if len(p) < 4+n {
			return t, errTagLen
		}
		v := p[4 : 4+n]
		p = p[4+n:]
		switch typ {
		case tagEndOfList:
			return t, nil
		case tagServiceName:
			if !t.hasService {
				t.serviceName, t.hasService = v, true
			}
		case tagACName:
			if t.acName == nil {
				t.acName = v
			}
		case tagHostUniq:
			if !t.hasHostUniq {
				t.hostUniq, t.hasHostUniq = v, true
			}
		case tagACCookie:
			if !t.hasACCookie {
				t.acCookie, t.hasACCookie = v, true
			}
		case tagRelaySessionID:
			if !t.hasRelaySID {
				t.relaySID, t.hasRelaySID = v, true
			}
		case tagServiceNameError, tagACSystemError, tagGenericError:
			if t.errorTag == 0 {
				t.errorTag, t.errorTagValue = typ, v
			}
		}
	}
	return t, nil
}

func appendTag(dst []byte, typ uint16, v []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, typ)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(v)))
	return append(dst, v...)
}

// PPP control packets (LCP, IPCP, PAP, CHAP share code/id/length framing).

type cpPacket struct {
	code, id uint8
	data     []byte // after the 4-octet header, trimmed to the length field
}

// splitPPP returns the protocol and the packet of a PPPoE session payload.
func splitPPP(p []byte) (uint16, []byte, error) {
	if len(p) < 2 {
		return 0, nil, errShort
	}
	return binary.BigEndian.Uint16(p), p[2:], nil
}

func parseCP(b []byte) (cpPacket, error) {
	if len(b) < 4 {
		return cpPacket{}, errPPPLen
	}
	n := int(binary.BigEndian.Uint16(b[2:]))
	if n < 4 || n > len(b) {
		return cpPacket{}, errPPPLen
	}
	return cpPacket{code: b[0], id: b[1], data: b[4:n]}, nil
}

// appendPPP writes protocol + code/id/length + data.
func appendPPP(dst []byte, proto uint16, code, id uint8, data []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, proto)
	dst = append(dst, code, id)
	dst = binary.BigEndian.AppendUint16(dst, uint16(4+len(data)))
	return append(dst, data...)
}

type option struct {
	typ  uint8
	data []byte
}

func parseOptions(b []byte) ([]option, error) {
	var out []option
	for len(b) > 0 {
		if len(b) < 2 {
			return out, errOptLen
		}
		n := int(b[1])
		if n < 2 || n > len(b) {
			return out, errOptLen
		}
		out = append(out, option{typ: b[0], data: b[2:n]})
		b = b[n:]
	}
	return out, nil
}

func appendOption(dst []byte, typ uint8, data []byte) []byte {
	dst = append(dst, typ, uint8(2+len(data)))
	return append(dst, data...)
}

// LCP and IPCP codes (RFC 1661 5).
const (
	cpConfReq   = 1
	cpConfAck   = 2
	cpConfNak   = 3
	cpConfRej   = 4
	cpTermReq   = 5
	cpTermAck   = 6
	cpCodeRej   = 7
	cpProtoRej  = 8
	cpEchoReq   = 9
	cpEchoReply = 10
	cpDiscard   = 11

	lcpOptMRU   = 1
	lcpOptAuth  = 3
	lcpOptMagic = 5

	ipcpOptAddr = 3
	ipcpOptDNS1 = 129
	ipcpOptDNS2 = 131

	papAuthReq = 1
	papAuthAck = 2
	papAuthNak = 3

	chapChallenge = 1
	chapResponse  = 2
	chapSuccess   = 3
	chapFailure   = 4
)
