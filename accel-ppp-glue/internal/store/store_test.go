package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTemp(t testing.TB) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "cp.db")
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, path
}

func TestPutGetDelete(t *testing.T) {
	d, _ := openTemp(t)
	if _, ok, err := d.Get("sessions", "a"); err != nil || ok {
		t.Fatalf("get from a missing bucket: ok=%v err=%v", ok, err)
	}
	val := []byte("hello")
	if err := d.Put("sessions", "a", val); err != nil {
		t.Fatal(err)
	}
	val[0] = 'X' // the caller reuses its buffer
	got, ok, err := d.Get("sessions", "a")
	if err != nil || !ok || string(got) != "hello" {
		t.Fatalf("get = %q %v %v", got, ok, err)
	}
	got[0] = 'Y' // a returned value is a copy
	if again, _, _ := d.Get("sessions", "a"); string(again) != "hello" {
		t.Fatalf("value changed through the returned slice: %q", again)
	}
	if err := d.Put("sessions", "a", []byte("second")); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := d.Get("sessions", "a"); string(got) != "second" {
		t.Fatalf("overwrite: %q", got)
	}
	if err := d.Put("sessions", "empty", nil); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := d.Get("sessions", "empty"); !ok || len(got) != 0 {
		t.Fatalf("empty value: %q %v", got, ok)
	}
	if err := d.Delete("sessions", "a"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := d.Get("sessions", "a"); ok {
		t.Fatal("deleted key still there")
	}
	if err := d.Delete("sessions", "a"); err != nil {
		t.Fatalf("deleting a missing key: %v", err)
	}
	if err := d.Delete("nothing", "a"); err != nil {
		t.Fatalf("deleting from a missing bucket: %v", err)
	}
	if n, err := d.Count("sessions"); err != nil || n != 1 {
		t.Fatalf("count = %d %v, want 1", n, err)
	}
}

func TestBadNames(t *testing.T) {
	d, _ := openTemp(t)
	long := strings.Repeat("k", maxKeyLen+1)
	cases := []struct {
		name string
		err  error
	}{
		{"empty bucket", d.Put("", "k", nil)},
		{"reserved bucket", d.Put("_counters", "k", nil)},
		{"empty key", d.Put("b", "", nil)},
		{"long key", d.Put("b", long, nil)},
		{"long bucket", d.Put(long, "k", nil)},
		{"delete empty key", d.Delete("b", "")},
		{"foreach reserved", d.ForEach("_counters", func(string, []byte) error { return nil })},
		{"empty counter", func() error { _, err := d.NextCounter(""); return err }()},
	}
	for _, c := range cases {
		if !errors.Is(c.err, ErrBadName) {
			t.Errorf("%s: err = %v, want ErrBadName", c.name, c.err)
		}
	}
	if _, _, err := d.Get("b", ""); !errors.Is(err, ErrBadName) {
		t.Errorf("get empty key: %v", err)
	}
}

func TestForEach(t *testing.T) {
	d, _ := openTemp(t)
	// More than a chunk, so the walk crosses read transactions.
	n := forEachChunk*2 + 7
	var want []string
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("s%05d", i)
		want = append(want, k)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := d.Put("sessions", k, []byte("v"+k)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := d.Put("other", "x", []byte("y")); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := d.ForEach("sessions", func(k string, v []byte) error {
		if string(v) != "v"+k {
			return fmt.Errorf("key %s has value %q", k, v)
		}
		got = append(got, k)
		// fn may write (a few times: each write is an fsync): delete what
		// it saw, add a key that sorts before it.
		if len(got)%100 != 1 {
			return nil
		}
		if err := d.Delete("sessions", k); err != nil {
			return err
		}
		return d.Put("sessions", "a"+k, []byte("x"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sort.StringsAreSorted(got) || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("walked %d keys (sorted %v), want %d", len(got), sort.StringsAreSorted(got), len(want))
	}
	stop := errors.New("stop")
	calls := 0
	err = d.ForEach("sessions", func(string, []byte) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("stop: err=%v calls=%d", err, calls)
	}
	if err := d.ForEach("missing", func(string, []byte) error { return errors.New("called") }); err != nil {
		t.Fatalf("missing bucket: %v", err)
	}
}

func TestReopenPersists(t *testing.T) {
	d, path := openTemp(t)
	for i := 0; i < 100; i++ {
		if err := d.Put("sessions", fmt.Sprint(i), bytes.Repeat([]byte{byte(i)}, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Delete("sessions", "50"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if v, err := d.NextCounter("boot"); err != nil || v != uint64(i) {
			t.Fatalf("counter = %d %v, want %d", v, err, i)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if err := d.Put("sessions", "x", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("put after close: %v", err)
	}
	if _, _, err := d.Get("sessions", "x"); !errors.Is(err, ErrClosed) {
		t.Fatalf("get after close: %v", err)
	}

	d2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	for i := 0; i < 100; i++ {
		v, ok, err := d2.Get("sessions", fmt.Sprint(i))
		if err != nil {
			t.Fatal(err)
		}
		if i == 50 {
			if ok {
				t.Fatal("deleted key came back")
			}
			continue
		}
		if !ok || !bytes.Equal(v, bytes.Repeat([]byte{byte(i)}, i)) {
			t.Fatalf("key %d after reopen: %v %x", i, ok, v)
		}
	}
	if v, err := d2.NextCounter("boot"); err != nil || v != 4 {
		t.Fatalf("counter after reopen = %d %v, want 4", v, err)
	}
	if v, err := d2.NextCounter("seid"); err != nil || v != 1 {
		t.Fatalf("a second counter = %d %v, want 1", v, err)
	}
}

func TestSecondOpenerRefused(t *testing.T) {
	d, path := openTemp(t)
	start := time.Now()
	d2, err := Open(path)
	if err == nil {
		d2.Close()
		t.Fatal("second Open succeeded")
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("err = %v", err)
	}
	if el := time.Since(start); el < LockTimeout/2 || el > 5*LockTimeout {
		t.Fatalf("gave up after %v, want about %v", el, LockTimeout)
	}
	// Released on Close: the next opener gets it.
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d3, err := Open(path)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	d3.Close()
}

func TestNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "garbage.db")
	if err := os.WriteFile(path, bytes.Repeat([]byte("not bbolt "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Open(path)
	if err == nil {
		d.Close()
		t.Fatal("opened a garbage file")
	}
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Open(""); err == nil {
		t.Fatal("empty path accepted")
	}
}

// TestConcurrentPuts: many writers at once all land, and they share
// transactions (far fewer commits than puts).
func TestConcurrentPuts(t *testing.T) {
	d, _ := openTemp(t)
	const writers, each = 50, 40
	before := writes(d)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := d.Put("sessions", fmt.Sprintf("%d/%d", w, i), []byte{byte(w), byte(i)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	n, err := d.Count("sessions")
	if err != nil || n != writers*each {
		t.Fatalf("count = %d %v, want %d", n, err, writers*each)
	}
	commits := writes(d) - before
	if commits >= writers*each/4 {
		t.Fatalf("%d puts took %d commits: no group commit", writers*each, commits)
	}
	t.Logf("%d puts in %d commits", writers*each, commits)
}

// TestConcurrentCounter: values are unique and dense across concurrent callers.
func TestConcurrentCounter(t *testing.T) {
	d, _ := openTemp(t)
	const callers, each = 20, 25
	var mu sync.Mutex
	seen := map[uint64]bool{}
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				v, err := d.NextCounter("seid")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[v] {
					t.Errorf("value %d handed out twice", v)
				}
				seen[v] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for v := uint64(1); v <= callers*each; v++ {
		if !seen[v] {
			t.Fatalf("value %d never handed out", v)
		}
	}
}

// BenchmarkPutParallel measures durable puts per second with production
// fsync and many concurrent writers (a control plane bringing up sessions:
// one writer per session in flight).
func BenchmarkPutParallel(b *testing.B) {
	for _, writers := range []int{64, 512} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			d, _ := openTemp(b)
			val := bytes.Repeat([]byte{0xab}, 300) // about one session record
			var mu sync.Mutex
			n := 0
			b.SetParallelism(max(1, writers/runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mu.Lock()
					n++
					k := fmt.Sprintf("session-%09d", n)
					mu.Unlock()
					if err := d.Put("sessions", k, val); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "puts/s")
		})
	}
}

// BenchmarkPutSerial is one writer: every put waits for its own fsync.
func BenchmarkPutSerial(b *testing.B) {
	d, _ := openTemp(b)
	val := bytes.Repeat([]byte{0xab}, 300)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := d.Put("sessions", fmt.Sprintf("session-%09d", i), val); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "puts/s")
}

func writes(d *DB) int64 {
	st := d.db.Stats()
	return st.TxStats.GetWrite()
}
