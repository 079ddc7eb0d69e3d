package aaa

import (
	"crypto/hmac"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"layeh.com/radius"
	"layeh.com/radius/rfc2865"
	"layeh.com/radius/rfc2869"
	"layeh.com/radius/rfc3576"
)

// Attribute numbers we use (RFC 2865, 2866, 2869, 3576/5176, 4679).
const (
	attrMessageAuthenticator = rfc2869.MessageAuthenticator_Type // 80
	attrErrorCause           = rfc3576.ErrorCause_Type           // 101

	vendorADSLForum = 3561  // Broadband Forum (ex ADSL Forum), RFC 4679
	vendorWISPr     = 14122 // Wi-Fi Alliance WISPr

	adslAgentCircuitID        = 1
	adslAgentRemoteID         = 2
	adslActualDataRateUp      = 129
	adslActualDataRateDown    = 130
	wisprBandwidthMaxUp       = 7
	wisprBandwidthMaxDown     = 8
	nasPortTypeEthernet       = 15
	serviceTypeFramed         = 2
	serviceTypeAuthorizeOnly  = 17
	framedProtocolPPP         = 1
	acctAuthenticRADIUS       = 1
	maLen                     = 16 // Message-Authenticator value length
	headerLen                 = 20
	maxPacket                 = radius.MaxPacketLength
	noneFramedIPUserSelects   = 0xffffffff // RFC 2865 5.8: the user may select an address
	noneFramedIPNASAllocation = 0xfffffffe // RFC 2865 5.8: the NAS selects (from its pool)
)

// Errors from the reply checks. They are counted, never returned to callers of
// Authenticate/Account (a bad reply is treated as lost).
var (
	errShort        = errors.New("aaa: packet shorter than its header or length field")
	errAttrs        = errors.New("aaa: malformed attributes")
	errRespAuth     = errors.New("aaa: wrong Response Authenticator")
	errReqAuth      = errors.New("aaa: wrong Request Authenticator")
	errNoMA         = errors.New("aaa: Message-Authenticator missing")
	errBadMA        = errors.New("aaa: wrong Message-Authenticator")
	errUnexpectCode = errors.New("aaa: unexpected reply code")
)

// packetLen validates the header of b and returns the RADIUS length field.
// Octets past the length field are padding and ignored (RFC 2865 3).
func packetLen(b []byte) (int, error) {
	if len(b) < headerLen {
		return 0, errShort
	}
	n := int(binary.BigEndian.Uint16(b[2:4]))
	if n < headerLen || n > maxPacket || n > len(b) {
		return 0, errShort
	}
	return n, nil
}

// walkAttrs calls fn for each attribute of the attribute area b (offset is
// relative to b). It fails on any attribute shorter than 2 octets or running
// past the end.
func walkAttrs(b []byte, fn func(off int, typ byte, val []byte) error) error {
	off := 0
	for off < len(b) {
		if len(b)-off < 2 {
			return errAttrs
		}
		l := int(b[off+1])
		if l < 2 || off+l > len(b) {
			return errAttrs
		}
		if fn != nil {
			if err := fn(off, b[off], b[off+2:off+l]); err != nil {
				return err
			}
		}
		off += l
	}
	return nil
}

// findMA returns the offset (in the whole packet) of the Message-Authenticator
// value, -1 when absent. Two of them or a wrong length is an error
// (RFC 3579 3.2: at most one, length 18).
func findMA(pkt []byte) (int, error) {
	pos := -1
	err := walkAttrs(pkt[headerLen:], func(off int, typ byte, val []byte) error {
		if typ != byte(attrMessageAuthenticator) {
			return nil
		}
		if len(val) != maLen || pos >= 0 {
			return errBadMA
		}
		pos = headerLen + off + 2
		return nil
	})
	if err != nil {
		return -1, err
	}
	return pos, nil
}

// computeMA returns HMAC-MD5(secret, pkt) with the Message-Authenticator value
// at maPos zeroed and the authenticator field replaced by auth (RFC 3579 3.2,
// RFC 5176 3.5). pkt is not modified.
func computeMA(pkt []byte, maPos int, auth *[16]byte, secret []byte) [16]byte {
	var zero [maLen]byte
	h := hmac.New(md5.New, secret)
	h.Write(pkt[:4])
	h.Write(auth[:])
	h.Write(pkt[headerLen:maPos])
	h.Write(zero[:])
	h.Write(pkt[maPos+maLen:])
	var out [16]byte
	h.Sum(out[:0])
	return out
}

