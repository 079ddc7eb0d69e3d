package onos

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The Java app's answer (seba-teardowns.json, written by
// TeardownsContractTest from the real resource) is read field for field and
// handed over once, in order; the next poll asks after the answer's version.
func TestContractTeardownsFromJava(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(contractDir, "seba-teardowns.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex exchange
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Method != "GET" || ex.Path != "/teardowns?after=0" || ex.Status != 200 {
		t.Fatalf("fixture: %s %s %d", ex.Method, ex.Path, ex.Status)
	}
	_, subs := subscribersServer(t, func() (int, string) { return ex.Status, string(ex.Body) })
	if got := subs.TeardownsURL(0); !strings.HasSuffix(got, "/onos/bngpod-seba/teardowns?after=0") {
		t.Fatal(got)
	}
	var got []Teardown
	subs.OnTeardown = func(td Teardown) { got = append(got, td) }
	next := subs.PollTeardowns(context.Background(), 0)
	if next != 2 || len(got) != 2 {
		t.Fatalf("version %d, %d requests: %+v", next, len(got), got)
	}
	want := []Teardown{
		{Version: 1, AccessPort: "access1", STag: 100, CTag: 2, UNI: "BBSM00000001-1", Cause: CauseLostCarrier,
			At: time.Date(2026, 1, 2, 3, 4, 5, 250000000, time.UTC)},
		{Version: 2, AccessPort: "access1", STag: 100, CTag: 3, UNI: "BBSM00000002-1", Cause: CauseAdminReset,
			At: time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC)},
	}
	for i := range want {
		a, b := got[i], want[i]
		if !a.At.Equal(b.At) {
			t.Errorf("request %d: at %v want %v", i, a.At, b.At)
		}
		a.At, b.At = time.Time{}, time.Time{}
		if a != b {
			t.Errorf("request %d: got %+v want %+v", i, got[i], want[i])
		}
	}
	// Already seen: asked after 2, the same body hands nothing over again
	// (its versions are not above 2).
	if next = subs.PollTeardowns(context.Background(), 2); next != 2 || len(got) != 2 {
		t.Fatalf("second poll: version %d, %d requests", next, len(got))
	}
}

// Hostile answers: bad requests left out, the rest handed over; a body that
// is not an answer, a 5xx or a 404 hand nothing over and keep the version;
// a version below the last one reads from the start again.
func TestTeardownsBadAnswers(t *testing.T) {
	var body atomic.Value
	var code atomic.Int32
	code.Store(200)
	_, subs := subscribersServer(t, func() (int, string) { return int(code.Load()), body.Load().(string) })
	var got []Teardown
	subs.OnTeardown = func(td Teardown) { got = append(got, td) }
	req := func(v int, port string, stag, ctag int, cause, at, extra string) string {
		return `{"version":` + itoa(v) + `,"accessPort":"` + port + `","stag":` + itoa(stag) + `,"ctag":` + itoa(ctag) +
			`,"uni":"U-1","cause":"` + cause + `","at":"` + at + `"` + extra + `}`
	}
	const at = "2026-01-02T03:04:05Z"
	body.Store(`{"version":9,"teardowns":[` + strings.Join([]string{
		req(1, "access1", 100, 2, CauseLostCarrier, at, ""),
		req(2, "access1", 0, 2, CauseLostCarrier, at, ""),
		req(3, "access1", 100, 2, "User-Request", at, ""),
		req(4, "access1", 100, 2, CauseAdminReset, "yesterday", ""),
		req(5, "access1", 100, 2, CauseAdminReset, at, `,"x":1`),
		req(6, "", 100, 2, CauseAdminReset, at, ""),
		req(10, "access1", 100, 2, CauseAdminReset, at, ""),
		req(7, "access1", 100, 7, CauseAdminReset, at, ""),
		`[]`,
	}, ",") + `]}`)
	if v := subs.PollTeardowns(context.Background(), 0); v != 9 {
		t.Fatalf("version %d", v)
	}
	if len(got) != 2 || got[0].Version != 1 || got[1].Version != 7 {
		t.Fatalf("handed over %+v", got)
	}
	for _, b := range []string{`nope`, `{"teardowns":[]}`, `{"version":-1,"teardowns":[]}`, `{"version":3}`} {
		body.Store(b)
		if v := subs.PollTeardowns(context.Background(), 9); v != 9 {
			t.Errorf("%q: version %d", b, v)
		}
	}
	code.Store(500)
	if v := subs.PollTeardowns(context.Background(), 9); v != 9 {
		t.Errorf("500: version %d", v)
	}
	code.Store(200)
	body.Store(`{"version":1,"teardowns":[]}`)
	if v := subs.PollTeardowns(context.Background(), 9); v != 0 {
		t.Errorf("the app's log started again: next after %d, want 0", v)
	}
	if len(got) != 2 {
		t.Fatalf("handed over more: %+v", got)
	}
}

// FuzzDecodeTeardowns: never panics; every request handed over is valid.
func FuzzDecodeTeardowns(f *testing.F) {
	if raw, err := os.ReadFile(filepath.Join(contractDir, "seba-teardowns.json")); err == nil {
		var ex exchange
		if json.Unmarshal(raw, &ex) == nil {
			f.Add([]byte(ex.Body), int64(0))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, after int64) {
		v, ts, _, err := DecodeTeardowns(b, after)
		if err != nil {
			return
		}
		for _, td := range ts {
			if td.Version <= after || td.Version > v || td.AccessPort == "" || td.STag < 1 || td.STag > 4094 ||
				td.CTag < 1 || td.CTag > 4094 || td.At.IsZero() ||
				(td.Cause != CauseLostCarrier && td.Cause != CauseAdminReset) {
				t.Fatalf("handed over %+v", td)
			}
		}
	})
}
