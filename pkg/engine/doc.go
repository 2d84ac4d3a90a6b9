// Package engine turns decoded input events into the decisions to publish
// and the actions to take: the Loop, its join rules (join.go), the stamp
// plausibility checks (plausible.go), the action state machine
// (loop_actions.go) and the provenance check a host applies to each
// Command before any write (provenance.go). A self-assessment is hashed once,
// when decoded or admitted, and the hash travels beside the value
// (assessment_hash.go; its canonical-text memo, canonical_memo.go, is held
// to pkg/decisions' plain writer by tests).
//
// The Loop is the deterministic part. It owns the session state (beliefs
// waiting for their self-assessment, assessments waiting for their belief,
// the perception history, a memory of recent decisions, the outstanding
// action) and nothing else: it reads no clock, performs no I/O, starts no
// goroutines and never lets map order reach its output. Time advances only
// through the arrival times the events carry (and, for action deadlines
// counted in the vehicle's time, through the belief stamps:
// vehicle_clock.go), so the same events give the same Output, byte for
// byte, live, in replay and in the simulator. Every
// buffer is bounded by its LoopOptions field; a failed Step leaves the
// state as it was. Its action routes are given at construction
// (LoopOptions.Actions) and change only through recorded parameter events.
//
// What the engine must not do: know a wire format, a topic, a sink or an
// executor. It imports only the standard library, pkg/decisions and
// pkg/rules; the session layer (pkg/session) decodes messages into its
// events and carries its commands out.
package engine
