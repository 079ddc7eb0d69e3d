package core

import (
	"bytes"
	"encoding/binary"
	mrand "math/rand/v2"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/onos"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/ppp"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/pppoe"
)

// PPPoE discovery (RFC 2516 5, RFC 4638) on a shard: PADI admission and
// PADO, PADR with the AC-Cookie and PADS, the PADTs the AC sends, and the
// answer to frames of sessions it does not know.

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
	if ok, why := sh.d.provisioned(lk); !ok {
		sh.drop(why, "PADI from a line SEBA does not provision (strict admission)", "instance", inst.Name,
			"port", lk.port, "stag", lk.stag, "ctag", lk.ctag)
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
	sh.d.sebaEvent(onos.EventSessionInit, lk, 0)
}

func (sh *shard) padrIn(now time.Time, inst *config.Instance, line *config.Line, lk lineKey, f *pppoe.Frame) {
	d := sh.d
	if f.SessionID != 0 {
		sh.drop("padr_sid", "PADR with a session id", "instance", inst.Name)
		return
	}
	// Strict admission again: the subscriber may have left SADIS since its PADO.
	if ok, why := d.provisioned(lk); !ok {
		sh.drop(why, "PADR from a line SEBA does not provision (strict admission)", "instance", inst.Name,
			"port", lk.port, "stag", lk.stag, "ctag", lk.ctag)
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
		sh.sendPADSError(inst, line, lk, &tags, pppoe.TagServiceNameError, "service not offered")
		return
	}
	if old := sh.byLine[lk]; old != nil {
		if old.state == stNegotiating && !old.lcpSeen && bytes.Equal(old.hostUniq, tags.HostUniq) {
			// The PADS was lost: the same PADR again. Answer with the same session.
			old.rec.CtrlPackets++
			sh.sendPADS(old, tags.ServiceName)
			return
		}
		// The CPE dials again while the CP still holds its session: it
		// rebooted. The old session is stale; end it before the new one.
		sh.teardown(old, causeLostCarrier, padtNone, "replaced by a new PADR from the same CPE")
	}
	sid, ok := d.sids.alloc(lk.port, lk.stag)
	if !ok {
		sh.sendPADSError(inst, line, lk, &tags, pppoe.TagACSystemError, "no free session id")
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
		Interim: int64(d.opt.Interim / time.Second), CtrlPackets: 1, // its PADR
	}
	if tags.AccessLine != nil {
		s.rec.CircuitID, s.rec.RemoteID = tags.AccessLine.CircuitID, tags.AccessLine.RemoteID
	}
	d.applySubscriber(&s.rec)
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
		Restart: d.opt.Restart, RestartFirst: d.opt.RestartFirst,
		// A switch may deliver our first session frame ahead of the PADS, and
		// a CPE drops it: LCP speaks once the client has (so it has the
		// PADS), or after the start delay (closing.go has the other end).
		StartDelay: d.opt.LCPStartDelay,
	})
	sh.sessions[s.key] = s
	sh.byLine[lk] = s
	d.m.sessions.WithLabelValues(stNegotiating.String()).Inc()
	sh.sendPADS(s, tags.ServiceName)
	s.link.Start(now)
	sh.flush(now, s)
}

// sendPADSError refuses a PADR: a PADS with session id 0 and the error tag
// (RFC 2516 5.4), the client's Host-Uniq echoed.
func (sh *shard) sendPADSError(inst *config.Instance, line *config.Line, lk lineKey, tags *pppoe.Tags, tag uint16, msg string) {
	rep := sh.discoveryReply(line, lk, pppoe.CodePADS, 0)
	p := pppoe.AppendTag(nil, tag, []byte(msg))
	if tags.HasHostUniq {
		p = pppoe.AppendTag(p, pppoe.TagHostUniq, tags.HostUniq)
	}
	rep.Payload = p
	sh.sendDiscovery(inst, rep, "pads_error")
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
	s.rec.CtrlPackets++
}

func (sh *shard) sendPADT(inst *config.Instance, line *config.Line, lk lineKey, sid uint16, msg string) {
	rep := sh.discoveryReply(line, lk, pppoe.CodePADT, sid)
	if msg != "" {
		rep.Payload = pppoe.AppendTag(nil, pppoe.TagGenericError, []byte(msg))
	}
	sh.sendDiscovery(inst, rep, "padt")
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
