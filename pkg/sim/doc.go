// Package sim is the embedded simulated vehicle behind the node's default
// run: a deterministic scenario that publishes what a drone's estimator,
// self-assessor and perception mode detector would publish (beliefs with a
// 15x15 covariance, their self-assessments, perception modes), each message
// stamped with the time it would arrive at the node.
//
// The flight is scripted in fractions of its duration so every length shows
// the same story: on the ground, takeoff, nominal flight, GPS loss with a
// growing position uncertainty and its recovery, a stretch where the
// self-assessor falls silent, perception mode changes, an estimator reset
// without covariance, battery drain, return and landing; together they reach
// every branch of the reference policy.
//
// With Options.Truth it also publishes its ground truth: the true state,
// in its own world frame, of a vehicle whose estimator errs in a scripted
// way (truth.go says how), for an audit of the beliefs against it. The
// truth goes on topics no decision reads; without it every message is as
// before.
//
// The package draws no random numbers and reads no clock: the same options
// give the same messages, byte for byte. It decides nothing; the session
// does. Where decisions act on a simulated PX4, that autopilot is
// pkg/vehicle/px4sim's. It must not import the audit, anything of
// pkg/ros2 or the node, nor the vehicle side beyond pkg/vehicle/truth
// (test/layout checks it).
package sim
