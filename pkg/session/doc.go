// Package session drives serialized messages through the engine and carries
// out what it decides. It is the only layer of the decision path that knows
// the wire formats: the input table (DefaultInputs: topics, types, QoS and
// decoders), the CDR decoders into engine events, the Session that feeds a
// Loop, and the Runner, the side-effect boundary.
//
// The Runner executes only Commands emitted by a Loop: it applies the
// engine's provenance check (the rationale binds the decision, the stamps
// and the hash of the very self-assessment the context carried) before any
// write, hands each command whole to every registered sink (with the
// rationale serialized once for all the sinks that take bytes), returns one
// receipt per sink and counts what happened for diagnostics. It passes
// action commands to the registered executors, admits their evidence under
// its own provenance rules and publishes action receipts. It never chooses,
// edits or retries a decision: that is the engine's.
//
// The live node, replay, verify and the simulator all decide through a
// Session, so they decide identically. What the package must not do: read
// a clock (time is the arrival time of what it is fed), open a transport or
// a file (sinks and executors are given to it), or decide anything itself.
package session
