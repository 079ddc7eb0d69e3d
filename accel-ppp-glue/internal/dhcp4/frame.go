package dhcp4

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// UDP ports of DHCP.
const (
	ServerPort uint16 = 67
	ClientPort uint16 = 68
)

const (
	etherTypeIPv4 uint16 = 0x0800
	tpid8021Q     uint16 = 0x8100
	tpid8021AD    uint16 = 0x88a8
	protoUDP      uint8  = 17
)

// Sentinel errors of DecodeFrame.
var (
	ErrFrameShort = errors.New("dhcp4: frame too short")
	ErrNotTagged  = errors.New("dhcp4: no outer VLAN tag")
	ErrNotIPv4    = errors.New("dhcp4: not IPv4")
	ErrIPHeader   = errors.New("dhcp4: malformed IPv4 header")
	ErrIPChecksum = errors.New("dhcp4: IPv4 header checksum")
	ErrFragment   = errors.New("dhcp4: IPv4 fragment")
	ErrNotUDP     = errors.New("dhcp4: not UDP")
	ErrUDPLength  = errors.New("dhcp4: UDP length")
	ErrUDPSum     = errors.New("dhcp4: UDP checksum")
)

// Frame is a QinQ Ethernet frame carrying IPv4/UDP, as the DP redirects a
// subscriber's DHCP and as bng-cp answers it. Payload (the UDP payload)
// aliases the decoded buffer.
type Frame struct {
	Dst, Src         [6]byte
	OuterTPID        uint16
	STag, CTag       uint16 // VIDs; CTag 0 = no inner tag
	SPCP, CPCP       uint8
	SrcIP, DstIP     netip.Addr
	SrcPort, DstPort uint16
	Payload          []byte
}

