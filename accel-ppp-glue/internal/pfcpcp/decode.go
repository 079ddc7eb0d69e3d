package pfcpcp

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Decoding errors (every one wraps ErrMalformed).
var (
	ErrMalformed = errors.New("pfcpcp: malformed PFCP message")
	errShort     = fmt.Errorf("%w: truncated", ErrMalformed)
	errVersion   = fmt.Errorf("%w: version is not 1", ErrMalformed)
	errIELength  = fmt.Errorf("%w: IE length runs past its container", ErrMalformed)
	errDepth     = fmt.Errorf("%w: IEs nested too deep", ErrMalformed)
	errTooMany   = fmt.Errorf("%w: too many IEs", ErrMalformed)
)

const (
	maxIEs   = 1024 // per message, as the DP
	maxDepth = 4
)

// header is a decoded PFCP header (29.244 7.2.2).
type header struct {
	fo      bool
	hasSEID bool
	typ     uint8
	seid    uint64
	seq     uint32
}

// rawIE is one IE: type, enterprise id (vendor IEs) and value (aliases the datagram).
type rawIE struct {
	typ uint16
	eid uint16
	val []byte
}

// splitMessage decodes the header of the first message in b; it returns the
// header, the IE octets and the length of the whole message.
func splitMessage(b []byte) (header, []byte, int, error) {
	var h header
	if len(b) < 8 {
		return h, nil, 0, errShort
	}
	if b[0]>>5 != 1 {
		return h, nil, 0, errVersion
	}
	h.fo = b[0]&0x04 != 0
	h.hasSEID = b[0]&0x01 != 0
	h.typ = b[1]
	n := 4 + int(binary.BigEndian.Uint16(b[2:4]))
	hl := 8
	if h.hasSEID {
		hl = 16
	}
	if n < hl || n > len(b) {
		return h, nil, 0, errShort
	}
	off := 4
	if h.hasSEID {
		h.seid = binary.BigEndian.Uint64(b[4:12])
		off = 12
	}
	h.seq = uint32(b[off])<<16 | uint32(b[off+1])<<8 | uint32(b[off+2])
	return h, b[hl:n], n, nil
}

// parseIEs splits b into IEs without looking into grouped ones; count caps
// the IEs of a whole message.
func parseIEs(b []byte, count *int) ([]rawIE, error) {
	var out []rawIE
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, errIELength
		}
		*count++
		if *count > maxIEs {
			return nil, errTooMany
		}
		t := binary.BigEndian.Uint16(b[0:2])
		l := int(binary.BigEndian.Uint16(b[2:4]))
		if 4+l > len(b) {
			return nil, errIELength
		}
		v := b[4 : 4+l]
		var eid uint16
		if t&0x8000 != 0 {
			if l < 2 {
				return nil, errIELength
			}
			eid = binary.BigEndian.Uint16(v[0:2])
			v = v[2:]
		}
		out = append(out, rawIE{typ: t, eid: eid, val: v})
		b = b[4+l:]
	}
	return out, nil
}

// ies is a list of IEs with lookup helpers.
type ies []rawIE

func (l ies) first(typ uint16) (rawIE, bool) {
	for _, i := range l {
		if i.typ == typ && (typ&0x8000 == 0 || i.eid == enterpriseBBF) {
			return i, true
		}
	}
	return rawIE{}, false
}

// vendor is the first IE of type typ from enterprise eid.
func (l ies) vendor(typ, eid uint16) (rawIE, bool) {
	for _, i := range l {
		if i.typ == typ && i.eid == eid {
			return i, true
		}
	}
	return rawIE{}, false
}

func (l ies) all(typ uint16) []rawIE {
	var out []rawIE
	for _, i := range l {
		if i.typ == typ && (typ&0x8000 == 0 || i.eid == enterpriseBBF) {
			out = append(out, i)
		}
	}
	return out
}

// msg is a decoded message: its header and top-level IEs.
type msg struct {
	h     header
	ies   ies
	raw   []byte // the whole message (aliases the datagram)
	count int
}

func decodeMessage(b []byte) (*msg, int, error) {
	h, body, n, err := splitMessage(b)
	if err != nil {
		return nil, 0, err
	}
	m := &msg{h: h, raw: b[:n]}
	l, err := parseIEs(body, &m.count)
	if err != nil {
		return nil, n, err
	}
	m.ies = l
	return m, n, nil
}

// group decodes the children of a grouped IE.
func (m *msg) group(i rawIE) (ies, error) {
	return parseIEs(i.val, &m.count)
}

// cause returns the Cause IE's value.
func (m *msg) cause() (uint8, error) {
	i, ok := m.ies.first(ieCause)
	if !ok || len(i.val) < 1 {
		return 0, fmt.Errorf("%w: no cause", ErrMalformed)
	}
	return i.val[0], nil
}

func (m *msg) rts() (uint32, bool) {
	i, ok := m.ies.first(ieRecoveryTS)
	if !ok || len(i.val) < 4 {
		return 0, false
	}
	return binary.BigEndian.Uint32(i.val), true
}

