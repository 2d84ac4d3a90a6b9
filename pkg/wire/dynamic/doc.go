// Package dynamic decodes any ROS 2 message from its .msg definition at run
// time, without generated code: a definition (parsed by package msg, or a
// rosbag2 "ros2msg" schema text as MCAP carries it) is compiled once into a
// Plan, which then decodes plain CDR (XCDR1) payloads into a Message that
// gives field access by name ("pose.pose.position.x", "q[0]") or through
// precompiled FieldRefs for hot paths.
//
// The wire rules are the project's: a 4-byte encapsulation header (plain
// CDR, little- or big-endian), alignment counted from the end of that
// header, strings as a uint32 length including the NUL terminator, sequences
// as a uint32 count, fixed arrays without a count, and at most three zero
// padding bytes after the last field. Every length and count is checked
// against the bytes that remain before anything is allocated, and bad input
// yields a typed error naming the type, field and offset, never a panic.
//
// The package knows no particular message and does no I/O. It must not
// grow knowledge of PX4, ghost or any other package's messages: callers
// bring the definitions. A Writer encodes fixed-size messages field by
// field; general encoding stays with the generated codec in package ros2msg.
package dynamic
