// Package dhcp4 is the DHCPv4 codec of bng-cp's IPoE sessions: the BOOTP
// message and its options (RFC 2131, 2132, 3396 long options, option
// overload), the relay agent information option 82 (RFC 3046) with its
// sub-options circuit id, remote id, link selection (RFC 3527) and server
// identifier override (RFC 5107), and the QinQ Ethernet / IPv4 / UDP frames
// that carry DHCP between a subscriber and bng-cp over the DP's redirect.
//
// Every input is hostile: Decode and DecodeFrame return an error (one
// sentinel per reason, for counters) and never panic; nothing they return
// aliases memory a later call could change except where documented.
package dhcp4

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
)

// BOOTP operations.
const (
	OpRequest uint8 = 1
	OpReply   uint8 = 2
)

// DHCP message types (option 53).
const (
	Discover uint8 = 1
	Offer    uint8 = 2
	Request  uint8 = 3
	Decline  uint8 = 4
	Ack      uint8 = 5
	Nak      uint8 = 6
	Release  uint8 = 7
	Inform   uint8 = 8
)

// Option codes used by bng-cp.
const (
	OptPad            uint8  = 0
	OptSubnetMask     uint8  = 1
	OptRouter         uint8  = 3
	OptDNS            uint8  = 6
	OptHostName       uint8  = 12
	OptRequestedIP    uint8  = 50
	OptLeaseTime      uint8  = 51
	OptOverload       uint8  = 52
	OptMessageType    uint8  = 53
	OptServerID       uint8  = 54
	OptParamRequest   uint8  = 55
	OptMessage        uint8  = 56
	OptMaxMessageSize uint8  = 57
	OptRenewalTime    uint8  = 58
	OptRebindingTime  uint8  = 59
	OptClientID       uint8  = 61
	OptRelayAgentInfo uint8  = 82
	OptEnd            uint8  = 255
	magicCookie       uint32 = 0x63825363
	fixedLen                 = 236 // op .. file
	// MinLen: the fixed part and the magic cookie
	MinLen = fixedLen + 4
	// MaxLen bounds what Decode accepts: a DHCP message in one Ethernet
	// frame of at most 1500 bytes of IP (no fragments are accepted)
	MaxLen = 1500 - 20 - 8
	// minOut: replies are padded to BOOTP's 300 bytes (RFC 1542 2.1), which
	// some clients still expect
	minOut = 300
)

// Flags.
const FlagBroadcast uint16 = 0x8000

// Sentinel errors of Decode. Each reason has its own value so that callers
// can count them with errors.Is.
var (
	ErrShort       = errors.New("dhcp4: message shorter than the BOOTP header and magic cookie")
	ErrLong        = errors.New("dhcp4: message longer than one frame")
	ErrOp          = errors.New("dhcp4: op is neither BOOTREQUEST nor BOOTREPLY")
	ErrHardware    = errors.New("dhcp4: hardware type/length is not Ethernet/6")
	ErrCookie      = errors.New("dhcp4: no DHCP magic cookie")
	ErrOptionShort = errors.New("dhcp4: option runs past the end of its field")
	ErrNoEnd       = errors.New("dhcp4: options without End")
	ErrOverload    = errors.New("dhcp4: invalid option overload")
	ErrMessageType = errors.New("dhcp4: missing or invalid DHCP message type")
	ErrOptionLen   = errors.New("dhcp4: option value of a wrong length")
	ErrOption82    = errors.New("dhcp4: malformed relay agent information")
)

// Option is one option: its code and its value (the concatenation of every
// instance of the code in the message, RFC 3396).
type Option struct {
	Code uint8
	Data []byte
}

// Message is a DHCP message. Addresses are IPv4; the zero netip.Addr stands
// for 0.0.0.0 on output. Options are in the order of their first occurrence
// and own their bytes (Decode copies them).
type Message struct {
	Op      uint8
	Hops    uint8
	XID     uint32
	Secs    uint16
	Flags   uint16
	CIAddr  netip.Addr
	YIAddr  netip.Addr
	SIAddr  netip.Addr
	GIAddr  netip.Addr
	CHAddr  net.HardwareAddr // 6 bytes
	Type    uint8            // option 53
	Options []Option         // every option but Pad, End, Overload and the message type
}

