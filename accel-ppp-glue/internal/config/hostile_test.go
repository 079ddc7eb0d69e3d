package config

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// checkRejected asserts that err is a well-formed rejection.
func checkRejected(t testing.TB, cfg *Config, err error) Errors {
	t.Helper()
	if err == nil {
		t.Fatal("accepted")
	}
	if cfg != nil {
		t.Error("returned a Config with the error")
	}
	var errs Errors
	if !errors.As(err, &errs) || len(errs) == 0 {
		t.Fatalf("error %T is not a non-empty Errors: %v", err, err)
	}
	if len(errs) > maxErrors+1 {
		t.Errorf("%d errors reported, more than the cap of %d", len(errs), maxErrors)
	}
	for _, e := range errs {
		if e == nil || e.Msg == "" {
			t.Fatalf("empty error in %v", errs)
		}
		if strings.Contains(e.Msg, "internal error") {
			t.Fatalf("Parse recovered from a panic: %v", e)
		}
	}
	return errs
}

func TestParseHostile(t *testing.T) {
	aliasBomb := func() string {
		var b strings.Builder
		b.WriteString("pod: lab\nx: &l {group: lg1, access_port: access1, stag: {min: 1, max: 1}}\ny: &i {lines: [")
		for i := 0; i < 3000; i++ {
			b.WriteString("*l, ")
		}
		b.WriteString("]}\ninstances: [")
		for i := 0; i < 3000; i++ {
			b.WriteString("*i, ")
		}
		b.WriteString("]\n")
		return b.String()
	}
	manyKeys := func(n int, key func(i int) string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%s: 1, ", key(i))
		}
		b.WriteString("}")
		return b.String()
	}
	blockNesting := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat(" ", i), i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name string
		data string
		want string
	}{
		{"empty", "", "empty document"},
		{"comment only", "# nothing\n", "empty document"},
		{"null", "null\n", "top level must be a mapping, found null"},
		{"scalar", "lab\n", `top level must be a mapping, found a string "lab"`},
		{"sequence", "- pod\n", "top level must be a mapping, found a sequence"},
		{"syntax error", "pod: [lab\n", "invalid YAML"},
		{"tab indentation", "radius:\n\tretries: 3\n", "invalid YAML"},
		{"bad UTF-8", "pod: \xff\xfe\n", "invalid YAML"},
		{"NUL byte", "pod: \x00\n", "invalid YAML"},
		{"two documents", "pod: a\n---\npod: b\n", "more than one YAML document"},
		{"second document broken", "pod: a\n---\n[\n", "invalid YAML"},
		{"oversized", strings.Repeat(" ", MaxConfigSize+1), "document larger than 16777216 bytes"},
		{"flow nesting beyond the parser's limit", "pod: " + strings.Repeat("[", 20000), "exceeded max depth"},
		{"flow nesting", "pod: " + strings.Repeat("[", 1000) + strings.Repeat("]", 1000), "nested more than 32 levels deep"},
		{"block nesting", blockNesting(100), "nested more than 32 levels deep"},
		{"huge mapping", manyKeys(100000, func(i int) string { return fmt.Sprintf("k%d", i) }), "mapping has 100000 keys, at most 64 are allowed"},
		{"duplicate keys", manyKeys(60, func(int) string { return "pod" }), "pod: duplicate key (first at line 1)"},
		{"complex key", "? [a]\n: 1\n", "mapping key must be a scalar, found a sequence"},
		{"alias bomb", aliasBomb(), "excessive aliasing"},
		{"undefined alias", "pod: *x\n", "invalid YAML: unknown anchor"},
		{"only pod", "pod: lab\n", "control_plane: required mapping missing"},
		{"binary tag", "pod: !!binary bGFi\n", "pod: expected a string, found binary data"},
		{"custom tag", "pod: !x lab\n", `pod: expected a string, found a value tagged !x "lab"`},
		{"tagged integer", "pod: lab\ncontrol_plane: {address: 10.0.0.1, pfcp_port: !!int x, vxlan_port: 1}\n", "control_plane.pfcp_port: x is out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			cfg, err := Parse([]byte(tc.data))
			errs := checkRejected(t, cfg, err)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not contain %q:\n%v", tc.want, errs)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// Every truncation of the valid fixture is rejected cleanly or accepted.
func TestParseTruncated(t *testing.T) {
	data := readFixture(t, "valid.yaml")
	for n := 0; n < len(data); n++ {
		cfg, err := Parse(data[:n])
		if err != nil {
			checkRejected(t, cfg, err)
		}
	}
}

func TestParseTooManyErrors(t *testing.T) {
	var lines []genLine
	for i := 0; i < 1000; i++ {
		lines = append(lines, genLine{inst: 1, port: 1, stag: TagRange{100, 100}})
	}
	cfg, err := Parse(bytes.Replace(genConfig(lines), []byte("max: 100}"), []byte("max: 5000}"), -1))
	errs := checkRejected(t, cfg, err)
	if len(errs) != maxErrors+1 || !strings.Contains(errs[maxErrors].Msg, "too many errors") {
		t.Errorf("got %d errors, want %d and a note; last: %v", len(errs), maxErrors+1, errs[len(errs)-1])
	}
}

// Many lines, all overlapping or all fighting over S-tags, are rejected
// quickly: the checks do not compare every pair of lines.
func TestParseManyConflictingLines(t *testing.T) {
	const n = 20000
	overlapping := make([]genLine, n)
	portFight := make([]genLine, n)
	for i := range overlapping {
		overlapping[i] = genLine{inst: 1 + i%2, port: 1, stag: TagRange{1, MaxVLANID}}
		portFight[i] = genLine{inst: 1, port: 1 + i%4, stag: TagRange{uint16(1 + i%4000), MaxVLANID}, ctag: &TagRange{uint16(1 + i%4094), uint16(1 + i%4094)}}
	}
	for name, lines := range map[string][]genLine{"overlapping": overlapping, "port fight": portFight} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			cfg, err := Parse(genConfig(lines))
			checkRejected(t, cfg, err)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// A large valid configuration: every S-tag of two instances, each split by
// C-tag into two lines.
func TestParseLarge(t *testing.T) {
	var lines []genLine
	for s := uint16(1); s <= MaxVLANID; s++ {
		inst, port := 1, 1+int(s%2)
		if s > 2000 {
			inst, port = 2, 3+int(s%2)
		}
		cut := 1 + s%4000
		lines = append(lines,
			genLine{inst: inst, port: port, stag: TagRange{s, s}, ctag: &TagRange{1, cut}},
			genLine{inst: inst, port: port, stag: TagRange{s, s}, ctag: &TagRange{cut + 1, MaxVLANID}})
	}
	start := time.Now()
	cfg := mustParse(t, genConfig(lines))
	t.Logf("%d lines parsed in %v", len(lines), time.Since(start))
	for s := uint16(1); s <= MaxVLANID; s++ {
		inst := uint32(1)
		if s > 2000 {
			inst = 2
		}
		cut := 1 + s%4000
		lo, _, ok1 := cfg.LineFor(inst, s, cut)
		hi, _, ok2 := cfg.LineFor(inst, s, cut+1)
		if !ok1 || !ok2 || lo.CTag.Max != cut || hi.CTag.Min != cut+1 || lo.STag.Min != s || hi.STag.Min != s {
			t.Fatalf("S-tag %d: LineFor gives %v and %v", s, lo, hi)
		}
	}
}

func TestParseNodeLimit(t *testing.T) {
	defer func(old int) { maxNodes = old }(maxNodes)
	maxNodes = 1000
	data := manyLines(t, 64)
	cfg, err := Parse(data)
	errs := checkRejected(t, cfg, err)
	if len(errs) != 1 || errs[0].Msg != "document has more than 1000 nodes" {
		t.Errorf("got %v", errs)
	}
	maxNodes = 1 << 22
	mustParse(t, data)
}
