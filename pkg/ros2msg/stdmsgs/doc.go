// Package stdmsgs embeds the standard ROS 2 message definitions the ghost
// node uses besides its own: builtin_interfaces/Time, std_msgs/Header, the
// diagnostic_msgs KeyValue, DiagnosticStatus and DiagnosticArray,
// rosgraph_msgs/Clock (sim time) and rcl_interfaces/Log (/rosout).
//
// The texts are those of ROS 2 Humble (common_interfaces and
// rcl_interfaces, Apache License 2.0), byte for byte, so that schema texts
// written into MCAP recordings equal the ones rosbag2 writes. The package
// only serves definitions; it must not grow code that depends on a ROS 2
// installation.
package stdmsgs
