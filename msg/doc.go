// Package msg holds the ghost ROS 2 interface definitions (the .msg files
// next to this package, which are the wire contract) and a small, strict
// parser for the ROS 2 .msg language.
//
// It gives code generators and recording readers one place to ask what a
// message looks like: the raw text of each definition, its parsed form, and
// the complete schema text that rosbag2 stores in MCAP recordings (encoding
// "ros2msg"), together with a parser for such schema texts.
//
// The package does no I/O beyond reading its embedded files and knows nothing
// about serialization: the CDR codec lives in pkg/wire/ros2msg and is generated
// from the definitions parsed here.
package msg
