//go:build race

package runner

// raceEnabled scales the million-event tests down under the race detector,
// which slows each step tenfold; the plain test run keeps the full million.
const raceEnabled = true
