package aaa

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"sync/atomic"
	"time"

	"layeh.com/radius"
	"layeh.com/radius/rfc2865"
	"layeh.com/radius/rfc2866"
	"layeh.com/radius/rfc2869"
)

// Server is one RADIUS server. Auth or Acct may be the zero AddrPort when the
// server does not do that job. Their addresses are also the sources from which
// ServeDynamic accepts CoA/Disconnect requests (verified with Secret).
type Server struct {
	Name   string
	Auth   netip.AddrPort
	Acct   netip.AddrPort
	Secret []byte
}

// ClientConfig configures a Client. Zero values take the documented defaults.
type ClientConfig struct {
	Servers  []Server      // in preference order
	Timeout  time.Duration // per transmission (default 3 s)
	Retries  int           // retransmissions per server before failing over (default 2; negative = 0)
	DeadTime time.Duration // a server that did not answer is skipped this long (default 30 s; negative = never)

	NASIdentifier string
	NASIPAddress  netip.Addr // not sent when invalid

	// LocalAddr is the source address of requests (the NAS's address, which
	// the server's client list knows); invalid = the kernel's choice.
	LocalAddr netip.Addr

	// Source sockets per server address: Sockets are opened at first use,
	// more (up to MaxSockets) when all 256 identifiers of each are in flight.
	Sockets    int // default 4
	MaxSockets int // default 64 (16384 requests in flight per server address)

	// OnLatency, when set, is called once per valid reply with the time
	// from the first transmission to the reply (retransmissions included).
	OnLatency func(server string, d time.Duration)
}

// Client is a RADIUS authentication and accounting client (RFC 2865, 2866)
// with Message-Authenticator (RFC 2869, 3579) and failover. Safe for
// concurrent use.
type Client struct {
	cfg  ClientConfig
	auth []*endpoint
	acct []*endpoint

	accepts, rejects, challenges, authFailures, acctFailures, failovers atomic.Uint64
}

// NewClient validates cfg. Sockets are opened lazily.
func NewClient(cfg ClientConfig) (*Client, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("aaa: no RADIUS server")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 3 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 2
	} else if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.DeadTime == 0 {
		cfg.DeadTime = 30 * time.Second
	} else if cfg.DeadTime < 0 {
		cfg.DeadTime = 0
	}
	if cfg.Sockets <= 0 {
		cfg.Sockets = 4
	}
	if cfg.MaxSockets <= 0 {
		cfg.MaxSockets = 64
	}
	if cfg.MaxSockets < cfg.Sockets {
		cfg.MaxSockets = cfg.Sockets
	}
	if len(cfg.NASIdentifier) > 253 {
		return nil, errors.New("aaa: NAS-Identifier too long")
	}
	if cfg.NASIPAddress.IsValid() && !cfg.NASIPAddress.Is4() {
		return nil, errors.New("aaa: NAS-IP-Address must be IPv4")
	}
	c := &Client{cfg: cfg}
	for i, s := range cfg.Servers {
		if len(s.Secret) == 0 {
			return nil, fmt.Errorf("aaa: server %d (%s) has no secret", i, s.Name)
		}
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("server%d", i)
		}
		if s.Auth.IsValid() {
			c.auth = append(c.auth, newEndpoint(name, "auth", s.Auth, s.Secret, cfg.Sockets, cfg.MaxSockets, cfg.LocalAddr))
		}
		if s.Acct.IsValid() {
			c.acct = append(c.acct, newEndpoint(name, "acct", s.Acct, s.Secret, cfg.Sockets, cfg.MaxSockets, cfg.LocalAddr))
		}
	}
	return c, nil
}

// Close closes every socket. Requests in flight then time out.
func (c *Client) Close() error {
	for _, e := range c.auth {
		e.close()
	}
	for _, e := range c.acct {
		e.close()
	}
	return nil
}

// ErrNoServer is returned (wrapped) when no server gave a valid answer.
var ErrNoServer = errors.New("aaa: no RADIUS server answered")

// order returns the endpoints to try: the live ones in configured order, or,
// when all are dead, all of them (better a late answer than none).
func order(eps []*endpoint) []*endpoint {
	now := time.Now()
	out := make([]*endpoint, 0, len(eps))
	for _, e := range eps {
		if e.alive(now) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		out = append(out, eps...)
	}
	return out
}

