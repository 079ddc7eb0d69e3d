package core

import (
	"net/netip"
	"testing"
)

// A session without an address is reported without "ipv4": ONOS refuses
// the zero address's "invalid IP" and with it the whole batch.
func TestONOSSessionAddress(t *testing.T) {
	d := &Daemon{}
	r := record{ID: "s1", LineGroup: "lg1", Instance: 1, AccessPort: "access1", STag: 100, CTag: 7,
		MAC: [6]byte{2, 0x10, 0, 0, 0, 1}, QosProfile: "gold"}
	if s := d.onosSession(&r); s.IPv4 != "" {
		t.Errorf("no address: ipv4 %q", s.IPv4)
	}
	r.IPv4 = netip.MustParseAddr("100.80.4.9")
	if s := d.onosSession(&r); s.IPv4 != "100.80.4.9" || s.MAC != "02:10:00:00:00:01" {
		t.Errorf("got %+v", s)
	}
}