// Decode decodes b as a DHCP message over Ethernet (htype 1, hlen 6). It
// requires the magic cookie, well-formed options ending with End (in the
// options field and in sname/file when option 52 overloads them), a message
// type 1..8 and checks the lengths of the options bng-cp reads (addresses 4
// bytes, times 4, the message type 1, option 82 well-formed).
func Decode(b []byte) (*Message, error) {
	if len(b) < MinLen {
		return nil, ErrShort
	}
	if len(b) > MaxLen {
		return nil, ErrLong
	}
	m := &Message{Op: b[0], Hops: b[3]}
	if m.Op != OpRequest && m.Op != OpReply {
		return nil, ErrOp
	}
	if b[1] != 1 || b[2] != 6 {
		return nil, ErrHardware
	}
	m.XID = binary.BigEndian.Uint32(b[4:])
	m.Secs = binary.BigEndian.Uint16(b[8:])
	m.Flags = binary.BigEndian.Uint16(b[10:])
	m.CIAddr = addr4(b[12:16])
	m.YIAddr = addr4(b[16:20])
	m.SIAddr = addr4(b[20:24])
	m.GIAddr = addr4(b[24:28])
	m.CHAddr = net.HardwareAddr(append([]byte(nil), b[28:34]...))
	if binary.BigEndian.Uint32(b[fixedLen:]) != magicCookie {
		return nil, ErrCookie
	}
	var opts []Option
	overload, err := parseOptions(b[MinLen:], &opts, true)
	if err != nil {
		return nil, err
	}
	// RFC 2131 4.1: file first, then sname
	if overload&1 != 0 {
		if _, err := parseOptions(b[108:236], &opts, false); err != nil {
			return nil, err
		}
	}
	if overload&2 != 0 {
		if _, err := parseOptions(b[44:108], &opts, false); err != nil {
			return nil, err
		}
	}
	for _, o := range opts {
		if o.Code == OptMessageType {
			if len(o.Data) != 1 || o.Data[0] < Discover || o.Data[0] > Inform {
				return nil, ErrMessageType
			}
			m.Type = o.Data[0]
			continue
		}
		if err := checkOption(o); err != nil {
			return nil, err
		}
		m.Options = append(m.Options, o)
	}
	if m.Type == 0 {
		return nil, ErrMessageType
	}
	return m, nil
}

// parseOptions appends the options of field to opts, concatenating repeated
// codes (RFC 3396). In the options field (main) it also reads option 52 and
// returns its value.
func parseOptions(field []byte, opts *[]Option, main bool) (overload uint8, err error) {
	for i := 0; ; {
		if i >= len(field) {
			return 0, ErrNoEnd
		}
		code := field[i]
		switch code {
		case OptPad:
			i++
			continue
		case OptEnd:
			return overload, nil
		}
		if i+2 > len(field) || i+2+int(field[i+1]) > len(field) {
			return 0, ErrOptionShort
		}
		data := field[i+2 : i+2+int(field[i+1])]
		i += 2 + len(data)
		if code == OptOverload {
			if !main || len(data) != 1 || data[0] < 1 || data[0] > 3 || overload != 0 {
				return 0, ErrOverload
			}
			overload = data[0]
			continue
		}
		merged := false
		for k := range *opts {
			if (*opts)[k].Code == code {
				(*opts)[k].Data = append((*opts)[k].Data, data...)
				merged = true
				break
			}
		}
		if !merged {
			*opts = append(*opts, Option{Code: code, Data: append([]byte(nil), data...)})
		}
	}
}

// checkOption checks the value lengths of the options bng-cp interprets.
func checkOption(o Option) error {
	switch o.Code {
	case OptSubnetMask, OptRequestedIP, OptServerID, OptLeaseTime, OptRenewalTime, OptRebindingTime:
		if len(o.Data) != 4 {
			return ErrOptionLen
		}
	case OptRouter, OptDNS:
		if len(o.Data) == 0 || len(o.Data)%4 != 0 {
			return ErrOptionLen
		}
	case OptMaxMessageSize:
		if len(o.Data) != 2 {
			return ErrOptionLen
		}
	case OptClientID:
		if len(o.Data) < 2 {
			return ErrOptionLen
		}
	case OptRelayAgentInfo:
		if _, err := ParseAgentInfo(o.Data); err != nil {
			return err
		}
	}
	return nil
}

