// Package truth is the recorded form of a simulator's ground truth: what a
// recording holds beside the beliefs so that an audit can tell how far
// each belief was from the vehicle's true state. It names the truth topics
// and the frames, encodes truth samples and estimator resets in ghost's
// form, finds the truth in a recording's channels and decodes it, in
// ghost's form or in PX4's.
//
// Two forms exist, and both come out as Samples in ghost's frames (ENU
// world, body FLU, w-first quaternions, nanosecond stamps in the beliefs'
// clock):
//   - ghost's form, written by `decision_node sim --truth` and by `ulog`
//     for a log that has PX4's ground truth: geometry_msgs PointStamped on
//     /ground_truth/position, Vector3Stamped on /ground_truth/velocity and
//     QuaternionStamped on /ground_truth/attitude, ENU, header.frame_id
//     naming the truth's frame (FrameSim, FramePX4); the estimator's
//     position resets, when known, as Vector3Stamped steps (ENU) on
//     /ground_truth/estimator_reset; and, for a log that has them, the
//     simulator's global position and the origin the estimator declares
//     for its local frame, as PointStamped latitude, longitude and
//     altitude (FrameGeodetic) on /ground_truth/global_position and
//     /ground_truth/estimator_origin.
//   - PX4's form, as a SITL vehicle exports it over uXRCE-DDS when its
//     topic list names them: px4_msgs VehicleLocalPosition on
//     /fmu/out/vehicle_local_position_groundtruth and VehicleAttitude on
//     /fmu/out/vehicle_attitude_groundtruth, NED and body FRD, mapped
//     through package vehicle's transforms, the very ones the estimates
//     take; the resets come from the estimator's own
//     /fmu/out/vehicle_local_position (xy_reset_counter, delta_xy,
//     z_reset_counter, delta_z), and from the same topic its declared
//     origin (ref_lat, ref_lon, ref_alt with xy_global, z_global); the
//     global position on /fmu/out/vehicle_global_position_groundtruth
//     when recorded.
//
// With the global position and the estimator's origin, the truth can be
// put in the estimator's own frame (Origin.ENU, PX4's projection), so that
// an audit need not guess the offset between the two frames.
//
// The truth counts as a simulator's only when both position and attitude
// are recorded (ADR-0037's rule for PX4's two ground-truth topics); the
// estimator's own output is never taken for truth.
//
// Truth is never a decision input: no input of the decision path reads
// these topics, and this package must not be imported by the decision path
// (engine, session, rules, decisions). It does no I/O and keeps no state
// beyond a Decoder's reset counters.
package truth
