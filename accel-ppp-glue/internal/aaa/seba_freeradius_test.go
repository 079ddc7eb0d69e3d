package aaa

import (
	"context"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
)

// A subscriber whose identity comes from SADIS (docs/seba.md): FreeRADIUS
// sees SADIS's nasPortId as NAS-Port-Id and its circuitId/remoteId as the
// BBF Agent-Circuit-Id/Agent-Remote-Id (vendor 3561, attributes 1 and 2) in
// the Access-Request and in accounting. The values have SADIS's shapes: a
// circuit id with spaces and a colon, a UTF-8 remote id, a 63-octet id (the
// most RFC 4679 allows, and the most the SEBA app passes on).
func TestFreeRADIUSSebaIdentity(t *testing.T) {
	f := startFreeRADIUS(t, frUsers)
	c := frClient(t, f)
	ctx := context.Background()
	circuit := "olt1 eth 0/1:1.1 " + strings.Repeat("c", 63-len("olt1 eth 0/1:1.1 "))
	remote := "Zürich-2"
	hexOf := func(s string) string { return "0x" + hex.EncodeToString([]byte(s)) }

	res, err := c.Authenticate(ctx, &AccessRequest{
		UserName: "alice", PAPPassword: []byte("pw-alice"), NASPortID: "BBSM00000001-1",
		CallingStationID: "02-00-00-00-00-01", AcctSessionID: "seba-1", CircuitID: circuit, RemoteID: remote,
	})
	if err != nil || !res.Accept {
		t.Fatalf("accept expected: %+v %v", res, err)
	}
	for _, want := range []string{`NAS-Port-Id = "BBSM00000001-1"`, `Acct-Session-Id = "seba-1"`,
		`ADSL-Agent-Circuit-Id = ` + hexOf(circuit), `ADSL-Agent-Remote-Id = ` + hexOf(remote)} {
		if !f.logHas(want) {
			t.Errorf("server log lacks %q", want)
		}
	}

	base := AcctRequest{SessionID: "seba-1", UserName: "alice", NASPortID: "BBSM00000001-1",
		CallingStationID: "02-00-00-00-00-01", CircuitID: circuit, RemoteID: remote}
	start, stop := base, base
	start.Status = AcctStart
	stop.Status, stop.TerminateCause = AcctStop, 2 // Lost-Carrier
	for _, r := range []*AcctRequest{&start, &stop} {
		if err := c.Account(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	recs := f.detailRecords(t)
	if len(recs) != 2 {
		t.Fatalf("want 2 detail records, got %d:\n%s", len(recs), strings.Join(recs, "\n---\n"))
	}
	for i, rec := range recs {
		for _, l := range []string{`NAS-Port-Id = "BBSM00000001-1"`, `ADSL-Agent-Circuit-Id = ` + hexOf(circuit),
			`ADSL-Agent-Remote-Id = ` + hexOf(remote)} {
			if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(l) + `$`).MatchString(rec) {
				t.Errorf("record %d lacks %q:\n%s", i, l, rec)
			}
		}
	}
	if !strings.Contains(recs[1], "Acct-Terminate-Cause = Lost-Carrier") {
		t.Errorf("Stop without Lost-Carrier:\n%s", recs[1])
	}
}
