//go:build race

package audit

// raceEnabled samples the exhaustive forgery test under the race detector,
// which slows each verification tenfold; the plain run keeps every forgery.
const raceEnabled = true
