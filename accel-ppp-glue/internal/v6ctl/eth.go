package v6ctl

import (
	"encoding/binary"
	"errors"
)

// Ethernet framing of IPoE's IPv6 control packets (issue 19, dual stack over
// IPoE): QinQ + Ethertype 0x86DD, as the DP redirects them and as the CP
// answers.

// EtherTypeIPv6 is IPv6's Ethertype.
const EtherTypeIPv6 uint16 = 0x86DD

// Errors of DecodeFrame.
var (
	ErrFrameShort = errors.New("v6ctl: frame too short")
	ErrNotTagged  = errors.New("v6ctl: no outer VLAN tag")
	ErrNotIPv6    = errors.New("v6ctl: not IPv6")
)

// Frame is a tagged Ethernet frame carrying IPv6. Packet aliases the decoded
// buffer.
type Frame struct {
	Dst, Src   [6]byte
	OuterTPID  uint16
	STag, CTag uint16 // VIDs; CTag 0 = no inner tag
	Packet     []byte // the IPv6 packet
}

// DecodeFrame decodes b: Ethernet, an outer tag (0x8100 or 0x88a8), an
// optional inner 0x8100 tag, Ethertype 0x86DD.
func DecodeFrame(b []byte) (Frame, error) {
	var f Frame
	if len(b) < 18 {
		return f, ErrFrameShort
	}
	copy(f.Dst[:], b[0:6])
	copy(f.Src[:], b[6:12])
	tpid := binary.BigEndian.Uint16(b[12:])
	if tpid != 0x8100 && tpid != 0x88a8 {
		return f, ErrNotTagged
	}
	f.OuterTPID = tpid
	f.STag = binary.BigEndian.Uint16(b[14:]) & 0x0fff
	off := 16
	et := binary.BigEndian.Uint16(b[off:])
	if et == 0x8100 {
		if len(b) < off+6 {
			return f, ErrFrameShort
		}
		f.CTag = binary.BigEndian.Uint16(b[off+2:]) & 0x0fff
		off += 4
		et = binary.BigEndian.Uint16(b[off:])
	}
	if et != EtherTypeIPv6 {
		return f, ErrNotIPv6
	}
	f.Packet = b[off+2:]
	return f, nil
}

// IsIPv6Frame reports whether a tagged frame carries IPv6 (after its tags).
func IsIPv6Frame(b []byte) bool {
	if len(b) < 18 {
		return false
	}
	off := 16
	if binary.BigEndian.Uint16(b[off:]) == 0x8100 {
		if len(b) < 22 {
			return false
		}
		off += 4
	}
	return binary.BigEndian.Uint16(b[off:]) == EtherTypeIPv6
}

// AppendFrame appends f (with f.Packet) to b: outer tag OuterTPID/STag,
// inner 0x8100/CTag when CTag is set.
func AppendFrame(b []byte, f *Frame) []byte {
	b = append(b, f.Dst[:]...)
	b = append(b, f.Src[:]...)
	tpid := f.OuterTPID
	if tpid == 0 {
		tpid = 0x8100
	}
	b = binary.BigEndian.AppendUint16(b, tpid)
	b = binary.BigEndian.AppendUint16(b, f.STag&0x0fff)
	if f.CTag != 0 {
		b = binary.BigEndian.AppendUint16(b, 0x8100)
		b = binary.BigEndian.AppendUint16(b, f.CTag&0x0fff)
	}
	b = binary.BigEndian.AppendUint16(b, EtherTypeIPv6)
	return append(b, f.Packet...)
}
