package onos

import (
	"encoding/json"
	"strings"
	"testing"
)

// The dual-stack fields of Contract B (docs/onos, issue 15): present with
// these names when the session has IPv6, absent otherwise (the shared
// fixtures, IPv4 only, stay as they are).
func TestSessionIPv6Fields(t *testing.T) {
	s := sessA
	s.IPv6Prefix, s.DelegatedPrefix, s.IPv6Address = "2001:db8:100:1::/64", "2001:db8:200:100::/56", "2001:db8:100:1::1"
	s.Usage.V6UpBytes, s.Usage.V6DownBytes, s.Usage.V6UpPackets, s.Usage.V6DownPackets = 10, 20, 1, 2
	b, _ := json.Marshal(s)
	for _, want := range []string{`"ipv6Prefix":"2001:db8:100:1::/64"`, `"delegatedPrefix":"2001:db8:200:100::/56"`,
		`"ipv6Address":"2001:db8:100:1::1"`, `"v6UpBytes":10`, `"v6DownBytes":20`, `"v6UpPackets":1`, `"v6DownPackets":2`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	b, _ = json.Marshal(sessA)
	if strings.Contains(string(b), "v6") || strings.Contains(string(b), "ipv6") || strings.Contains(string(b), "delegated") {
		t.Errorf("IPv4-only session with IPv6 fields: %s", b)
	}
}