// AccessRequest is what the PPP side knows when a subscriber authenticates.
type AccessRequest struct {
	UserName      string
	PAPPassword   []byte // PAP: sent as User-Password (RFC 2865 5.2)
	CHAPID        uint8  // CHAP-MD5: CHAP-Password = ID + Response, CHAP-Challenge sent always
	CHAPChallenge []byte
	CHAPResponse  []byte

	NASPortID        string // e.g. "port/stag/ctag"
	CallingStationID string // client MAC aa:bb:cc:dd:ee:ff
	AcctSessionID    string

	CircuitID, RemoteID          string // BBF Agent-Circuit-Id / Agent-Remote-Id
	ActualRateUp, ActualRateDown uint32 // kbit/s as in the PPPoE TR-101 tag; sent in bit/s
	FramedMTU                    uint16 // 0 = not sent
	// IPoE: a DHCP subscriber (no PPP): Framed-Protocol is not sent
	IPoE bool
}

// AccessResult is a verified Access-Accept or Access-Reject (an
// Access-Challenge is a Reject: we do no multi-round authentication).
type AccessResult struct {
	Accept       bool
	ReplyMessage string
	FramedIP     netip.Addr // invalid = none (also for 255.255.255.254/255)
	FilterID     string     // QoS profile name
	RateDown     uint64     // bit/s, WISPr-Bandwidth-Max-Down; 0 = none
	RateUp       uint64     // bit/s, WISPr-Bandwidth-Max-Up; 0 = none
	Class        [][]byte   // echo in accounting
	FramedMTU    uint16     // 0 = none
	IPv6         AccessIPv6 // RFC 3162/4818/6911 attributes

	SessionTimeout, InterimInterval, IdleTimeout time.Duration

	Server string // which server answered ("local" for a Users file)
}

// Authenticate sends an Access-Request to the servers in turn until one gives
// a valid (authentic, Message-Authenticator-protected) answer. The error is
// non-nil only when none did (ErrNoServer wrapped) or ctx ended.
func (c *Client) Authenticate(ctx context.Context, r *AccessRequest) (*AccessResult, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	eps := order(c.auth)
	if len(eps) == 0 {
		return nil, fmt.Errorf("%w: no authentication server configured", ErrNoServer)
	}
	for i, e := range eps {
		if i > 0 {
			c.failovers.Add(1)
		}
		b, err := c.exchange(ctx, e, func(id byte) ([]byte, [16]byte, error) {
			return c.buildAccess(r, id, e.secret)
		}, true, func(code radius.Code) bool {
			return code == radius.CodeAccessAccept || code == radius.CodeAccessReject || code == radius.CodeAccessChallenge
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, errNoReply) {
				continue
			}
			return nil, err
		}
		res, err := decodeAccess(b)
		if err != nil { // verified already; cannot happen
			continue
		}
		res.Server = e.name
		switch radius.Code(b[0]) {
		case radius.CodeAccessAccept:
			c.accepts.Add(1)
		case radius.CodeAccessReject:
			c.rejects.Add(1)
		default:
			c.challenges.Add(1)
		}
		return res, nil
	}
	c.authFailures.Add(1)
	return nil, fmt.Errorf("%w (%d tried)", ErrNoServer, len(eps))
}

func (r *AccessRequest) validate() error {
	if r.UserName == "" || len(r.UserName) > 253 {
		return errors.New("aaa: bad User-Name length")
	}
	pap := r.PAPPassword != nil
	chap := r.CHAPResponse != nil
	if pap == chap {
		return errors.New("aaa: exactly one of PAP password or CHAP response needed")
	}
	if pap && len(r.PAPPassword) > 128 {
		return errors.New("aaa: PAP password longer than 128 octets")
	}
	if chap && (len(r.CHAPResponse) != 16 || len(r.CHAPChallenge) == 0 || len(r.CHAPChallenge) > 253) {
		return errors.New("aaa: CHAP-MD5 response must be 16 octets and a challenge given")
	}
	return nil
}

func addString(p *radius.Packet, t radius.Type, s string) error {
	if s == "" {
		return nil
	}
	a, err := radius.NewString(s)
	if err != nil {
		return fmt.Errorf("aaa: attribute %d: %w", t, err)
	}
	p.Add(t, a)
	return nil
}

func (c *Client) addNAS(p *radius.Packet) {
	if c.cfg.NASIPAddress.IsValid() {
		a := c.cfg.NASIPAddress.As4()
		p.Add(rfc2865.NASIPAddress_Type, a[:])
	}
	_ = addString(p, rfc2865.NASIdentifier_Type, c.cfg.NASIdentifier)
	// NAS-Port-Type Ethernet (15): the subscriber reaches us over an
	// Ethernet (QinQ) access line; "Virtual" (5) is for sessions arriving
	// through a tunnel (an LNS), which we are not. See doc.go.
	p.Add(rfc2865.NASPortType_Type, u32(nasPortTypeEthernet))
}

