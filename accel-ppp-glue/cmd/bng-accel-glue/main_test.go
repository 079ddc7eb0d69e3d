package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRefusesToStartWithoutASessionIDSource(t *testing.T) {
	cfg := filepath.Join("..", "..", "..", "topology", "tests", "golden", "lab", "cp.yaml")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"-config", cfg}, 1, "no event source"},
		{[]string{"-config", cfg, "-hook-socket", "/tmp/x.sock", "-proc-pppoe", "/nonexistent/pppoe"}, 1, "redis events"},
		{[]string{"-config", "/nonexistent.yaml", "-redis", "127.0.0.1:1"}, 1, "nonexistent.yaml"},
		{[]string{"-config", cfg, "-redis", "127.0.0.1:1", "-interim", "10ms"}, 2, "-interim"},
		{[]string{"-config", cfg, "-log-format", "xml"}, 2, "-log-format"},
		{[]string{"extra"}, 2, "unexpected argument"},
	} {
		var stderr bytes.Buffer
		if code := run(c.args, &stderr); code != c.code || !strings.Contains(stderr.String(), c.says) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr.String(), c.code, c.says)
		}
	}
}

func TestHookFailsWithoutTheDaemon(t *testing.T) {
	var stderr bytes.Buffer
	sock := filepath.Join(t.TempDir(), "none.sock")
	args := []string{"-socket", sock, "ip-pre-up", "ppp0", "none", "0", "10.200.0.1", "100.80.0.7", "02:5b:00:00:00:07"}
	if code := hook(args, os.Environ(), &stderr); code != 1 || !strings.Contains(stderr.String(), "not reachable") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if code := hook(nil, nil, &stderr); code != 2 {
		t.Fatalf("no script: exit %d", code)
	}
}
