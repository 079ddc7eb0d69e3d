package config

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t testing.TB, data []byte) *Config {
	t.Helper()
	cfg, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return cfg
}

func TestParseValid(t *testing.T) {
	cfg := mustParse(t, readFixture(t, "valid.yaml"))

	if cfg.Pod != "lab" {
		t.Errorf("Pod = %q", cfg.Pod)
	}
	wantCP := ControlPlane{Address: netip.MustParseAddr("10.200.0.1"), PFCPPort: 8805, VXLANPort: 4789,
		Heartbeat: DefaultHeartbeat, HeartbeatTimeout: DefaultHeartbeatTimeout, HeartbeatTries: DefaultHeartbeatTries}
	if cfg.ControlPlane != wantCP {
		t.Errorf("ControlPlane = %+v, want %+v", cfg.ControlPlane, wantCP)
	}
	if want := netip.MustParsePrefix("10.200.0.0/24"); cfg.Management.Subnet != want {
		t.Errorf("Management.Subnet = %v", cfg.Management.Subnet)
	}

	r := cfg.Radius
	if r.NASIdentifier != "bngpod-lab" || r.CoAPort != 3799 || r.Timeout != 3*time.Second || r.Retries != 3 {
		t.Errorf("Radius = %+v", r)
	}
	if len(r.Servers) != 1 {
		t.Fatalf("%d RADIUS servers", len(r.Servers))
	}
	s := r.Servers[0]
	if s.Name != "radius1" || s.Address != netip.MustParseAddr("10.200.0.2") || s.AuthPort != 1812 || s.AcctPort != 1813 || string(s.Secret) != "testing123" {
		t.Errorf("server = %+v", s)
	}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		if out := fmt.Sprintf(format, *s); strings.Contains(out, "testing123") {
			t.Errorf("%s of a RADIUS server reveals the secret: %s", format, out)
		}
	}

	ap1, ok := cfg.AccessPort("access1")
	if !ok || ap1.TPID != TPID8021Q || ap1.Rate != 10000000000 {
		t.Errorf("access1 = %+v, %v", ap1, ok)
	}
	ap2, ok := cfg.AccessPort("access2")
	if !ok || ap2.TPID != TPID8021AD || ap2.Rate != 25000000000 {
		t.Errorf("access2 = %+v, %v", ap2, ok)
	}
	if _, ok := cfg.AccessPort("access9"); ok {
		t.Error("AccessPort(access9) found")
	}

	gold, ok := cfg.QosProfile("gold")
	if !ok || gold.DownRate != 100000000 || gold.UpPIR != 50000000 || gold.UpCIR != 20000000 {
		t.Fatalf("gold = %+v, %v", gold, ok)
	}
	var tcs []uint8
	for _, c := range gold.Classes {
		tcs = append(tcs, c.TC)
	}
	if fmt.Sprint(tcs) != "[0 2 12]" {
		t.Errorf("gold classes in order %v, want [0 2 12]", tcs)
	}
	video, ok := gold.Class(2)
	if !ok || video.Name != "video" || video.Rate != gold.DownRate || video.Weights != nil {
		t.Errorf("video = %+v (rate defaults to down_rate)", video)
	}
	be, ok := gold.Class(BestEffortTC)
	if !ok || fmt.Sprint(be.Weights) != "[4 2 1 1]" || len(be.DSCP) != 0 {
		t.Errorf("best effort = %+v", be)
	}
	for dscp, want := range map[uint8]uint8{46: 0, 34: 2, 36: 2, 0: BestEffortTC, 63: BestEffortTC, 200: BestEffortTC} {
		if got := gold.ClassForDSCP(dscp); got != want {
			t.Errorf("ClassForDSCP(%d) = %d, want %d", dscp, got, want)
		}
	}
	silver, ok := cfg.QosProfile("silver")
	if !ok || silver.UpCIR != silver.UpPIR || len(silver.Classes) != 0 || silver.ClassForDSCP(46) != BestEffortTC {
		t.Errorf("silver = %+v (up_cir defaults to up_pir)", silver)
	}
	if gold.UpDSCP != DSCPKeep || silver.UpDSCP != 0 {
		t.Errorf("UpDSCP gold = %d (no key: keep), silver = %d", gold.UpDSCP, silver.UpDSCP)
	}
	if _, ok := cfg.QosProfile("bronze"); ok {
		t.Error("QosProfile(bronze) found")
	}

	pool1, ok := cfg.Pool("pool1")
	if !ok || pool1.Prefix != netip.MustParsePrefix("100.80.0.0/22") || fmt.Sprint(pool1.DNS) != "[198.51.100.53]" {
		t.Errorf("pool1 = %+v", pool1)
	}
	if p, _ := cfg.Pool("pool4"); p == nil || len(p.DNS) != 0 {
		t.Errorf("pool4 = %+v", p)
	}
	if _, ok := cfg.Pool("pool9"); ok {
		t.Error("Pool(pool9) found")
	}

	lg3, ok := cfg.LineGroup("lg3")
	if !ok {
		t.Fatal("LineGroup(lg3) not found")
	}
	if lg3.ACMAC.String() != "02:bb:00:00:00:03" || lg3.CoreMAC.String() != "02:cc:00:00:00:03" || lg3.CoreAddress != netip.MustParseAddr("100.64.0.13") {
		t.Errorf("lg3 = %+v", lg3)
	}
	if lg3.QosProfile != silver {
		t.Errorf("lg3 profile %v, want silver", lg3.QosProfile.Name)
	}
	if len(lg3.Pools) != 2 || lg3.Pools[0].Name != "pool3" || lg3.Pools[1].Name != "pool4" || lg3.Pools[0].LineGroup != lg3 {
		t.Errorf("lg3 pools %+v", lg3.Pools)
	}
	if lg3.Instance == nil || lg3.Instance.ID != 2 {
		t.Errorf("lg3 instance %+v", lg3.Instance)
	}
	if len(lg3.Lines) != 1 || lg3.Lines[0].Group != lg3 {
		t.Errorf("lg3 lines %v", lg3.Lines)
	}
	if _, ok := cfg.LineGroup("lg9"); ok {
		t.Error("LineGroup(lg9) found")
	}

	dp2, ok := cfg.Instance(2)
	if !ok || dp2.Name != "dp2" || dp2.ControlAddress != netip.MustParseAddr("10.200.0.12") || dp2.DataMAC.String() != "02:00:00:00:01:02" {
		t.Fatalf("instance 2 = %+v", dp2)
	}
	if len(dp2.LineGroups) != 2 || dp2.LineGroups[0].Name != "lg2" || dp2.LineGroups[1] != lg3 {
		t.Errorf("dp2 line groups %v", dp2.LineGroups)
	}
	if len(dp2.Lines) != 4 {
		t.Fatalf("dp2 has %d lines", len(dp2.Lines))
	}
	for i, l := range dp2.Lines {
		if l.Index != i || l.Instance != dp2 {
			t.Errorf("dp2 line %d: Index %d, Instance %v", i, l.Index, l.Instance.Name)
		}
	}
	if l := dp2.Lines[3]; l.STag != (TagRange{300, 300}) || l.CTag != (TagRange{2000, 4094}) || l.AnyCTag || l.AccessPort != ap2 || l.Group != lg3 {
		t.Errorf("dp2 line 3 = %v", l)
	}
	if l := dp2.Lines[0]; l.CTag != anyTag || !l.AnyCTag {
		t.Errorf("dp2 line 0 = %v", l)
	}
	if _, ok := cfg.Instance(3); ok {
		t.Error("Instance(3) found")
	}
	if len(cfg.Instances) != 2 || len(cfg.LineGroups) != 3 || len(cfg.Pools) != 4 || len(cfg.AccessPorts) != 2 || len(cfg.QosProfiles) != 2 {
		t.Error("wrong number of objects")
	}
}

