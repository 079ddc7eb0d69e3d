package core

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/v6ctl"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/vxlan"
)

func randRead(b []byte) (int, error) { return rand.Read(b) }

// inFrame is a control frame redirected by a DP instance.
type inFrame struct {
	inst *config.Instance
	data []byte
}

// shard owns a share of the sessions (by client MAC) and runs their
// protocol machines on one goroutine: no locks on session state.
type shard struct {
	d  *Daemon
	id int

	in   chan inFrame
	work chan func()

	sessions  map[sessKey]*session
	byLine    map[lineKey]*session
	timed     map[*session]struct{}
	padi      map[lineKey]*bucket
	padiLine  map[lineKey]*bucket   // per line (MAC zero): a flood of forged MACs on one line
	padt      map[lineKey]*bucket   // PADTs for unknown sessions, per line and MAC
	dhcpMAC   map[lineKey]*bucket   // IPoE DISCOVERs per line and MAC (ipoe.go)
	dhcpLine  map[lineKey]*bucket   // IPoE DISCOVERs per line (MAC zero)
	dhcpNaks  map[lineKey]*bucket   // DHCPNAKs per line and MAC
	relayXIDs map[relayKey]*session // relay mode: the transactions in flight (relay.go)
	closing   closeQueue            // sessions whose PPPoE session is ending (closing.go)

	out   []byte       // scratch for an outgoing frame
	batch *vxlan.Batch // outgoing datagrams, sent together
}

func newShard(d *Daemon, id int) *shard {
	return &shard{
		d: d, id: id,
		in:        make(chan inFrame, 8192),
		work:      make(chan func(), 65536),
		sessions:  make(map[sessKey]*session),
		byLine:    make(map[lineKey]*session),
		timed:     make(map[*session]struct{}),
		padi:      make(map[lineKey]*bucket),
		padiLine:  make(map[lineKey]*bucket),
		padt:      make(map[lineKey]*bucket),
		dhcpMAC:   make(map[lineKey]*bucket),
		dhcpLine:  make(map[lineKey]*bucket),
		dhcpNaks:  make(map[lineKey]*bucket),
		relayXIDs: make(map[relayKey]*session),
		out:       make([]byte, 0, 2048),
		batch:     d.vx.NewBatch(),
	}
}

// post runs fn on the shard's goroutine. Callers are never the shard itself.
func (sh *shard) post(fn func()) {
	select {
	case sh.work <- fn:
	case <-sh.d.ctx.Done():
	}
}

func (sh *shard) run(ctx context.Context) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	slow := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-sh.in:
			sh.frame(f)
			// Work off what else has arrived before the replies leave together.
		more:
			for i := 1; i < vxlan.BatchSize; i++ {
				select {
				case f = <-sh.in:
					sh.frame(f)
				default:
					break more
				}
			}
		case fn := <-sh.work:
			fn()
		case now := <-tick.C:
			sh.tick(now)
			if now.Sub(slow) >= time.Second {
				slow = now
				sh.slowTick(now)
			}
		}
		if sh.batch.Len() > 0 {
			sh.flushOut()
		}
	}
}

func (sh *shard) drop(reason, msg string, args ...any) {
	sh.d.m.drops.WithLabelValues(reason).Inc()
	sh.d.blog.Warn(reason, msg, args...)
}

