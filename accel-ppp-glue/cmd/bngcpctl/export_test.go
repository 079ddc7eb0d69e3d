package main

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/api"
)

// sessions --export: only established sessions unless --state says
// otherwise, every field of the view where the line-rate tools read it, in
// JSON and in CSV alike.
func TestSessionsExport(t *testing.T) {
	f := newFake()
	wan, pd := netip.MustParsePrefix("2001:db8:0:1::/64"), netip.MustParsePrefix("2001:db8:100::/56")
	f.sessions[0].State = "established"
	f.sessions[0].LineGroup, f.sessions[0].ACMAC, f.sessions[0].TPID = "lg1", "02:ac:00:00:00:01", 0x88a8
	f.sessions[0].IPv6Prefix, f.sessions[0].DelegatedPrefix = &wan, &pd
	f.sessions[1].State = "established" // IPoE, single-tagged, no address yet
	f.sessions[1].User = "ipoe-user"
	f.sessions = append(f.sessions, api.SessionView{ID: "3", State: "negotiating", AccessPort: "olt1", STag: 100,
		CTag: 8, MAC: "02:00:00:00:00:03", PPPoESessionID: 3})
	sock := serve(t, f)
	want := []api.ExportedSession{
		{ID: "1", Kind: "pppoe", User: "user1", Instance: 1, LineGroup: "lg1", Port: "olt1", TPID: 0x88a8, STag: 100,
			CTag: 7, PPPoEID: 1, MAC: "02:00:00:00:00:01", ACMAC: "02:ac:00:00:00:01", Address: "100.64.0.2",
			IPv6Prefix: "2001:db8:0:1::/64", DelegatedPrefix: "2001:db8:100::/56", QosProfile: "100M",
			RateDown: 100e6, RateUp: 20e6},
		{ID: "2", Kind: "ipoe", User: "ipoe-user", Instance: 2, Port: "olt2", STag: 200, MAC: "02:00:00:00:00:02"},
	}
	for _, format := range []string{"json", "csv"} {
		code, out, errOut := ctl(sock, "sessions", "--export", format)
		if code != 0 {
			t.Fatalf("%s: %d %s", format, code, errOut)
		}
		got, err := api.ReadExport(strings.NewReader(out), format)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %v\n%s\n%+v", format, err, out, got)
		}
		if format == "csv" && !strings.HasPrefix(out, strings.Join(api.ExportColumns, ",")+"\n") {
			t.Fatalf("csv header: %q", out)
		}
	}
	// a state filter replaces the default; the others narrow it
	code, out, _ := ctl(sock, "sessions", "--export", "csv", "--state", "negotiating", "--instance", "0")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(out, "\n3,pppoe,,0,,olt1,0,100,8,3,") {
		t.Fatalf("negotiating: %d %q", code, out)
	}
	f.mu.Lock()
	reqs := f.requests
	f.mu.Unlock()
	if reqs[0] != "GET /v1/sessions?state=established" || reqs[2] != "GET /v1/sessions?instance=0&state=negotiating" {
		t.Fatalf("requests %q", reqs)
	}
	// nothing established: an empty list, a header alone
	code, out, _ = ctl(sock, "sessions", "--export", "json", "--user", "nobody")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("empty json: %q", out)
	}
	code, out, _ = ctl(sock, "sessions", "--export", "csv", "--user", "nobody")
	if code != 0 || out != strings.Join(api.ExportColumns, ",")+"\n" {
		t.Fatalf("empty csv: %q", out)
	}
	if code, _, errOut := ctl(sock, "sessions", "--export", "xml"); code != 2 || !strings.Contains(errOut, `--export "xml"`) {
		t.Fatalf("xml: %d %s", code, errOut)
	}
}
