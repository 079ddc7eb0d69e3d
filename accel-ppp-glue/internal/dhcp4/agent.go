package dhcp4

import "net/netip"

// Sub-options of the relay agent information option 82.
const (
	SubCircuitID        uint8 = 1  // RFC 3046
	SubRemoteID         uint8 = 2  // RFC 3046
	SubLinkSelection    uint8 = 5  // RFC 3527
	SubServerIDOverride uint8 = 11 // RFC 5107
)

// AgentInfo is option 82. The sub-options bng-cp does not interpret are
// kept in Other, in order, so that a relay keeping the access node's option
// passes them on unchanged.
type AgentInfo struct {
	CircuitID        []byte
	RemoteID         []byte
	LinkSelection    netip.Addr // invalid: absent
	ServerIDOverride netip.Addr // invalid: absent
	Other            []Option
}

// ParseAgentInfo decodes an option 82 value: sub-options each at most once,
// circuit and remote id 1..255 bytes, link selection and server identifier
// override 4 bytes, nothing left over.
func ParseAgentInfo(b []byte) (AgentInfo, error) {
	var ai AgentInfo
	seen := [256]bool{}
	for i := 0; i < len(b); {
		if i+2 > len(b) || i+2+int(b[i+1]) > len(b) {
			return AgentInfo{}, ErrOption82
		}
		code, data := b[i], b[i+2:i+2+int(b[i+1])]
		i += 2 + len(data)
		if seen[code] {
			return AgentInfo{}, ErrOption82
		}
		seen[code] = true
		switch code {
		case SubCircuitID, SubRemoteID:
			if len(data) == 0 {
				return AgentInfo{}, ErrOption82
			}
			v := append([]byte(nil), data...)
			if code == SubCircuitID {
				ai.CircuitID = v
			} else {
				ai.RemoteID = v
			}
		case SubLinkSelection, SubServerIDOverride:
			if len(data) != 4 {
				return AgentInfo{}, ErrOption82
			}
			if code == SubLinkSelection {
				ai.LinkSelection = addr4(data)
			} else {
				ai.ServerIDOverride = addr4(data)
			}
		default:
			ai.Other = append(ai.Other, Option{Code: code, Data: append([]byte(nil), data...)})
		}
	}
	return ai, nil
}

// Encode returns the option 82 value: circuit id, remote id, the other
// sub-options, link selection, server identifier override. Values longer
// than 255 bytes are cut (no valid sub-option is that long).
func (ai *AgentInfo) Encode() []byte {
	var b []byte
	add := func(code uint8, d []byte) {
		d = d[:min(len(d), 255)]
		b = append(b, code, byte(len(d)))
		b = append(b, d...)
	}
	if len(ai.CircuitID) > 0 {
		add(SubCircuitID, ai.CircuitID)
	}
	if len(ai.RemoteID) > 0 {
		add(SubRemoteID, ai.RemoteID)
	}
	for _, o := range ai.Other {
		switch o.Code {
		case SubCircuitID, SubRemoteID, SubLinkSelection, SubServerIDOverride:
			continue
		}
		add(o.Code, o.Data)
	}
	if ai.LinkSelection.Is4() {
		add(SubLinkSelection, A4(ai.LinkSelection))
	}
	if ai.ServerIDOverride.Is4() {
		add(SubServerIDOverride, A4(ai.ServerIDOverride))
	}
	return b
}
