package core

import (
	"bytes"
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/aaa"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/dhcp4"
)

// IPoE subscribers (issue 19, docs/cp/ipoe.md): DHCPv4 on QinQ lines of the
// line groups that allow IPoE. A session is keyed by (line, client MAC); it
// lives in the shard's session table under session id 0 (no PPPoE session
// has id 0), so that PFCP reports, CoA/DM, accounting, the store and the
// management API find it as they find PPPoE sessions.
//
// Server mode: a DISCOVER is authorized (RADIUS Access-Request, User-Name
// per the group's ipoe.username) and answered with an OFFER of the address
// RADIUS gave (Framed-IP-Address) or one of the group's pools; the REQUEST
// for it installs the session in the DP (PFCP) and the ACK follows the DP's
// answer, with the Accounting-Start. RENEW/REBIND/INIT-REBOOT of the session
// extend the lease; RELEASE and DECLINE end it, and so does the lease's
// expiry. A REQUEST the CP cannot match to a session is NAKed, so that a
// CPE whose session the CP ended (Disconnect, expiry, a lost store) starts
// over at its next renewal (T1 = ipoe.renew_time, 300 s by default).

const (
	kindIPoE         = "ipoe"
	causeLostService = 3 // RFC 2866 5.10: the lease ran out

	// ipoeOfferHold: an offered address stays with the client this long
	// for its REQUEST
	ipoeOfferHold = 60 * time.Second
)

// ipoeDeclineHold: an address a client DECLINEd (something else answers for
// it) is not handed out again for this long (RFC 2131 4.3.3: marked not
// available).
const ipoeDeclineHold = 10 * time.Minute

// declined is an address held back after a DECLINE.
type declined struct {
	group string
	addr  netip.Addr
	until time.Time
}

// quarantine holds a declined address back from its pool.
func (d *Daemon) quarantine(group string, a netip.Addr) {
	d.ipoe.mu.Lock()
	d.ipoe.held = append(d.ipoe.held, declined{group, a, time.Now().Add(ipoeDeclineHold)})
	d.ipoe.mu.Unlock()
	d.log.Warn("declined address held back", "address", a.String(), "line_group", group, "for", ipoeDeclineHold.String())
}

// unquarantine returns the declined addresses whose hold is over (slowTick).
func (d *Daemon) unquarantine(now time.Time) {
	d.ipoe.mu.Lock()
	var due []declined
	keep := d.ipoe.held[:0]
	for _, q := range d.ipoe.held {
		if now.Before(q.until) {
			keep = append(keep, q)
		} else {
			due = append(due, q)
		}
	}
	d.ipoe.held = keep
	d.ipoe.mu.Unlock()
	for _, q := range due {
		d.pools[q.group].Release(q.addr)
	}
	if len(due) > 0 {
		d.updatePoolMetrics()
	}
}

// ipoeSess is a session's IPoE state (nil for PPPoE sessions).
type ipoeSess struct {
	offerUntil time.Time      // stNegotiating: the OFFER holds until then
	discover   *dhcp4.Message // stAuthorizing: the DISCOVER to answer
	request    *dhcp4.Message // stEstablishing: the REQUEST to ACK once the DP has the session
	relay      *relayState    // relay mode (relay.go)
	declined   bool           // ended by the client's DECLINE: its address is held back (quarantine)

	// dual stack (ipoe6.go)
	auth       *aaa.AccessResult // the session's Access-Accept: the other family's addresses follow it
	v6first    *ipoe6In          // stAuthorizing: the Solicit/Request that created the session
	v6wait     *ipoe6In          // stAuthorizing (DHCPv4 first): a Solicit/Request to answer after it
	v6reply    []byte            // the DHCPv6 Reply to send once the DP has the IPv6 PDRs
	v6kind     string
	removing   bool // a modification removing a family is in flight
	removingV4 bool // ... and it removes IPv4
	// the other family's end while that modification is in flight (its
	// RELEASE right after the first one's): taken up once it returns
	pendingEnd *familyEnd
	adding4    bool // a modification adding IPv4 is in flight
}