// The lab fixture is block style and shares the pools' DNS list through an
// anchor and aliases, as PyYAML writes it.
func TestParseLabFixture(t *testing.T) {
	cfg := mustParse(t, readFixture(t, "lab.yaml"))
	for _, name := range []string{"pool1", "pool2", "pool3", "pool4"} {
		p, _ := cfg.Pool(name)
		if p == nil || fmt.Sprint(p.DNS) != "[198.51.100.53]" {
			t.Errorf("%s = %+v", name, p)
		}
	}
	checkLabLineFor(t, cfg)
}

// checkLabLineFor checks the lookups the lab pod is built to show: access3
// S-tag 300 split by C-tag between lg3 on dp3 and lg4 on dp4.
func checkLabLineFor(t *testing.T, cfg *Config) {
	t.Helper()
	for _, tc := range []struct {
		inst       uint32
		stag, ctag uint16
		group      string // "" when no line takes the frame
	}{
		{3, 300, 1, "lg3"},
		{3, 300, 1999, "lg3"},
		{3, 300, 2000, ""},
		{4, 300, 2000, "lg4"},
		{4, 300, 4094, "lg4"},
		{4, 300, 1999, ""},
		{1, 100, 7, "lg1"},
		{2, 150, 7, "lg2"},
		{2, 249, 0, "lg2"},
		{4, 449, 1, "lg4"},
		{4, 450, 1, ""},
	} {
		l, port, ok := cfg.LineFor(tc.inst, tc.stag, tc.ctag)
		switch {
		case tc.group == "" && ok:
			t.Errorf("LineFor(%d, %d, %d) = %v, want none", tc.inst, tc.stag, tc.ctag, l)
		case tc.group == "":
		case !ok:
			t.Errorf("LineFor(%d, %d, %d) found nothing, want %s", tc.inst, tc.stag, tc.ctag, tc.group)
		case l.Group.Name != tc.group || port != l.AccessPort || l.Instance.ID != tc.inst:
			t.Errorf("LineFor(%d, %d, %d) = %v, want a line of %s", tc.inst, tc.stag, tc.ctag, l, tc.group)
		}
	}
	if l, _, ok := cfg.LineFor(3, 300, 1999); ok && l.AccessPort.Name != "access3" {
		t.Errorf("LineFor(3, 300, 1999) port %s, want access3", l.AccessPort.Name)
	}
}

