package ppp

import (
	"encoding/binary"
	"errors"
)

// Restored is the PPP side of a session taken up again from the session
// store after a CP restart. Its negotiation state is gone with the old
// process, but LCP and IPCP are open at both ends and the DP answers the
// keepalive echoes meanwhile, so there is nothing to negotiate: what can
// still come from the subscriber is a Terminate-Request, an echo the DP did
// not answer, or a new Configure-Request (the CPE restarted PPP), which ends
// the session as it would a Link past authentication (see the package doc).
type Restored struct {
	magic uint32 // our Magic-Number as negotiated: 0 when the peer did not acknowledge one
}

// NewRestored returns the PPP side of a restored session whose negotiated
// Magic-Number of ours (0: none) was magic.
func NewRestored(magic uint32) *Restored { return &Restored{magic: magic} }

// Errors of Restored.Input: the frame was dropped.
var (
	ErrMalformed   = errors.New("ppp: control packet shorter than its header")
	ErrNotExpected = errors.New("ppp: frame a restored session does not take")
)

// Input judges one PPP frame of the session (hostile), proto and data as
// SplitProto returns them. reply, when not nil, goes to the peer (an
// Echo-Reply, a Terminate-Ack); down, when not nil, ends the session (after
// the reply). err says why a frame was dropped.
func (r *Restored) Input(proto uint16, data []byte) (reply *Packet, down *EvDown, err error) {
	if len(data) < 4 {
		return nil, nil, ErrMalformed
	}
	code, id := data[0], data[1]
	switch {
	case proto == ProtoLCP && code == CodeTermReq:
		return &Packet{Proto: ProtoLCP, Data: []byte{CodeTermAck, id, 0, 4}},
			&EvDown{Reason: DownPeerTerminate, Detail: "LCP Terminate-Request from the subscriber", Acked: true}, nil
	case proto == ProtoLCP && code == CodeEchoReq:
		rep := []byte{CodeEchoRep, id, 0, 8, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(rep[4:], r.magic)
		return &Packet{Proto: ProtoLCP, Data: rep}, nil, nil
	case proto == ProtoLCP && (code == CodeEchoRep || code == CodeDiscardReq):
		return nil, nil, nil
	case (proto == ProtoLCP || proto == ProtoIPCP) && code == CodeConfReq:
		return nil, &EvDown{Reason: DownLCPFailed, Detail: "the subscriber renegotiated a restored session"}, nil
	}
	return nil, nil, ErrNotExpected
}
