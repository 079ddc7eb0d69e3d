package aaa

import (
	"context"
	"net/netip"
	"regexp"
	"strings"
	"testing"
)

const frUsers6 = `carol	Cleartext-Password := "pw-carol"
	Framed-IPv6-Prefix = 2001:db8:100:5::/64,
	Framed-Interface-Id = 0211:22ff:fe33:4455,
	Framed-IPv6-Pool = "v6pool1",
	Delegated-IPv6-Prefix = 2001:db8:200:500::/56,
	Framed-IPv6-Address = 2001:db8:100:5::1,
	DNS-Server-IPv6-Address = 2001:db8::53,
	DNS-Server-IPv6-Address = 2001:db8::54,
	Delegated-IPv6-Prefix-Pool = "pd1",
	Stateful-IPv6-Address-Pool = "na1"
`

// The IPv6 attributes of RFC 3162, 4818 and 6911 as FreeRADIUS sends them,
// and the accounting attributes as FreeRADIUS decodes them (its own
// dictionaries, dictionary.erx among them).
func TestFreeRADIUSIPv6(t *testing.T) {
	f := startFreeRADIUS(t, frUsers6)
	c := frClient(t, f)
	ctx := context.Background()
	res, err := c.Authenticate(ctx, &AccessRequest{UserName: "carol", PAPPassword: []byte("pw-carol"),
		NASPortID: "eth1/100/200", CallingStationID: "02:00:00:00:00:05", AcctSessionID: "s6"})
	if err != nil || !res.Accept {
		t.Fatalf("%+v %v", res, err)
	}
	v := res.IPv6
	if v.Prefix.String() != "2001:db8:100:5::/64" || v.InterfaceID != 0x021122fffe334455 || v.Pool != "v6pool1" ||
		v.Delegated.String() != "2001:db8:200:500::/56" || v.Address.String() != "2001:db8:100:5::1" ||
		len(v.DNS) != 2 || v.DNS[1].String() != "2001:db8::54" || v.DelegatedPool != "pd1" || v.StatefulPool != "na1" {
		t.Fatalf("IPv6 attributes %+v", v)
	}

	v6 := &AcctIPv6{InterfaceID: 0x021122fffe334455, Prefix: netip.MustParsePrefix("2001:db8:100:5::/64"),
		Delegated: netip.MustParsePrefix("2001:db8:200:500::/56"), Address: netip.MustParseAddr("2001:db8:100:5::1"),
		InOctets: 1<<32 + 11, OutOctets: 22, InPackets: 3, OutPackets: 4}
	base := AcctRequest{SessionID: "acct-6", UserName: "carol", NASPortID: "eth1/100/200", IPv6: v6}
	start := base
	start.Status = AcctStart
	interim := base
	interim.Status = AcctInterim
	interim.InOctets, interim.OutOctets = 1<<32+100, 200
	none := *v6
	none.Attr = IPv6OctetsNone
	stop := base
	stop.Status, stop.IPv6 = AcctStop, &none
	for _, r := range []*AcctRequest{&start, &interim, &stop} {
		if err := c.Account(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	recs := f.detailRecords(t)
	if len(recs) != 3 {
		t.Fatalf("want 3 detail records, got %d", len(recs))
	}
	has := func(rec string, lines ...string) {
		t.Helper()
		for _, l := range lines {
			if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(l) + `$`).MatchString(rec) {
				t.Errorf("record lacks %q:\n%s", l, rec)
			}
		}
	}
	bound := []string{`Framed-IPv6-Prefix = 2001:db8:100:5::/64`, `Delegated-IPv6-Prefix = 2001:db8:200:500::/56`,
		`Framed-IPv6-Address = 2001:db8:100:5::1`, `Framed-Interface-Id = 211:22ff:fe33:4455`}
	has(recs[0], bound...)
	has(recs[1], append(bound, `ERX-IPv6-Acct-Input-Octets = 11`, `ERX-IPv6-Acct-Input-Gigawords = 1`,
		`ERX-IPv6-Acct-Output-Octets = 22`, `ERX-IPv6-Acct-Output-Gigawords = 0`,
		`ERX-IPv6-Acct-Input-Packets = 3`, `ERX-IPv6-Acct-Output-Packets = 4`,
		`Acct-Input-Octets = 100`, `Acct-Input-Gigawords = 1`)...)
	if strings.Contains(recs[0], "ERX-IPv6-Acct") || strings.Contains(recs[2], "ERX-IPv6-Acct") {
		t.Errorf("IPv6 counters in a Start or with ipv6_octets_attribute none:\n%s\n%s", recs[0], recs[2])
	}
}