// familyEnd is one family's end of an IPoE session waiting its turn.
type familyEnd struct {
	v4    bool
	cause int
	why   string
}

// ipoeLines counts the IPoE sessions of each line (MAC zero in the key)
// across the shards, for ipoe.max_macs.
type ipoeLines struct {
	mu   sync.Mutex
	n    map[lineKey]int
	held []declined // addresses held back after a DECLINE
}

func lineOnly(lk lineKey) lineKey {
	lk.mac = [6]byte{}
	return lk
}

func (l *ipoeLines) take(lk lineKey, max int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = make(map[lineKey]int)
	}
	k := lineOnly(lk)
	if max > 0 && l.n[k] >= max {
		return false
	}
	l.n[k]++
	return true
}

func (l *ipoeLines) done(lk lineKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := lineOnly(lk)
	if l.n[k] <= 1 {
		delete(l.n, k)
		return
	}
	l.n[k]--
}

// isIPv4Frame reports whether a redirected frame carries IPv4 (after its
// tags): IPoE's DHCP, not PPPoE.
func isIPv4Frame(b []byte) bool {
	if len(b) < 18 {
		return false
	}
	off := 16
	if b[off] == 0x81 && b[off+1] == 0x00 {
		if len(b) < 22 {
			return false
		}
		off += 4
	}
	return b[off] == 0x08 && b[off+1] == 0x00
}

var dhcpTypeNames = [...]string{"", "discover", "offer", "request", "decline", "ack", "nak", "release", "inform"}

// ipoeIn is a DHCP frame from a subscriber, checked and placed.
type ipoeIn struct {
	inst *config.Instance
	line *config.Line
	lk   lineKey
	f    dhcp4.Frame
	m    *dhcp4.Message
}

// ipoeFrame handles an IPv4 frame redirected by a DP: DHCP from an IPoE
// subscriber (the DP punts nothing else IPv4).
func (sh *shard) ipoeFrame(in inFrame) {
	d := sh.d
	f, err := dhcp4.DecodeFrame(in.data)
	if err != nil {
		sh.drop("dhcp_malformed", "malformed IPoE frame", "instance", in.inst.Name, "err", err)
		return
	}
	line, port, ok := sh.frameLine(in, f.STag, f.CTag, f.Src)
	if !ok {
		return
	}
	g := line.Group
	if g.IPoE == nil {
		sh.drop("ipoe_not_allowed", "DHCP on a line whose group does not allow IPoE", "line_group", g.Name)
		return
	}
	if f.DstPort != dhcp4.ServerPort || f.SrcPort != dhcp4.ClientPort {
		sh.drop("dhcp_ports", "IPv4 frame that is not DHCP client to server", "instance", in.inst.Name)
		return
	}
	var ac [6]byte
	copy(ac[:], g.ACMAC)
	if f.Dst != ac && f.Dst != [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff} {
		sh.drop("dst_mac", "DHCP to a foreign MAC", "instance", in.inst.Name)
		return
	}
	m, err := dhcp4.Decode(f.Payload)
	if err != nil {
		sh.drop("dhcp_malformed", "malformed DHCP message", "instance", in.inst.Name, "err", err)
		return
	}
	if m.Op != dhcp4.OpRequest {
		sh.drop("dhcp_op", "BOOTREPLY from the access side", "instance", in.inst.Name)
		return
	}
	if !bytes.Equal(m.CHAddr, f.Src[:]) {
		sh.drop("dhcp_chaddr", "DHCP chaddr is not the frame's source MAC", "instance", in.inst.Name)
		return
	}
	if m.GIAddr.IsValid() && !m.GIAddr.IsUnspecified() {
		sh.drop("dhcp_giaddr", "relayed DHCP from the access side", "instance", in.inst.Name)
		return
	}
	d.m.frames.WithLabelValues("dhcp_" + dhcpTypeNames[m.Type]).Inc()
	x := &ipoeIn{inst: in.inst, line: line, lk: lineKey{port: port.Name, stag: f.STag, ctag: f.CTag, mac: f.Src}, f: f, m: m}
	now := time.Now()
	s := sh.sessions[sessKey{x.lk, 0}]
	if s != nil && s.dead {
		s = nil
	}
	if g.IPoE.Mode == config.IPoEModeRelay {
		sh.relayFromClient(now, x, s)
		return
	}
	switch m.Type {
	case dhcp4.Discover:
		sh.dhcpDiscover(now, x, s)
	case dhcp4.Request:
		sh.dhcpRequest(now, x, s)
	case dhcp4.Release:
		if s == nil || s.state != stEstablished || m.CIAddr != s.rec.IPv4 || !s.rec.ipoeHasIPv4() {
			sh.drop("dhcp_release_unknown", "DHCPRELEASE for no session", "mac", macString(x.lk.mac))
			return
		}
		sh.ipoeDropFamily(s, true, causeUserRequest, "DHCPRELEASE from the subscriber")
	case dhcp4.Decline:
		req, ok := m.Addr(dhcp4.OptRequestedIP)
		if s == nil || !ok || !s.rec.IPv4.IsValid() || s.rec.IPv4 != req {
			sh.drop("dhcp_decline_unknown", "DHCPDECLINE for no session", "mac", macString(x.lk.mac))
			return
		}
		s.ipoe.declined = true
		sh.teardown(s, causeUserError, padtNone, "DHCPDECLINE: the subscriber found its address in use")
	case dhcp4.Inform:
		if s == nil || s.state != stEstablished || m.CIAddr != s.rec.IPv4 {
			sh.drop("dhcp_inform_unknown", "DHCPINFORM from an address of no session", "mac", macString(x.lk.mac))
			return
		}
		sh.dhcpReply(x, s, dhcp4.Ack, false)
	default:
		sh.drop("dhcp_type", "DHCP server message from the access side", "type", m.Type)
	}
}

