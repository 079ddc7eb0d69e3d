package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestONOSAbsentIsDisabled(t *testing.T) {
	cfg := mustParse(t, readFixture(t, "valid.yaml"))
	if cfg.ONOS != nil {
		t.Fatalf("ONOS = %+v without an onos section", cfg.ONOS)
	}
	cfg = mustParse(t, append(readFixture(t, "valid.yaml"), "onos: null\n"...))
	if cfg.ONOS != nil {
		t.Fatalf("ONOS = %+v with onos: null", cfg.ONOS)
	}
}

func TestONOSSection(t *testing.T) {
	cfg := mustParse(t, readFixture(t, "onos.yaml"))
	o := cfg.ONOS
	if o == nil {
		t.Fatal("no ONOS settings")
	}
	if got := o.URL.String(); got != "http://127.0.0.1:8181/onos/bngpod" {
		t.Errorf("URL = %s (the trailing slash is dropped)", got)
	}
	if o.Username != "onos" || string(o.Password) != "rocks" || o.CPName != "cp1" {
		t.Errorf("credentials/name = %q %q %q", o.Username, string(o.Password), o.CPName)
	}
	if o.PollInterval != time.Second || o.Timeout != 2*time.Second {
		t.Errorf("durations = %v %v", o.PollInterval, o.Timeout)
	}
	if s := fmt.Sprintf("%v %+v", o.Password, *o); strings.Contains(s, "rocks") {
		t.Errorf("password printed: %s", s)
	}
	// Defaults: cp_name is the NAS-Identifier; 1 s poll, 2 s timeout.
	data := applyEdits(t, string(readFixture(t, "onos.yaml")), []edit{
		{"  cp_name: cp1\n", ""}, {"  poll_interval: 1s\n", ""}, {"  timeout: 2s\n", ""}})
	o = mustParse(t, []byte(data)).ONOS
	if o.CPName != "bngpod-lab" || o.PollInterval != DefaultONOSPollInterval || o.Timeout != DefaultONOSTimeout {
		t.Errorf("defaults: %+v", *o)
	}
	// seba_strict: off unless set
	if o.SebaStrict {
		t.Errorf("seba_strict on by default")
	}
	for text, want := range map[string]bool{"true": true, "false": false} {
		data := applyEdits(t, string(readFixture(t, "onos.yaml")), []edit{{"  timeout: 2s\n", "  timeout: 2s\n  seba_strict: " + text + "\n"}})
		if got := mustParse(t, []byte(data)).ONOS.SebaStrict; got != want {
			t.Errorf("seba_strict %s: %v", text, got)
		}
	}
	// placement_wait: 30 s long polls unless set; 0s polls every poll_interval
	if o.PlacementWait != 30*time.Second {
		t.Errorf("default placement_wait %v", o.PlacementWait)
	}
	for text, want := range map[string]time.Duration{"0s": 0, "1s": time.Second, "60s": time.Minute} {
		data := applyEdits(t, string(readFixture(t, "onos.yaml")), []edit{{"  timeout: 2s\n", "  timeout: 2s\n  placement_wait: " + text + "\n"}})
		if got := mustParse(t, []byte(data)).ONOS.PlacementWait; got != want {
			t.Errorf("placement_wait %s: %v", text, got)
		}
	}
}

