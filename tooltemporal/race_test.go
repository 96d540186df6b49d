//go:build race

package tooltemporal

// raceEnabled: the race detector slows the long runs' tests tenfold.
const raceEnabled = true
