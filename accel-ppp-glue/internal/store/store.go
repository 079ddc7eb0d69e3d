package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Errors a caller may test with errors.Is.
var (
	// ErrLocked: another process (or another DB in this process) holds the file.
	ErrLocked = errors.New("database is locked by another process")
	// ErrClosed: the DB was closed.
	ErrClosed = errors.New("database is closed")
	// ErrBadName: an empty, reserved or too long bucket name, or an empty or
	// too long key.
	ErrBadName = errors.New("bad bucket or key name")
	// ErrCorrupt: the file exists but is not a usable bbolt database.
	ErrCorrupt = errors.New("not a valid database file")
)

// LockTimeout is how long Open waits for another process to release the file.
const LockTimeout = time.Second

// MaxBatchDelay is the longest a writer waits for other writers to share its
// transaction (and fsync) with. bbolt's default of 10 ms caps 64 concurrent
// writers at about 6,000 puts/s on the development VM and a lone writer at
// 90; with 1 ms the same writers reach about 38,000 and a lone writer 690
// (BenchmarkPutParallel, BenchmarkPutSerial): writers queue up during the
// previous commit's fsync anyway, so a long wait gathers few more of them.
// The control plane has thousands of writers in flight when subscribers
// dial at thousands per second; there 4 ms gathers more of them per fsync
// and raised make bench-cp's 10K setup rate from about 4,800 to 5,000-5,400
// sessions/s, at 4 ms more latency for a lone writer.
const MaxBatchDelay = 4 * time.Millisecond

// MaxBatchSize is the most writers sharing one transaction.
const MaxBatchSize = 1000

const (
	counterBucket = "_counters"
	maxKeyLen     = 4096 // bbolt allows 32 KiB; nothing of ours comes close
)

// DB is an open database. Its methods are safe for concurrent use.
type DB struct {
	db   *bolt.DB
	path string
}

// Open opens the database at path, creating it (and its directory, mode
// 0700) when missing. It fails with ErrLocked when another opener holds the
// file for longer than LockTimeout, and with ErrCorrupt when the file is not
// a bbolt database.
func Open(path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("store: empty path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	opts := &bolt.Options{
		Timeout: LockTimeout,
		NoSync:  false, // production: fdatasync on every commit
	}
	db, err := bolt.Open(path, 0o600, opts)
	if err != nil {
		switch {
		case errors.Is(err, bolt.ErrTimeout):
			return nil, fmt.Errorf("store: %s: %w (gave up after %v; is another bng-cp running with this state directory?)",
				path, ErrLocked, LockTimeout)
		case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrVersionMismatch),
			errors.Is(err, bolt.ErrChecksum), errors.Is(err, bolt.ErrInvalidMapping):
			return nil, fmt.Errorf("store: %s: %w: %v", path, ErrCorrupt, err)
		}
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.NoSync = false
	db.MaxBatchDelay = MaxBatchDelay
	db.MaxBatchSize = MaxBatchSize
	return &DB{db: db, path: path}, nil
}

// Path returns the file the DB was opened from.
func (d *DB) Path() string { return d.path }

// Close closes the database and releases the file lock. Later calls on d
// return ErrClosed. Closing twice is harmless.
func (d *DB) Close() error {
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", d.path, err)
	}
	return nil
}

func checkBucket(bucket string) error {
	switch {
	case bucket == "":
		return fmt.Errorf("store: %w: empty bucket name", ErrBadName)
	case strings.HasPrefix(bucket, "_"):
		return fmt.Errorf("store: %w: bucket %q: names starting with _ are reserved", ErrBadName, bucket)
	case len(bucket) > maxKeyLen:
		return fmt.Errorf("store: %w: bucket name of %d bytes", ErrBadName, len(bucket))
	}
	return nil
}

func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("store: %w: empty key", ErrBadName)
	case len(key) > maxKeyLen:
		return fmt.Errorf("store: %w: key of %d bytes", ErrBadName, len(key))
	}
	return nil
}

func (d *DB) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, bolt.ErrDatabaseNotOpen) {
		return fmt.Errorf("store: %s: %w", op, ErrClosed)
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// Put stores val under key in bucket. It returns once the change is on disk.
// Concurrent callers share one transaction and one fsync. The caller may
// reuse val once Put has returned.
func (d *DB) Put(bucket, key string, val []byte) error {
	if err := checkBucket(bucket); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	if val == nil {
		val = []byte{} // bbolt stores nil as an empty value anyway; be explicit
	}
	err := d.db.Batch(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(bucket))
		if err != nil {
			return err
		}
		return b.Put([]byte(key), val)
	})
	return d.wrap("put "+bucket+"/"+key, err)
}

