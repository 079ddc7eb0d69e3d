package config

import (
	"testing"
)

func TestLineFor(t *testing.T) {
	cfg := mustParse(t, readFixture(t, "valid.yaml"))
	dp1, _ := cfg.Instance(1)
	dp2, _ := cfg.Instance(2)
	for _, tc := range []struct {
		name       string
		inst       uint32
		stag, ctag uint16
		want       *Line // nil: no line
	}{
		{"first S-tag of range", 1, 100, 1, dp1.Lines[0]},
		{"last S-tag of range", 1, 149, 4094, dp1.Lines[0]},
		{"below range", 1, 99, 1, nil},
		{"above range", 1, 150, 1, nil},
		{"no C-tag on any-C-tag line", 1, 120, 0, dp1.Lines[0]},
		{"S-tag of the other instance", 2, 100, 1, nil},
		{"adjacent range on the same port", 2, 150, 1, dp2.Lines[1]},
		{"end of adjacent range", 2, 159, 99, dp2.Lines[1]},
		{"past adjacent range", 2, 160, 99, nil},
		{"other port range start", 2, 200, 5, dp2.Lines[0]},
		{"other port range end", 2, 249, 5, dp2.Lines[0]},
		{"C-tag split: first C-tag", 2, 300, 1, dp2.Lines[2]},
		{"C-tag split: last C-tag of lower part", 2, 300, 1999, dp2.Lines[2]},
		{"C-tag split: first C-tag of upper part", 2, 300, 2000, dp2.Lines[3]},
		{"C-tag split: last C-tag", 2, 300, 4094, dp2.Lines[3]},
		{"C-tag split: no C-tag", 2, 300, 0, nil},
		{"C-tag split: C-tag 4095", 2, 300, 4095, nil},
		{"C-tag split: neighbour S-tag below", 2, 299, 1000, nil},
		{"C-tag split: neighbour S-tag above", 2, 301, 1000, nil},
		{"S-tag 0", 1, 0, 1, nil},
		{"S-tag 4095", 1, 4095, 1, nil},
		{"S-tag 65535", 1, 65535, 1, nil},
		{"C-tag 65535", 1, 100, 65535, nil},
		{"unknown instance", 3, 100, 1, nil},
		{"instance 0", 0, 100, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, port, ok := cfg.LineFor(tc.inst, tc.stag, tc.ctag)
			if tc.want == nil {
				if ok || l != nil || port != nil {
					t.Fatalf("LineFor(%d, %d, %d) = %v, %v, %v; want no line", tc.inst, tc.stag, tc.ctag, l, port, ok)
				}
				return
			}
			if !ok || l != tc.want || port != tc.want.AccessPort {
				t.Fatalf("LineFor(%d, %d, %d) = %v, %v, %v; want %v", tc.inst, tc.stag, tc.ctag, l, port, ok, tc.want)
			}
		})
	}
}

// TestLineForExhaustive compares the index with a scan of the lines for
// every S-tag and the C-tags around every range end.
func TestLineForExhaustive(t *testing.T) {
	for _, name := range []string{"valid.yaml", "lab.yaml"} {
		cfg := mustParse(t, readFixture(t, name))
		checkIndexAgainstScan(t, cfg)
	}
	cfg := mustParse(t, manyLines(t, 64))
	checkIndexAgainstScan(t, cfg)
}

func checkIndexAgainstScan(t testing.TB, cfg *Config) {
	t.Helper()
	ctags := map[uint16]bool{0: true, 1: true, 4094: true, 4095: true}
	for _, inst := range cfg.Instances {
		for _, l := range inst.Lines {
			for _, c := range []uint16{l.CTag.Min - 1, l.CTag.Min, l.CTag.Max, l.CTag.Max + 1} {
				ctags[c] = true
			}
		}
	}
	for _, inst := range cfg.Instances {
		for stag := 0; stag <= 4095; stag++ {
			for ctag := range ctags {
				var want *Line
				for _, l := range inst.Lines {
					if l.Matches(uint16(stag), ctag) {
						if want != nil {
							t.Fatalf("instance %d: (%d, %d) matches %v and %v", inst.ID, stag, ctag, want, l)
						}
						want = l
					}
				}
				got, _, _ := cfg.LineFor(inst.ID, uint16(stag), ctag)
				if got != want {
					t.Fatalf("LineFor(%d, %d, %d) = %v, want %v", inst.ID, stag, ctag, got, want)
				}
			}
		}
	}
}

func TestLineString(t *testing.T) {
	cfg := mustParse(t, readFixture(t, "valid.yaml"))
	dp2, _ := cfg.Instance(2)
	for i, want := range map[int]string{
		0: "dp2 line 0 (group lg2, port access2, S-tag 200-249, C-tag any)",
		3: "dp2 line 3 (group lg3, port access2, S-tag 300, C-tag 2000-4094)",
	} {
		if got := dp2.Lines[i].String(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
