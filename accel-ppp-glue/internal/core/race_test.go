//go:build race

package core

// raceEnabled: the race detector slows the daemon down; load tests do less.
const raceEnabled = true
