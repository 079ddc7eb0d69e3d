package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary documents to Parse: it must never panic (nor
// recover from one), must reject with a well-formed Errors, and whatever it
// accepts must be consistent.
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 60s ./internal/config
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	if data, err := os.ReadFile(goldenLab); err == nil {
		f.Add(data)
	}
	f.Add(manyLines(f, 8))
	for _, s := range []string{
		"",
		"pod: lab\n",
		"pod: &a [*a]\n",
		"a: &a {b: *a}\ninstances: [*a]\n",
		"instances: [{id: 1, lines: [{stag: {min: 1, max: 4094}, ctag: null}]}]\n",
		"? [a]\n: b\n",
		"pod: !!binary bGFi\n",
		"---\n...\n---\n",
	} {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			checkRejected(t, cfg, err)
			return
		}
		checkConsistent(t, cfg)
	})
}

// checkConsistent checks the invariants of an accepted Config.
func checkConsistent(t *testing.T, cfg *Config) {
	t.Helper()
	for _, g := range cfg.LineGroups {
		if g.Instance == nil || g.QosProfile == nil || len(g.Pools) == 0 {
			t.Fatalf("line group %s not resolved", g.Name)
		}
		if got, ok := cfg.LineGroup(g.Name); !ok || got != g {
			t.Fatalf("LineGroup(%q) = %v", g.Name, got)
		}
		for _, p := range g.Pools {
			if p.LineGroup != g {
				t.Fatalf("pool %s of %s is bound to %v", p.Name, g.Name, p.LineGroup)
			}
		}
	}
	for _, p := range cfg.Pools {
		if p.LineGroup == nil {
			t.Fatalf("pool %s not bound", p.Name)
		}
	}
	for _, inst := range cfg.Instances {
		if got, ok := cfg.Instance(inst.ID); !ok || got != inst {
			t.Fatalf("Instance(%d) = %v", inst.ID, got)
		}
		for _, g := range inst.LineGroups {
			if g.Instance != inst {
				t.Fatalf("instance %d lists %s of instance %v", inst.ID, g.Name, g.Instance)
			}
		}
		for i, l := range inst.Lines {
			if l.Index != i || l.Instance != inst || l.Group == nil || l.Group.Instance != inst || l.AccessPort == nil {
				t.Fatalf("line %v not resolved", l)
			}
			// The line's corners must find the line itself.
			for _, s := range []uint16{l.STag.Min, l.STag.Max} {
				for _, c := range []uint16{l.CTag.Min, l.CTag.Max} {
					got, port, ok := cfg.LineFor(inst.ID, s, c)
					if !ok || got != l || port != l.AccessPort {
						t.Fatalf("LineFor(%d, %d, %d) = %v, want %v", inst.ID, s, c, got, l)
					}
				}
				got, _, ok := cfg.LineFor(inst.ID, s, 0)
				if ok != l.AnyCTag || (ok && got != l) {
					t.Fatalf("LineFor(%d, %d, 0) = %v, %v for %v", inst.ID, s, got, ok, l)
				}
			}
		}
	}
}
