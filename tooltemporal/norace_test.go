//go:build !race

package tooltemporal

const raceEnabled = false
