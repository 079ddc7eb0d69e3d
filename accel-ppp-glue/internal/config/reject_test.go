package config

import (
	"errors"
	"strings"
	"testing"
)

// edit replaces the only occurrence of old in the valid fixture with new.
type edit struct{ old, new string }

func applyEdits(t *testing.T, data string, edits []edit) string {
	t.Helper()
	for _, e := range edits {
		if n := strings.Count(data, e.old); n != 1 {
			t.Fatalf("edit %q matches %d times in the fixture, want once", e.old, n)
		}
		data = strings.Replace(data, e.old, e.new, 1)
	}
	return data
}

// Each case breaks the valid fixture in one way and names the errors (by
// substring of Error()) it must produce, and no others.
var rejectCases = []struct {
	name  string
	edits []edit
	want  []string
}{
	// decoding
	{"unknown top-level key", []edit{{"pod: lab\n", "pod: lab\nsite: x\n"}},
		[]string{"site: unknown key (line 6)"}},
	{"unknown key", []edit{{"  retries: 3\n", "  retries: 3\n  backoff: 2\n"}},
		[]string{"radius.backoff: unknown key"}},
	{"unknown key in a flow mapping", []edit{{"stag: {min: 100, max: 149}, ctag: null}", "stag: {min: 100, max: 149}, ctag: null, vlan: 1}"}},
		[]string{"instances[0].lines[0].vlan: unknown key"}},
	{"unknown keys and a bad value", []edit{{"  retries: 3\n", "  retries: 3\n  backoff: 2\n"}, {"tpid: 33024", "tpid: 1"}, {"name: silver\n", "name: silver\n    extra: {}\n"}},
		[]string{"radius.backoff: unknown key", "qos_profiles[1].extra: unknown key", "access_ports[0].tpid: TPID 0x0001 is not supported"}},
	{"duplicate key", []edit{{"  retries: 3\n", "  retries: 3\n  retries: 4\n"}},
		[]string{"radius.retries: duplicate key (first at line 12) (line 13)"}},
	{"sequence expected", []edit{{"dns: [198.51.100.53], line_group: lg1", "dns: 198.51.100.53, line_group: lg1"}},
		[]string{"pools[0].dns: expected a sequence, found a string"}},
	{"mapping expected", []edit{{"management: {subnet: 10.200.0.0/24}", "management: [10.200.0.0/24]"}},
		[]string{"management: expected a mapping, found a sequence"}},
	{"scalar expected", []edit{{"pod: lab", "pod: {name: lab}"}},
		[]string{"pod: expected a scalar, found a mapping"}},
	{"string expected", []edit{{"pod: lab", "pod: 42"}},
		[]string{`pod: expected a string, found an integer "42"`}},
	{"integer expected", []edit{{"tpid: 33024", `tpid: "0x8100"`}},
		[]string{`access_ports[0].tpid: expected an integer, found a string "0x8100"`}},
	{"float is not an integer", []edit{{"rate: 10000000000}", "rate: 1.0e10}"}},
		[]string{`access_ports[0].rate: expected an integer, found a number "1.0e10"`}},
	{"missing key", []edit{{"  retries: 3\n", ""}},
		[]string{"radius.retries: required key missing"}},
	{"missing section", []edit{{"management: {subnet: 10.200.0.0/24}\n", ""}},
		[]string{"management: required mapping missing"}},
	{"null value", []edit{{"name: dp1", "name: null"}},
		[]string{"instances[0].name: must not be null"}},
	{"null list item", []edit{{"  - {name: access2, tpid: 34984, rate: 25000000000}", "  - null"}},
		[]string{"access_ports[1]: expected a mapping, found null", `instances[1].lines[0].access_port: unknown access port "access2"`,
			`instances[1].lines[2].access_port: unknown access port "access2"`, `instances[1].lines[3].access_port: unknown access port "access2"`}},
	{"bad name", []edit{{"name: dp1", `name: "dp 1"`}},
		[]string{`instances[0].name: invalid name "dp 1"`}},

	// addresses
	{"bad IP", []edit{{"address: 10.200.0.2,", "address: 10.200.0.256,"}},
		[]string{`radius.servers[0].address: invalid IP address "10.200.0.256"`}},
	{"IPv6 core address", []edit{{"core_address: 100.64.0.11", "core_address: 2001:db8::11"}},
		[]string{"line_groups[0].core_address: 2001:db8::11 is not an IPv4 address"}},
	{"multicast address", []edit{{"control_address: 10.200.0.11", "control_address: 224.0.0.1"}},
		[]string{"instances[0].control_address: 224.0.0.1 is not a unicast host address"}},
	{"zone", []edit{{"address: 10.200.0.2,", "address: fe80::2%eth0,"}},
		[]string{"radius.servers[0].address: IP address \"fe80::2%eth0\" must not have a zone"}},
	{"4in6 address", []edit{{"address: 10.200.0.2,", "address: \"::ffff:10.200.0.2\","}},
		[]string{"IPv4-mapped IPv6 address"}},
	{"bad prefix", []edit{{"prefix: 100.80.0.0/22", "prefix: 100.80.0.0/33"}},
		[]string{`pools[0].prefix: invalid IP prefix "100.80.0.0/33"`}},
	{"prefix with host bits", []edit{{"prefix: 100.80.0.0/22", "prefix: 100.80.1.0/22"}},
		[]string{"pools[0].prefix: prefix 100.80.1.0/22 has host bits set (network is 100.80.0.0/22)"}},
	{"IPv6 pool", []edit{{"prefix: 100.80.0.0/22", "prefix: 2001:db8::/64"}},
		[]string{"pools[0].prefix: 2001:db8::/64 is not an IPv4 prefix"}},
	{"overlapping pools", []edit{{"prefix: 100.80.4.0/22", "prefix: 100.80.0.0/21"}},
		[]string{"pools[1].prefix: 100.80.0.0/21 overlaps 100.80.0.0/22 of pools[0]"}},
	{"nested pools", []edit{{"prefix: 100.80.10.0/23", "prefix: 100.80.9.0/24"}},
		[]string{"pools[3].prefix: 100.80.9.0/24 overlaps 100.80.8.0/23 of pools[2]"}},
	{"pool overlaps management", []edit{{"prefix: 100.80.0.0/22", "prefix: 10.200.0.128/25"}},
		[]string{"pools[0].prefix: 10.200.0.128/25 overlaps the management subnet 10.200.0.0/24"}},
	{"too many DNS servers", []edit{{"dns: [198.51.100.53, 198.51.100.54]", "dns: [198.51.100.53, 198.51.100.54, 198.51.100.55]"}},
		[]string{"pools[1].dns: 3 DNS servers given, at most 2 can be offered"}},
	{"duplicate DNS server", []edit{{"dns: [198.51.100.53, 198.51.100.54]", "dns: [198.51.100.53, 198.51.100.53]"}},
		[]string{"pools[1].dns[1]: duplicate DNS server (first at pools[1].dns[0])"}},
	{"control plane outside management", []edit{{"address: 10.200.0.1,", "address: 10.201.0.1,"}},
		[]string{"control_plane.address: 10.201.0.1 is not in the management subnet 10.200.0.0/24"}},
	{"instance at broadcast address", []edit{{"control_address: 10.200.0.12", "control_address: 10.200.0.255"}},
		[]string{"instances[1].control_address: 10.200.0.255 is the broadcast address"}},
	{"duplicate control address", []edit{{"control_address: 10.200.0.12", "control_address: 10.200.0.11"}},
		[]string{"instances[1].control_address: address 10.200.0.11 is already used by instances[0].control_address"}},
	{"instance at control plane address", []edit{{"control_address: 10.200.0.12", "control_address: 10.200.0.1"}},
		[]string{"instances[1].control_address: address 10.200.0.1 is already used by control_plane.address"}},
	{"duplicate core address", []edit{{"core_address: 100.64.0.12", "core_address: 100.64.0.11"}},
		[]string{"line_groups[1].core_address: duplicate core address 100.64.0.11 (first at line_groups[0].core_address)"}},

	// MACs
	{"bad MAC", []edit{{`ac_mac: "02:bb:00:00:00:01"`, `ac_mac: "02:bb:00:00:00:0g"`}},
		[]string{`line_groups[0].ac_mac: invalid MAC address "02:bb:00:00:00:0g"`}},
	{"MAC with dashes", []edit{{`ac_mac: "02:bb:00:00:00:01"`, `ac_mac: "02-bb-00-00-00-01"`}},
		[]string{`line_groups[0].ac_mac: invalid MAC address "02-bb-00-00-00-01"`}},
	{"EUI-64", []edit{{`data_mac: "02:00:00:00:01:01"`, `data_mac: "02:00:00:00:01:01:00:00"`}},
		[]string{`instances[0].data_mac: invalid MAC address`}},
	{"multicast MAC", []edit{{`data_mac: "02:00:00:00:01:01"`, `data_mac: "03:00:00:00:01:01"`}},
		[]string{"instances[0].data_mac: MAC address 03:00:00:00:01:01 is a multicast address"}},
	{"zero MAC", []edit{{`core_mac: "02:cc:00:00:00:01"`, `core_mac: "00:00:00:00:00:00"`}},
		[]string{"line_groups[0].core_mac: MAC address 00:00:00:00:00:00 is all zeros"}},
	{"duplicate data MAC", []edit{{`data_mac: "02:00:00:00:01:02"`, `data_mac: "02:00:00:00:01:01"`}},
		[]string{"instances[1].data_mac: duplicate data MAC 02:00:00:00:01:01 (first at instances[0].data_mac)"}},
	{"duplicate AC MAC, other case", []edit{{`ac_mac: "02:bb:00:00:00:02"`, `ac_mac: "02:BB:00:00:00:01"`}},
		[]string{"line_groups[1].ac_mac: duplicate AC MAC 02:bb:00:00:00:01 (first at line_groups[0].ac_mac)"}},

	// numbers
	{"bad TPID", []edit{{"tpid: 33024", "tpid: 33025"}},
		[]string{"access_ports[0].tpid: TPID 0x8101 is not supported: use 33024 (0x8100) or 34984 (0x88a8)"}},
	{"TPID 0x9100", []edit{{"tpid: 34984", "tpid: 0x9100"}},
		[]string{"access_ports[1].tpid: TPID 0x9100 is not supported"}},
	{"TPID too large", []edit{{"tpid: 34984", "tpid: 65536"}},
		[]string{"access_ports[1].tpid: 65536 is out of range 0..65535"}},
	{"port rate 0", []edit{{"rate: 10000000000}", "rate: 0}"}},
		[]string{"access_ports[0].rate: 0 is out of range: must be at least 1"}},
	{"negative rate", []edit{{"rate: 10000000000}", "rate: -1}"}},
		[]string{"access_ports[0].rate: -1 is out of range"}},
	{"rate beyond 64 bits", []edit{{"rate: 10000000000}", "rate: 18446744073709551616}"}},
		[]string{"access_ports[0].rate: expected an integer"}},
	{"down rate 0", []edit{{"down_rate: 20000000", "down_rate: 0"}},
		[]string{"qos_profiles[1].down_rate: 0 is out of range"}},
	{"class rate 0", []edit{{"rate: 2000000}", "rate: 0}"}},
		[]string{"qos_profiles[0].classes[0].rate: 0 is out of range"}},
	{"CIR above PIR", []edit{{"up_cir: 20000000", "up_cir: 60000000"}},
		[]string{"qos_profiles[0].up_cir: CIR 60000000 exceeds PIR 50000000"}},
	{"up_dscp 64", []edit{{"up_dscp: 0", "up_dscp: 64"}},
		[]string{"qos_profiles[1].up_dscp: 64 is out of range 0..63"}},
	{"up_dscp -1", []edit{{"up_dscp: 0", "up_dscp: -1"}},
		[]string{"qos_profiles[1].up_dscp: -1 is out of range 0..63"}},
	{"up_dscp keep spelled out", []edit{{"up_dscp: 0", "up_dscp: keep"}},
		[]string{"qos_profiles[1].up_dscp: expected an integer"}},
	{"class rate above down rate", []edit{{"rate: 2000000}", "rate: 200000000}"}},
		[]string{"qos_profiles[0].classes[0].rate: class rate 200000000 exceeds the profile's down_rate 100000000"}},
	{"traffic class out of range", []edit{{"tc: 2,", "tc: 13,"}},
		[]string{"qos_profiles[0].classes[2].tc: 13 is out of range 0..12"}},
	{"duplicate traffic class", []edit{{"tc: 2,", "tc: 0,"}},
		[]string{"qos_profiles[0].classes[2].tc: duplicate traffic class 0 (first at qos_profiles[0].classes[0].tc)"}},
	{"duplicate DSCP", []edit{{"dscp: [34, 36]", "dscp: [34, 46]"}},
		[]string{"qos_profiles[0].classes[2].dscp[1]: duplicate DSCP 46 (first at qos_profiles[0].classes[0].dscp[0])"}},
	{"DSCP out of range", []edit{{"dscp: [34, 36]", "dscp: [34, 64]"}},
		[]string{"qos_profiles[0].classes[2].dscp[1]: 64 is out of range 0..63"}},
	{"weights on a priority class", []edit{{"dscp: [34, 36]}", "dscp: [34, 36], weights: [1, 1, 1, 1]}"}},
		[]string{"qos_profiles[0].classes[2].weights: only the best-effort class (tc 12) has weighted queues"}},
	{"wrong number of weights", []edit{{"weights: [4, 2, 1, 1]", "weights: [4, 2, 1]"}},
		[]string{"qos_profiles[0].classes[1].weights: expected 4 weights, found 3"}},
	{"weight 0", []edit{{"weights: [4, 2, 1, 1]", "weights: [4, 2, 1, 0]"}},
		[]string{"qos_profiles[0].classes[1].weights[3]: 0 is out of range 1..255"}},
	{"port 0", []edit{{"pfcp_port: 8805", "pfcp_port: 0"}},
		[]string{"control_plane.pfcp_port: 0 is out of range 1..65535"}},
	{"port too large", []edit{{"auth_port: 1812", "auth_port: 70000"}},
		[]string{"radius.servers[0].auth_port: 70000 is out of range 1..65535"}},
	{"CoA port taken", []edit{{"coa_port: 3799", "coa_port: 4789"}},
		[]string{"radius.coa_port: UDP port 4789 is already control_plane.vxlan_port"}},
	{"timeout 0", []edit{{"timeout_ms: 3000", "timeout_ms: 0"}},
		[]string{"radius.timeout_ms: 0 is out of range 1..3600000"}},
	{"NAS identifier too long", []edit{{"nas_identifier: bngpod-lab", "nas_identifier: " + strings.Repeat("n", 254)}},
		[]string{"radius.nas_identifier: must be 1 to 253 bytes long"}},
	{"empty secret", []edit{{"secret: testing123", `secret: ""`}},
		[]string{"radius.servers[0].secret: must not be empty"}},
	{"no RADIUS server", []edit{{"    - {name: radius1, address: 10.200.0.2, auth_port: 1812, acct_port: 1813, secret: testing123}", "    []"}},
		[]string{"radius.servers: at least one server is required"}},
	{"instance id 0", []edit{{"id: 1\n", "id: 0\n"}},
		[]string{"instances[0].id: 0 is out of range 1..16777215", `line_groups[0].instance: unknown instance 1`}},
	{"instance id beyond VNI", []edit{{"id: 2\n", "id: 16777216\n"}},
		[]string{"instances[1].id: 16777216 is out of range 1..16777215", "line_groups[1].instance: unknown instance 2", "line_groups[2].instance: unknown instance 2"}},

	// tags
	{"S-tag above 4094", []edit{{"stag: {min: 100, max: 149}", "stag: {min: 100, max: 4095}"}},
		[]string{"instances[0].lines[0].stag.max: 4095 is out of range 1..4094"}},
	{"S-tag 0", []edit{{"stag: {min: 100, max: 149}", "stag: {min: 0, max: 149}"}},
		[]string{"instances[0].lines[0].stag.min: 0 is out of range 1..4094"}},
	{"C-tag above 4094", []edit{{"ctag: {min: 2000, max: 4094}", "ctag: {min: 2000, max: 4096}"}},
		[]string{"instances[1].lines[3].ctag.max: 4096 is out of range 1..4094"}},
	{"S-tag min > max", []edit{{"stag: {min: 100, max: 149}", "stag: {min: 149, max: 100}"}},
		[]string{"instances[0].lines[0].stag: min 149 is greater than max 100"}},
	{"C-tag min > max", []edit{{"ctag: {min: 1, max: 1999}", "ctag: {min: 1999, max: 1}"}},
		[]string{"instances[1].lines[2].ctag: min 1999 is greater than max 1"}},
	{"S-tag as a number", []edit{{"stag: {min: 100, max: 149}", "stag: 100"}},
		[]string{"instances[0].lines[0].stag: expected a mapping, found an integer"}},
	{"missing S-tag", []edit{{"stag: {min: 100, max: 149}, ", ""}},
		[]string{"instances[0].lines[0].stag: required mapping missing"}},
	{"missing max", []edit{{"stag: {min: 100, max: 149}", "stag: {min: 100}"}},
		[]string{"instances[0].lines[0].stag.max: required key missing"}},

	// references
	{"unknown line group of a line", []edit{{"{group: lg2, access_port: access2, stag: {min: 200", "{group: lg9, access_port: access2, stag: {min: 200"}},
		[]string{`instances[1].lines[0].group: unknown line group "lg9"`}},
	{"line group of another instance", []edit{{"{group: lg1, access_port: access1", "{group: lg2, access_port: access1"}},
		[]string{`instances[0].lines[0].group: line group "lg2" is not in this instance's line_groups`}},
	{"unknown access port", []edit{{"{group: lg1, access_port: access1", "{group: lg1, access_port: access7"}},
		[]string{`instances[0].lines[0].access_port: unknown access port "access7"`}},
	{"unknown pool", []edit{{"pools: [pool1]", "pools: [pool7]"}},
		[]string{`line_groups[0].pools[0]: unknown pool "pool7"`, `pools[0].line_group: line group "lg1" does not list pool "pool1" in its pools (line_groups[0].pools)`}},
	{"no pool", []edit{{"pools: [pool1]", "pools: []"}},
		[]string{"line_groups[0].pools: at least one pool is required", `pools[0].line_group: line group "lg1" does not list pool "pool1"`}},
	{"pool listed twice", []edit{{"pools: [pool1]", "pools: [pool1, pool1]"}},
		[]string{`line_groups[0].pools[1]: duplicate pool "pool1" (first at line_groups[0].pools[0])`}},
	{"pool of another line group", []edit{{"pools: [pool1]", "pools: [pool1, pool2]"}},
		[]string{`line_groups[0].pools[1]: pool "pool2" is bound to line group "lg2" (pools[1].line_group)`}},
	{"unknown line group of a pool", []edit{{"line_group: lg1}", "line_group: lg7}"}},
		[]string{`pools[0].line_group: unknown line group "lg7"`}},
	{"pool bound to a group not listing it", []edit{{"line_group: lg1}", "line_group: lg2}"}},
		[]string{`pools[0].line_group: line group "lg2" does not list pool "pool1" in its pools (line_groups[1].pools)`,
			`line_groups[0].pools[0]: pool "pool1" is bound to line group "lg2" (pools[0].line_group)`}},
	{"unknown QoS profile", []edit{{"qos_profile: gold", "qos_profile: platinum"}},
		[]string{`line_groups[1].qos_profile: unknown QoS profile "platinum"`}},
	{"unknown instance", []edit{{"qos_profile: silver, instance: 1}", "qos_profile: silver, instance: 7}"}},
		[]string{"line_groups[0].instance: unknown instance 7", `instances[0].line_groups[0]: line group "lg1" is served by instance 7`}},
	{"line group served by another instance", []edit{{"qos_profile: silver, instance: 1}", "qos_profile: silver, instance: 2}"}},
		[]string{`line_groups[0].instance: instance 2 (instances[1]) does not list line group "lg1" in its line_groups`,
			`instances[0].line_groups[0]: line group "lg1" is served by instance 2 (line_groups[0].instance)`}},
	{"unknown line group of an instance", []edit{{"line_groups: [lg2, lg3]", "line_groups: [lg2, lg3, lg8]"}},
		[]string{`instances[1].line_groups[2]: unknown line group "lg8"`}},
	{"line group listed twice", []edit{{"line_groups: [lg2, lg3]", "line_groups: [lg2, lg3, lg2]"}},
		[]string{`instances[1].line_groups[2]: duplicate line group "lg2" (first at instances[1].line_groups[0])`}},

	// duplicates
	{"duplicate access port", []edit{{"name: access2,", "name: access1,"}},
		[]string{"access_ports[1].name: duplicate access port name (first at access_ports[0].name)",
			`instances[1].lines[0].access_port: unknown access port "access2"`,
			`instances[1].lines[2].access_port: unknown access port "access2"`,
			`instances[1].lines[3].access_port: unknown access port "access2"`}},
	{"duplicate pool", []edit{{"name: pool2,", "name: pool1,"}},
		[]string{"pools[1].name: duplicate pool name (first at pools[0].name)", `line_groups[1].pools[0]: unknown pool "pool2"`}},
	{"duplicate QoS profile", []edit{{"name: silver", "name: gold"}},
		[]string{"qos_profiles[1].name: duplicate QoS profile name (first at qos_profiles[0].name)",
			`line_groups[0].qos_profile: unknown QoS profile "silver"`, `line_groups[2].qos_profile: unknown QoS profile "silver"`}},
	{"duplicate line group", []edit{{"name: lg3,", "name: lg2,"}},
		[]string{"line_groups[2].name: duplicate line group name (first at line_groups[1].name)",
			`pools[2].line_group: unknown line group "lg3"`, `pools[3].line_group: unknown line group "lg3"`,
			`instances[1].line_groups[1]: unknown line group "lg3"`, `instances[1].lines[3].group: unknown line group "lg3"`}},
	{"duplicate instance id", []edit{{"id: 2\n", "id: 1\n"}},
		[]string{"instances[1].id: duplicate instance id 1 (first at instances[0].id)",
			`instances[1].line_groups[0]: line group "lg2" is served by instance 2`, `instances[1].line_groups[1]: line group "lg3" is served by instance 2`,
			"line_groups[1].instance: unknown instance 2", "line_groups[2].instance: unknown instance 2"}},
	{"duplicate instance name", []edit{{"name: dp2", "name: dp1"}},
		[]string{"instances[1].name: duplicate instance name (first at instances[0].name)"}},
	{"duplicate RADIUS server", []edit{{"    - {name: radius1, address: 10.200.0.2, auth_port: 1812, acct_port: 1813, secret: testing123}",
		"    - {name: radius1, address: 10.200.0.2, auth_port: 1812, acct_port: 1813, secret: testing123}\n    - {name: radius1, address: 10.200.0.2, auth_port: 1812, acct_port: 1813, secret: x}"}},
		[]string{"radius.servers[1].name: duplicate RADIUS server name", "radius.servers[1].auth_port: duplicate RADIUS server 10.200.0.2:1812"}},

	// lines
	{"overlap across instances", []edit{{"stag: {min: 150, max: 159}", "stag: {min: 149, max: 159}"}},
		[]string{`instances[1].lines[1]: overlaps instances[0].lines[0] on access port "access1" at S-tag 149, C-tag 1-4094`}},
	{"overlap within an instance", []edit{{"ctag: {min: 2000, max: 4094}", "ctag: {min: 1999, max: 4094}"}},
		[]string{`instances[1].lines[3]: overlaps instances[1].lines[2] on access port "access2" at S-tag 300, C-tag 1999`}},
	{"any C-tag over a C-tag split", []edit{{"stag: {min: 200, max: 249}", "stag: {min: 200, max: 300}"}},
		[]string{`instances[1].lines[2]: overlaps instances[1].lines[0] on access port "access2" at S-tag 300, C-tag 1-1999`,
			`instances[1].lines[3]: overlaps instances[1].lines[0] on access port "access2" at S-tag 300, C-tag 2000-4094`}},
	{"duplicate line", []edit{{"      - {group: lg1, access_port: access1, stag: {min: 100, max: 149}, ctag: null}\n",
		"      - {group: lg1, access_port: access1, stag: {min: 100, max: 149}, ctag: null}\n      - {group: lg1, access_port: access1, stag: {min: 140, max: 140}, ctag: {min: 5, max: 5}}\n"}},
		[]string{`instances[0].lines[1]: overlaps instances[0].lines[0] on access port "access1" at S-tag 140, C-tag 5`}},
	{"same S-tag on two access ports of one instance", []edit{{"access_port: access1, stag: {min: 150, max: 159}", "access_port: access1, stag: {min: 240, max: 259}"}},
		[]string{`instances[1].lines[1].stag: S-tag 240-249 is served on access port "access2" by instances[1].lines[0] and on access port "access1" here`}},
	{"C-tag split across two access ports of one instance", []edit{{"{group: lg3, access_port: access2, stag: {min: 300", "{group: lg3, access_port: access1, stag: {min: 300"}},
		[]string{`instances[1].lines[3].stag: S-tag 300 is served on access port "access2" by instances[1].lines[2] and on access port "access1" here`}},
}

