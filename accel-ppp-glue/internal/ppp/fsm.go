package ppp

import (
	"bytes"
	"time"
)

// cpState is a state of the RFC 1661 option-negotiation automaton.
type cpState uint8

const (
	stInitial cpState = iota
	stStarting
	stClosed
	stStopped
	stClosing
	stStopping
	stReqSent
	stAckRcvd
	stAckSent
	stOpened
)

var stateNames = [...]string{"Initial", "Starting", "Closed", "Stopped", "Closing", "Stopping",
	"Req-Sent", "Ack-Rcvd", "Ack-Sent", "Opened"}

func (s cpState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "?"
}

// cpLayer is what a control protocol (LCP, IPCP) adds to the automaton.
type cpLayer interface {
	// appendOptions appends the options of our Configure-Request.
	appendOptions(dst []byte) []byte
	// checkRequest judges the peer's Configure-Request options and appends
	// the reply options to dst: the code is CodeConfAck (dst gets opts),
	// CodeConfNak or CodeConfRej. With rejectOnly (Max-Failure reached) it
	// rejects what it would otherwise Nak. ok false: malformed, discard.
	checkRequest(opts, dst []byte, rejectOnly bool) (code uint8, reply []byte, ok bool)
	// acked: the peer's Configure-Request was acknowledged with these options.
	acked(opts []byte)
	// gotNak and gotRej adjust our next request; false: malformed, discard.
	gotNak(opts []byte) bool
	gotRej(opts []byte) bool
	up()       // this-layer-up
	down()     // this-layer-down
	finished() // this-layer-finished
}

// cp is one instance of the automaton (RFC 1661 section 4.1 state table).
type cp struct {
	l        *Link
	proto    uint16
	layer    cpLayer
	state    cpState
	counter  int       // restart counter
	deadline time.Time // restart timer; zero when stopped
	naksSent int       // Configure-Naks sent since the last Ack (Max-Failure)
	naksRcvd int       // Naks/Rejects of our requests since the last Ack
	nextID   uint8
	reqID    uint8
	reqSent  bool   // reqID/req are valid
	req      []byte // options of our outstanding Configure-Request
}

func (c *cp) init(l *Link, proto uint16, layer cpLayer) {
	c.l, c.proto, c.layer = l, proto, layer
	c.state = stInitial
}

// setState moves to s and stops the restart timer in the states that have none.
func (c *cp) setState(s cpState) {
	c.state = s
	switch s {
	case stClosing, stStopping, stReqSent, stAckRcvd, stAckSent:
	default:
		c.deadline = time.Time{}
	}
}

func (c *cp) ircConf() { c.counter = c.l.cfg.MaxConfigure }
func (c *cp) ircTerm() { c.counter = c.l.cfg.MaxTerminate }

// zrc: zero the restart counter and start the timer.
func (c *cp) zrc() {
	c.counter = 0
	c.deadline = c.l.now.Add(c.l.cfg.Restart)
}

// scr: send a Configure-Request.
func (c *cp) scr() {
	c.nextID++
	c.reqID = c.nextID
	l := c.l
	start := l.begin(CodeConfReq, c.reqID)
	l.out = c.layer.appendOptions(l.out)
	c.req = append(c.req[:0], l.out[start+4:]...)
	c.reqSent = true
	l.finish(c.proto, start, false)
	c.counter--
	c.deadline = l.now.Add(c.confRestart())
}

// confRestart is the restart timer after a Configure-Request: RestartFirst
// after the first since the counter was initialized, doubled per request
// sent since, up to Restart.
func (c *cp) confRestart() time.Duration {
	cfg := &c.l.cfg
	iv := cfg.Restart
	if cfg.RestartFirst <= 0 || cfg.RestartFirst >= iv {
		return iv
	}
	iv = cfg.RestartFirst
	for sent := cfg.MaxConfigure - c.counter; sent > 1 && iv < cfg.Restart; sent-- {
		iv *= 2
	}
	return min(iv, cfg.Restart)
}

