package ppp

import (
	"encoding/binary"
	"errors"
)

// PPP protocol numbers.
const (
	ProtoIPv4   uint16 = 0x0021
	ProtoIPv6   uint16 = 0x0057
	ProtoLCP    uint16 = 0xc021
	ProtoPAP    uint16 = 0xc023
	ProtoCHAP   uint16 = 0xc223
	ProtoIPCP   uint16 = 0x8021
	ProtoIPv6CP uint16 = 0x8057
)

// Errors of SplitProto.
var (
	ErrShort         = errors.New("ppp: frame shorter than the protocol field")
	ErrProtocolField = errors.New("ppp: invalid or compressed protocol field")
)

// SplitProto splits a PPP frame as carried by PPPoE into its protocol and the
// information field. The protocol field is always two octets on PPPoE
// (Protocol-Field-Compression is forbidden, RFC 2516 section 7); a protocol
// whose first octet is odd (compressed) or whose second octet is even is not a
// valid PPP protocol number (RFC 1661 section 2).
func SplitProto(payload []byte) (proto uint16, data []byte, err error) {
	if len(payload) < 2 {
		return 0, nil, ErrShort
	}
	if payload[0]&1 != 0 || payload[1]&1 == 0 {
		return 0, nil, ErrProtocolField
	}
	return binary.BigEndian.Uint16(payload), payload[2:], nil
}

// AppendProto appends the protocol field and data to dst: the PPPoE payload
// of a Packet.
func AppendProto(dst []byte, p Packet) []byte {
	dst = binary.BigEndian.AppendUint16(dst, p.Proto)
	return append(dst, p.Data...)
}

// Control protocol codes (RFC 1661 section 5).
const (
	codeConfReq   = 1
	codeConfAck   = 2
	codeConfNak   = 3
	codeConfRej   = 4
	codeTermReq   = 5
	codeTermAck   = 6
	codeCodeRej   = 7
	codeProtoRej  = 8
	codeEchoReq   = 9
	codeEchoRep   = 10
	codeDiscard   = 11
	codeIdent     = 12 // RFC 1570
	codeTimeRemai = 13 // RFC 1570
)

// LCP options.
const (
	lcpMRU   = 1
	lcpAuth  = 3
	lcpMagic = 5
)

// IPCP options.
const (
	ipcpAddress = 3
	ipcpDNS1    = 129
	ipcpDNS2    = 131
)

// PAP and CHAP codes.
const (
	papRequest = 1
	papAck     = 2
	papNak     = 3

	chapChallenge = 1
	chapResponse  = 2
	chapSuccess   = 3
	chapFailure   = 4

	chapMD5 = 5
)
