package config

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

const lg1Line = `core_mac: "02:cc:00:00:00:01", pools: [pool1], qos_profile: silver, instance: 1}`

// dualStack is valid.yaml with IPv6 for lg1 plus the given extra top-level text.
func dualStack(t *testing.T, edits ...edit) string {
	doc := applyEdits(t, string(readFixture(t, "valid.yaml")), []edit{
		{lg1Line, `core_mac: "02:cc:00:00:00:01", pools: [pool1], qos_profile: silver, instance: 1,
     core_address6: "2001:db8:64::11", ipv6_pools: [v6pool1]}`},
		{"  nas_identifier: bngpod-lab", "  nas_identifier: bngpod-lab\n  ipv6_octets_attribute: erx"},
	})
	doc += `core6: {subnet: "2001:db8:64::/64", router: "2001:db8:64::1"}
ipv6_ra: {interval: 200, router_lifetime: 1800}
ipv6_pools:
  - {name: v6pool1, wan_prefix: "2001:db8:100::/48", delegated_prefix: "2001:db8:200::/40",
     delegated_length: 56, ia_na: true, dns: ["2001:db8::53"], line_group: lg1}
`
	if len(edits) > 0 {
		doc = applyEdits(t, doc, edits)
	}
	return doc
}

func TestIPv6Config(t *testing.T) {
	cfg := mustParse(t, []byte(dualStack(t)))
	if cfg.Core6 == nil || cfg.Core6.Subnet != netip.MustParsePrefix("2001:db8:64::/64") || cfg.Core6.Router != netip.MustParseAddr("2001:db8:64::1") {
		t.Fatalf("core6 %+v", cfg.Core6)
	}
	if cfg.IPv6RA.Interval != 200*time.Second || cfg.IPv6RA.RouterLifetime != 1800*time.Second {
		t.Errorf("ipv6_ra %+v", cfg.IPv6RA)
	}
	p, ok := cfg.IPv6Pool("v6pool1")
	if !ok || p.WANPrefix.String() != "2001:db8:100::/48" || p.DelegatedPrefix.String() != "2001:db8:200::/40" ||
		p.DelegatedLength != 56 || !p.IANA || len(p.DNS) != 1 || p.LineGroup == nil || p.LineGroup.Name != "lg1" {
		t.Fatalf("pool %+v", p)
	}
	g, _ := cfg.LineGroup("lg1")
	if len(g.IPv6Pools) != 1 || g.IPv6Pools[0] != p || g.CoreAddress6 != netip.MustParseAddr("2001:db8:64::11") {
		t.Errorf("lg1 %+v", g)
	}
	if g2, _ := cfg.LineGroup("lg2"); len(g2.IPv6Pools) != 0 || g2.CoreAddress6.IsValid() {
		t.Errorf("lg2 has IPv6: %+v", g2)
	}
	if cfg.Radius.IPv6OctetsAttribute != IPv6OctetsERX {
		t.Errorf("ipv6_octets_attribute %q", cfg.Radius.IPv6OctetsAttribute)
	}
	// without any IPv6 key: no IPv6, the RA defaults, erx
	v4 := mustParse(t, readFixture(t, "valid.yaml"))
	if v4.Core6 != nil || len(v4.IPv6Pools) != 0 || v4.IPv6RA.Interval != DefaultRAInterval ||
		v4.IPv6RA.RouterLifetime != DefaultRARouterLifetime || v4.Radius.IPv6OctetsAttribute != IPv6OctetsERX {
		t.Errorf("IPv4-only config: %+v %+v %q", v4.Core6, v4.IPv6RA, v4.Radius.IPv6OctetsAttribute)
	}
	none := mustParse(t, []byte(dualStack(t, edit{"ipv6_octets_attribute: erx", "ipv6_octets_attribute: none"})))
	if none.Radius.IPv6OctetsAttribute != IPv6OctetsNone {
		t.Errorf("none: %q", none.Radius.IPv6OctetsAttribute)
	}
}

