// Package mapping maps what real vehicles' estimators publish (PX4
// vehicle_odometry or vehicle_local_position with vehicle_attitude,
// vehicle_status and battery_status, over DDS or from a ULog file; ROS
// nav_msgs/Odometry with sensor_msgs/BatteryState) to a ghost belief: a
// source-neutral State holding every VehicleState value ghost publishes, the
// decisions.Belief derived from it, and its ADR-0020 self-assessment.
//
// The mapping is written down once, in docs/inputs.md, and implemented once
// here: frames (NED/FRD to ENU/FLU), the 15x15 covariance and its unknowns,
// flight status, battery, and the belief stamp. Bad input never panics: an
// unusable number makes its axis unknown, and a sample that cannot become a
// valid belief (no usable quaternion, a stamp that repeats or goes back) is
// rejected with a *RejectError and counted, leaving the Tracker as it was.
// A simulator's ground truth, compared with those beliefs, goes through the
// same transforms (NEDToENU, AttitudeENU).
//
// The package must not decode wire formats, read files, clocks or the
// environment, or know about transports: callers decode (CDR, ULog) into the
// plain input structs here and convert State to the wire type. It imports
// nothing of the project but pkg/decisions.
package mapping
