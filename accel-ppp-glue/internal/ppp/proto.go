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

// Codes of the control protocols, LCP and IPCP (RFC 1661 section 5; IPCP
// uses 1-7). LCP's 12 and 13 are RFC 1570's.
const (
	CodeConfReq        = 1
	CodeConfAck        = 2
	CodeConfNak        = 3
	CodeConfRej        = 4
	CodeTermReq        = 5
	CodeTermAck        = 6
	CodeCodeRej        = 7
	CodeProtoRej       = 8
	CodeEchoReq        = 9
	CodeEchoRep        = 10
	CodeDiscardReq     = 11
	CodeIdentification = 12
	CodeTimeRemaining  = 13
)

// LCP configuration options (RFC 1661 section 6).
const (
	LCPOptMRU   = 1
	LCPOptAuth  = 3 // Authentication-Protocol
	LCPOptMagic = 5
)

// IPCP configuration options (RFC 1332, RFC 1877).
const (
	IPCPOptAddress = 3
	IPCPOptDNS1    = 129 // Primary-DNS-Server-Address
	IPCPOptDNS2    = 131 // Secondary-DNS-Server-Address
)

// PAP codes (RFC 1334 section 2.2).
const (
	PAPRequest = 1
	PAPAck     = 2
	PAPNak     = 3
)

// CHAP codes and the MD5 algorithm number (RFC 1994 sections 4 and 3).
const (
	CHAPChallenge = 1
	CHAPResponse  = 2
	CHAPSuccess   = 3
	CHAPFailure   = 4

	CHAPMD5 = 5
)
