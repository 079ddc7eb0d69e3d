package aaa

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"layeh.com/radius"
)

// IPv6 attributes (RFC 3162, RFC 4818, RFC 6911) and the ERX (Juniper E
// series, vendor 4874) IPv6 accounting VSAs of FreeRADIUS's dictionary.erx,
// which operators' BNGs use for the IPv6 share of the counters.
const (
	attrFramedInterfaceID   = 96
	attrFramedIPv6Prefix    = 97
	attrFramedIPv6Pool      = 100
	attrDelegatedIPv6Prefix = 123
	attrFramedIPv6Address   = 168
	attrDNSServerIPv6       = 169
	attrDelegatedPrefixPool = 171
	attrStatefulIPv6Pool    = 172

	VendorERX          = 4874
	erxV6InOctets      = 151 // ERX-IPv6-Acct-Input-Octets
	erxV6OutOctets     = 152 // ERX-IPv6-Acct-Output-Octets
	erxV6InPackets     = 153 // ERX-IPv6-Acct-Input-Packets
	erxV6OutPackets    = 154 // ERX-IPv6-Acct-Output-Packets
	erxV6InGigawords   = 155 // ERX-IPv6-Acct-Input-Gigawords
	erxV6OutGigawords  = 156 // ERX-IPv6-Acct-Output-Gigawords
	maxDNSv6FromRADIUS = 2
)

// IPv6Octets selects the vendor attributes of the IPv6 share in accounting.
type IPv6Octets uint8

const (
	IPv6OctetsERX  IPv6Octets = iota // ERX-IPv6-Acct-* (vendor 4874, 151-156)
	IPv6OctetsNone                   // none
)

// AccessIPv6 are the IPv6 attributes of an Access-Accept (invalid / empty:
// absent).
type AccessIPv6 struct {
	InterfaceID   uint64       // Framed-Interface-Id: the subscriber's IPv6CP identifier
	Prefix        netip.Prefix // Framed-IPv6-Prefix: the session's /64
	Pool          string       // Framed-IPv6-Pool: the IPv6 pool of the /64
	Delegated     netip.Prefix // Delegated-IPv6-Prefix
	Address       netip.Addr   // Framed-IPv6-Address: the IA_NA address
	DNS           []netip.Addr // DNS-Server-IPv6-Address
	DelegatedPool string       // Delegated-IPv6-Prefix-Pool
	StatefulPool  string       // Stateful-IPv6-Address-Pool: IA_NA wanted from this pool
}

// AcctIPv6 is the IPv6 part of an Accounting-Request: the bound prefixes and
// address, and the IPv6 share of the octet and packet totals (sent in the
// vendor attributes Attr chooses; not in a Start).
type AcctIPv6 struct {
	InterfaceID                                uint64
	Prefix, Delegated                          netip.Prefix
	Address                                    netip.Addr
	InOctets, OutOctets, InPackets, OutPackets uint64
	Attr                                       IPv6Octets
}

// ipv6Prefix decodes an RFC 3162 prefix value: reserved, length, prefix
// octets (only as many as the length needs, at most 16).
func ipv6Prefix(v []byte) (netip.Prefix, bool) {
	if len(v) < 2 || len(v) > 18 || v[1] > 128 || int(v[1]+7)/8 > len(v)-2 {
		return netip.Prefix{}, false
	}
	var a [16]byte
	copy(a[:], v[2:])
	p := netip.PrefixFrom(netip.AddrFrom16(a), int(v[1]))
	return p.Masked(), true
}

func ipv6PrefixValue(p netip.Prefix) []byte {
	a := p.Addr().As16()
	n := (p.Bits() + 7) / 8
	return append([]byte{0, byte(p.Bits())}, a[:n]...)
}

// decodeIPv6Attr takes one IPv6 attribute of an Access-Accept; false: not one.
func decodeIPv6Attr(r *AccessIPv6, typ byte, val []byte) bool {
	switch typ {
	case attrFramedInterfaceID:
		if len(val) == 8 {
			r.InterfaceID = binary.BigEndian.Uint64(val)
		}
	case attrFramedIPv6Prefix:
		if p, ok := ipv6Prefix(val); ok {
			r.Prefix = p
		}
	case attrDelegatedIPv6Prefix:
		if p, ok := ipv6Prefix(val); ok {
			r.Delegated = p
		}
	case attrFramedIPv6Address:
		if len(val) == 16 {
			r.Address = netip.AddrFrom16([16]byte(val))
		}
	case attrDNSServerIPv6:
		if len(val) == 16 && len(r.DNS) < maxDNSv6FromRADIUS {
			r.DNS = append(r.DNS, netip.AddrFrom16([16]byte(val)))
		}
	case attrFramedIPv6Pool:
		r.Pool = string(val)
	case attrDelegatedPrefixPool:
		r.DelegatedPool = string(val)
	case attrStatefulIPv6Pool:
		r.StatefulPool = string(val)
	default:
		return false
	}
	return true
}

// addIPv6Acct adds the IPv6 attributes of an Accounting-Request.
func addIPv6Acct(p *radius.Packet, r *AcctIPv6, status AcctStatus) error {
	if r == nil {
		return nil
	}
	if r.InterfaceID != 0 {
		p.Add(attrFramedInterfaceID, binary.BigEndian.AppendUint64(nil, r.InterfaceID))
	}
	if r.Prefix.IsValid() {
		p.Add(attrFramedIPv6Prefix, ipv6PrefixValue(r.Prefix))
	}
	if r.Delegated.IsValid() {
		p.Add(attrDelegatedIPv6Prefix, ipv6PrefixValue(r.Delegated))
	}
	if r.Address.IsValid() {
		a := r.Address.As16()
		p.Add(attrFramedIPv6Address, a[:])
	}
	if status == AcctStart || r.Attr != IPv6OctetsERX {
		return nil
	}
	for _, a := range []struct {
		typ byte
		v   uint32
	}{
		{erxV6InOctets, uint32(r.InOctets)}, {erxV6OutOctets, uint32(r.OutOctets)},
		{erxV6InPackets, sat32(r.InPackets)}, {erxV6OutPackets, sat32(r.OutPackets)},
		{erxV6InGigawords, sat32(r.InOctets >> 32)}, {erxV6OutGigawords, sat32(r.OutOctets >> 32)},
	} {
		v := binary.BigEndian.AppendUint32(nil, VendorERX)
		v = append(v, a.typ, 6)
		v = binary.BigEndian.AppendUint32(v, a.v)
		if len(v) != 10 {
			return fmt.Errorf("aaa: ERX attribute %d", a.typ)
		}
		p.Add(radius.Type(26), v)
	}
	return nil
}