// authHash is MD5(Code+ID+Length+auth+Attributes+Secret): the Response
// Authenticator (RFC 2865 3) or, with auth all zero, the Request Authenticator
// of Accounting/CoA/Disconnect requests (RFC 2866 3, RFC 5176 2.3).
func authHash(pkt []byte, auth *[16]byte, secret []byte) [16]byte {
	h := md5.New()
	h.Write(pkt[:4])
	h.Write(auth[:])
	h.Write(pkt[headerLen:])
	h.Write(secret)
	var out [16]byte
	h.Sum(out[:0])
	return out
}

// encodeRequest marshals p with a Message-Authenticator as first attribute and
// signs it. Access-Request/Status-Server keep p.Authenticator (random);
// Accounting/CoA/Disconnect requests get the MD5 Request Authenticator, the
// Message-Authenticator then being computed over a zero authenticator.
func encodeRequest(p *radius.Packet) ([]byte, error) {
	attrs := make(radius.Attributes, 0, len(p.Attributes)+1)
	attrs = append(attrs, &radius.AVP{Type: attrMessageAuthenticator, Attribute: make(radius.Attribute, maLen)})
	attrs = append(attrs, p.Attributes...)
	q := *p
	q.Attributes = attrs
	b, err := q.MarshalBinary()
	if err != nil {
		return nil, err
	}
	const maPos = headerLen + 2
	switch p.Code {
	case radius.CodeAccessRequest, radius.CodeStatusServer:
		var a [16]byte
		copy(a[:], b[4:20])
		ma := computeMA(b, maPos, &a, p.Secret)
		copy(b[maPos:], ma[:])
	default:
		var zero [16]byte
		ma := computeMA(b, maPos, &zero, p.Secret)
		copy(b[maPos:], ma[:])
		ra := authHash(b, &zero, p.Secret)
		copy(b[4:20], ra[:])
	}
	return b, nil
}

// encodeResponse marshals a reply to a request whose authenticator is reqAuth,
// with a Message-Authenticator as first attribute, and signs it.
func encodeResponse(p *radius.Packet, reqAuth [16]byte) ([]byte, error) {
	attrs := make(radius.Attributes, 0, len(p.Attributes)+1)
	attrs = append(attrs, &radius.AVP{Type: attrMessageAuthenticator, Attribute: make(radius.Attribute, maLen)})
	attrs = append(attrs, p.Attributes...)
	q := *p
	q.Attributes = attrs
	b, err := q.MarshalBinary()
	if err != nil {
		return nil, err
	}
	const maPos = headerLen + 2
	ma := computeMA(b, maPos, &reqAuth, p.Secret)
	copy(b[maPos:], ma[:])
	ra := authHash(b, &reqAuth, p.Secret)
	copy(b[4:20], ra[:])
	return b, nil
}

// verifyReply checks a reply b (trimmed to its length field) against the
// request authenticator: well-formed attributes, Response Authenticator, and
// Message-Authenticator (required when requireMA, else verified when present).
func verifyReply(b []byte, reqAuth *[16]byte, secret []byte, requireMA bool) error {
	if err := walkAttrs(b[headerLen:], nil); err != nil {
		return err
	}
	want := authHash(b, reqAuth, secret)
	if !hmac.Equal(want[:], b[4:20]) {
		return errRespAuth
	}
	pos, err := findMA(b)
	if err != nil {
		return err
	}
	if pos < 0 {
		if requireMA {
			return errNoMA
		}
		return nil
	}
	ma := computeMA(b, pos, reqAuth, secret)
	if !hmac.Equal(ma[:], b[pos:pos+maLen]) {
		return errBadMA
	}
	return nil
}

// verifyRequest checks an Accounting/CoA/Disconnect request b (trimmed):
// attributes, Request Authenticator, and the Message-Authenticator when present.
func verifyRequest(b []byte, secret []byte) error {
	if err := walkAttrs(b[headerLen:], nil); err != nil {
		return err
	}
	var zero [16]byte
	want := authHash(b, &zero, secret)
	if !hmac.Equal(want[:], b[4:20]) {
		return errReqAuth
	}
	pos, err := findMA(b)
	if err != nil {
		return err
	}
	if pos >= 0 {
		ma := computeMA(b, pos, &zero, secret)
		if !hmac.Equal(ma[:], b[pos:pos+maLen]) {
			return errBadMA
		}
	}
	return nil
}

