package config

import (
	"fmt"
	"strings"
	"testing"
)

// genLine is one line of a generated configuration.
type genLine struct {
	inst int // 1 or 2
	port int // 1..4: access1..access4
	stag TagRange
	ctag *TagRange // nil: any
}

// genConfig writes a configuration with two instances, four access ports and
// the given lines.
func genConfig(lines []genLine) []byte {
	var b strings.Builder
	b.WriteString(`pod: gen
control_plane: {address: 10.200.0.1, pfcp_port: 8805, vxlan_port: 4789}
management: {subnet: 10.200.0.0/24}
radius:
  nas_identifier: gen
  coa_port: 3799
  timeout_ms: 1000
  retries: 0
  servers:
    - {name: r1, address: 10.200.0.2, auth_port: 1812, acct_port: 1813, secret: s}
access_ports:
  - {name: access1, tpid: 33024, rate: 1000000000}
  - {name: access2, tpid: 34984, rate: 1000000000}
  - {name: access3, tpid: 33024, rate: 1000000000}
  - {name: access4, tpid: 34984, rate: 1000000000}
pools:
  - {name: pool1, prefix: 100.80.0.0/16, line_group: lg1}
  - {name: pool2, prefix: 100.81.0.0/16, line_group: lg2}
qos_profiles:
  - {name: best, down_rate: 1000000, up_pir: 1000000}
line_groups:
  - {name: lg1, ac_mac: "02:bb:00:00:00:01", core_address: 100.64.0.11, core_mac: "02:cc:00:00:00:01", pools: [pool1], qos_profile: best, instance: 1}
  - {name: lg2, ac_mac: "02:bb:00:00:00:02", core_address: 100.64.0.12, core_mac: "02:cc:00:00:00:02", pools: [pool2], qos_profile: best, instance: 2}
instances:
`)
	for inst := 1; inst <= 2; inst++ {
		fmt.Fprintf(&b, "  - id: %d\n    name: dp%d\n    control_address: 10.200.0.1%d\n    data_mac: \"02:00:00:00:00:0%d\"\n    line_groups: [lg%d]\n    lines:\n",
			inst, inst, inst, inst, inst)
		n := 0
		for _, l := range lines {
			if l.inst != inst {
				continue
			}
			n++
			ctag := "null"
			if l.ctag != nil {
				ctag = fmt.Sprintf("{min: %d, max: %d}", l.ctag.Min, l.ctag.Max)
			}
			fmt.Fprintf(&b, "      - {group: lg%d, access_port: access%d, stag: {min: %d, max: %d}, ctag: %s}\n",
				inst, l.port, l.stag.Min, l.stag.Max, ctag)
		}
		if n == 0 {
			b.WriteString("      []\n")
		}
	}
	return []byte(b.String())
}

// manyLines generates a valid configuration with about n lines per
// instance: S-tag blocks of varying width, on varying ports, some taking any
// C-tag and some split by C-tag into two or three lines.
func manyLines(t testing.TB, n int) []byte {
	t.Helper()
	var lines []genLine
	stag := uint16(1)
	for k := 0; k < 2*n && stag < 4000; k++ {
		inst := k%2 + 1
		width := uint16(k % 7)
		if stag+width > MaxVLANID {
			break
		}
		st := TagRange{Min: stag, Max: stag + width}
		port := (k/2)%4 + 1
		switch k % 4 {
		case 0, 3:
			lines = append(lines, genLine{inst: inst, port: port, stag: st})
		case 1:
			cut := uint16(1 + (k*37)%4000)
			lines = append(lines,
				genLine{inst: inst, port: port, stag: st, ctag: &TagRange{1, cut}},
				genLine{inst: inst, port: port, stag: st, ctag: &TagRange{cut + 1, MaxVLANID}})
		case 2:
			lines = append(lines,
				genLine{inst: inst, port: port, stag: st, ctag: &TagRange{10, 10}},
				genLine{inst: inst, port: port, stag: st, ctag: &TagRange{11, 500}},
				genLine{inst: inst, port: port, stag: st, ctag: &TagRange{2000, 4000}})
		}
		stag += width + 1
	}
	return genConfig(lines)
}
