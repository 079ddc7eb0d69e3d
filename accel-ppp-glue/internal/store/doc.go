// Package store is the control plane's durable state: a small key/value
// database (go.etcd.io/bbolt, a B+tree in one memory-mapped file) holding the
// sessions a restarted control plane must find again, and a few monotonic
// counters (boot number, CP SEIDs).
//
// Durability is the point of the package. Every Put, Delete and NextCounter
// returns only after its change is on disk: bbolt runs with NoSync false, so
// each committed transaction ends with fdatasync(2) of the data file. An fsync
// per session would cap the control plane at a few hundred changes a second,
// so writes go through bbolt's DB.Batch: callers that arrive while a
// transaction is being assembled or committed join one transaction, which
// costs one fsync for all of them (group commit, as databases do with their
// write-ahead logs). A lone caller waits at most MaxBatchDelay for company.
//
// Only one process may open a database: bbolt takes an exclusive flock(2) on
// the file, and Open gives up after one second with ErrLocked, which names the
// file, instead of waiting for ever behind a control plane that still runs.
//
// Buckets are created on first write; reading a bucket that was never written
// is not an error, it is empty. Bucket names starting with "_" are reserved
// for the package itself (counters live in "_counters").
package store
