// Package runner turns input events into published decisions in two steps.
//
// The Loop is the deterministic part. It owns the session state (beliefs
// waiting for their self-assessment, assessments waiting for their belief,
// the perception history, a memory of recent decisions) and nothing else:
// it reads no clock, performs no I/O, starts no goroutines and never lets map
// order reach its output. Time advances only through the arrival times the
// events carry, so the same events give the same Output, byte for byte, live,
// in replay and in the simulator. Every buffer is bounded by its LoopOptions
// field; a failed Step leaves the session as it was.
//
// The Runner is the side-effect boundary. It executes only Commands emitted by
// a Loop: it checks their provenance (the rationale binds the decision, the
// stamps and the hash of the very self-assessment the context carried) before
// any write, publishes to every registered sink, returns one receipt per sink
// and counts what happened for diagnostics. It never chooses, edits or retries
// a decision.
//
// The join rules (when a belief is decided, with or without an assessment,
// and which perception report applies) live in join.go and nowhere else.
package runner