func addAccessLine(p *radius.Packet, circuit, remote string, up, down uint32) error {
	if circuit != "" {
		a, err := vsa(vendorADSLForum, adslAgentCircuitID, []byte(circuit))
		if err != nil {
			return err
		}
		p.Add(rfc2865.VendorSpecific_Type, a)
	}
	if remote != "" {
		a, err := vsa(vendorADSLForum, adslAgentRemoteID, []byte(remote))
		if err != nil {
			return err
		}
		p.Add(rfc2865.VendorSpecific_Type, a)
	}
	if up != 0 {
		a, _ := vsa(vendorADSLForum, adslActualDataRateUp, u32(kbpsToBps(up)))
		p.Add(rfc2865.VendorSpecific_Type, a)
	}
	if down != 0 {
		a, _ := vsa(vendorADSLForum, adslActualDataRateDown, u32(kbpsToBps(down)))
		p.Add(rfc2865.VendorSpecific_Type, a)
	}
	return nil
}

// kbpsToBps converts the TR-101 PPPoE tag's kbit/s to RFC 4679's bit/s,
// saturating at the 32-bit maximum.
func kbpsToBps(k uint32) uint32 {
	v := uint64(k) * 1000
	if v > 0xffffffff {
		return 0xffffffff
	}
	return uint32(v)
}

func (c *Client) buildAccess(r *AccessRequest, id byte, secret []byte) ([]byte, [16]byte, error) {
	p := &radius.Packet{Code: radius.CodeAccessRequest, Identifier: id, Secret: secret}
	if _, err := rand.Read(p.Authenticator[:]); err != nil {
		return nil, p.Authenticator, err
	}
	if err := addString(p, rfc2865.UserName_Type, r.UserName); err != nil {
		return nil, p.Authenticator, err
	}
	if r.PAPPassword != nil {
		a, err := radius.NewUserPassword(r.PAPPassword, secret, p.Authenticator[:])
		if err != nil {
			return nil, p.Authenticator, err
		}
		p.Add(rfc2865.UserPassword_Type, a)
	} else {
		cp := make([]byte, 0, 17)
		cp = append(cp, r.CHAPID)
		cp = append(cp, r.CHAPResponse...)
		p.Add(rfc2865.CHAPPassword_Type, cp)
		p.Add(rfc2865.CHAPChallenge_Type, append([]byte(nil), r.CHAPChallenge...))
	}
	c.addNAS(p)
	p.Add(rfc2865.ServiceType_Type, u32(serviceTypeFramed))
	if !r.IPoE {
		p.Add(rfc2865.FramedProtocol_Type, u32(framedProtocolPPP))
	}
	for _, kv := range []struct {
		t radius.Type
		v string
	}{
		{rfc2869.NASPortID_Type, r.NASPortID},
		{rfc2865.CallingStationID_Type, r.CallingStationID},
		{rfc2866.AcctSessionID_Type, r.AcctSessionID},
	} {
		if err := addString(p, kv.t, kv.v); err != nil {
			return nil, p.Authenticator, err
		}
	}
	if r.FramedMTU != 0 {
		p.Add(rfc2865.FramedMTU_Type, u32(uint32(r.FramedMTU)))
	}
	if err := addAccessLine(p, r.CircuitID, r.RemoteID, r.ActualRateUp, r.ActualRateDown); err != nil {
		return nil, p.Authenticator, err
	}
	b, err := encodeRequest(p)
	return b, p.Authenticator, err
}

// AcctStatus is Acct-Status-Type (RFC 2866 5.1).
type AcctStatus int

// Acct-Status-Type values we send.
const (
	AcctStart   AcctStatus = 1
	AcctStop    AcctStatus = 2
	AcctInterim AcctStatus = 3
)

// AcctRequest is one accounting record.
type AcctRequest struct {
	Status                                           AcctStatus
	SessionID, UserName, NASPortID, CallingStationID string
	FramedIP                                         netip.Addr
	Class                                            [][]byte // from the Access-Accept, echoed (RFC 2865 5.25)
	SessionTime                                      time.Duration
	// In = from the subscriber (upstream), Out = to it. Octets above 2^32
	// go to Acct-Input/Output-Gigawords (RFC 2869 5.1/5.2); packets
	// saturate at 2^32-1 (no Gigawords exist for them).
	InOctets, OutOctets, InPackets, OutPackets uint64
	TerminateCause                             int // RFC 2866 5.10 value, Stop only; 0 = not sent
	CircuitID, RemoteID                        string
	// EventTime is when the event happened (Event-Timestamp); Acct-Delay-Time
	// is computed from it at each (re)send to a server. Zero = now.
	EventTime time.Time
	IPv6      *AcctIPv6 // nil: the session has no IPv6
	IPoE      bool      // a DHCP subscriber: no Framed-Protocol
}