func (sh *shard) frame(in inFrame) {
	d := sh.d
	if isIPv4Frame(in.data) {
		sh.ipoeFrame(in) // IPoE: DHCP (ipoe.go)
		return
	}
	if v6ctl.IsIPv6Frame(in.data) {
		sh.ipoe6Frame(in) // IPoE: RS and DHCPv6 (ipoe6.go)
		return
	}
	f, err := pppoe.DecodeFrame(in.data)
	if err != nil {
		sh.drop("malformed_frame", "malformed control frame", "instance", in.inst.Name, "err", err)
		return
	}
	line, port, ok := sh.frameLine(in, f.STag, f.CTag, f.Src)
	if !ok {
		return
	}
	lk := lineKey{port: port.Name, stag: f.STag, ctag: f.CTag, mac: f.Src}
	var ac [6]byte
	copy(ac[:], line.Group.ACMAC)
	now := time.Now()
	switch f.EtherType {
	case pppoe.EtherTypeDiscovery:
		switch f.Code {
		case pppoe.CodePADI:
			d.m.frames.WithLabelValues("padi").Inc()
			if f.Dst != [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff} && f.Dst != ac {
				sh.drop("dst_mac", "PADI to a foreign MAC", "instance", in.inst.Name)
				return
			}
			sh.padiIn(now, in.inst, line, lk, &f)
		case pppoe.CodePADR:
			d.m.frames.WithLabelValues("padr").Inc()
			if f.Dst != ac {
				sh.drop("dst_mac", "PADR not to the line group's AC MAC", "instance", in.inst.Name)
				return
			}
			sh.padrIn(now, in.inst, line, lk, &f)
		case pppoe.CodePADT:
			d.m.frames.WithLabelValues("padt").Inc()
			s := sh.sessions[sessKey{lk, f.SessionID}]
			if s == nil || f.Dst != ac {
				sh.drop("padt_unknown", "PADT for no session", "instance", in.inst.Name, "sid", f.SessionID)
				return
			}
			s.rec.CtrlPackets++
			if s.closeWait != waitNone {
				sh.closingPADT(s)
				return
			}
			sh.teardown(s, causeUserRequest, padtNone, "PADT from the subscriber")
		default:
			sh.drop("discovery_code", "PPPoE discovery code a client does not send", "code", f.Code)
		}
	case pppoe.EtherTypeSession:
		d.m.frames.WithLabelValues("session").Inc()
		if f.Code != pppoe.CodeSession {
			sh.drop("session_code", "PPPoE session frame with a non-zero code", "code", f.Code)
			return
		}
		s := sh.sessions[sessKey{lk, f.SessionID}]
		if s == nil || f.Dst != ac {
			sh.unknownSession(now, in.inst, line, lk, &f)
			return
		}
		sh.sessionIn(now, s, f.Payload)
	default:
		sh.drop("not_pppoe", "redirected frame is not PPPoE", "ethertype", f.EtherType)
	}
}

// sendPPP sends one PPP packet in the session.
func (sh *shard) sendPPP(s *session, proto uint16, data []byte) {
	f := &pppoe.Frame{
		Dst: s.key.line.mac, OuterTPID: s.line.AccessPort.TPID, STag: s.key.line.stag, CTag: s.key.line.ctag,
		EtherType: pppoe.EtherTypeSession, Code: pppoe.CodeSession, SessionID: s.key.sid,
	}
	copy(f.Src[:], s.group.ACMAC)
	payload := make([]byte, 2, 2+len(data))
	binary.BigEndian.PutUint16(payload, proto)
	f.Payload = append(payload, data...)
	sh.out = pppoe.AppendFrame(sh.out[:0], f)
	sh.emit(s.inst, sh.out)
	sh.d.m.sent.WithLabelValues("ppp").Inc()
	s.rec.CtrlPackets++
}

func (sh *shard) sessionIn(now time.Time, s *session, payload []byte) {
	proto, data, err := ppp.SplitProto(payload)
	if err != nil {
		sh.drop("malformed_ppp", "malformed PPP frame", "session", s.rec.ID, "err", err)
		return
	}
	if proto == ppp.ProtoIPv6 && s.rec.hasIPv6() {
		s.rec.CtrlPackets++
		sh.ipv6In(s, data) // RS, NS, DHCPv6 (the DP redirects only those)
		return
	}
	if proto == ppp.ProtoIPv4 || (proto == ppp.ProtoIPv6 && s.rec.IPv6Prefix.IsValid()) {
		// Data of a session the DP has not installed yet (or again): not ours.
		sh.d.m.drops.WithLabelValues("data_frame").Inc()
		return
	}
	s.rec.CtrlPackets++ // a control frame of the session (LCP, authentication, NCPs)
	if s.state == stTerminating {
		sh.closingIn(s, proto, data)
		return
	}
	if s.restored != nil {
		sh.restoredIn(s, proto, data)
		return
	}
	if proto == ppp.ProtoLCP {
		s.lcpSeen = true
	}
	s.link.Input(now, proto, data)
	sh.flush(now, s)
}

// restoredIn handles a PPP frame of a session restored from the store after
// a CP restart (ppp.Restored says what it takes).
func (sh *shard) restoredIn(s *session, proto uint16, data []byte) {
	reply, down, err := s.restored.Input(proto, data)
	switch {
	case errors.Is(err, ppp.ErrMalformed):
		sh.drop("malformed_ppp", "short PPP control packet", "session", s.rec.ID)
		return
	case err != nil:
		sh.d.m.drops.WithLabelValues("restored_ppp").Inc()
		return
	}
	if reply != nil {
		sh.sendPPP(s, reply.Proto, reply.Data)
	}
	if down != nil {
		sh.teardown(s, downCause(down.Reason), padtFor(*down), down.Detail)
	}
}