// DecodeFrame decodes b: Ethernet, an outer tag (0x8100 or 0x88a8), an
// optional inner 0x8100 tag, IPv4 (version 4, header length 20..60 within
// the total length, valid header checksum, not a fragment, UDP), UDP (length
// within the IP payload, checksum valid unless zero).
func DecodeFrame(b []byte) (Frame, error) {
	var f Frame
	if len(b) < 18 {
		return f, ErrFrameShort
	}
	copy(f.Dst[:], b[0:6])
	copy(f.Src[:], b[6:12])
	tpid := binary.BigEndian.Uint16(b[12:])
	if tpid != tpid8021Q && tpid != tpid8021AD {
		return f, ErrNotTagged
	}
	f.OuterTPID = tpid
	tci := binary.BigEndian.Uint16(b[14:])
	f.STag, f.SPCP = tci&0x0fff, uint8(tci>>13)
	off := 16
	et := binary.BigEndian.Uint16(b[off:])
	if et == tpid8021Q {
		if len(b) < off+6 {
			return f, ErrFrameShort
		}
		tci = binary.BigEndian.Uint16(b[off+2:])
		f.CTag, f.CPCP = tci&0x0fff, uint8(tci>>13)
		off += 4
		et = binary.BigEndian.Uint16(b[off:])
	}
	off += 2
	if et != etherTypeIPv4 {
		return f, ErrNotIPv4
	}
	ip := b[off:]
	if len(ip) < 20 {
		return f, ErrFrameShort
	}
	ihl := int(ip[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(ip[2:]))
	if ip[0]>>4 != 4 || ihl < 20 || total < ihl+8 || total > len(ip) {
		return f, ErrIPHeader
	}
	if checksum(ip[:ihl], 0) != 0 {
		return f, ErrIPChecksum
	}
	if binary.BigEndian.Uint16(ip[6:])&0x3fff != 0 {
		return f, ErrFragment
	}
	if ip[9] != protoUDP {
		return f, ErrNotUDP
	}
	f.SrcIP = addr4(ip[12:16])
	f.DstIP = addr4(ip[16:20])
	udp := ip[ihl:total]
	ulen := int(binary.BigEndian.Uint16(udp[4:]))
	if ulen < 8 || ulen > len(udp) {
		return f, ErrUDPLength
	}
	udp = udp[:ulen]
	if binary.BigEndian.Uint16(udp[6:]) != 0 && checksum(udp, pseudo(ip[12:16], ip[16:20], ulen)) != 0 {
		return f, ErrUDPSum
	}
	f.SrcPort = binary.BigEndian.Uint16(udp[0:])
	f.DstPort = binary.BigEndian.Uint16(udp[2:])
	f.Payload = udp[8:ulen:ulen]
	return f, nil
}

// AppendFrame appends f to dst: Ethernet, the outer tag (f.OuterTPID, 0x8100
// when zero), the C-tag when f.CTag != 0, IPv4 (TTL 64, no options, header
// checksum) and UDP with its checksum.
func AppendFrame(dst []byte, f *Frame) []byte {
	tpid := f.OuterTPID
	if tpid == 0 {
		tpid = tpid8021Q
	}
	dst = append(dst, f.Dst[:]...)
	dst = append(dst, f.Src[:]...)
	dst = binary.BigEndian.AppendUint16(dst, tpid)
	dst = binary.BigEndian.AppendUint16(dst, uint16(f.SPCP&7)<<13|f.STag&0x0fff)
	if f.CTag != 0 {
		dst = binary.BigEndian.AppendUint16(dst, tpid8021Q)
		dst = binary.BigEndian.AppendUint16(dst, uint16(f.CPCP&7)<<13|f.CTag&0x0fff)
	}
	dst = binary.BigEndian.AppendUint16(dst, etherTypeIPv4)
	return AppendIPv4UDP(dst, f.SrcIP, f.DstIP, f.SrcPort, f.DstPort, f.Payload)
}

// AppendIPv4UDP appends an IPv4 header and a UDP datagram carrying payload.
func AppendIPv4UDP(dst []byte, src, dstIP netip.Addr, sport, dport uint16, payload []byte) []byte {
	ipOff := len(dst)
	total := 20 + 8 + len(payload)
	dst = append(dst, 0x45, 0)
	dst = binary.BigEndian.AppendUint16(dst, uint16(total))
	dst = append(dst, 0, 0, 0, 0, 64, protoUDP, 0, 0)
	dst = append(dst, A4(src)...)
	dst = append(dst, A4(dstIP)...)
	binary.BigEndian.PutUint16(dst[ipOff+10:], checksum(dst[ipOff:ipOff+20], 0))
	udpOff := len(dst)
	dst = binary.BigEndian.AppendUint16(dst, sport)
	dst = binary.BigEndian.AppendUint16(dst, dport)
	dst = binary.BigEndian.AppendUint16(dst, uint16(8+len(payload)))
	dst = append(dst, 0, 0)
	dst = append(dst, payload...)
	sum := checksum(dst[udpOff:], pseudo(dst[ipOff+12:ipOff+16], dst[ipOff+16:ipOff+20], 8+len(payload)))
	if sum == 0 {
		sum = 0xffff
	}
	binary.BigEndian.PutUint16(dst[udpOff+6:], sum)
	return dst
}

func pseudo(src, dst []byte, ulen int) uint32 {
	var s uint32
	s += uint32(binary.BigEndian.Uint16(src[0:])) + uint32(binary.BigEndian.Uint16(src[2:]))
	s += uint32(binary.BigEndian.Uint16(dst[0:])) + uint32(binary.BigEndian.Uint16(dst[2:]))
	s += uint32(protoUDP) + uint32(ulen)
	return s
}

// checksum returns the Internet checksum (RFC 1071) of b with initial added
// to the sum: the value to write, and 0 over data whose checksum is in place.
func checksum(b []byte, initial uint32) uint16 {
	s := initial
	for len(b) >= 2 {
		s += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint32(b[0]) << 8
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}
