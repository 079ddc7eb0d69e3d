package config

import (
	"errors"
	"os"
	"testing"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// goldenLab is the generator's cp.yaml for the lab pod
// (topology/examples/lab.yaml), relative to this package.
const goldenLab = "../../../topology/tests/golden/lab/cp.yaml"

func TestGoldenLab(t *testing.T) {
	if _, err := os.Stat(goldenLab); errors.Is(err, os.ErrNotExist) {
		prereq.Skip(t, goldenLab+" does not exist: topology's golden files are missing from this checkout")
	}
	cfg, err := Load(goldenLab)
	if err != nil {
		t.Fatal(err)
	}
	// access3 S-tag 300 is split by C-tag between lg3 on dp3 and lg4 on dp4.
	if l, _, ok := cfg.LineFor(3, 300, 1999); !ok || l.Group.Name != "lg3" {
		t.Errorf("LineFor(3, 300, 1999) = %v, %v; want lg3's line", l, ok)
	}
	if l, _, ok := cfg.LineFor(4, 300, 2000); !ok || l.Group.Name != "lg4" {
		t.Errorf("LineFor(4, 300, 2000) = %v, %v; want lg4's line", l, ok)
	}
	checkLabLineFor(t, cfg)
	checkIndexAgainstScan(t, cfg)
	// gold keeps the subscribers' upstream DSCP (up_dscp: null), silver re-marks to 0.
	gold, _ := cfg.QosProfile("gold")
	silver, _ := cfg.QosProfile("silver")
	if gold == nil || silver == nil || gold.UpDSCP != DSCPKeep || silver.UpDSCP != 0 {
		t.Errorf("UpDSCP: gold %+v, silver %+v", gold, silver)
	}
}
