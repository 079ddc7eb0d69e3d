package store

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// TestHelperWriter is not a test: TestSurvivesKill runs the test binary as a
// child that writes through this function until it is killed.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv("BNGCP_STORE_HELPER_DB")
	if path == "" {
		t.Skip("helper process of TestSurvivesKill")
	}
	d, err := Open(path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				k := fmt.Sprintf("%d-%d", w, i)
				if err := d.Put("sessions", k, []byte(k)); err != nil {
					fmt.Println("put:", err)
					os.Exit(3)
				}
				v, err := d.NextCounter("boot")
				if err != nil {
					fmt.Println("counter:", err)
					os.Exit(3)
				}
				mu.Lock()
				fmt.Printf("%s %d\n", k, v) // acknowledged: on disk
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestSurvivesKill: what Put and NextCounter acknowledged is there after the
// writer is killed (SIGKILL, no Close), and the lock dies with the process.
func TestSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "cp.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BNGCP_STORE_HELPER_DB="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() // also on failure below
	acked := map[string]bool{}
	var maxCounter uint64
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(acked) < 300 {
		var k string
		var v uint64
		if _, err := fmt.Sscanf(sc.Text(), "%s %d", &k, &v); err != nil {
			t.Fatalf("child said %q", sc.Text())
		}
		acked[k] = true
		maxCounter = max(maxCounter, v)
	}
	if len(acked) < 300 {
		t.Fatalf("child stopped after %d puts", len(acked))
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	d, err := Open(path) // the lock went with the process
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for k := range acked {
		v, ok, err := d.Get("sessions", k)
		if err != nil || !ok || string(v) != k {
			t.Fatalf("acknowledged %s lost after the kill: %q %v %v", k, v, ok, err)
		}
	}
	next, err := d.NextCounter("boot")
	if err != nil || next <= maxCounter {
		t.Fatalf("counter after the kill = %d %v, acknowledged up to %s", next, err, strconv.FormatUint(maxCounter, 10))
	}
	t.Logf("%d acknowledged puts, counter %d, all there after SIGKILL", len(acked), maxCounter)
}
