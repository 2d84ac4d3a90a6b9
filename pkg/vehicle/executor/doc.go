// Package executor holds the executors the Runner's registry can route
// decisions to: px4, which sends VehicleCommand to a PX4 autopilot and
// turns its VehicleCommandAck and VehicleStatus into evidence, and log,
// which records what it would have sent (dry runs).
//
// Each executor's mapping from decision kind to command is pure and
// documented (PX4Command), so an auditor can check every recorded command
// against it. Executors return evidence, never verdicts: whether an
// acknowledgement or a state means success is the Loop's judgement, and
// whether evidence belongs to the action at all is the Runner's provenance
// check. The package must not decide, retry or re-order anything: it sends
// what the Runner asks, when it asks.
package executor
