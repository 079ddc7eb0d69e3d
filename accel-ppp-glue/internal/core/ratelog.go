package core

import (
	"log/slog"
	"sync"
	"time"
)

// burstLog logs a recurring problem once per burst: the first occurrence of
// a kind is logged at once, later ones at most once per interval, each time
// with the number of occurrences that were not logged. Counting stays exact
// in the metrics; the log stays readable under a flood of bad frames.
type burstLog struct {
	log      *slog.Logger
	interval time.Duration

	mu    sync.Mutex
	kinds map[string]*burstState
}

type burstState struct {
	last       time.Time
	suppressed uint64
}

func newBurstLog(log *slog.Logger, interval time.Duration) *burstLog {
	return &burstLog{log: log, interval: interval, kinds: make(map[string]*burstState)}
}

// Warn logs msg under kind unless the kind was logged within the interval.
func (b *burstLog) Warn(kind, msg string, args ...any) {
	now := time.Now()
	b.mu.Lock()
	st, ok := b.kinds[kind]
	if !ok {
		if len(b.kinds) > 1024 { // bounded: kinds are fixed strings, but be safe
			b.kinds = make(map[string]*burstState)
		}
		st = &burstState{}
		b.kinds[kind] = st
	}
	if ok && now.Sub(st.last) < b.interval {
		st.suppressed++
		b.mu.Unlock()
		return
	}
	suppressed := st.suppressed
	st.last, st.suppressed = now, 0
	b.mu.Unlock()
	if suppressed > 0 {
		args = append(args, "suppressed", suppressed)
	}
	b.log.Warn(msg, append(args, "kind", kind)...)
}