// str: send a Terminate-Request.
func (c *cp) str() {
	c.nextID++
	c.l.finish(c.proto, c.l.begin(CodeTermReq, c.nextID), false)
	c.counter--
	c.deadline = c.l.now.Add(c.l.cfg.Restart)
}

// sta: send a Terminate-Ack.
func (c *cp) sta(id uint8) {
	c.l.finish(c.proto, c.l.begin(CodeTermAck, id), false)
}

// scj: send a Code-Reject carrying the rejected packet (cut to fit).
func (c *cp) scj(pkt []byte) {
	l := c.l
	l.counters.CodeRejectsSent++
	c.nextID++
	start := l.begin(CodeCodeRej, c.nextID)
	l.out = append(l.out, pkt...)
	l.finish(c.proto, start, true)
}

// open: Up and Open together (the lower layer is up): irc, scr -> Req-Sent.
func (c *cp) open() {
	c.naksSent, c.naksRcvd = 0, 0
	c.ircConf()
	c.scr()
	c.setState(stReqSent)
}

// close is the administrative Close event.
func (c *cp) close() {
	switch c.state {
	case stInitial, stStarting, stClosed, stStopped:
		c.setState(stClosed)
	case stClosing, stStopping:
		c.setState(stClosing)
	case stReqSent, stAckRcvd, stAckSent:
		c.ircTerm()
		c.str()
		c.setState(stClosing)
	case stOpened:
		c.layer.down()
		c.ircTerm()
		c.str()
		c.setState(stClosing)
	}
}

// reset drops the automaton back to Initial without sending anything (the
// lower layer went down).
func (c *cp) reset() {
	if c.state == stOpened {
		c.layer.down()
	}
	c.setState(stInitial)
}

// timeout handles the restart timer's expiry (TO+ or TO-).
func (c *cp) timeout() {
	c.deadline = time.Time{}
	if c.counter > 0 {
		switch c.state {
		case stClosing, stStopping:
			c.str()
		case stReqSent, stAckRcvd:
			c.scr()
			c.setState(stReqSent)
		case stAckSent:
			c.scr()
		}
		return
	}
	switch c.state {
	case stClosing:
		c.setState(stClosed)
		c.layer.finished()
	case stStopping, stReqSent, stAckRcvd, stAckSent:
		c.setState(stStopped)
		c.layer.finished()
	}
}

// input handles one control packet of this protocol, already checked to be
// at least 4 bytes with a valid Length and trimmed to it. It reports false
// for codes it does not know (the caller decides: LCP knows more codes).
func (c *cp) input(pkt []byte) bool {
	code, id, data := pkt[0], pkt[1], pkt[4:]
	switch code {
	case CodeConfReq:
		c.rcr(id, data)
	case CodeConfAck:
		if !c.reqSent || id != c.reqID || !bytes.Equal(data, c.req) {
			c.l.counters.Discarded++
			return true
		}
		c.rca()
	case CodeConfNak, CodeConfRej:
		if !c.reqSent || id != c.reqID {
			c.l.counters.Discarded++
			return true
		}
		c.rcn(code, data)
	case CodeTermReq:
		c.rtr(id)
	case CodeTermAck:
		c.rta()
	case CodeCodeRej:
		// Our codes 1-7 are all needed by the automaton: RXJ-.
		if len(data) >= 1 && data[0] >= CodeConfReq && data[0] <= CodeCodeRej {
			c.rxj(false)
		} else {
			c.rxj(true)
		}
	default:
		return false
	}
	return true
}