// dhcpDiscover: flood admission per line and per MAC (as PADIs), then an
// OFFER of the session's address, or a new session is authorized.
func (sh *shard) dhcpDiscover(now time.Time, x *ipoeIn, s *session) {
	d := sh.d
	if !sh.admitDHCP(now, x) {
		return
	}
	if s != nil {
		switch s.state {
		case stNegotiating:
			s.ipoe.offerUntil = now.Add(ipoeOfferHold)
			sh.dhcpReply(x, s, dhcp4.Offer, true)
		case stEstablished:
			if !s.rec.ipoeHasIPv4() {
				sh.ipoeOfferIPv4(now, s, x) // IPv4 joins an IPv6 session (ipoe6.go)
				return
			}
			// The client lost its lease state (a reboot): the same address again.
			sh.dhcpReply(x, s, dhcp4.Offer, true)
		case stAuthorizing:
			if s.ipoe.v6first != nil {
				s.ipoe.discover = x.m // IPv6 first: offered after the Access-Accept (ipoe6.go)
			}
		default:
			// installing after a REQUEST: the answer comes
		}
		return
	}
	g := x.line.Group
	if !d.ipoe.take(x.lk, g.IPoE.MaxMACs) {
		sh.drop("ipoe_max_macs", "DISCOVER beyond the line's ipoe.max_macs", "port", x.lk.port,
			"stag", x.lk.stag, "ctag", x.lk.ctag, "mac", macString(x.lk.mac))
		return
	}
	ai, hasAI := x.m.AgentInfo()
	user, ok := ipoeUserName(g.IPoE.Username, x.lk.mac, ai, hasAI)
	if !ok {
		d.ipoe.done(x.lk)
		sh.drop("ipoe_no_username", "DISCOVER without the option 82 sub-option ipoe.username names", "mac", macString(x.lk.mac))
		return
	}
	s = sh.newIPoESession(now, x.inst, x.line, x.lk, user)
	s.ipoe.discover = x.m
	if hasAI {
		s.rec.CircuitID, s.rec.RemoteID = string(ai.CircuitID), string(ai.RemoteID)
	}
	sh.ipoeAuthorize(s, x)
}

