package ppp

import (
	"bytes"
	"errors"
	"testing"
)

func TestRestored(t *testing.T) {
	r := NewRestored(0x01020304)
	for _, tc := range []struct {
		name  string
		proto uint16
		data  []byte
		reply []byte // LCP
		down  DownReason
		err   error
	}{
		{"terminate-request: acked, session over", ProtoLCP, []byte{CodeTermReq, 7, 0, 4}, []byte{CodeTermAck, 7, 0, 4}, DownPeerTerminate, nil},
		{"echo-request: our magic", ProtoLCP, []byte{CodeEchoReq, 9, 0, 8, 0xaa, 0xbb, 0xcc, 0xdd}, []byte{CodeEchoRep, 9, 0, 8, 1, 2, 3, 4}, 0, nil},
		{"echo-reply: nothing", ProtoLCP, []byte{CodeEchoRep, 1, 0, 8, 0, 0, 0, 0}, nil, 0, nil},
		{"discard-request: nothing", ProtoLCP, []byte{CodeDiscardReq, 1, 0, 8, 0, 0, 0, 0}, nil, 0, nil},
		{"LCP configure-request: renegotiation ends it", ProtoLCP, []byte{CodeConfReq, 1, 0, 4}, nil, DownLCPFailed, nil},
		{"IPCP configure-request: renegotiation ends it", ProtoIPCP, []byte{CodeConfReq, 1, 0, 10, 3, 6, 0, 0, 0, 0}, nil, DownLCPFailed, nil},
		{"short", ProtoLCP, []byte{CodeTermReq, 7, 0}, nil, 0, ErrMalformed},
		{"IPCP terminate-request: not taken", ProtoIPCP, []byte{CodeTermReq, 1, 0, 4}, nil, 0, ErrNotExpected},
		{"IPv6CP: not taken", ProtoIPv6CP, []byte{CodeConfReq, 1, 0, 4}, nil, 0, ErrNotExpected},
		{"PAP: not taken", ProtoPAP, []byte{PAPRequest, 1, 0, 6, 0, 0}, nil, 0, ErrNotExpected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply, down, err := r.Input(tc.proto, tc.data)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			switch {
			case tc.reply == nil && reply != nil:
				t.Fatalf("reply %x, want none", reply.Data)
			case tc.reply != nil && (reply == nil || reply.Proto != ProtoLCP || !bytes.Equal(reply.Data, tc.reply)):
				t.Fatalf("reply %+v, want LCP %x", reply, tc.reply)
			}
			switch {
			case tc.down == 0 && down != nil:
				t.Fatalf("down %+v, want none", down)
			case tc.down != 0 && (down == nil || down.Reason != tc.down):
				t.Fatalf("down %+v, want %v", down, tc.down)
			case down != nil && down.Acked != (tc.down == DownPeerTerminate):
				t.Fatalf("down %+v: Acked only for the Terminate-Request it answers", down)
			}
		})
	}
	// A peer that did not acknowledge our Magic-Number gets zero in the reply.
	reply, _, _ := NewRestored(0).Input(ProtoLCP, []byte{CodeEchoReq, 2, 0, 8, 5, 5, 5, 5})
	if !bytes.Equal(reply.Data, []byte{CodeEchoRep, 2, 0, 8, 0, 0, 0, 0}) {
		t.Fatalf("reply %x", reply.Data)
	}
}
