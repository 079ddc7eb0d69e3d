package main

import (
	"encoding/binary"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
)

// cpPacket is a PPP control packet (LCP, IPCP, PAP, CHAP) trimmed to its
// Length; data aliases the frame.
type cpPacket struct {
	code, id uint8
	data     []byte
}

// parseCP checks the control packet header: Length at least 4 and within
// the frame (bytes beyond it are padding, RFC 1661 5).
func parseCP(b []byte) (cpPacket, bool) {
	if len(b) < 4 {
		return cpPacket{}, false
	}
	n := int(binary.BigEndian.Uint16(b[2:]))
	if n < 4 || n > len(b) {
		return cpPacket{}, false
	}
	return cpPacket{code: b[0], id: b[1], data: b[4:n:n]}, true
}

// validOptions checks a Configure-* option list: each option at least 2
// bytes and within the list.
func validOptions(o []byte) bool {
	for len(o) > 0 {
		if len(o) < 2 || o[1] < 2 || int(o[1]) > len(o) {
			return false
		}
		o = o[o[1]:]
	}
	return true
}

// nextOption splits one option off a checked list.
func nextOption(o []byte) (typ uint8, val, whole, rest []byte) {
	n := int(o[1])
	return o[0], o[2:n], o[:n], o[n:]
}

// frameBuilder writes one access frame into a send buffer.
type frameBuilder struct {
	b     []byte
	plOff int // start of the PPPoE payload
}

// begin writes Ethernet, the outer tag, the C-tag and the PPPoE header (length
// set by end).
func (fb *frameBuilder) begin(buf []byte, dst, src [6]byte, tpid, stag, ctag, et uint16, code uint8, sid uint16) {
	b := append(buf[:0], dst[:]...)
	b = append(b, src[:]...)
	b = binary.BigEndian.AppendUint16(b, tpid)
	b = binary.BigEndian.AppendUint16(b, stag&0x0fff)
	if ctag != 0 {
		b = binary.BigEndian.AppendUint16(b, pppoe.TPID8021Q)
		b = binary.BigEndian.AppendUint16(b, ctag&0x0fff)
	}
	b = binary.BigEndian.AppendUint16(b, et)
	b = append(b, 0x11, code)
	b = binary.BigEndian.AppendUint16(b, sid)
	b = append(b, 0, 0)
	fb.b, fb.plOff = b, len(b)
}

// end sets the PPPoE length and returns the frame.
func (fb *frameBuilder) end() []byte {
	binary.BigEndian.PutUint16(fb.b[fb.plOff-2:], uint16(len(fb.b)-fb.plOff))
	return fb.b
}

// cp appends a PPP control packet header (protocol, code, id, length to be
// set by cpEnd) and returns its start.
func (fb *frameBuilder) cp(proto uint16, code, id uint8) int {
	fb.b = binary.BigEndian.AppendUint16(fb.b, proto)
	start := len(fb.b)
	fb.b = append(fb.b, code, id, 0, 0)
	return start
}

func (fb *frameBuilder) cpEnd(start int) {
	binary.BigEndian.PutUint16(fb.b[start+2:], uint16(len(fb.b)-start))
}