// admitDHCP polices DISCOVERs per line and per client MAC like PADIs.
func (sh *shard) admitDHCP(now time.Time, x *ipoeIn) bool {
	if !admit(&sh.dhcpLine, lineOnly(x.lk), now, padiLineRate, padiLineBurst) {
		sh.drop("dhcp_line_rate", "DISCOVER rate limit of a line: flood from many MACs", "instance", x.inst.Name,
			"port", x.lk.port, "stag", x.lk.stag, "ctag", x.lk.ctag)
		return false
	}
	if !admit(&sh.dhcpMAC, x.lk, now, sh.d.opt.PADIRate, sh.d.opt.PADIBurst) {
		sh.drop("dhcp_rate", "DISCOVER rate limit: client asking too fast", "instance", x.inst.Name,
			"mac", macString(x.lk.mac))
		return false
	}
	return true
}

// ipoeUserName is the RADIUS User-Name per ipoe.username.
func ipoeUserName(kind string, mac [6]byte, ai dhcp4.AgentInfo, hasAI bool) (string, bool) {
	switch kind {
	case config.IPoEUserCircuitID:
		return string(ai.CircuitID), hasAI && len(ai.CircuitID) > 0
	case config.IPoEUserRemoteID:
		return string(ai.RemoteID), hasAI && len(ai.RemoteID) > 0
	}
	return macString(mac), true
}

// newIPoESession makes a session in stAuthorizing (the line's count taken).
func (sh *shard) newIPoESession(now time.Time, inst *config.Instance, line *config.Line, lk lineKey, user string) *session {
	d := sh.d
	g := line.Group
	s := &session{
		sh: sh, key: sessKey{lk, 0}, state: stAuthorizing,
		inst: inst, line: line, group: g, padrAt: now, ipoe: &ipoeSess{},
	}
	seid, id := d.newSEID()
	s.rec = record{
		ID: id, CPSEID: seid, Instance: inst.ID, AccessPort: lk.port, STag: lk.stag, CTag: lk.ctag,
		MAC: lk.mac, LineGroup: g.Name, QosProfile: g.QosProfile.Name, Kind: kindIPoE, User: user,
		Interim: int64(d.opt.Interim / time.Second),
	}
	d.applySubscriber(&s.rec)
	sh.sessions[s.key] = s
	d.m.sessions.WithLabelValues(stAuthorizing.String()).Inc()
	return s
}

// ipoeAuthorize sends the Access-Request off the shard.
func (sh *shard) ipoeAuthorize(s *session, x *ipoeIn) {
	d := sh.d
	req := &aaa.AccessRequest{
		UserName: s.rec.User, PAPPassword: []byte(s.group.IPoE.Password),
		NASPortID: s.rec.nasPort(), CallingStationID: callingStationID(s.rec.MAC), AcctSessionID: s.rec.ID,
		CircuitID: s.rec.CircuitID, RemoteID: s.rec.RemoteID, IPoE: true,
	}
	go func() {
		ctx, cancel := context.WithTimeout(d.ctx, 60*time.Second)
		res, err := d.auth.Authenticate(ctx, req)
		cancel()
		sh.post(func() { sh.ipoeAuthDone(s, x, res, err) })
	}()
}

