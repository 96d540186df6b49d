//go:build race

package toolreg

const raceEnabled = true