// Delete removes key from bucket, durably. Deleting a missing key (or from a
// missing bucket) is not an error.
func (d *DB) Delete(bucket, key string) error {
	if err := checkBucket(bucket); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	err := d.db.Batch(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil {
			return nil
		}
		return b.Delete([]byte(key))
	})
	return d.wrap("delete "+bucket+"/"+key, err)
}

// Get returns a copy of the value under key in bucket, and whether it exists.
func (d *DB) Get(bucket, key string) ([]byte, bool, error) {
	if err := checkBucket(bucket); err != nil {
		return nil, false, err
	}
	if err := checkKey(key); err != nil {
		return nil, false, err
	}
	var out []byte
	var found bool
	err := d.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil {
			return nil
		}
		if v := b.Get([]byte(key)); v != nil {
			out = append([]byte{}, v...)
			found = true
		}
		return nil
	})
	if err != nil {
		return nil, false, d.wrap("get "+bucket+"/"+key, err)
	}
	return out, found, nil
}

// forEachChunk is how many entries ForEach reads per read transaction.
const forEachChunk = 512

// ForEach calls fn for every key of bucket in byte order, with a copy of the
// value (fn may keep it). An error from fn stops the walk and is returned
// wrapped (errors.Is works).
//
// fn runs outside any transaction, so it may call the write methods of d (a
// bbolt writer that grows the file waits for open readers, so calling it from
// inside a read transaction could deadlock). ForEach reads the bucket in
// chunks, one read transaction each: a key present for the whole walk is seen
// exactly once; a key written or deleted during the walk may or may not be.
func (d *DB) ForEach(bucket string, fn func(key string, val []byte) error) error {
	if err := checkBucket(bucket); err != nil {
		return err
	}
	type kv struct {
		k string
		v []byte
	}
	var after []byte // last key handed to fn; nil before the first chunk
	for {
		chunk := make([]kv, 0, forEachChunk)
		err := d.db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte(bucket))
			if b == nil {
				return nil
			}
			c := b.Cursor()
			var k, v []byte
			if after == nil {
				k, v = c.First()
			} else {
				k, v = c.Seek(after)
				if k != nil && string(k) == string(after) {
					k, v = c.Next()
				}
			}
			for ; k != nil && len(chunk) < forEachChunk; k, v = c.Next() {
				if v == nil {
					continue // a nested bucket: not ours
				}
				chunk = append(chunk, kv{string(k), append([]byte{}, v...)})
			}
			return nil
		})
		if err != nil {
			return d.wrap("for each in "+bucket, err)
		}
		for _, e := range chunk {
			if err := fn(e.k, e.v); err != nil {
				return d.wrap("for each in "+bucket, err)
			}
		}
		if len(chunk) < forEachChunk {
			return nil
		}
		after = []byte(chunk[len(chunk)-1].k)
	}
}

// Count returns the number of keys in bucket.
func (d *DB) Count(bucket string) (int, error) {
	if err := checkBucket(bucket); err != nil {
		return 0, err
	}
	n := 0
	err := d.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(bucket)); b != nil {
			n = b.Stats().KeyN
		}
		return nil
	})
	return n, d.wrap("count "+bucket, err)
}

// NextCounter increments the counter name and returns its new value: 1 the
// first time, then 2, 3, ... for the life of the file. The new value is on
// disk when NextCounter returns, so a value is never handed out twice, even
// across crashes (a crash may skip values, never repeat them).
func (d *DB) NextCounter(name string) (uint64, error) {
	if err := checkKey(name); err != nil {
		return 0, err
	}
	var next uint64
	err := d.db.Batch(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(counterBucket))
		if err != nil {
			return err
		}
		var cur uint64
		if v := b.Get([]byte(name)); v != nil {
			if len(v) != 8 {
				return fmt.Errorf("%w: counter %q holds %d bytes", ErrCorrupt, name, len(v))
			}
			cur = binary.BigEndian.Uint64(v)
		}
		if cur == ^uint64(0) {
			return fmt.Errorf("counter %q is exhausted", name)
		}
		var buf [8]byte
		binary.BigEndian.PutUint64(buf[:], cur+1)
		if err := b.Put([]byte(name), buf[:]); err != nil {
			return err
		}
		next = cur + 1 // Batch may run fn again after a rollback: the last run wins
		return nil
	})
	if err != nil {
		return 0, d.wrap("counter "+name, err)
	}
	return next, nil
}
