// Package px4 knows the PX4 messages ghost reads and writes over uXRCE-DDS
// (px4_msgs), for PX4 releases 1.14, 1.15 and 1.16: their topic names and
// QoS, their payload sizes per release (a tripwire for a vehicle running a
// different release than configured), the constants ghost acts on, and the
// extraction of the messages the executor reads (VehicleStatus,
// VehicleCommand, VehicleCommandAck) into plain Go structs.
//
// Layouts are never hard-coded: payloads are decoded by field name through
// package dynamic, from the px4_msgs .msg definitions installed on the
// machine (LoadFromAmentIndex) or supplied by the caller (NewDefinitions).
// The package ships no definitions of its own. Extraction is written
// against the small Fields interface so that the same code serves CDR
// payloads and ULog data messages; the estimator's messages (odometry,
// local position, attitude, battery) are read through it by the vehicle
// mapping's reader in package bridge, which takes only the fields the
// mapping uses, so that older logs lacking the others still read.
//
// The package does no network I/O and keeps no state beyond per-message
// counters of decoded and rejected payloads. It must not map PX4 values to
// ghost's belief (that is the vehicle mapping's job) nor decide anything.
package px4