// flush sends what the session's PPP engine produced and acts on its events.
func (sh *shard) flush(now time.Time, s *session) {
	pkts, evs := s.link.Drain()
	// Our Configure-Ack that opens IPCP is what lets the subscriber send: held
	// until the DP has the session (established), so its first datagrams are
	// not dropped by a DP that does not know it yet. A later answer (the
	// subscriber asked again meanwhile) replaces a held one.
	hold := s.state == stNegotiating && opensIPCP(evs)
	for _, p := range pkts {
		if p.Proto == ppp.ProtoIPCP && len(p.Data) > 0 && p.Data[0] == ppp.CodeConfAck {
			if hold {
				s.heldAck = append(s.heldAck[:0], p.Data...)
				continue
			}
			s.heldAck = nil
		}
		sh.sendPPP(s, p.Proto, p.Data)
	}
	for _, ev := range evs {
		if s.dead {
			break
		}
		switch e := ev.(type) {
		case ppp.EvAuth:
			sh.authorize(now, s, e)
		case ppp.EvUp:
			sh.establish(now, s, e)
		case ppp.EvUp6:
			sh.ipv6Up(now, s, e)
		case ppp.EvNCPDown:
			sh.ncpDown(now, s, e)
		case ppp.EvDown:
			sh.teardown(s, downCause(e.Reason), padtFor(e), e.Detail)
		}
	}
	if s.dead || s.link == nil {
		delete(sh.timed, s)
		return
	}
	if s.link.NextDeadline().IsZero() && (s.v6WaitUntil.IsZero() || s.state != stNegotiating) {
		delete(sh.timed, s)
	} else {
		sh.timed[s] = struct{}{}
	}
}

// opensIPCP says whether IPCP opened among these events.
func opensIPCP(evs []ppp.Event) bool {
	for _, ev := range evs {
		if _, ok := ev.(ppp.EvUp); ok {
			return true
		}
	}
	return false
}

// padtFor says how the PPPoE session of a link that went down ends: after
// the subscriber's own PADT when it terminated LCP (and we acked), at once
// otherwise (the link is dead, or LCP's own Terminate exchange is over).
func padtFor(e ppp.EvDown) padtMode {
	if e.Acked {
		return padtAfterPeer
	}
	return padtSend
}

func downCause(r ppp.DownReason) int {
	switch r {
	case ppp.DownPeerTerminate:
		return causeUserRequest
	case ppp.DownEchoTimeout:
		return causeLostCarrier
	case ppp.DownAuthFailed, ppp.DownAuthTimeout:
		return causeUserError
	case ppp.DownAdmin:
		return causeAdminReset
	default: // LCP or IPCP negotiation failed
		return causeUserError
	}
}

func (sh *shard) tick(now time.Time) {
	sh.closing.expire(now, sh.closeTimeout)
	for s := range sh.timed {
		if s.dead || s.link == nil {
			delete(sh.timed, s)
			continue
		}
		if !s.v6WaitUntil.IsZero() && !now.Before(s.v6WaitUntil) && s.state == stNegotiating {
			// IPv6CP did not open in time: IPv4 now, IPv6 by a modification later.
			sh.establish(now, s, ppp.EvUp{Peer: s.rec.IPv4})
		}
		if dl := s.link.NextDeadline(); !dl.IsZero() && !now.Before(dl) {
			s.link.Tick(now)
			sh.flush(now, s)
		}
	}
}

// slowTick enforces RADIUS Session-Timeout.
func (sh *shard) slowTick(now time.Time) {
	for _, s := range sh.sessions {
		if s.state == stEstablished && s.rec.SessionTimeout > 0 &&
			now.Sub(s.rec.Started) >= time.Duration(s.rec.SessionTimeout)*time.Second {
			sh.teardown(s, causeSessionTimout, padtSend, "RADIUS Session-Timeout reached")
		}
	}
	sh.ipoeExpire(now)
}

// frameLine checks what every control frame redirected by a DP must be
// (QinQ, from a unicast MAC, on a line the instance serves) and gives the
// line; a frame that is not is dropped, counted and logged here.
func (sh *shard) frameLine(in inFrame, stag, ctag uint16, src [6]byte) (*config.Line, *config.AccessPort, bool) {
	if ctag == 0 {
		sh.drop("no_ctag", "control frame without C-tag (bngpod lines are QinQ)", "instance", in.inst.Name, "stag", stag)
		return nil, nil, false
	}
	if src[0]&1 != 0 || src == ([6]byte{}) {
		sh.drop("bad_src_mac", "control frame from a multicast or zero MAC", "instance", in.inst.Name)
		return nil, nil, false
	}
	line, port, ok := sh.d.lineFor(in.inst, stag, ctag)
	if !ok {
		sh.drop("foreign_line", "control frame for a line the instance does not serve",
			"instance", in.inst.Name, "stag", stag, "ctag", ctag)
	}
	return line, port, ok
}