func (sh *shard) ipoeAuthDone(s *session, x *ipoeIn, res *aaa.AccessResult, err error) {
	d := sh.d
	if s.dead {
		return
	}
	fail := func(result, msg string, args ...any) {
		d.m.authResults.WithLabelValues(result).Inc()
		d.log.Info("authentication failed", append([]any{"session", s.rec.ID, "user", s.rec.User,
			"reason", msg}, args...)...)
		sh.teardown(s, causeUserError, padtNone, msg)
	}
	switch {
	case err != nil:
		d.m.radiusErrors.WithLabelValues("no_server").Inc()
		d.blog.Warn("radius_down", "no RADIUS server answered", "err", err)
		fail("error", "authentication service unavailable")
		return
	case res == nil || !res.Accept:
		fail("reject", "authentication failed")
		return
	}
	g := s.group
	prof := g.QosProfile
	if res.FilterID != "" {
		p, ok := d.cfg.QosProfile(res.FilterID)
		if !ok {
			fail("reject", "unknown QoS profile", "filter_id", res.FilterID)
			return
		}
		prof = p
	}
	s.ipoe.auth = res
	if s.ipoe.v6first != nil {
		// IPv6 first (ipoe6.go): its prefixes now, IPv4 on a DISCOVER
		s.rec.QosProfile = prof.Name
		sh.ipoeTakeResult(s, res)
		d.m.authResults.WithLabelValues("accept").Inc()
		sh.ipoe6Authorized(s, res, fail)
		return
	}
	if g.IPoE.Mode == config.IPoEModeRelay {
		// the external DHCP server gives the address (relay.go)
		s.rec.QosProfile = prof.Name
		sh.ipoeTakeResult(s, res)
		d.m.authResults.WithLabelValues("accept").Inc()
		sh.relayAuthorized(s, x)
		return
	}
	addr, ok := d.takeIPv4(s, g.Name, res, fail)
	if !ok {
		return
	}
	d.m.authResults.WithLabelValues("accept").Inc()
	s.rec.IPv4 = addr
	s.rec.QosProfile = prof.Name
	sh.ipoeTakeResult(s, res)
	d.setState(s, stNegotiating)
	s.ipoe.offerUntil = time.Now().Add(ipoeOfferHold)
	if m := s.ipoe.discover; m != nil {
		s.ipoe.discover = nil
		sh.dhcpReply(&ipoeIn{inst: s.inst, line: s.line, lk: s.key.line, m: m}, s, dhcp4.Offer, true)
	}
	if x := s.ipoe.v6wait; x != nil {
		s.ipoe.v6wait = nil
		sh.ipoe6Session(time.Now(), s, x) // DHCPv6 at once with DHCPv4 (ipoe6.go)
	}
}

// ipoeTakeResult keeps what the Access-Accept says beyond the address.
func (sh *shard) ipoeTakeResult(s *session, res *aaa.AccessResult) {
	d := sh.d
	s.rec.RateDown, s.rec.RateUp = res.RateDown, res.RateUp
	d.subscriberRates(&s.rec, res)
	s.rec.Class = res.Class
	if res.InterimInterval > 0 {
		iv := res.InterimInterval
		if iv < 60*time.Second && d.opt.Interim >= 60*time.Second {
			iv = 60 * time.Second // RFC 2869 5.16: not less than 60 s
		}
		s.rec.Interim = int64(iv / time.Second)
	}
	s.rec.SessionTimeout = int64(res.SessionTimeout / time.Second)
}

// dhcpRequest: SELECTING (server identifier), INIT-REBOOT (requested
// address, no ciaddr), RENEWING/REBINDING (ciaddr).
func (sh *shard) dhcpRequest(now time.Time, x *ipoeIn, s *session) {
	m := x.m
	sid, hasSID := m.Addr(dhcp4.OptServerID)
	req, hasReq := m.Addr(dhcp4.OptRequestedIP)
	ciaddr := m.CIAddr
	hasCI := ciaddr.IsValid() && !ciaddr.IsUnspecified()
	switch {
	case hasSID:
		if s == nil {
			if sh.isGateway(x.line.Group, sid) {
				sh.dhcpNak(now, x, "no offer for this client")
			}
			return // another server's offer was chosen: not ours
		}
		if p := poolOf(s.group, s.rec.IPv4); p == nil || p.Gateway != sid {
			// The client took another server's offer: ours is withdrawn.
			if s.state == stNegotiating && s.rec.IPv4.IsValid() {
				sh.teardown(s, causeUserRequest, padtNone, "the client chose another DHCP server")
			}
			return
		}
		if !hasReq || req != s.rec.IPv4 {
			sh.dhcpNak(now, x, "requested address is not the one offered")
			if s.state == stNegotiating {
				sh.teardown(s, causeUserError, padtNone, "REQUEST for another address than offered")
			}
			return
		}
		switch s.state {
		case stNegotiating:
			sh.ipoeEstablish(now, s, x)
		case stEstablishing:
			s.ipoe.request = m // its retransmission: the ACK answers the latest
		case stEstablished:
			sh.ipoeRenew(now, s, x)
		}
	case hasCI:
		if s == nil || s.state != stEstablished || ciaddr != s.rec.IPv4 {
			sh.dhcpNak(now, x, "no lease for this address")
			return
		}
		sh.ipoeRenew(now, s, x)
	case hasReq:
		if s == nil || s.state != stEstablished || req != s.rec.IPv4 {
			sh.dhcpNak(now, x, "no lease for this address")
			if s != nil && s.state == stNegotiating {
				sh.teardown(s, causeUserError, padtNone, "INIT-REBOOT for another address than offered")
			}
			return
		}
		sh.ipoeRenew(now, s, x)
	default:
		sh.drop("dhcp_request_malformed", "DHCPREQUEST without server id, requested address or ciaddr",
			"mac", macString(x.lk.mac))
	}
}