// Account sends an Accounting-Request to the servers in turn until one
// answers with a valid Accounting-Response.
func (c *Client) Account(ctx context.Context, r *AcctRequest) error {
	if r.Status != AcctStart && r.Status != AcctStop && r.Status != AcctInterim {
		return fmt.Errorf("aaa: bad Acct-Status-Type %d", r.Status)
	}
	if r.SessionID == "" {
		return errors.New("aaa: Acct-Session-Id required")
	}
	ev := r.EventTime
	if ev.IsZero() {
		ev = time.Now()
	}
	eps := order(c.acct)
	if len(eps) == 0 {
		return fmt.Errorf("%w: no accounting server configured", ErrNoServer)
	}
	for i, e := range eps {
		if i > 0 {
			c.failovers.Add(1)
		}
		_, err := c.exchange(ctx, e, func(id byte) ([]byte, [16]byte, error) {
			return c.buildAcct(r, ev, id, e.secret)
		}, false, func(code radius.Code) bool { return code == radius.CodeAccountingResponse })
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !errors.Is(err, errNoReply) {
			return err
		}
	}
	c.acctFailures.Add(1)
	return fmt.Errorf("%w (%d tried)", ErrNoServer, len(eps))
}

func sat32(v uint64) uint32 {
	if v > 0xffffffff {
		return 0xffffffff
	}
	return uint32(v)
}

func (c *Client) buildAcct(r *AcctRequest, ev time.Time, id byte, secret []byte) ([]byte, [16]byte, error) {
	p := &radius.Packet{Code: radius.CodeAccountingRequest, Identifier: id, Secret: secret}
	var auth [16]byte
	p.Add(rfc2866.AcctStatusType_Type, u32(uint32(r.Status)))
	for _, kv := range []struct {
		t radius.Type
		v string
	}{
		{rfc2866.AcctSessionID_Type, r.SessionID},
		{rfc2865.UserName_Type, r.UserName},
		{rfc2869.NASPortID_Type, r.NASPortID},
		{rfc2865.CallingStationID_Type, r.CallingStationID},
	} {
		if err := addString(p, kv.t, kv.v); err != nil {
			return nil, auth, err
		}
	}
	c.addNAS(p)
	p.Add(rfc2865.ServiceType_Type, u32(serviceTypeFramed))
	if !r.IPoE {
		p.Add(rfc2865.FramedProtocol_Type, u32(framedProtocolPPP))
	}
	p.Add(rfc2866.AcctAuthentic_Type, u32(acctAuthenticRADIUS))
	if r.FramedIP.IsValid() && r.FramedIP.Is4() {
		a := r.FramedIP.As4()
		p.Add(rfc2865.FramedIPAddress_Type, a[:])
	}
	for _, cl := range r.Class {
		a, err := radius.NewBytes(cl)
		if err != nil {
			return nil, auth, fmt.Errorf("aaa: Class: %w", err)
		}
		p.Add(rfc2865.Class_Type, a)
	}
	if r.Status != AcctStart {
		p.Add(rfc2866.AcctSessionTime_Type, u32(sat32(uint64(r.SessionTime/time.Second))))
		p.Add(rfc2866.AcctInputOctets_Type, u32(uint32(r.InOctets)))
		p.Add(rfc2866.AcctOutputOctets_Type, u32(uint32(r.OutOctets)))
		p.Add(rfc2869.AcctInputGigawords_Type, u32(sat32(r.InOctets>>32)))
		p.Add(rfc2869.AcctOutputGigawords_Type, u32(sat32(r.OutOctets>>32)))
		p.Add(rfc2866.AcctInputPackets_Type, u32(sat32(r.InPackets)))
		p.Add(rfc2866.AcctOutputPackets_Type, u32(sat32(r.OutPackets)))
	}
	if err := addIPv6Acct(p, r.IPv6, r.Status); err != nil {
		return nil, auth, err
	}
	if r.Status == AcctStop && r.TerminateCause > 0 {
		p.Add(rfc2866.AcctTerminateCause_Type, u32(uint32(r.TerminateCause)))
	}
	if err := addAccessLine(p, r.CircuitID, r.RemoteID, 0, 0); err != nil {
		return nil, auth, err
	}
	p.Add(rfc2869.EventTimestamp_Type, u32(uint32(ev.Unix())))
	delay := time.Since(ev)
	if delay < 0 {
		delay = 0
	}
	p.Add(rfc2866.AcctDelayTime_Type, u32(sat32(uint64(delay/time.Second))))
	b, err := encodeRequest(p)
	if err != nil {
		return nil, auth, err
	}
	copy(auth[:], b[4:20])
	return b, auth, nil
}
