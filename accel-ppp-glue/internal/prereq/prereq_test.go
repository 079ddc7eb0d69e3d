package prereq

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Under a parent that holds the netns lock (flock(1) running go test), the
// lock is taken at once instead of waiting for ever; without one it is taken
// for real.
func TestNetnsLockUnderHoldingParent(t *testing.T) {
	if path := os.Getenv("PREREQ_LOCK"); path != "" {
		lock(t, path) // the machine's lock is not this test's to take
		return
	}
	if _, err := exec.LookPath("flock"); err != nil {
		Skip(t, "no flock command (util-linux)")
	}
	path := filepath.Join(t.TempDir(), "netns.lock")
	run := func(args ...string) error {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "PREREQ_LOCK="+path)
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("%v: still waiting for the lock after 20 s", args)
			return nil
		}
	}
	self := []string{os.Args[0], "-test.run=^TestNetnsLockUnderHoldingParent$", "-test.count=1"}
	if err := run(append([]string{"flock", path}, self...)...); err != nil {
		t.Fatalf("under flock: %v", err)
	}
	if err := run(self...); err != nil {
		t.Fatalf("alone: %v", err)
	}
	// Held by a process that is not an ancestor: the child waits for it.
	holder := exec.Command("flock", path, "sleep", "1")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Wait() }()
	time.Sleep(300 * time.Millisecond)
	t0 := time.Now()
	if err := run(self...); err != nil {
		t.Fatalf("behind another holder: %v", err)
	}
	if took := time.Since(t0); took < 400*time.Millisecond {
		t.Fatalf("took the lock held by an unrelated process after %v", took)
	}
}

func TestSkipFailsWhenRequired(t *testing.T) {
	if os.Getenv("PREREQ_CHILD") == "skip" {
		Skip(t, "the prerequisite is missing")
		return
	}
	for _, tc := range []struct {
		require string
		fail    bool
	}{{"", false}, {"1", true}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSkipFailsWhenRequired$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "PREREQ_CHILD=skip", "BNGPOD_REQUIRE_POD="+tc.require)
		out, err := cmd.CombinedOutput()
		if (err != nil) != tc.fail {
			t.Errorf("BNGPOD_REQUIRE_POD=%q: err %v, want failure %v\n%s", tc.require, err, tc.fail, out)
		}
	}
}
