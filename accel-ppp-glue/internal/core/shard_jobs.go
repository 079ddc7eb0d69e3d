package core

import "sync"

// sessionJob is a session with a copy of its record taken on the session's
// shard, for work done off the shard (a PFCP establishment).
type sessionJob struct {
	s   *session
	rec record
}

// pickSessions runs pick for every session on its shard's goroutine (pick
// may change the session there) and returns the sessions it picked, each
// with a copy of its record.
func (d *Daemon) pickSessions(pick func(s *session) bool) []sessionJob {
	var out []sessionJob
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, sh := range d.shards {
		wg.Add(1)
		sh := sh
		sh.post(func() {
			defer wg.Done()
			for _, s := range sh.sessions {
				if pick(s) {
					mu.Lock()
					out = append(out, sessionJob{s, s.rec})
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return out
}

// establishmentsInFlight bounds the PFCP establishments forEachJob runs at
// once (an instance restarted, a line group moved).
const establishmentsInFlight = 512

// forEachJob runs fn for every job in its own goroutine, at most
// establishmentsInFlight at once, and returns when all have returned.
func forEachJob(jobs []sessionJob, fn func(sessionJob)) {
	sem := make(chan struct{}, establishmentsInFlight)
	var wg sync.WaitGroup
	for _, j := range jobs {
		j := j
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			fn(j)
		}()
	}
	wg.Wait()
}
