package pppoe

import "encoding/binary"

// Discovery tag types (RFC 2516 appendix A, RFC 4638).
const (
	TagEndOfList        uint16 = 0x0000
	TagServiceName      uint16 = 0x0101
	TagACName           uint16 = 0x0102
	TagHostUniq         uint16 = 0x0103
	TagACCookie         uint16 = 0x0104
	TagVendorSpecific   uint16 = 0x0105
	TagRelaySessionID   uint16 = 0x0110
	TagPPPMaxPayload    uint16 = 0x0120
	TagServiceNameError uint16 = 0x0201
	TagACSystemError    uint16 = 0x0202
	TagGenericError     uint16 = 0x0203
)

// EnterpriseBBF is the IANA enterprise number of the ADSL Forum (now the
// Broadband Forum) used by the TR-101 access-line tag.
const EnterpriseBBF uint32 = 3561

// Sub-options of the TR-101 access-line tag.
const (
	SubCircuitID      uint8 = 0x01
	SubRemoteID       uint8 = 0x02
	SubActualRateUp   uint8 = 0x81
	SubActualRateDown uint8 = 0x82
)

// Tags are the discovery tags the control plane uses. Byte slices alias the
// parsed payload. For tags that should appear once, the first occurrence is
// kept and later ones are ignored.
type Tags struct {
	ServiceName       []byte
	HasServiceName    bool
	ACName            []byte
	HostUniq          []byte
	HasHostUniq       bool
	ACCookie          []byte
	RelaySessionID    []byte
	HasRelaySessionID bool
	MaxPayload        uint16      // 0 = absent (RFC 4638)
	AccessLine        *AccessLine // TR-101 vendor-specific tag 0x0105, enterprise 3561
	ErrorTags         int         // Service-Name-Error/AC-System-Error/Generic-Error seen
}

// AccessLine is the content of a TR-101 access-line tag.
type AccessLine struct {
	CircuitID, RemoteID          string
	ActualRateUp, ActualRateDown uint32 // kbit/s, 0 absent
	Raw                          []byte // whole vendor tag value incl. enterprise (aliases the payload)
}

// ParseTags parses the tag list of a discovery payload. Parsing stops at an
// End-Of-List tag; bytes after it are ignored (RFC 2516 appendix A). A tag
// running past the payload, trailing bytes too short for a tag header, a
// PPP-Max-Payload value that is not 2 bytes, and a malformed TR-101 tag are
// errors. Vendor-specific tags of other enterprises are ignored.
func ParseTags(payload []byte) (Tags, error) {
	var t Tags
	b := payload
	for len(b) > 0 {
		if len(b) < 4 {
			return t, ErrTagShort
		}
		typ := binary.BigEndian.Uint16(b)
		n := int(binary.BigEndian.Uint16(b[2:]))
		if n > len(b)-4 {
			return t, ErrTagShort
		}
		v := b[4 : 4+n : 4+n]
		b = b[4+n:]
		switch typ {
		case TagEndOfList:
			return t, nil
		case TagServiceName:
			if !t.HasServiceName {
				t.ServiceName, t.HasServiceName = v, true
			}
		case TagACName:
			if t.ACName == nil {
				t.ACName = v
			}
		case TagHostUniq:
			if !t.HasHostUniq {
				t.HostUniq, t.HasHostUniq = v, true
			}
		case TagACCookie:
			if t.ACCookie == nil {
				t.ACCookie = v
			}
		case TagRelaySessionID:
			if !t.HasRelaySessionID {
				t.RelaySessionID, t.HasRelaySessionID = v, true
			}
		case TagPPPMaxPayload:
			if n != 2 {
				return t, ErrTagLength
			}
			if t.MaxPayload == 0 {
				t.MaxPayload = binary.BigEndian.Uint16(v)
			}
		case TagVendorSpecific:
			if n < 4 {
				return t, ErrTagLength
			}
			if binary.BigEndian.Uint32(v) != EnterpriseBBF || t.AccessLine != nil {
				continue
			}
			al, err := parseAccessLine(v)
			if err != nil {
				return t, err
			}
			t.AccessLine = al
		case TagServiceNameError, TagACSystemError, TagGenericError:
			t.ErrorTags++
		}
	}
	return t, nil
}

// parseAccessLine parses the sub-options (type, length, value) after the
// enterprise number of a TR-101 tag. Unknown sub-options are skipped; a rate
// sub-option must be 4 bytes.
func parseAccessLine(v []byte) (*AccessLine, error) {
	al := &AccessLine{Raw: v}
	b := v[4:]
	for len(b) > 0 {
		if len(b) < 2 {
			return nil, ErrVendorTag
		}
		typ, n := b[0], int(b[1])
		if n > len(b)-2 {
			return nil, ErrVendorTag
		}
		s := b[2 : 2+n]
		b = b[2+n:]
		switch typ {
		case SubCircuitID:
			if al.CircuitID == "" {
				al.CircuitID = string(s)
			}
		case SubRemoteID:
			if al.RemoteID == "" {
				al.RemoteID = string(s)
			}
		case SubActualRateUp, SubActualRateDown:
			if n != 4 {
				return nil, ErrVendorTag
			}
			r := binary.BigEndian.Uint32(s)
			if typ == SubActualRateUp {
				al.ActualRateUp = r
			} else {
				al.ActualRateDown = r
			}
		}
	}
	return al, nil
}

// AppendTag appends one tag (type, length, value) to dst. A value longer
// than 65535 bytes is cut to 65535.
func AppendTag(dst []byte, typ uint16, val []byte) []byte {
	if len(val) > 0xffff {
		val = val[:0xffff]
	}
	dst = binary.BigEndian.AppendUint16(dst, typ)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(val)))
	return append(dst, val...)
}

// AppendAccessLine appends the value of a TR-101 access-line tag (enterprise
// 3561 and the sub-options that are set) to dst; wrap it with
// AppendTag(…, TagVendorSpecific, …). IDs longer than 255 bytes are cut.
func AppendAccessLine(dst []byte, al *AccessLine) []byte {
	dst = binary.BigEndian.AppendUint32(dst, EnterpriseBBF)
	sub := func(dst []byte, typ uint8, s string) []byte {
		if s == "" {
			return dst
		}
		if len(s) > 255 {
			s = s[:255]
		}
		dst = append(dst, typ, uint8(len(s)))
		return append(dst, s...)
	}
	dst = sub(dst, SubCircuitID, al.CircuitID)
	dst = sub(dst, SubRemoteID, al.RemoteID)
	if al.ActualRateUp != 0 {
		dst = append(dst, SubActualRateUp, 4)
		dst = binary.BigEndian.AppendUint32(dst, al.ActualRateUp)
	}
	if al.ActualRateDown != 0 {
		dst = append(dst, SubActualRateDown, 4)
		dst = binary.BigEndian.AppendUint32(dst, al.ActualRateDown)
	}
	return dst
}
