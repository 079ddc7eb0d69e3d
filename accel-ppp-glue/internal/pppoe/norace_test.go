//go:build !race

package pppoe

const raceEnabled = false