func (sh *shard) isGateway(g *config.LineGroup, a netip.Addr) bool {
	for _, p := range g.Pools {
		if p.Gateway == a {
			return true
		}
	}
	return false
}

// poolOf is the pool of g holding a.
func poolOf(g *config.LineGroup, a netip.Addr) *config.Pool {
	for _, p := range g.Pools {
		if p.Prefix.Contains(a) {
			return p
		}
	}
	return nil
}

// ipoeRenew extends an established session's lease and ACKs.
func (sh *shard) ipoeRenew(now time.Time, s *session, x *ipoeIn) {
	d := sh.d
	if s.rec.NoIPv4PDRs {
		sh.ipoeAddIPv4(now, s, x) // offered to a session installed without IPv4 (ipoe6.go)
		return
	}
	s.rec.LeaseEnd = now.Add(time.Duration(s.group.IPoE.LeaseTime) * time.Second).UTC()
	rec := s.rec
	go func() {
		if err := d.persist(&rec); err != nil {
			d.log.Error("session store write failed", "session", rec.ID, "err", err)
		}
	}()
	d.m.frames.WithLabelValues("dhcp_renewal").Inc()
	sh.dhcpReply(x, s, dhcp4.Ack, true)
}

// ipoeEstablish installs the session in its DP on the client's REQUEST;
// established() sends the ACK (ipoeInstalled).
func (sh *shard) ipoeEstablish(now time.Time, s *session, x *ipoeIn) {
	d := sh.d
	d.setState(s, stEstablishing)
	s.ipoe.request = x.m
	s.rec.NoIPv4PDRs = false // IPv4 commits first (IPv6 may have been offered: ipoe6.go)
	s.rec.LeaseEnd = now.Add(time.Duration(s.group.IPoE.LeaseTime) * time.Second).UTC()
	sh.install(s)
}

// ipoeInstalled: the DP has the session; the pending REQUEST gets its ACK.
func (sh *shard) ipoeInstalled(s *session) {
	if s.ipoe.relay != nil {
		sh.relayInstalled(s)
		return
	}
	if r := s.ipoe.v6reply; r != nil && s.rec.IPv6Installed {
		// IPv6 committed first (ipoe6.go); else the modification adding
		// IPv6 that follows sends it (ipoe6Installed)
		s.ipoe.v6reply = nil
		sh.sendIPoE6(s.inst, s.line, s.key.line, r, s.ipoe.v6kind)
	}
	m := s.ipoe.request
	s.ipoe.request = nil
	if m == nil {
		return
	}
	x := &ipoeIn{inst: s.inst, line: s.line, lk: s.key.line, m: m}
	if s.rec.NoIPv4PDRs {
		// IPv6 committed first and was installed alone: IPv4 joins now
		sh.ipoeAddIPv4(time.Now(), s, x)
		return
	}
	sh.dhcpReply(x, s, dhcp4.Ack, true)
}