func TestReject(t *testing.T) {
	valid := string(readFixture(t, "valid.yaml"))
	for _, tc := range rejectCases {
		t.Run(tc.name, func(t *testing.T) {
			data := applyEdits(t, valid, tc.edits)
			cfg, err := Parse([]byte(data))
			if err == nil {
				t.Fatalf("accepted")
			}
			if cfg != nil {
				t.Errorf("returned a Config with the error")
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %T is not an Errors: %v", err, err)
			}
			matched := make([]bool, len(errs))
			for _, want := range tc.want {
				found := false
				for i, e := range errs {
					if strings.Contains(e.Error(), want) {
						found, matched[i] = true, true
					}
				}
				if !found {
					t.Errorf("no error contains %q", want)
				}
			}
			for i, e := range errs {
				if !matched[i] {
					t.Errorf("unexpected error: %v", e)
				}
			}
		})
	}
}

// Valid variations of the fixture.
func TestAccept(t *testing.T) {
	valid := string(readFixture(t, "valid.yaml"))
	for _, tc := range []struct {
		name  string
		edits []edit
	}{
		{"same S-tag on different access ports of different instances",
			[]edit{{"stag: {min: 100, max: 149}", "stag: {min: 200, max: 249}"}}},
		{"same S-tag and C-tags on different access ports of different instances",
			[]edit{{"stag: {min: 100, max: 149}", "stag: {min: 300, max: 300}"}}},
		{"empty weights", []edit{{"dscp: [34, 36]}", "dscp: [34, 36], weights: []}"}, {"weights: [4, 2, 1, 1]", "weights: []"}}},
		{"hexadecimal TPID", []edit{{"tpid: 34984", "tpid: 0x88a8"}}},
		{"upper-case MAC", []edit{{`ac_mac: "02:bb:00:00:00:01"`, `ac_mac: "02:BB:00:00:00:01"`}}},
		{"unquoted MAC", []edit{{`data_mac: "02:00:00:00:01:01"`, `data_mac: 02:00:00:00:01:01`}}},
		{"no ctag key", []edit{{"stag: {min: 100, max: 149}, ctag: null}", "stag: {min: 100, max: 149}}"}}},
		{"explicit document start", []edit{{"pod: lab\n", "---\npod: lab\n"}}},
		{"IPv6 management", []edit{
			{"address: 10.200.0.1,", "address: 2001:db8::1,"},
			{"subnet: 10.200.0.0/24", "subnet: 2001:db8::/64"},
			{"control_address: 10.200.0.11", "control_address: 2001:db8::11"},
			{"control_address: 10.200.0.12", "control_address: 2001:db8::12"}}},
		{"instance without line groups", []edit{
			{"instance: 1}", "instance: 2}"},
			{"line_groups: [lg2, lg3]", "line_groups: [lg1, lg2, lg3]"},
			{"    line_groups: [lg1]\n    lines:\n      - {group: lg1, access_port: access1, stag: {min: 100, max: 149}, ctag: null}\n",
				"    line_groups: []\n    lines: []\n"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := applyEdits(t, valid, tc.edits)
			if _, err := Parse([]byte(data)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
