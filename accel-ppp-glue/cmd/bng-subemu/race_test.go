//go:build race

package main

// raceEnabled: the race detector slows the in-process server ten times; the
// load test dials fewer sessions.
const raceEnabled = true
