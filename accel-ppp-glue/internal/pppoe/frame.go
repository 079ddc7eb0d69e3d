package pppoe

import (
	"encoding/binary"
	"errors"
)

// EtherTypes of PPPoE (RFC 2516 section 4).
const (
	EtherTypeDiscovery uint16 = 0x8863
	EtherTypeSession   uint16 = 0x8864
)

// PPPoE codes (RFC 2516 section 5).
const (
	CodePADI    uint8 = 0x09
	CodePADO    uint8 = 0x07
	CodePADR    uint8 = 0x19
	CodePADS    uint8 = 0x65
	CodePADT    uint8 = 0xa7
	CodeSession uint8 = 0x00
)

// VLAN tag protocol identifiers accepted as the outer tag.
const (
	TPID8021Q  uint16 = 0x8100
	TPID8021AD uint16 = 0x88a8
)

// HeaderLen is the length of the PPPoE header (ver/type, code, session, length).
const HeaderLen = 6

// Sentinel errors of DecodeFrame and ParseTags. Each reason has its own value
// so that callers can count them with errors.Is.
var (
	ErrShort     = errors.New("pppoe: frame too short")
	ErrNotTagged = errors.New("pppoe: no outer VLAN tag")
	ErrEtherType = errors.New("pppoe: not a PPPoE EtherType")
	ErrVersion   = errors.New("pppoe: version/type is not 1/1")
	ErrLength    = errors.New("pppoe: PPPoE length beyond the frame")
	ErrCode      = errors.New("pppoe: code not valid for the EtherType")
	ErrSessionID = errors.New("pppoe: session id not valid for the code")
	ErrTagShort  = errors.New("pppoe: truncated tag")
	ErrTagLength = errors.New("pppoe: tag value of a wrong length")
	ErrVendorTag = errors.New("pppoe: malformed TR-101 vendor tag")
)

// Frame is an access frame as a DP redirects it: Ethernet, an outer tag
// (0x8100 or 0x88a8), an optional inner C-tag (0x8100) and the PPPoE header.
// Payload is trimmed to the PPPoE length (Ethernet padding is cut) and
// aliases the decoded buffer. The tags' DEI bits are not kept (AppendFrame
// writes 0).
type Frame struct {
	Dst, Src   [6]byte
	OuterTPID  uint16
	STag, CTag uint16 // VIDs; CTag 0 = no inner tag
	SPCP, CPCP uint8
	EtherType  uint16
	Code       uint8
	SessionID  uint16
	Payload    []byte
}

// DecodeFrame decodes b. It checks the tags, the EtherType, version and type,
// that the code belongs to the EtherType (session frames carry code 0,
// discovery frames one of the five discovery codes), that PADI and PADR carry
// session id 0 and PADS/PADT/session frames a non-zero one (RFC 2516 5.1-5.5
// and 4), and that the PPPoE length fits in b.
func DecodeFrame(b []byte) (Frame, error) {
	var f Frame
	if len(b) < 14+4+HeaderLen {
		return f, ErrShort
	}
	copy(f.Dst[:], b[0:6])
	copy(f.Src[:], b[6:12])
	off := 12
	tpid := binary.BigEndian.Uint16(b[off:])
	if tpid != TPID8021Q && tpid != TPID8021AD {
		return f, ErrNotTagged
	}
	f.OuterTPID = tpid
	tci := binary.BigEndian.Uint16(b[off+2:])
	f.STag, f.SPCP = tci&0x0fff, uint8(tci>>13)
	off += 4
	et := binary.BigEndian.Uint16(b[off:])
	if et == TPID8021Q {
		if len(b) < off+4+2+HeaderLen {
			return f, ErrShort
		}
		tci = binary.BigEndian.Uint16(b[off+2:])
		f.CTag, f.CPCP = tci&0x0fff, uint8(tci>>13)
		off += 4
		et = binary.BigEndian.Uint16(b[off:])
	}
	off += 2
	f.EtherType = et
	if et != EtherTypeDiscovery && et != EtherTypeSession {
		return f, ErrEtherType
	}
	h := b[off : off+HeaderLen]
	if h[0] != 0x11 {
		return f, ErrVersion
	}
	f.Code = h[1]
	f.SessionID = binary.BigEndian.Uint16(h[2:])
	n := int(binary.BigEndian.Uint16(h[4:]))
	off += HeaderLen
	if n > len(b)-off {
		return f, ErrLength
	}
	f.Payload = b[off : off+n : off+n]
	if et == EtherTypeSession {
		if f.Code != CodeSession {
			return f, ErrCode
		}
		if f.SessionID == 0 || f.SessionID == 0xffff {
			return f, ErrSessionID
		}
		return f, nil
	}
	switch f.Code {
	case CodePADI, CodePADR, CodePADO:
		if f.SessionID != 0 {
			return f, ErrSessionID
		}
	case CodePADS:
		// A PADS with session id 0 reports an error (RFC 2516 5.4).
	case CodePADT:
		if f.SessionID == 0 {
			return f, ErrSessionID
		}
	default:
		return f, ErrCode
	}
	return f, nil
}

// AppendFrame appends f to dst: the Ethernet header, the outer tag (TPID
// f.OuterTPID, 0x8100 when zero; VID f.STag, PCP f.SPCP), the C-tag when
// f.CTag != 0, f.EtherType (0x8864 for CodeSession and 0x8863 otherwise when
// zero), the PPPoE header with the length of f.Payload, and f.Payload.
// A payload longer than 65535 bytes is cut to 65535 (no valid frame is that
// long; the caller's MTU check must catch it earlier).
func AppendFrame(dst []byte, f *Frame) []byte {
	tpid := f.OuterTPID
	if tpid == 0 {
		tpid = TPID8021Q
	}
	et := f.EtherType
	if et == 0 {
		et = EtherTypeDiscovery
		if f.Code == CodeSession {
			et = EtherTypeSession
		}
	}
	p := f.Payload
	if len(p) > 0xffff {
		p = p[:0xffff]
	}
	dst = append(dst, f.Dst[:]...)
	dst = append(dst, f.Src[:]...)
	dst = binary.BigEndian.AppendUint16(dst, tpid)
	dst = binary.BigEndian.AppendUint16(dst, uint16(f.SPCP&7)<<13|f.STag&0x0fff)
	if f.CTag != 0 {
		dst = binary.BigEndian.AppendUint16(dst, TPID8021Q)
		dst = binary.BigEndian.AppendUint16(dst, uint16(f.CPCP&7)<<13|f.CTag&0x0fff)
	}
	dst = binary.BigEndian.AppendUint16(dst, et)
	dst = append(dst, 0x11, f.Code)
	dst = binary.BigEndian.AppendUint16(dst, f.SessionID)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(p)))
	return append(dst, p...)
}
