package dhcp4

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to DecodeFrame and Decode (as a frame's
// payload and on their own): no panic; a message that decodes re-encodes to
// bytes that decode to the same type, addresses and options; option 82 that
// parses re-encodes to a value that parses the same.
func FuzzDecode(f *testing.F) {
	frame, _ := hex.DecodeString(scapyRequest)
	f.Add(frame)
	ack, _ := hex.DecodeString(ackFrame)
	f.Add(ack)
	f.Add(testAck().Encode())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if fr, err := DecodeFrame(b); err == nil {
			b2 := AppendFrame(nil, &fr)
			if _, err := DecodeFrame(b2); err != nil {
				t.Fatalf("re-encoded frame: %v", err)
			}
			check(t, fr.Payload)
		}
		check(t, b)
	})
}

func check(t *testing.T, b []byte) {
	m, err := Decode(b)
	if err != nil {
		return
	}
	m2, err := Decode(m.Encode())
	if err != nil {
		t.Fatalf("re-encoded message: %v", err)
	}
	if m2.Type != m.Type || m2.XID != m.XID || m2.YIAddr != m.YIAddr || m2.GIAddr != m.GIAddr ||
		!bytes.Equal(m2.CHAddr, m.CHAddr) || len(m2.Options) != len(m.Options) {
		t.Fatalf("round trip:\n%+v\n%+v", m, m2)
	}
	for i := range m.Options {
		if m.Options[i].Code != m2.Options[i].Code || !bytes.Equal(m.Options[i].Data, m2.Options[i].Data) {
			t.Fatalf("option %d: %+v != %+v", i, m.Options[i], m2.Options[i])
		}
	}
	if ai, ok := m.AgentInfo(); ok {
		ai2, err := ParseAgentInfo(ai.Encode())
		if err != nil || !bytes.Equal(ai2.CircuitID, ai.CircuitID) || !bytes.Equal(ai2.RemoteID, ai.RemoteID) ||
			ai2.LinkSelection != ai.LinkSelection || ai2.ServerIDOverride != ai.ServerIDOverride {
			t.Fatalf("option 82 round trip %+v -> %+v (%v)", ai, ai2, err)
		}
	}
}
