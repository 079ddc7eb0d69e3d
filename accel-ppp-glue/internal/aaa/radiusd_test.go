package aaa

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/prereq"
)

// freeRADIUS is a private FreeRADIUS started by a test: a copy of
// /etc/freeradius/3.0 with paths pointed into a temp dir, one site
// listening on 127.0.0.1 at two free ports, one client (127.0.0.1) with
// require_message_authenticator = yes, the test's users file, and a detail
// file for accounting.
type freeRADIUS struct {
	dir, conf  string
	auth, acct netip.AddrPort
	secret     []byte
	detail     string

	mu  sync.Mutex
	log bytes.Buffer
}

const frSite = `server bng {
listen {
	type = auth
	ipaddr = 127.0.0.1
	port = %d
	recv_buff = 4194304
}
listen {
	type = acct
	ipaddr = 127.0.0.1
	port = %d
}
authorize {
	chap
	files
	pap
}
authenticate {
	Auth-Type PAP {
		pap
	}
	Auth-Type CHAP {
		chap
	}
}
preacct {
}
accounting {
	bngdetail
	ok
}
post-auth {
	# FreeRADIUS < 3.2.5 does not sign Access replies by itself:
	# an empty Message-Authenticator is computed when encoding.
	update reply {
		Message-Authenticator := 0x00
	}
	Post-Auth-Type REJECT {
		attr_filter.access_reject
		update reply {
			Message-Authenticator := 0x00
		}
	}
}
}
`

func freePort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// startFreeRADIUS starts FreeRADIUS with the given users file content and
// stops it when the test ends. The test is skipped when FreeRADIUS is not
// installed.
func startFreeRADIUS(t *testing.T, users string) *freeRADIUS {
	t.Helper()
	bin, err := exec.LookPath("freeradius")
	if err != nil {
		prereq.Skip(t, "freeradius not installed (Debian package freeradius)")
	}
	if _, err := os.Stat("/etc/freeradius/3.0/radiusd.conf"); err != nil {
		prereq.Skip(t, "no /etc/freeradius/3.0/radiusd.conf (Debian package freeradius)")
	}
	f := &freeRADIUS{dir: t.TempDir(), secret: []byte("testing123-secret")}
	f.conf = filepath.Join(f.dir, "conf")
	if out, err := exec.Command("cp", "-a", "/etc/freeradius/3.0", f.conf).CombinedOutput(); err != nil {
		t.Fatalf("copy config: %v %s", err, out)
	}
	f.detail = filepath.Join(f.dir, "detail")
	for _, d := range []string{"log", "run"} {
		if err := os.MkdirAll(filepath.Join(f.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rc := filepath.Join(f.conf, "radiusd.conf")
	b, err := os.ReadFile(rc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for re, repl := range map[string]string{
		`(?m)^raddbdir = .*$`:              "raddbdir = " + f.conf,
		`(?m)^logdir = .*$`:                "logdir = " + filepath.Join(f.dir, "log"),
		`(?m)^run_dir = .*$`:               "run_dir = " + filepath.Join(f.dir, "run"),
		`(?m)^\s*user = .*$`:               "#user",
		`(?m)^\s*group = .*$`:              "#group",
		`(?m)^\s*reject_delay = .*$`:       "\treject_delay = 0",
		`(?m)^\s*cleanup_delay = .*$`:      "\tcleanup_delay = 2",
		`(?m)^\s*auth_badpass = .*$`:       "\tauth_badpass = no",
		`(?m)^\s*max_requests_per_.*= .*$`: "",
	} {
		s = regexp.MustCompile(re).ReplaceAllString(s, repl)
	}
	if err := os.WriteFile(rc, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	// Only our site; no modules needing certificates or helpers.
	for _, g := range []string{"sites-enabled/*", "mods-enabled/eap", "mods-enabled/mschap", "mods-enabled/ntlm_auth", "mods-enabled/dynamic_clients"} {
		m, _ := filepath.Glob(filepath.Join(f.conf, g))
		for _, p := range m {
			os.Remove(p)
		}
	}
	ap, cp := freePort(t), freePort(t)
	for ap == cp {
		cp = freePort(t)
	}
	f.auth = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(ap))
	f.acct = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(cp))
	write := func(rel, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(f.conf, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sites-enabled/bng", fmt.Sprintf(frSite, ap, cp))
	write("mods-enabled/bngdetail", fmt.Sprintf("detail bngdetail {\n\tfilename = %s\n\tpermissions = 0600\n\theader = \"%%t\"\n}\n", f.detail))
	write("clients.conf", fmt.Sprintf("client bngtest {\n\tipaddr = 127.0.0.1\n\tsecret = %s\n\trequire_message_authenticator = yes\n}\n", f.secret))
	write("mods-config/files/authorize", users)

	cmd := exec.Command(bin, "-f", "-X", "-d", f.conf)
	cmd.Env = append(os.Environ(), "TZ=UTC")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		once := false
		for sc.Scan() {
			f.mu.Lock()
			f.log.WriteString(sc.Text() + "\n")
			f.mu.Unlock()
			if !once && strings.Contains(sc.Text(), "Ready to process requests") {
				once = true
				close(ready)
			}
		}
	}()
	go func() { cmd.Wait(); pw.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("freeradius log:\n%s", f.Log())
		}
	})
	select {
	case <-ready:
	case <-exited:
		t.Fatalf("freeradius exited during start:\n%s", f.Log())
	case <-time.After(30 * time.Second):
		t.Fatalf("freeradius not ready after 30 s:\n%s", f.Log())
	}
	return f
}

func (f *freeRADIUS) Log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log.String()
}

func (f *freeRADIUS) server() Server {
	return Server{Name: "fr", Auth: f.auth, Acct: f.acct, Secret: f.secret}
}

// detailRecords returns the detail file's records (blank-line separated).
func (f *freeRADIUS) detailRecords(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(f.detail)
	if err != nil {
		t.Fatalf("detail file: %v", err)
	}
	var out []string
	for _, r := range strings.Split(string(b), "\n\n") {
		if strings.TrimSpace(r) != "" {
			out = append(out, r)
		}
	}
	return out
}

// logHas waits up to 2 s for s to appear in the server's log (the log is
// read through a pipe, a little behind the replies).
func (f *freeRADIUS) logHas(s string) bool {
	for end := time.Now().Add(2 * time.Second); ; {
		if strings.Contains(f.Log(), s) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