// ipoeNotInstalled: the DP refused the session; the REQUEST gets a NAK.
func (sh *shard) ipoeNotInstalled(s *session) {
	s.ipoe.v6reply = nil
	if r := s.ipoe.relay; r != nil && r.pending != nil {
		m := r.pending
		r.pending = nil
		sh.relayToClient(&ipoeIn{inst: s.inst, line: s.line, lk: s.key.line, m: m}, s, nakOf(m))
		return
	}
	m := s.ipoe.request
	s.ipoe.request = nil
	if m == nil {
		return
	}
	sh.dhcpNak(time.Now(), &ipoeIn{inst: s.inst, line: s.line, lk: s.key.line, m: m}, "the session could not be installed")
}

// ipoeExpire ends the offers not taken and the leases run out (slowTick).
func (sh *shard) ipoeExpire(now time.Time) {
	if sh.id == 0 {
		sh.d.unquarantine(now)
	}
	for _, s := range sh.sessions {
		if s.ipoe == nil || s.dead {
			continue
		}
		switch {
		case s.state == stNegotiating && now.After(s.ipoe.offerUntil):
			sh.teardown(s, causeUserError, padtNone, "DHCP offer not taken")
		case s.state == stEstablished && s.rec.IPv4.IsValid() && !s.rec.LeaseEnd.IsZero() && now.After(s.rec.LeaseEnd):
			sh.ipoeDropFamily(s, true, causeLostService, "DHCP lease expired")
		default:
			sh.ipoe6Expire(now, s)
		}
	}
}

// dhcpReply answers x.m for session s: OFFER or ACK (lease: with the lease
// times; INFORM's ACK has none), from the gateway of the session's pool,
// option 82 echoed (RFC 3046 2.2).
func (sh *shard) dhcpReply(x *ipoeIn, s *session, typ uint8, lease bool) {
	p := poolOf(s.group, s.rec.IPv4)
	if p == nil {
		return
	}
	req := x.m
	r := &dhcp4.Message{Op: dhcp4.OpReply, XID: req.XID, Flags: req.Flags, CHAddr: req.CHAddr, Type: typ}
	if typ == dhcp4.Ack {
		r.CIAddr = req.CIAddr
	}
	if lease {
		r.YIAddr = s.rec.IPv4
	}
	r.Set(dhcp4.OptServerID, dhcp4.A4(p.Gateway))
	if lease {
		c := s.group.IPoE
		r.Set(dhcp4.OptLeaseTime, dhcp4.U32(c.LeaseTime))
		r.Set(dhcp4.OptRenewalTime, dhcp4.U32(c.RenewTime))
		r.Set(dhcp4.OptRebindingTime, dhcp4.U32(c.RebindTime()))
	}
	r.Set(dhcp4.OptSubnetMask, maskOf(p.Prefix.Bits()))
	r.Set(dhcp4.OptRouter, dhcp4.A4(p.Gateway))
	if len(p.DNS) > 0 {
		var dns []byte
		for _, a := range p.DNS {
			dns = append(dns, dhcp4.A4(a)...)
		}
		r.Set(dhcp4.OptDNS, dns)
	}
	if v, ok := req.Option(dhcp4.OptRelayAgentInfo); ok {
		r.Set(dhcp4.OptRelayAgentInfo, v)
	}
	sh.sendDHCP(x, r, p.Gateway, typ)
}

func maskOf(bits int) []byte {
	v := ^uint32(0) << (32 - bits)
	if bits == 0 {
		v = 0
	}
	return dhcp4.U32(v)
}

