package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const usersJSON = `[
 {"user":"lg1-1","password":"pw-lg1-1","line_group":"lg1","port":"access1","stag":100,"ctag":1},
 {"user":"lg2-1","password":"pw-lg2-1","line_group":"lg2","port":"access2","stag":200,"ctag":1,"tpid":"0x88a8"},
 {"user":"lg1-2","password":"pw-lg1-2","line_group":"lg1","port":"access1","stag":100,"ctag":2},
 {"user":"lg1-3","password":"pw-lg1-3","line_group":"lg1","port":"access1","stag":100,"ctag":3,"tpid":34984}
]`

func writeUsers(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "users.json")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadSubscribers(t *testing.T) {
	p := writeUsers(t, usersJSON)
	subs, err := loadSubscribers(p, "access1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 3 || subs[0].Index != 1 || subs[1].Index != 3 || subs[1].User != "lg1-2" || subs[2].TPID != 0x88a8 ||
		subs[1].STag != 100 || subs[1].CTag != 2 {
		t.Fatalf("%+v", subs)
	}
	if m := subs[1].MAC(); m != [6]byte{0x02, 0x5b, 0, 0, 0, 3} {
		t.Fatalf("mac %x", m)
	}
	subs, _ = loadSubscribers(p, "access1", 0, 2)
	if len(subs) != 2 {
		t.Fatalf("count: %d", len(subs))
	}
	// after the first of access1: the second and third, MACs by their index in the file
	subs, _ = loadSubscribers(p, "access1", 1, 0)
	if len(subs) != 2 || subs[0].Index != 3 || subs[0].MAC() != [6]byte{0x02, 0x5b, 0, 0, 0, 3} {
		t.Fatalf("skip: %+v", subs)
	}
	if _, err := loadSubscribers(p, "access1", 3, 0); err == nil {
		t.Fatal("skipping them all: accepted")
	}
	subs, _ = loadSubscribers(p, "access2", 0, 0)
	if len(subs) != 1 || subs[0].TPID != 0x88a8 || subs[0].Index != 2 {
		t.Fatalf("%+v", subs)
	}
	for _, bad := range []string{`{`, `[]`, `[{"user":"a","port":"access1","stag":0,"ctag":1}]`,
		`[{"user":"a","port":"access1","stag":5000,"ctag":1}]`, `[{"user":"a","port":"access1","stag":1,"ctag":1,"tpid":"0x9100"}]`,
		`[{"user":"","port":"access1","stag":1,"ctag":1}]`} {
		if _, err := loadSubscribers(writeUsers(t, bad), "access1", 0, 0); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if _, err := loadSubscribers(p, "access9", 0, 0); err == nil || !strings.Contains(err.Error(), "no subscriber") {
		t.Fatalf("unknown port: %v", err)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	p := writeUsers(t, usersJSON)
	for _, args := range [][]string{
		{},
		{"--iface", "x"},
		{"--iface", "x", "--subscribers", p, "--auth", "mschap"},
		{"--iface", "x", "--subscribers", p, "--tpid", "0x9100"},
		{"--iface", "x", "--subscribers", p, "--rate", "10"},
		{"--iface", "x", "--subscribers", p, "--rate", "10", "--target", "example:7"},
		{"--iface", "x", "--subscribers", p, "--concurrency", "0"},
		{"--iface", "x", "--subscribers", p, "--port", "nope"},
		{"--iface", "x", "--subscribers", "/nonexistent"},
		{"--bogus"},
		{"--iface", "x", "--subscribers", p, "extra"},
		{"--iface", "x", "--subscribers", p, "--hangup-rate", "-1"},
		{"--iface", "x", "--subscribers", p, "--hangup-max", "0s"},
	} {
		if rc := run(args); rc != 2 {
			t.Errorf("%q: exit %d, want 2", args, rc)
		}
	}
	// a missing interface is a runtime failure
	if rc := run([]string{"--iface", "bngpod-no-such-if", "--subscribers", p}); rc != 1 {
		t.Errorf("missing interface: exit %d, want 1", rc)
	}
}