func TestONOSReject(t *testing.T) {
	valid := string(readFixture(t, "onos.yaml"))
	for _, tc := range []struct {
		name  string
		edits []edit
		want  []string
	}{
		{"empty section", []edit{{"onos:\n  url: http://127.0.0.1:8181/onos/bngpod/\n  username: onos\n  password: rocks\n  cp_name: cp1\n  poll_interval: 1s\n  timeout: 2s\n", "onos: {}\n"}},
			[]string{"onos.url: required key missing", "onos.username: required key missing", "onos.password: required key missing"}},
		{"unknown key", []edit{{"  timeout: 2s\n", "  timeout: 2s\n  tls: true\n"}}, []string{"onos.tls: unknown key"}},
		{"not a mapping", []edit{{"onos:\n  url:", "onos: [1]\nx:\n  url:"}}, nil}, // checked below: any error
		{"scheme", []edit{{"url: http://127.0.0.1", "url: ftp://127.0.0.1"}}, []string{"onos.url: URL \"ftp://127.0.0.1:8181/onos/bngpod/\" must start with http:// or https://"}},
		{"no host", []edit{{"url: http://127.0.0.1:8181/onos/bngpod/", "url: http:///onos"}}, []string{"onos.url: URL \"http:///onos\" has no host"}},
		{"credentials in URL", []edit{{"url: http://127.0.0.1", "url: http://a:b@127.0.0.1"}}, []string{"onos.url: URL must not carry credentials"}},
		{"query", []edit{{"onos/bngpod/", "onos/bngpod/?x=1"}}, []string{"must not have a query or a fragment"}},
		{"garbage URL", []edit{{"url: http://127.0.0.1:8181/onos/bngpod/", "url: \"http://[::1\""}}, []string{"onos.url: invalid URL"}},
		{"empty username", []edit{{"username: onos", `username: ""`}}, []string{"onos.username: must be 1 to 255 bytes long"}},
		{"colon in username", []edit{{"username: onos", `username: "a:b"`}}, []string{"onos.username: must not contain ':'"}},
		{"newline in password", []edit{{"password: rocks", `password: "ro\ncks"`}}, []string{"onos.password: must not contain NUL, CR or LF"}},
		{"numeric password", []edit{{"password: rocks", "password: 1234"}}, []string{`onos.password: expected a string, found an integer "1234"`}},
		{"bad cp_name", []edit{{"cp_name: cp1", "cp_name: -cp"}}, []string{`onos.cp_name: invalid name "-cp"`}},
		{"duration without unit", []edit{{"poll_interval: 1s", "poll_interval: \"1\""}}, []string{`onos.poll_interval: invalid duration "1"`}},
		{"integer duration", []edit{{"poll_interval: 1s", "poll_interval: 1"}}, []string{`onos.poll_interval: expected a string, found an integer "1"`}},
		{"poll too fast", []edit{{"poll_interval: 1s", "poll_interval: 1ms"}}, []string{"onos.poll_interval: 1ms is out of range 100ms..1h0m0s"}},
		{"timeout too long", []edit{{"timeout: 2s", "timeout: 2h"}}, []string{"onos.timeout: 2h is out of range 100ms..1m0s"}},
		{"negative timeout", []edit{{"timeout: 2s", "timeout: -2s"}}, []string{"onos.timeout: -2s is out of range"}},
		{"wait too long", []edit{{"timeout: 2s", "timeout: 2s\n  placement_wait: 61s"}}, []string{"onos.placement_wait: 61s is out of range 0s..1m0s"}},
		{"strict as a string", []edit{{"timeout: 2s", "timeout: 2s\n  seba_strict: \"yes\""}}, []string{`onos.seba_strict: expected true or false, found a string "yes"`}},
		{"strict as a list", []edit{{"timeout: 2s", "timeout: 2s\n  seba_strict: [true]"}}, []string{"onos.seba_strict: expected a scalar"}},
		{"wait in milliseconds", []edit{{"timeout: 2s", "timeout: 2s\n  placement_wait: 1500ms"}}, []string{"onos.placement_wait: 1.5s: must be whole seconds"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := applyEdits(t, valid, tc.edits)
			cfg, err := Parse([]byte(data))
			if err == nil || cfg != nil {
				t.Fatalf("accepted: %v", err)
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %T is not an Errors: %v", err, err)
			}
			matched := make([]bool, len(errs))
			for _, want := range tc.want {
				found := false
				for i, e := range errs {
					if strings.Contains(e.Error(), want) {
						found, matched[i] = true, true
					}
				}
				if !found {
					t.Errorf("no error contains %q in %v", want, err)
				}
			}
			for i, e := range errs {
				if tc.want != nil && !matched[i] {
					t.Errorf("unexpected error: %v", e)
				}
			}
		})
	}
}