func (c *cp) rcr(id uint8, opts []byte) {
	l := c.l
	switch c.state {
	case stClosed:
		c.sta(id)
		return
	case stInitial, stStarting, stClosing, stStopping:
		l.counters.Discarded++
		return
	}
	code, reply, ok := c.layer.checkRequest(opts, l.scratch[:0], c.naksSent >= l.cfg.MaxFailure)
	l.scratch = reply
	if !ok {
		l.counters.Malformed++
		return
	}
	good := code == CodeConfAck
	switch code {
	case CodeConfAck:
		c.naksSent = 0
		c.layer.acked(opts)
	case CodeConfNak:
		c.naksSent++
		l.counters.NaksSent++
	default:
		l.counters.RejectsSent++
	}
	switch c.state {
	case stStopped:
		c.ircConf()
		c.scr()
		l.sendCP(c.proto, code, id, reply)
		c.setState(pick(good, stAckSent, stReqSent))
	case stReqSent, stAckSent:
		l.sendCP(c.proto, code, id, reply)
		c.setState(pick(good, stAckSent, stReqSent))
	case stAckRcvd:
		l.sendCP(c.proto, code, id, reply)
		if good {
			c.setState(stOpened)
			c.layer.up()
		}
	case stOpened:
		c.layer.down()
		c.scr()
		l.sendCP(c.proto, code, id, reply)
		c.setState(pick(good, stAckSent, stReqSent))
	}
}

func pick(good bool, a, b cpState) cpState {
	if good {
		return a
	}
	return b
}

func (c *cp) rca() {
	switch c.state {
	case stClosed, stStopped:
		c.sta(c.reqID)
	case stReqSent:
		c.naksRcvd = 0
		c.ircConf()
		c.setState(stAckRcvd)
	case stAckRcvd:
		c.scr()
		c.setState(stReqSent)
	case stAckSent:
		c.naksRcvd = 0
		c.ircConf()
		c.setState(stOpened)
		c.layer.up()
	case stOpened:
		c.layer.down()
		c.scr()
		c.setState(stReqSent)
	default:
		c.l.counters.Discarded++
	}
}

func (c *cp) rcn(code uint8, opts []byte) {
	switch c.state {
	case stClosed, stStopped:
		c.sta(c.reqID)
		return
	case stReqSent, stAckRcvd, stAckSent, stOpened:
	default:
		c.l.counters.Discarded++
		return
	}
	var ok bool
	if code == CodeConfNak {
		ok = c.layer.gotNak(opts)
	} else {
		ok = c.layer.gotRej(opts)
	}
	if !ok {
		c.l.counters.Malformed++
		return
	}
	// A peer that never agrees would keep us busy for ever: after
	// Max-Failure Naks/Rejects of our requests the layer fails.
	c.naksRcvd++
	if c.naksRcvd > c.l.cfg.MaxFailure {
		if c.state == stOpened {
			c.layer.down()
		}
		c.setState(stStopped)
		c.layer.finished()
		return
	}
	switch c.state {
	case stReqSent:
		c.ircConf()
		c.scr()
	case stAckRcvd:
		c.scr()
		c.setState(stReqSent)
	case stAckSent:
		c.ircConf()
		c.scr()
	case stOpened:
		c.layer.down()
		c.scr()
		c.setState(stReqSent)
	}
}

func (c *cp) rtr(id uint8) {
	switch c.state {
	case stInitial, stStarting:
		c.l.counters.Discarded++
	case stClosed, stStopped, stClosing, stStopping:
		c.sta(id)
	case stReqSent, stAckRcvd, stAckSent:
		c.sta(id)
		c.setState(stReqSent)
	case stOpened:
		c.layer.down()
		c.zrc()
		c.sta(id)
		c.setState(stStopping)
	}
}

func (c *cp) rta() {
	switch c.state {
	case stClosing:
		c.setState(stClosed)
		c.layer.finished()
	case stStopping:
		c.setState(stStopped)
		c.layer.finished()
	case stAckRcvd:
		c.setState(stReqSent)
	case stOpened:
		c.layer.down()
		c.scr()
		c.setState(stReqSent)
	default:
		c.l.counters.Discarded++
	}
}

// rxj: RXJ+ (ok) or RXJ- (a Code- or Protocol-Reject of something we need).
func (c *cp) rxj(ok bool) {
	if ok {
		if c.state == stAckRcvd {
			c.setState(stReqSent)
		}
		return
	}
	switch c.state {
	case stClosed, stClosing:
		c.setState(stClosed)
		c.layer.finished()
	case stStopped, stStopping, stReqSent, stAckRcvd, stAckSent:
		c.setState(stStopped)
		c.layer.finished()
	case stOpened:
		c.layer.down()
		c.ircTerm()
		c.str()
		c.setState(stStopping)
	}
}