// vsa builds one Vendor-Specific attribute value (RFC 2865 5.26) holding a
// single sub-attribute with one-octet type and length.
func vsa(vendor uint32, typ byte, val []byte) (radius.Attribute, error) {
	if len(val) > 247 {
		return nil, fmt.Errorf("aaa: vendor %d attribute %d too long (%d)", vendor, typ, len(val))
	}
	a := make(radius.Attribute, 6+len(val))
	binary.BigEndian.PutUint32(a, vendor)
	a[4] = typ
	a[5] = byte(2 + len(val))
	copy(a[6:], val)
	return a, nil
}

func u32(v uint32) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return b[:]
}

// walkVSA calls fn for each sub-attribute of a Vendor-Specific value that
// uses the common one-octet type/length format. Malformed content is an error.
func walkVSA(val []byte, fn func(vendor uint32, typ byte, v []byte)) error {
	if len(val) < 4 {
		return errAttrs
	}
	vendor := binary.BigEndian.Uint32(val)
	return walkAttrs(val[4:], func(_ int, typ byte, v []byte) error {
		fn(vendor, typ, v)
		return nil
	})
}

// decodeAccess turns a verified Access-Accept/Reject/Challenge into an
// AccessResult. Values of the wrong size are ignored (RFC 2865 5: an
// attribute we cannot use must not break the session): a Framed-IP-Address
// of 3 octets is as good as none. Unknown attributes are ignored.
func decodeAccess(b []byte) (*AccessResult, error) {
	r := &AccessResult{Accept: radius.Code(b[0]) == radius.CodeAccessAccept}
	var replyMsg []byte
	err := walkAttrs(b[headerLen:], func(_ int, typ byte, val []byte) error {
		if decodeIPv6Attr(&r.IPv6, typ, val) {
			return nil
		}
		switch radius.Type(typ) {
		case rfc2865.FramedIPAddress_Type:
			if len(val) == 4 {
				v := binary.BigEndian.Uint32(val)
				if v != noneFramedIPUserSelects && v != noneFramedIPNASAllocation && v != 0 {
					r.FramedIP = netip.AddrFrom4([4]byte(val))
				}
			}
		case rfc2865.FilterID_Type:
			if r.FilterID == "" && len(val) > 0 {
				r.FilterID = string(val)
			}
		case rfc2865.Class_Type:
			r.Class = append(r.Class, append([]byte(nil), val...))
		case rfc2865.SessionTimeout_Type:
			if len(val) == 4 {
				r.SessionTimeout = time.Duration(binary.BigEndian.Uint32(val)) * time.Second
			}
		case rfc2865.IdleTimeout_Type:
			if len(val) == 4 {
				r.IdleTimeout = time.Duration(binary.BigEndian.Uint32(val)) * time.Second
			}
		case rfc2869.AcctInterimInterval_Type:
			if len(val) == 4 {
				r.InterimInterval = time.Duration(binary.BigEndian.Uint32(val)) * time.Second
			}
		case rfc2865.ReplyMessage_Type:
			if len(replyMsg) > 0 {
				replyMsg = append(replyMsg, '\n')
			}
			replyMsg = append(replyMsg, val...)
		case rfc2865.FramedMTU_Type:
			if len(val) == 4 {
				if v := binary.BigEndian.Uint32(val); v >= 64 && v <= 65535 {
					r.FramedMTU = uint16(v)
				}
			}
		case rfc2865.VendorSpecific_Type:
			// A broken VSA is ignored as a whole; the reply stays usable.
			_ = walkVSA(val, func(vendor uint32, t byte, v []byte) {
				if vendor != vendorWISPr || len(v) != 4 {
					return
				}
				switch t {
				case wisprBandwidthMaxDown:
					r.RateDown = uint64(binary.BigEndian.Uint32(v))
				case wisprBandwidthMaxUp:
					r.RateUp = uint64(binary.BigEndian.Uint32(v))
				}
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.ReplyMessage = string(replyMsg)
	return r, nil
}
