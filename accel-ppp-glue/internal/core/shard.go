package core

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	mrand "math/rand/v2"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
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

	sessions map[sessKey]*session
	byLine   map[lineKey]*session
	timed    map[*session]struct{}
	padi     map[lineKey]*bucket
	padiLine map[lineKey]*bucket // per line (MAC zero): a flood of forged MACs on one line
	padt     map[lineKey]*bucket // PADTs for unknown sessions, per line and MAC

	out   []byte    // scratch for an outgoing frame
	batch *outBatch // outgoing datagrams, sent together
}

func newShard(d *Daemon, id int) *shard {
	return &shard{
		d: d, id: id,
		in:       make(chan inFrame, 8192),
		work:     make(chan func(), 65536),
		sessions: make(map[sessKey]*session),
		byLine:   make(map[lineKey]*session),
		timed:    make(map[*session]struct{}),
		padi:     make(map[lineKey]*bucket),
		padiLine: make(map[lineKey]*bucket),
		padt:     make(map[lineKey]*bucket),
		out:      make([]byte, 0, 2048),
		batch:    newOutBatch(),
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
			for i := 1; i < batchSize; i++ {
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
		if sh.batch.n > 0 {
			sh.flushOut()
		}
	}
}

// bucket is a token bucket for frame admission.
type bucket struct {
	tokens float64
	last   time.Time
}

func (b *bucket) take(now time.Time, rate, burst float64) bool {
	if b.last.IsZero() {
		b.tokens = burst
	} else {
		b.tokens += now.Sub(b.last).Seconds() * rate
		if b.tokens > burst {
			b.tokens = burst
		}
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// admit takes a token from the bucket of key in m (rate per second, burst),
// creating it; a map grown past 64K keys (forged MACs) starts over.
func admit(m *map[lineKey]*bucket, key lineKey, now time.Time, rate, burst float64) bool {
	b := (*m)[key]
	if b == nil {
		if len(*m) > 1<<16 {
			*m = make(map[lineKey]*bucket)
		}
		b = &bucket{}
		(*m)[key] = b
	}
	return b.take(now, rate, burst)
}

func (sh *shard) drop(reason, msg string, args ...any) {
	sh.d.m.drops.WithLabelValues(reason).Inc()
	sh.d.blog.Warn(reason, msg, args...)
}

func (sh *shard) frame(in inFrame) {
	d := sh.d
	f, err := pppoe.DecodeFrame(in.data)
	if err != nil {
		sh.drop("malformed_frame", "malformed control frame", "instance", in.inst.Name, "err", err)
		return
	}
	if f.CTag == 0 {
		sh.drop("no_ctag", "control frame without C-tag (bngpod lines are QinQ)", "instance", in.inst.Name, "stag", f.STag)
		return
	}
	if f.Src[0]&1 != 0 || f.Src == ([6]byte{}) {
		sh.drop("bad_src_mac", "control frame from a multicast or zero MAC", "instance", in.inst.Name)
		return
	}
	line, port, ok := d.lineFor(in.inst, f.STag, f.CTag)
	if !ok {
		sh.drop("foreign_line", "control frame for a line the instance does not serve",
			"instance", in.inst.Name, "stag", f.STag, "ctag", f.CTag)
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
			sh.teardown(s, causeUserRequest, false, "PADT from the subscriber")
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

// acceptService reports whether a requested Service-Name is offered.
func (sh *shard) acceptService(name []byte) bool {
	if len(name) == 0 || len(sh.d.opt.ServiceNames) == 0 {
		return true
	}
	for _, s := range sh.d.opt.ServiceNames {
		if s == string(name) {
			return true
		}
	}
	return false
}

// discoveryReply starts a discovery reply to the client of lk.
func (sh *shard) discoveryReply(line *config.Line, lk lineKey, code uint8, sid uint16) *pppoe.Frame {
	f := &pppoe.Frame{
		Dst: lk.mac, OuterTPID: line.AccessPort.TPID, STag: lk.stag, CTag: lk.ctag,
		EtherType: pppoe.EtherTypeDiscovery, Code: code, SessionID: sid,
	}
	copy(f.Src[:], line.Group.ACMAC)
	return f
}

func (sh *shard) sendDiscovery(inst *config.Instance, f *pppoe.Frame, kind string) {
	sh.out = pppoe.AppendFrame(sh.out[:0], f)
	sh.emit(inst, sh.out)
	sh.d.m.sent.WithLabelValues(kind).Inc()
}

// grantedPayload is the PPP-Max-Payload the AC answers with (RFC 4638), 0 for
// none: only when the client asked for more than 1492.
func (sh *shard) grantedPayload(asked uint16) uint16 {
	if asked <= 1492 {
		return 0
	}
	if asked > sh.d.opt.MaxPayload {
		asked = sh.d.opt.MaxPayload
	}
	if asked <= 1492 {
		return 0
	}
	return asked
}

// PADI admission per line and shard: a line (S-tag, C-tag) normally carries
// one CPE, a few with N:1 VLANs; a burst of PADIs from many source MACs on
// one line is a broken or hostile device and must not starve other lines.
const (
	padiLineRate  = 25.0
	padiLineBurst = 50.0
)

func (sh *shard) padiIn(now time.Time, inst *config.Instance, line *config.Line, lk lineKey, f *pppoe.Frame) {
	if f.SessionID != 0 {
		sh.drop("padi_sid", "PADI with a session id", "instance", inst.Name)
		return
	}
	lineOnly := lk
	lineOnly.mac = [6]byte{}
	if !admit(&sh.padiLine, lineOnly, now, padiLineRate, padiLineBurst) {
		sh.d.m.drops.WithLabelValues("padi_line_rate").Inc()
		sh.d.blog.Warn("padi_line_rate", "PADI rate limit of a line: flood from many MACs", "instance", inst.Name,
			"port", lk.port, "stag", lk.stag, "ctag", lk.ctag)
		return
	}
	if !admit(&sh.padi, lk, now, sh.d.opt.PADIRate, sh.d.opt.PADIBurst) {
		sh.d.m.drops.WithLabelValues("padi_rate").Inc()
		sh.d.blog.Warn("padi_rate", "PADI rate limit: client dialling too fast", "instance", inst.Name,
			"mac", macString(lk.mac), "stag", lk.stag, "ctag", lk.ctag)
		return
	}
	tags, err := pppoe.ParseTags(f.Payload)
	if err != nil {
		sh.drop("bad_tags", "PADI with malformed tags", "instance", inst.Name, "err", err)
		return
	}
	if !tags.HasServiceName {
		sh.drop("no_service_name", "PADI without Service-Name tag", "instance", inst.Name)
		return
	}
	if !sh.acceptService(tags.ServiceName) {
		sh.d.m.drops.WithLabelValues("service_name").Inc()
		return // RFC 2516 5.2: an AC that cannot serve the request does not answer
	}
	rep := sh.discoveryReply(line, lk, pppoe.CodePADO, 0)
	var p []byte
	p = pppoe.AppendTag(p, pppoe.TagACName, []byte(sh.d.opt.ACName))
	p = pppoe.AppendTag(p, pppoe.TagServiceName, tags.ServiceName)
	p = pppoe.AppendTag(p, pppoe.TagACCookie, sh.d.cookies.Make(lk.mac, lk.stag, lk.ctag, now))
	if tags.HasHostUniq {
		p = pppoe.AppendTag(p, pppoe.TagHostUniq, tags.HostUniq)
	}
	if tags.HasRelaySessionID {
		p = pppoe.AppendTag(p, pppoe.TagRelaySessionID, tags.RelaySessionID)
	}
	if mp := sh.grantedPayload(tags.MaxPayload); mp != 0 {
		p = pppoe.AppendTag(p, pppoe.TagPPPMaxPayload, binary.BigEndian.AppendUint16(nil, mp))
	}
	rep.Payload = p
	sh.sendDiscovery(inst, rep, "pado")
}

func (sh *shard) padrIn(now time.Time, inst *config.Instance, line *config.Line, lk lineKey, f *pppoe.Frame) {
	d := sh.d
	if f.SessionID != 0 {
		sh.drop("padr_sid", "PADR with a session id", "instance", inst.Name)
		return
	}
	tags, err := pppoe.ParseTags(f.Payload)
	if err != nil {
		sh.drop("bad_tags", "PADR with malformed tags", "instance", inst.Name, "err", err)
		return
	}
	if !d.cookies.Check(tags.ACCookie, lk.mac, lk.stag, lk.ctag, now) {
		sh.drop("bad_cookie", "PADR without a valid AC-Cookie (no PADO seen, or expired)",
			"instance", inst.Name, "mac", macString(lk.mac))
		return
	}
	if !tags.HasServiceName || !sh.acceptService(tags.ServiceName) {
		rep := sh.discoveryReply(line, lk, pppoe.CodePADS, 0)
		var p []byte
		p = pppoe.AppendTag(p, pppoe.TagServiceNameError, []byte("service not offered"))
		if tags.HasHostUniq {
			p = pppoe.AppendTag(p, pppoe.TagHostUniq, tags.HostUniq)
		}
		rep.Payload = p
		sh.sendDiscovery(inst, rep, "pads_error")
		return
	}
	if old := sh.byLine[lk]; old != nil {
		if old.state == stNegotiating && !old.lcpSeen && bytes.Equal(old.hostUniq, tags.HostUniq) {
			// The PADS was lost: the same PADR again. Answer with the same session.
			sh.sendPADS(old, tags.ServiceName)
			return
		}
		// The CPE dials again while the CP still holds its session: it
		// rebooted. The old session is stale; end it before the new one.
		sh.teardown(old, causeLostCarrier, false, "replaced by a new PADR from the same CPE")
	}
	sid, ok := d.sids.alloc(lk.port, lk.stag)
	if !ok {
		rep := sh.discoveryReply(line, lk, pppoe.CodePADS, 0)
		var p []byte
		p = pppoe.AppendTag(p, pppoe.TagACSystemError, []byte("no free session id"))
		if tags.HasHostUniq {
			p = pppoe.AppendTag(p, pppoe.TagHostUniq, tags.HostUniq)
		}
		rep.Payload = p
		sh.sendDiscovery(inst, rep, "pads_error")
		sh.drop("no_session_id", "no free PPPoE session id", "port", lk.port, "stag", lk.stag)
		return
	}
	s := &session{
		sh: sh, key: sessKey{lk, sid}, state: stNegotiating,
		inst: inst, line: line, group: line.Group,
		hostUniq: append([]byte(nil), tags.HostUniq...), padrAt: now,
	}
	if tags.HasRelaySessionID {
		s.relayID, s.hasRelay = append([]byte(nil), tags.RelaySessionID...), true
	}
	s.maxPayload = sh.grantedPayload(tags.MaxPayload)
	seid, id := d.newSEID()
	s.rec = record{
		ID: id, CPSEID: seid, Instance: inst.ID, AccessPort: lk.port, STag: lk.stag, CTag: lk.ctag,
		MAC: lk.mac, PPPoESID: sid, LineGroup: line.Group.Name, QosProfile: line.Group.QosProfile.Name,
		Interim: int64(d.opt.Interim / time.Second),
	}
	if tags.AccessLine != nil {
		s.rec.CircuitID, s.rec.RemoteID = tags.AccessLine.CircuitID, tags.AccessLine.RemoteID
	}
	mru := uint16(1492)
	if s.maxPayload != 0 {
		mru = s.maxPayload
	}
	magic := mrand.Uint32()
	for magic == 0 {
		magic = mrand.Uint32()
	}
	s.link = ppp.NewLink(ppp.LinkConfig{
		MaxMRU: mru, Auth: d.opt.Auth, Magic: magic, // echoes: decided once installed (established)
	})
	sh.sessions[s.key] = s
	sh.byLine[lk] = s
	d.m.sessions.WithLabelValues(stNegotiating.String()).Inc()
	sh.sendPADS(s, tags.ServiceName)
	s.link.Start(now)
	sh.flush(now, s)
}

func (sh *shard) sendPADS(s *session, service []byte) {
	rep := sh.discoveryReply(s.line, s.key.line, pppoe.CodePADS, s.key.sid)
	var p []byte
	p = pppoe.AppendTag(p, pppoe.TagServiceName, service)
	if s.hostUniq != nil {
		p = pppoe.AppendTag(p, pppoe.TagHostUniq, s.hostUniq)
	}
	if s.hasRelay {
		p = pppoe.AppendTag(p, pppoe.TagRelaySessionID, s.relayID)
	}
	if s.maxPayload != 0 {
		p = pppoe.AppendTag(p, pppoe.TagPPPMaxPayload, binary.BigEndian.AppendUint16(nil, s.maxPayload))
	}
	rep.Payload = p
	sh.sendDiscovery(s.inst, rep, "pads")
}

func (sh *shard) sendPADT(inst *config.Instance, line *config.Line, lk lineKey, sid uint16, msg string) {
	rep := sh.discoveryReply(line, lk, pppoe.CodePADT, sid)
	if msg != "" {
		rep.Payload = pppoe.AppendTag(nil, pppoe.TagGenericError, []byte(msg))
	}
	sh.sendDiscovery(inst, rep, "padt")
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
}

// unknownSession answers a session frame the CP does not know with a PADT
// (rate-limited per client), so a CPE that lost track of its session (or
// whose session the CP ended) dials again.
func (sh *shard) unknownSession(now time.Time, inst *config.Instance, line *config.Line, lk lineKey, f *pppoe.Frame) {
	sh.d.m.drops.WithLabelValues("unknown_session").Inc()
	if f.SessionID == 0 || f.SessionID == 0xffff {
		return
	}
	if !admit(&sh.padt, lk, now, 1, 3) {
		return
	}
	var ac [6]byte
	copy(ac[:], line.Group.ACMAC)
	if f.Dst != ac {
		return // not addressed to us: not ours to end
	}
	sh.sendPADT(inst, line, lk, f.SessionID, "unknown session")
}

func (sh *shard) sessionIn(now time.Time, s *session, payload []byte) {
	proto, data, err := ppp.SplitProto(payload)
	if err != nil {
		sh.drop("malformed_ppp", "malformed PPP frame", "session", s.rec.ID, "err", err)
		return
	}
	if proto == ppp.ProtoIPv4 || proto == ppp.ProtoIPv6 {
		// Data of a session the DP has not installed yet (or again): not ours.
		sh.d.m.drops.WithLabelValues("data_frame").Inc()
		return
	}
	if s.state == stTerminating {
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
		sh.teardown(s, downCause(down.Reason), true, down.Detail)
	}
}

// flush sends what the session's PPP engine produced and acts on its events.
func (sh *shard) flush(now time.Time, s *session) {
	pkts, evs := s.link.Drain()
	for _, p := range pkts {
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
		case ppp.EvDown:
			sh.teardown(s, downCause(e.Reason), true, e.Detail)
		}
	}
	if s.dead || s.link == nil {
		delete(sh.timed, s)
		return
	}
	if s.link.NextDeadline().IsZero() {
		delete(sh.timed, s)
	} else {
		sh.timed[s] = struct{}{}
	}
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
	for s := range sh.timed {
		if s.dead || s.link == nil {
			delete(sh.timed, s)
			continue
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
			sh.teardown(s, causeSessionTimout, true, "RADIUS Session-Timeout reached")
		}
	}
}