// dhcpNak refuses a REQUEST (rate-limited per client), from the gateway of
// the pool the client asked about (else the group's first).
func (sh *shard) dhcpNak(now time.Time, x *ipoeIn, msg string) {
	d := sh.d
	if !admit(&sh.dhcpNaks, x.lk, now, 1, 3) {
		d.m.drops.WithLabelValues("dhcp_nak_rate").Inc()
		return
	}
	g := x.line.Group
	req := x.m
	var gw netip.Addr
	for _, a := range []netip.Addr{req.CIAddr, func() netip.Addr { a, _ := req.Addr(dhcp4.OptRequestedIP); return a }()} {
		if p := poolOf(g, a); a.IsValid() && p != nil {
			gw = p.Gateway
			break
		}
	}
	if !gw.IsValid() {
		if len(g.Pools) == 0 {
			return
		}
		gw = g.Pools[0].Gateway
	}
	r := &dhcp4.Message{Op: dhcp4.OpReply, XID: req.XID, Flags: req.Flags | dhcp4.FlagBroadcast, CHAddr: req.CHAddr, Type: dhcp4.Nak}
	r.Set(dhcp4.OptServerID, dhcp4.A4(gw))
	r.Set(dhcp4.OptMessage, []byte(msg))
	if v, ok := req.Option(dhcp4.OptRelayAgentInfo); ok {
		r.Set(dhcp4.OptRelayAgentInfo, v)
	}
	sh.sendDHCP(x, r, gw, dhcp4.Nak)
}

// sendDHCP sends a reply to the client of x (RFC 2131 4.1): a NAK or a
// reply with the broadcast flag to the broadcast addresses; a reply to a
// client with an address (ciaddr) to it; else to yiaddr and the client MAC.
func (sh *shard) sendDHCP(x *ipoeIn, r *dhcp4.Message, src netip.Addr, typ uint8) {
	f := dhcp4.Frame{
		Dst: x.lk.mac, OuterTPID: x.line.AccessPort.TPID, STag: x.lk.stag, CTag: x.lk.ctag,
		SrcIP: src, SrcPort: dhcp4.ServerPort, DstPort: dhcp4.ClientPort, Payload: r.Encode(),
	}
	copy(f.Src[:], x.line.Group.ACMAC)
	ci := x.m.CIAddr
	switch {
	case typ == dhcp4.Nak || (r.Flags&dhcp4.FlagBroadcast != 0 && !(ci.IsValid() && !ci.IsUnspecified())):
		f.Dst = [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
		f.DstIP = netip.AddrFrom4([4]byte{255, 255, 255, 255})
	case ci.IsValid() && !ci.IsUnspecified():
		f.DstIP = ci
	default:
		f.DstIP = r.YIAddr
	}
	sh.out = dhcp4.AppendFrame(sh.out[:0], &f)
	sh.emit(x.inst, sh.out)
	sh.d.m.sent.WithLabelValues("dhcp_" + dhcpTypeNames[typ]).Inc()
}

// restoreIPoE puts a persisted IPoE session back (restore): no PPP side; its
// lease runs on from the record. It reports false when the session cannot
// be restored.
func (d *Daemon) restoreIPoE(r record, inst *config.Instance, line *config.Line, now time.Time) bool {
	if line.Group.IPoE == nil || r.PPPoESID != 0 {
		return false
	}
	lk := lineKey{port: r.AccessPort, stag: r.STag, ctag: r.CTag, mac: r.MAC}
	sh := d.shardFor(r.MAC)
	key := sessKey{lk, 0}
	if sh.sessions[key] != nil {
		return false
	}
	d.ipoe.take(lk, 0) // counted; max_macs is not enforced on what exists
	s := &session{
		sh: sh, key: key, state: stEstablished, inst: inst, line: line, group: line.Group,
		rec: r, lastInterim: now, ipoe: &ipoeSess{},
	}
	if line.Group.IPoE.Mode == config.IPoEModeRelay {
		s.ipoe.relay = &relayState{}
	}
	sh.sessions[key] = s
	d.index(s, true)
	if r.Established && r.UPSEID != 0 {
		d.plane.Restore(r.Instance, r.CPSEID, r.UPSEID)
	}
	d.m.sessions.WithLabelValues(stEstablished.String()).Inc()
	return true
}

// kind names the session's kind for operators: pppoe or ipoe.
func (r *record) kind() string {
	if r.Kind == kindIPoE {
		return kindIPoE
	}
	return "pppoe"
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
