package aaa

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"layeh.com/radius"
	"layeh.com/radius/rfc2865"
	"layeh.com/radius/rfc2866"
	"layeh.com/radius/rfc2869"
)

// Error-Cause values (RFC 5176 3.6) a DynHandler may return.
const (
	CauseResidualContextRemoved = 201
	CauseUnsupportedAttribute   = 401
	CauseMissingAttribute       = 402
	CauseNASIdentMismatch       = 403
	CauseInvalidRequest         = 404
	CauseUnsupportedService     = 405
	CauseInvalidAttributeValue  = 407
	CauseAdminProhibited        = 501
	CauseSessionNotFound        = 503
	CauseSessionNotRemovable    = 504
	CauseResourcesUnavailable   = 506
	CauseMultipleSessions       = 508
)

// DynRequest is a decoded Disconnect-Request or CoA-Request (RFC 5176). At
// least one session identification field is set. For a CoA, FilterID
// and/or RateDown/RateUp (WISPr, bit/s) carry the change; a zero rate
// means "not given".
type DynRequest struct {
	Disconnect                                           bool
	AcctSessionID, UserName, CallingStationID, NASPortID string
	FramedIP                                             netip.Addr
	FilterID                                             string
	RateDown, RateUp                                     uint64
	Source                                               netip.AddrPort // who sent it
}

// DynHandler applies a request. It returns 0 to ACK, or an Error-Cause to
// NAK (503 session not found, 404 invalid request, 401 unsupported
// attribute, ...). A 2xx cause ACKs with that Error-Cause.
type DynHandler func(ctx context.Context, r *DynRequest) (errorCause int)

// DynStats are the counters of a DynServer.
type DynStats struct {
	Received         uint64 // datagrams read
	UnknownSource    uint64 // not from a configured server address (dropped)
	BadAuthenticator uint64 // Request Authenticator wrong for every secret of that source (dropped)
	BadMessageAuth   uint64 // Message-Authenticator present and wrong (dropped)
	Malformed        uint64 // too short, bad attributes, unsupported code (dropped)
	Duplicates       uint64 // same source+identifier+authenticator within DupWindow (answer resent)
	Disconnects      uint64 // valid Disconnect-Requests
	CoAs             uint64 // valid CoA-Requests
	ACKs, NAKs       uint64
	Busy             uint64 // dropped: too many requests being handled
}

// DynServer is the RFC 5176 Dynamic Authorization Server side of the NAS.
type DynServer struct {
	clients []Server
	h       DynHandler

	// NASIdentifier / NASIPAddress, when set, must match the request's
	// NAS-Identifier / NAS-IP-Address if it has them (else NAK 403).
	NASIdentifier string
	NASIPAddress  netip.Addr
	// DupWindow: how long an answer is kept to be resent to a retransmitted
	// request (default 5 s). HandlerTimeout bounds one handler call (default 10 s).
	DupWindow, HandlerTimeout time.Duration

	received, unknownSource, badAuth, badMA, malformed, dups, disc, coa, acks, naks, busy atomic.Uint64

	mu    sync.Mutex
	cache map[dupKey]*dupEntry
	sweep time.Time
}

type dupKey struct {
	src  netip.AddrPort
	id   byte
	auth [16]byte
}

type dupEntry struct {
	at   time.Time
	resp []byte // nil while the handler runs
}

// NewDynServer returns a server accepting requests only from the Auth/Acct
// addresses of clients, each verified with that server's secret.
func NewDynServer(clients []Server, h DynHandler) *DynServer {
	return &DynServer{clients: clients, h: h, cache: make(map[dupKey]*dupEntry)}
}

// ServeDynamic runs an RFC 5176 server on conn until ctx ends.
func ServeDynamic(ctx context.Context, conn net.PacketConn, clients []Server, h DynHandler) error {
	return NewDynServer(clients, h).Serve(ctx, conn)
}

// Stats returns a snapshot of the counters.
func (s *DynServer) Stats() DynStats {
	return DynStats{
		Received: s.received.Load(), UnknownSource: s.unknownSource.Load(),
		BadAuthenticator: s.badAuth.Load(), BadMessageAuth: s.badMA.Load(),
		Malformed: s.malformed.Load(), Duplicates: s.dups.Load(),
		Disconnects: s.disc.Load(), CoAs: s.coa.Load(), ACKs: s.acks.Load(), NAKs: s.naks.Load(), Busy: s.busy.Load(),
	}
}

func (s *DynServer) secretsFor(a netip.Addr) [][]byte {
	a = a.Unmap()
	var out [][]byte
	for _, c := range s.clients {
		if (c.Auth.IsValid() && c.Auth.Addr().Unmap() == a) || (c.Acct.IsValid() && c.Acct.Addr().Unmap() == a) {
			out = append(out, c.Secret)
		}
	}
	return out
}