func TestIPv6ConfigRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    edit
		want string
	}{
		{"wan too long", edit{`wan_prefix: "2001:db8:100::/48"`, `wan_prefix: "2001:db8:100::/64"`}, "ipv6_pools[0].wan_prefix: prefix length 64"},
		{"wan too short", edit{`wan_prefix: "2001:db8:100::/48"`, `wan_prefix: "2001:db8::/31"`}, "ipv6_pools[0].wan_prefix"},
		{"wan v4", edit{`wan_prefix: "2001:db8:100::/48"`, `wan_prefix: "100.80.0.0/22"`}, "not an IPv6 prefix"},
		{"host bits", edit{`wan_prefix: "2001:db8:100::/48"`, `wan_prefix: "2001:db8:100::1/48"`}, "host bits"},
		{"pd length", edit{"delegated_length: 56", "delegated_length: 39"}, "ipv6_pools[0].delegated_length"},
		{"pd shorter than pool", edit{"delegated_length: 56", "delegated_length: 40"}, ""},
		{"pd longer than 64", edit{"delegated_length: 56", "delegated_length: 65"}, "ipv6_pools[0].delegated_length"},
		{"pd pool too long", edit{`delegated_prefix: "2001:db8:200::/40"`, `delegated_prefix: "2001:db8:200::/60"`}, "shorter than delegated_prefix"},
		{"overlap wan pd", edit{`delegated_prefix: "2001:db8:200::/40"`, `delegated_prefix: "2001:db8:100:8000::/49"`}, "overlaps 2001:db8:100::/48"},
		{"overlap core", edit{`subnet: "2001:db8:64::/64"`, `subnet: "2001:db8:100::/64"`}, "overlaps"},
		{"core address outside", edit{`core_address6: "2001:db8:64::11"`, `core_address6: "2001:db8:65::11"`}, "not in core6.subnet"},
		{"core address is router", edit{`core_address6: "2001:db8:64::11"`, `core_address6: "2001:db8:64::1"`}, "is core6.router"},
		{"router outside", edit{`router: "2001:db8:64::1"`, `router: "2001:db8:99::1"`}, "core6.router"},
		{"no core6", edit{`core6: {subnet: "2001:db8:64::/64", router: "2001:db8:64::1"}`, ""}, "core6: required"},
		{"no core address6", edit{`core_address6: "2001:db8:64::11", `, ""}, "core_address6: required"},
		{"link-local", edit{`core_address6: "2001:db8:64::11"`, `core_address6: "fe80::11"`}, "not a global IPv6 address"},
		{"unknown pool", edit{"ipv6_pools: [v6pool1]", "ipv6_pools: [v6poolX]"}, `unknown IPv6 pool "v6poolX"`},
		{"not listed back", edit{"ipv6_pools: [v6pool1]", "ipv6_pools: []"}, "does not list IPv6 pool"},
		{"wrong group", edit{`dns: ["2001:db8::53"], line_group: lg1}`, `dns: ["2001:db8::53"], line_group: lg2}`}, "bound to line group"},
		{"ia_na string", edit{"ia_na: true", `ia_na: "yes"`}, "ia_na: expected true or false"},
		{"dns v4", edit{`dns: ["2001:db8::53"]`, "dns: [198.51.100.53]"}, "not a global IPv6 address"},
		{"three dns", edit{`dns: ["2001:db8::53"]`, `dns: ["2001:db8::53", "2001:db8::54", "2001:db8::55"]`}, "at most 2"},
		{"ra interval", edit{"interval: 200", "interval: 3"}, "ipv6_ra.interval"},
		{"ra lifetime", edit{"router_lifetime: 1800", "router_lifetime: 100"}, "ipv6_ra.router_lifetime"},
		{"ra lifetime max", edit{"router_lifetime: 1800", "router_lifetime: 9001"}, "ipv6_ra.router_lifetime"},
		{"octets attr", edit{"ipv6_octets_attribute: erx", "ipv6_octets_attribute: cisco"}, "expected erx or none"},
		{"unknown key", edit{"ia_na: true", "ia_na: true, foo: 1"}, "foo"},
	} {
		_, err := Parse([]byte(dualStack(t, tc.e)))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := Parse([]byte(dualStack(t, edit{"router_lifetime: 1800", "router_lifetime: 0"}))); err != nil {
		t.Errorf("router_lifetime 0 (not a default router) refused: %v", err)
	}
}
