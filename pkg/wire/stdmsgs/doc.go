// Package stdmsgs embeds the standard ROS 2 message definitions the ghost
// node uses besides its own: builtin_interfaces/Time, std_msgs/Header, the
// diagnostic_msgs KeyValue, DiagnosticStatus and DiagnosticArray,
// rosgraph_msgs/Clock (sim time), rcl_interfaces/Log (/rosout), the
// geometry_msgs PointStamped, Vector3Stamped and QuaternionStamped (with
// Point, Vector3 and Quaternion) of a recorded ground truth, and the
// rcl_interfaces and lifecycle_msgs types of the parameter and lifecycle
// services.
//
// A service's request and response are stored as messages named
// <Service>Request and <Service>Response (rosidl's <Service>_Request; the
// message name grammar has no underscore): their CDR is the same, and they
// are never published or recorded under these names. Empty requests
// (lifecycle_msgs GetState and the like) have no file: the node never reads
// them.
//
// The texts are those of ROS 2 Humble (common_interfaces and
// rcl_interfaces, Apache License 2.0), byte for byte, so that schema texts
// written into MCAP recordings equal the ones rosbag2 writes. The package
// only serves definitions; it must not grow code that depends on a ROS 2
// installation.
package stdmsgs