// causeError builds the CauseError of a refusal.
func (m *msg) causeError(c uint8) *CauseError {
	e := &CauseError{Cause: c}
	if i, ok := m.ies.first(ieOffendingIE); ok && len(i.val) >= 2 {
		e.OffendingIE = binary.BigEndian.Uint16(i.val)
	}
	if i, ok := m.ies.first(ieFailedRuleID); ok && len(i.val) >= 1 {
		e.FailedRuleType = i.val[0] & 0x0f
		switch {
		case e.FailedRuleType == 0 && len(i.val) >= 3:
			e.FailedRule = uint32(binary.BigEndian.Uint16(i.val[1:3]))
			e.HasFailedRule = true
		case e.FailedRuleType != 0 && len(i.val) >= 5:
			e.FailedRule = binary.BigEndian.Uint32(i.val[1:5])
			e.HasFailedRule = true
		}
	}
	return e
}

// fseid returns the SEID of the F-SEID IE.
func (m *msg) fseid() (uint64, error) {
	i, ok := m.ies.first(ieFSEID)
	if !ok || len(i.val) < 9 {
		return 0, fmt.Errorf("%w: no F-SEID", ErrMalformed)
	}
	return binary.BigEndian.Uint64(i.val[1:9]), nil
}

// features returns the association answer's UP and BBF UP function features.
func (m *msg) features() Features {
	var f Features
	if i, ok := m.ies.first(ieUPFeatures); ok && len(i.val) >= 3 {
		f.MNOP = i.val[2]&0x10 != 0 // octet 7 bit 5 (29.244 8.2.25)
	}
	if i, ok := m.ies.first(ieBBFUPFeatures); ok && len(i.val) >= 1 {
		f.PPPoE = i.val[0]&0x01 != 0
		f.IPoE = i.val[0]&0x02 != 0
		f.LCPOffload = i.val[0]&0x10 != 0
	}
	return f
}

// usage decodes the Usage Report IEs of type typ (78, 79 or 80).
func (m *msg) usage(typ uint16) ([]Usage, error) {
	var out []Usage
	for _, ur := range m.ies.all(typ) {
		kids, err := m.group(ur)
		if err != nil {
			return nil, err
		}
		var u Usage
		i, ok := kids.first(ieURRID)
		if !ok || len(i.val) < 4 {
			return nil, fmt.Errorf("%w: usage report without URR ID", ErrMalformed)
		}
		u.URRID = binary.BigEndian.Uint32(i.val)
		if i, ok := kids.first(ieURSEQN); ok && len(i.val) >= 4 {
			u.Seq = binary.BigEndian.Uint32(i.val)
		}
		if i, ok := kids.first(ieUsageRepTrigger); ok {
			for k := 0; k < len(i.val) && k < 4; k++ {
				u.Trigger |= uint32(i.val[k]) << (8 * k)
			}
		}
		if i, ok := kids.first(ieStartTime); ok && len(i.val) >= 4 {
			u.Start = fromNTP(binary.BigEndian.Uint32(i.val))
		}
		if i, ok := kids.first(ieEndTime); ok && len(i.val) >= 4 {
			u.End = fromNTP(binary.BigEndian.Uint32(i.val))
		}
		if i, ok := kids.first(ieVolumeMeas); ok && len(i.val) >= 1 {
			fl := i.val[0]
			v := i.val[1:]
			dst := []*uint64{nil, &u.ULOctets, &u.DLOctets, nil, &u.ULPackets, &u.DLPackets}
			for bit := 0; bit < 6; bit++ {
				if fl&(1<<bit) == 0 {
					continue
				}
				if len(v) < 8 {
					return nil, fmt.Errorf("%w: volume measurement", ErrMalformed)
				}
				if dst[bit] != nil {
					*dst[bit] = binary.BigEndian.Uint64(v)
				}
				v = v[8:]
			}
		}
		// bngpod's Dropped Packets IE: 32 octets (packets, then their octets) or, from a
		// bng-dp before dropped octets, 16 (packets); of another length it is skipped,
		// the report stands
		if i, ok := kids.vendor(ieBngpodDropped, enterpriseBngpod); ok && (len(i.val) == 16 || len(i.val) == 32) {
			u.ULDropped = binary.BigEndian.Uint64(i.val)
			u.DLDropped = binary.BigEndian.Uint64(i.val[8:])
			if len(i.val) == 32 {
				u.ULDroppedOctets = binary.BigEndian.Uint64(i.val[16:])
				u.DLDroppedOctets = binary.BigEndian.Uint64(i.val[24:])
			}
		}
		out = append(out, u)
	}
	return out, nil
}

// report is a decoded Session Report Request.
type report struct {
	usage   []Usage
	lcpDead bool
	usar    bool
}

func (m *msg) report() (report, error) {
	var r report
	i, ok := m.ies.first(ieReportType)
	if !ok || len(i.val) < 1 {
		return r, fmt.Errorf("%w: no report type", ErrMalformed)
	}
	rt := i.val[0]
	if rt&reportTypeUSAR != 0 {
		r.usar = true
		u, err := m.usage(ieUsageRepReport)
		if err != nil {
			return r, err
		}
		r.usage = u
	}
	if rt&reportTypeUPIR != 0 {
		if _, ok := m.ies.first(ieBBFLCPConn); ok {
			r.lcpDead = true
		}
		if _, ok := m.ies.vendor(ieBngpodARPPing, enterpriseBngpod); ok {
			r.lcpDead = true // IPoE: the ARP ping found the subscriber dead
		}
	}
	return r, nil
}