func addr4(b []byte) netip.Addr {
	return netip.AddrFrom4([4]byte{b[0], b[1], b[2], b[3]})
}

// Option returns the value of option code, and whether it is present.
func (m *Message) Option(code uint8) ([]byte, bool) {
	for _, o := range m.Options {
		if o.Code == code {
			return o.Data, true
		}
	}
	return nil, false
}

// Addr returns a 4-byte option (requested IP, server identifier ...) as an
// address; ok is false when it is absent.
func (m *Message) Addr(code uint8) (netip.Addr, bool) {
	d, ok := m.Option(code)
	if !ok || len(d) != 4 {
		return netip.Addr{}, false
	}
	return addr4(d), true
}

// Uint32 returns a 4-byte option (lease time ...) as a number.
func (m *Message) Uint32(code uint8) (uint32, bool) {
	d, ok := m.Option(code)
	if !ok || len(d) != 4 {
		return 0, false
	}
	return binary.BigEndian.Uint32(d), true
}

// AgentInfo returns option 82 decoded; ok is false when it is absent.
// Decode has checked it.
func (m *Message) AgentInfo() (AgentInfo, bool) {
	d, ok := m.Option(OptRelayAgentInfo)
	if !ok {
		return AgentInfo{}, false
	}
	ai, err := ParseAgentInfo(d)
	return ai, err == nil
}

// Set replaces option code's value, or adds it at the end.
func (m *Message) Set(code uint8, data []byte) {
	for k := range m.Options {
		if m.Options[k].Code == code {
			m.Options[k].Data = data
			return
		}
	}
	m.Options = append(m.Options, Option{Code: code, Data: data})
}

// Del removes option code.
func (m *Message) Del(code uint8) {
	out := m.Options[:0]
	for _, o := range m.Options {
		if o.Code != code {
			out = append(out, o)
		}
	}
	m.Options = out
}

// Encode returns the message: the fixed part (sname and file zero), the
// magic cookie, the message type, the options in order (values longer than
// 255 bytes split over several instances, RFC 3396), End, and zero padding
// up to 300 bytes. Pad, End, Overload and message type entries in Options
// are not written.
func (m *Message) Encode() []byte {
	b := make([]byte, MinLen, minOut)
	b[0], b[1], b[2], b[3] = m.Op, 1, 6, m.Hops
	binary.BigEndian.PutUint32(b[4:], m.XID)
	binary.BigEndian.PutUint16(b[8:], m.Secs)
	binary.BigEndian.PutUint16(b[10:], m.Flags)
	put4(b[12:], m.CIAddr)
	put4(b[16:], m.YIAddr)
	put4(b[20:], m.SIAddr)
	put4(b[24:], m.GIAddr)
	copy(b[28:44], m.CHAddr)
	binary.BigEndian.PutUint32(b[fixedLen:], magicCookie)
	b = append(b, OptMessageType, 1, m.Type)
	for _, o := range m.Options {
		switch o.Code {
		case OptPad, OptEnd, OptOverload, OptMessageType:
			continue
		}
		d := o.Data
		for {
			n := min(len(d), 255)
			b = append(b, o.Code, byte(n))
			b = append(b, d[:n]...)
			d = d[n:]
			if len(d) == 0 {
				break
			}
		}
	}
	b = append(b, OptEnd)
	for len(b) < minOut {
		b = append(b, 0)
	}
	return b
}

func put4(b []byte, a netip.Addr) {
	if a.Is4() {
		v := a.As4()
		copy(b, v[:])
	}
}

// A4 is an address as a 4-byte option value.
func A4(a netip.Addr) []byte {
	v := a.As4()
	return v[:]
}

// U32 is a number as a 4-byte option value.
func U32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