// Serve reads requests from conn until ctx ends (then it returns nil after
// the running handlers finished) or conn fails. It does not close conn.
func (s *DynServer) Serve(ctx context.Context, conn net.PacketConn) error {
	if s.DupWindow <= 0 {
		s.DupWindow = 5 * time.Second
	}
	if s.HandlerTimeout <= 0 {
		s.HandlerTimeout = 10 * time.Second
	}
	if s.h == nil {
		return errors.New("aaa: DynServer without handler")
	}
	// Bound concurrent handlers; beyond that requests are dropped (the
	// server retransmits) rather than piling up goroutines.
	sem := make(chan struct{}, 1024)
	var wg sync.WaitGroup
	defer wg.Wait()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetReadDeadline(time.Now()) })
	defer stop()
	buf := make([]byte, maxPacket+1)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		s.received.Add(1)
		ua, ok := from.(*net.UDPAddr)
		if !ok {
			s.unknownSource.Add(1)
			continue
		}
		src := ua.AddrPort()
		secrets := s.secretsFor(src.Addr())
		if len(secrets) == 0 {
			s.unknownSource.Add(1)
			continue
		}
		pkt := append([]byte(nil), buf[:n]...)
		secret, err := s.check(pkt, secrets)
		if err != nil {
			continue
		}
		l, _ := packetLen(pkt)
		pkt = pkt[:l]
		key := dupKey{src: src, id: pkt[1], auth: [16]byte(pkt[4:20])}
		now := time.Now()
		s.mu.Lock()
		if now.Sub(s.sweep) > time.Second {
			for k, e := range s.cache {
				if age := now.Sub(e.at); age > s.DupWindow && (e.resp != nil || age > s.DupWindow+s.HandlerTimeout) {
					delete(s.cache, k)
				}
			}
			s.sweep = now
		}
		if e, ok := s.cache[key]; ok {
			resp := e.resp
			s.mu.Unlock()
			s.dups.Add(1)
			if resp != nil {
				_, _ = conn.WriteTo(resp, from)
			}
			continue
		}
		select {
		case sem <- struct{}{}:
		default:
			s.mu.Unlock()
			s.busy.Add(1)
			continue
		}
		s.cache[key] = &dupEntry{at: now}
		s.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			resp := s.handle(ctx, pkt, secret, src)
			s.mu.Lock()
			if e := s.cache[key]; e != nil {
				e.resp, e.at = resp, time.Now()
			}
			s.mu.Unlock()
			if resp != nil {
				_, _ = conn.WriteTo(resp, from)
			}
		}()
	}
}

// check validates a datagram from a known source and returns the secret that
// authenticates it; failures are counted.
func (s *DynServer) check(pkt []byte, secrets [][]byte) ([]byte, error) {
	l, err := packetLen(pkt)
	if err != nil {
		s.malformed.Add(1)
		return nil, err
	}
	b := pkt[:l]
	if c := radius.Code(b[0]); c != radius.CodeDisconnectRequest && c != radius.CodeCoARequest {
		s.malformed.Add(1)
		return nil, errUnexpectCode
	}
	if err := walkAttrs(b[headerLen:], nil); err != nil {
		s.malformed.Add(1)
		return nil, err
	}
	var last error
	for _, sec := range secrets {
		err := verifyRequest(b, sec)
		if err == nil {
			return sec, nil
		}
		last = err
	}
	if last == errBadMA {
		s.badMA.Add(1)
	} else {
		s.badAuth.Add(1)
	}
	return nil, last
}

// handle decodes a verified request, runs the handler and returns the signed
// answer (with Message-Authenticator, Error-Cause on NAK, Proxy-State echoed).
func (s *DynServer) handle(ctx context.Context, b, secret []byte, src netip.AddrPort) []byte {
	disconnect := radius.Code(b[0]) == radius.CodeDisconnectRequest
	if disconnect {
		s.disc.Add(1)
	} else {
		s.coa.Add(1)
	}
	r, cause := decodeDyn(b, s.NASIdentifier, s.NASIPAddress)
	if cause == 0 {
		r.Source = src
		hctx, cancel := context.WithTimeout(ctx, s.HandlerTimeout)
		cause = s.h(hctx, r)
		cancel()
	}
	ack := cause == 0 || (cause >= 200 && cause < 300)
	var code radius.Code
	switch {
	case disconnect && ack:
		code = radius.CodeDisconnectACK
	case disconnect:
		code = radius.CodeDisconnectNAK
	case ack:
		code = radius.CodeCoAACK
	default:
		code = radius.CodeCoANAK
	}
	if ack {
		s.acks.Add(1)
	} else {
		s.naks.Add(1)
	}
	p := &radius.Packet{Code: code, Identifier: b[1], Secret: secret}
	if cause != 0 {
		p.Add(attrErrorCause, u32(uint32(cause)))
	}
	_ = walkAttrs(b[headerLen:], func(_ int, typ byte, val []byte) error {
		if radius.Type(typ) == rfc2865.ProxyState_Type {
			p.Add(rfc2865.ProxyState_Type, append(radius.Attribute(nil), val...))
		}
		return nil
	})
	resp, err := encodeResponse(p, [16]byte(b[4:20]))
	if err != nil {
		return nil
	}
	return resp
}

