//go:build !race

package args

const raceEnabled = false