func TestLoad(t *testing.T) {
	cfg, err := Load(filepath.Join("testdata", "valid.yaml"))
	if err != nil || cfg.Pod != "lab" {
		t.Fatalf("Load = %v, %v", cfg, err)
	}

	if _, err := Load(filepath.Join("testdata", "does-not-exist.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want os.ErrNotExist", err)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "cp.yaml")
	data := strings.Replace(string(readFixture(t, "valid.yaml")), "tpid: 33024", "tpid: 1", 1)
	if err := os.WriteFile(bad, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 1 || errs[0].Path != "access_ports[0].tpid" {
		t.Fatalf("Load of an invalid file: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "config "+bad+": access_ports[0].tpid: ") {
		t.Errorf("error %q does not name the file and the location", err)
	}

	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, MaxConfigSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Load of an oversized file: %v", err)
	}
}

func TestErrorsFormat(t *testing.T) {
	one := Errors{{Path: "instances[1].lines[0].group", Line: 57, Msg: `unknown line group "lg9"`}}
	if got, want := one.Error(), `instances[1].lines[0].group: unknown line group "lg9" (line 57)`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	two := append(one, &Error{Msg: "empty document"})
	if got := two.Error(); got != "2 errors:\n\t"+one[0].Error()+"\n\tempty document" {
		t.Errorf("got %q", got)
	}
	var e *Error
	if !errors.As(error(two), &e) || e != two[0] {
		t.Error("errors.As does not reach the individual errors")
	}
}