// decodeDyn turns a verified Disconnect/CoA request into a DynRequest, or
// returns the Error-Cause of a NAK. Attributes we cannot honour make the
// whole request fail (RFC 5176 3: no partial application).
func decodeDyn(b []byte, nasID string, nasIP netip.Addr) (*DynRequest, int) {
	r := &DynRequest{Disconnect: radius.Code(b[0]) == radius.CodeDisconnectRequest}
	cause := 0
	set := func(c int) {
		if cause == 0 {
			cause = c
		}
	}
	str := func(dst *string, val []byte) {
		if len(val) == 0 {
			set(CauseInvalidAttributeValue)
			return
		}
		*dst = string(val)
	}
	ids := 0
	err := walkAttrs(b[headerLen:], func(_ int, typ byte, val []byte) error {
		switch radius.Type(typ) {
		case rfc2865.UserName_Type:
			str(&r.UserName, val)
			ids++
		case rfc2866.AcctSessionID_Type:
			str(&r.AcctSessionID, val)
			ids++
		case rfc2865.CallingStationID_Type:
			str(&r.CallingStationID, val)
			ids++
		case rfc2869.NASPortID_Type:
			str(&r.NASPortID, val)
			ids++
		case rfc2865.FramedIPAddress_Type:
			if len(val) != 4 {
				set(CauseInvalidAttributeValue)
				return nil
			}
			r.FramedIP = netip.AddrFrom4([4]byte(val))
			ids++
		case rfc2865.NASIdentifier_Type:
			if nasID != "" && string(val) != nasID {
				set(CauseNASIdentMismatch)
			}
		case rfc2865.NASIPAddress_Type:
			if len(val) != 4 {
				set(CauseInvalidAttributeValue)
			} else if nasIP.IsValid() && netip.AddrFrom4([4]byte(val)) != nasIP.Unmap() {
				set(CauseNASIdentMismatch)
			}
		case rfc2865.ServiceType_Type:
			// Authorize-Only (RFC 5176 3.2) would need a new
			// Access-Request round: not supported.
			if len(val) != 4 || binary.BigEndian.Uint32(val) != serviceTypeFramed {
				set(CauseUnsupportedService)
			}
		case attrMessageAuthenticator, rfc2865.ProxyState_Type, rfc2869.EventTimestamp_Type,
			rfc2865.State_Type, rfc2865.ReplyMessage_Type, rfc2866.AcctTerminateCause_Type,
			rfc2865.NASPortType_Type, rfc2865.CalledStationID_Type:
			// verified already, echoed, or harmless: accepted, not used
		case rfc2865.FilterID_Type:
			if r.Disconnect {
				set(CauseUnsupportedAttribute)
				return nil
			}
			str(&r.FilterID, val)
		case rfc2865.VendorSpecific_Type:
			if err := walkVSA(val, func(vendor uint32, t byte, v []byte) {
				if r.Disconnect || vendor != vendorWISPr || (t != wisprBandwidthMaxDown && t != wisprBandwidthMaxUp) {
					set(CauseUnsupportedAttribute)
					return
				}
				if len(v) != 4 || binary.BigEndian.Uint32(v) == 0 {
					set(CauseInvalidAttributeValue)
					return
				}
				if t == wisprBandwidthMaxDown {
					r.RateDown = uint64(binary.BigEndian.Uint32(v))
				} else {
					r.RateUp = uint64(binary.BigEndian.Uint32(v))
				}
			}); err != nil {
				set(CauseInvalidAttributeValue)
			}
		default:
			set(CauseUnsupportedAttribute)
		}
		return nil
	})
	if err != nil {
		return nil, CauseInvalidRequest
	}
	if cause != 0 {
		return nil, cause
	}
	if ids == 0 {
		return nil, CauseMissingAttribute
	}
	if !r.Disconnect && r.FilterID == "" && r.RateDown == 0 && r.RateUp == 0 {
		return nil, CauseMissingAttribute
	}
	return r, 0
}
