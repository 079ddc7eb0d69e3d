package core

import (
	"bytes"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/api"
)

var updateExport = flag.Bool("update-export", false, "rewrite tests/linerate/testdata/cp-export.*")

// The line-rate tools' fixture: an export of this daemon's sessions, as
// bngcpctl sessions --export writes it (tests/linerate/test_profiles.py reads
// it against tests/linerate/testdata/cp-export-pod.yaml, the pod file of this
// test pod).
var exportFixture = filepath.Join("..", "..", "..", "tests", "linerate", "testdata", "cp-export")

// A PPPoE and an IPoE session established by the daemon come out of the
// export with what a traffic generator needs of each: line, TPID, session
// id, MACs, address, group, profile.
func TestSessionExport(t *testing.T) {
	var users string
	for i := range 3 {
		users += fmt.Sprintf("%s%s Cleartext-Password := %q\n", podUser, suffix(i*5), podPassword)
	}
	p := newTestPod(t, ipoeTune(t, defaultIPoE(), users, nil), nil)
	var pppoe []*client
	for i := range 3 {
		c := p.client(i * 5)
		c.dial()
		pppoe = append(pppoe, c)
	}
	d := p.dhcpClient(13, 80)
	d.dora()
	var list []api.ExportedSession
	p.waitFor("four sessions established", 2*time.Second, func() bool {
		list = api.Export(p.sessions())
		n := 0
		for _, s := range p.sessions() {
			if s.State == stEstablished.String() {
				n++
			}
		}
		return n == 4
	})
	by := map[string]api.ExportedSession{}
	for _, e := range list {
		by[e.MAC] = e
	}
	for _, c := range pppoe {
		e := by[macString(c.mac)]
		want := api.ExportedSession{ID: e.ID, Kind: "pppoe", User: c.user, Instance: podInstance, LineGroup: "lg1",
			Port: "access1", TPID: 0x8100, STag: podSTag, CTag: c.ctag, PPPoEID: c.sid, MAC: macString(c.mac),
			ACMAC: macString(podACMAC), Address: netip.AddrFrom4(c.addr).String(), QosProfile: "silver"}
		if e != want || e.ID == "" {
			t.Fatalf("PPPoE export\n got %+v\nwant %+v", e, want)
		}
	}
	e := by[macString(ipoeMAC(13))]
	if e.Kind != "ipoe" || e.PPPoEID != 0 || e.CTag != 80 || e.STag != podSTag || e.TPID != 0x8100 ||
		e.ACMAC != macString(podACMAC) || e.LineGroup != "lg1" || !netip.MustParsePrefix("100.80.0.0/19").Contains(netip.MustParseAddr(e.Address)) {
		t.Fatalf("IPoE export %+v", e)
	}
	for _, format := range []string{"json", "csv"} {
		var b bytes.Buffer
		if err := api.WriteExport(&b, format, list); err != nil {
			t.Fatal(err)
		}
		back, err := api.ReadExport(bytes.NewReader(b.Bytes()), format)
		if err != nil || !reflect.DeepEqual(back, list) {
			t.Fatalf("%s round trip: %v", format, err)
		}
		path := exportFixture + "." + format
		if *updateExport {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		// the fixture is what this code writes for such a daemon (ids and
		// addresses may differ run to run: the fields and kinds must not)
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fix, err := api.ReadExport(bytes.NewReader(old), format)
		if err != nil || len(fix) != len(list) {
			t.Fatalf("%s: %v (%d sessions; run go test ./internal/core -run TestSessionExport -update-export)", path, err, len(fix))
		}
	}
}
