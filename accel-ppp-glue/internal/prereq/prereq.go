// Package prereq is for tests that need something from outside the Go
// toolchain: root, a tool (FreeRADIUS, radclient, tshark, ip), a binary of
// the C build (bng-dp, pfcp-up-pipe) or a file another part of the
// repository writes.
//
// Such a test skips when its prerequisite is missing, so that `go test ./...`
// works on a developer's machine. `make test` sets BNGPOD_REQUIRE_POD=1: it
// installs and builds every prerequisite first, so there a skip would hide a
// test that did not run, and Skip fails the test instead.
package prereq

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Required reports whether missing prerequisites are failures
// (BNGPOD_REQUIRE_POD=1).
func Required() bool { return os.Getenv("BNGPOD_REQUIRE_POD") == "1" }

// Skip skips the test because of the missing prerequisite why, or fails it
// when prerequisites are required.
func Skip(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s (BNGPOD_REQUIRE_POD=1: a missing prerequisite is a failure)", why)
	}
	t.Skip(why)
}

// Root skips (or fails, see Skip) a test that needs root.
func Root(t testing.TB, what string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Skip(t, "needs root ("+what+")")
	}
}

// NetnsLockPath is the machine-wide lock of everything that makes network
// namespaces, veths, Open vSwitch or raw sockets: one set at a time.
const NetnsLockPath = "/tmp/bngpod-netns.lock"

// NetnsLock takes the machine's netns lock for the rest of the test
// (waiting for it) and releases it when the test ends. When a process this
// test runs under holds the lock already (`flock /tmp/bngpod-netns.lock go
// test ./...`), the test runs under that lock: waiting for it would wait for
// ever.
func NetnsLock(t testing.TB) {
	t.Helper()
	lock(t, NetnsLockPath)
}

func lock(t testing.TB, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() }) // closing the last descriptor releases the lock
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
		return
	}
	if heldByAncestor(f) {
		return
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
}

// heldByAncestor reports whether a process this one descends from holds a
// flock on f (as /proc/locks shows: the pid that took the lock, and the
// file's device and inode).
func heldByAncestor(f *os.File) bool {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return false
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return false
	}
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), st.Ino)
	holders := map[int]bool{}
	for _, line := range strings.Split(string(locks), "\n") {
		// "1: FLOCK  ADVISORY  WRITE 14137 fe:00:9978434 0 EOF"
		fs := strings.Fields(line)
		if len(fs) < 6 || fs[1] != "FLOCK" || fs[3] != "WRITE" || fs[5] != want {
			continue
		}
		if pid, err := strconv.Atoi(fs[4]); err == nil {
			holders[pid] = true
		}
	}
	for pid := os.Getppid(); pid > 1; pid = parentOf(pid) {
		if holders[pid] {
			return true
		}
	}
	return false
}

// parentOf returns the parent pid of pid, 0 when it cannot be read.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	fs := strings.Fields(s[i+1:])
	if len(fs) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fs[1])
	return ppid
}
