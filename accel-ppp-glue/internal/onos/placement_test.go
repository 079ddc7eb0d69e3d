package onos

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodePlacement(t *testing.T) {
	p, err := DecodePlacement([]byte(`{"version":7,"groups":[{"lineGroup":"lg1","instance":1,"state":"placed","reason":"stated"},
		{"lineGroup":"lg2","instance":null,"state":"unplaced","reason":"no capacity"},{"lineGroup":"lg3","state":"unplaced"}],
		"instances":[{"id":1,"name":"dp1","available":true},{"id":2,"name":"dp2","available":false}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 7 || len(p.Groups) != 3 || !p.Groups[0].Placed || p.Groups[0].Instance != 1 ||
		p.Groups[1].Placed || p.Groups[1].Reason != "no capacity" || len(p.Instances) != 2 || p.Instances[1].Available {
		t.Fatalf("%+v", p)
	}
	for _, bad := range []struct{ body, want string }{
		{``, "EOF"},
		{`[]`, "cannot unmarshal"},
		{`{"groups":[]}`, "version missing"},
		{`{"version":-1}`, "version"},
		{`{"version":1.5}`, "version"},
		{`{"version":1} {}`, "data after"},
		{`{"version":1,"groups":[null]}`, "groups[0] is null"},
		{`{"version":1,"groups":[{"instance":1,"state":"placed"}]}`, "groups[0].lineGroup"},
		{`{"version":1,"groups":[{"lineGroup":"../x","instance":1,"state":"placed"}]}`, "groups[0].lineGroup"},
		{`{"version":1,"groups":[{"lineGroup":"a","instance":1,"state":"placed"},{"lineGroup":"a","instance":2,"state":"placed"}]}`, "given twice"},
		{`{"version":1,"groups":[{"lineGroup":"a","instance":0,"state":"placed"}]}`, "groups[0].instance"},
		{`{"version":1,"groups":[{"lineGroup":"a","instance":16777216,"state":"placed"}]}`, "groups[0].instance"},
		{`{"version":1,"groups":[{"lineGroup":"a","instance":"x","state":"placed"}]}`, "groups[0].instance"},
		{`{"version":1,"groups":[{"lineGroup":"a","state":"placed"}]}`, "without an instance"},
		{`{"version":1,"groups":[{"lineGroup":"a","instance":1,"state":"unplaced"}]}`, "unplaced with instance"},
		{`{"version":1,"groups":[{"lineGroup":"a","instance":1,"state":"moving"}]}`, "neither placed"},
		{`{"version":1,"groups":[{"lineGroup":"a","instance":1}]}`, "state missing"},
		{`{"version":1,"instances":[{"name":"dp1"}]}`, "instances[0].id"},
		{`{"version":1,"instances":[{"id":-3}]}`, "instances[0].id"},
		{`{"version":1,"groups":{}}`, "cannot unmarshal"},
	} {
		_, err := DecodePlacement([]byte(bad.body))
		if err == nil || !errors.Is(err, ErrBadPlacement) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want an ErrBadPlacement containing %q", bad.body, err, bad.want)
		}
	}
	if _, err := DecodePlacement(make([]byte, MaxPlacementBody+1)); err == nil {
		t.Error("oversized body accepted")
	}
}

// FuzzDecodePlacement: hostile /placement bodies are an error or a
// placement that keeps the documented invariants, never a panic.
//
//	go test -run '^$' -fuzz FuzzDecodePlacement -fuzztime 60s ./internal/onos
func FuzzDecodePlacement(f *testing.F) {
	for _, s := range []string{
		`{"version":7,"groups":[{"lineGroup":"lg1","instance":1,"state":"placed","reason":"r"}],"instances":[{"id":1,"name":"dp1","available":true}]}`,
		`{"version":0,"groups":[{"lineGroup":"lg2","instance":null,"state":"unplaced"}]}`,
		`{"version":1e3}`, `{"version":"5"}`, `null`, `{"version":1,"groups":[{"lineGroup":"a","instance":1.0,"state":"placed"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePlacement(b)
		if err != nil {
			if p != nil || !errors.Is(err, ErrBadPlacement) {
				t.Fatalf("error %v with placement %v", err, p)
			}
			return
		}
		if p.Version < 0 {
			t.Fatalf("version %d", p.Version)
		}
		seen := map[string]bool{}
		for _, g := range p.Groups {
			if !reName.MatchString(g.LineGroup) || seen[g.LineGroup] || len(g.Reason) > maxReason {
				t.Fatalf("group %+v", g)
			}
			seen[g.LineGroup] = true
			if g.Placed != (g.Instance != 0) || g.Instance > maxInstanceID {
				t.Fatalf("group %+v", g)
			}
		}
		for _, in := range p.Instances {
			if in.ID == 0 || in.ID > maxInstanceID {
				t.Fatalf("instance %+v", in)
			}
		}
	})
}
