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
// Each file is written here as the facts of the ROS 2 Humble interface
// (common_interfaces, rcl_interfaces; see NOTICE): one line per constant
// and per field, with its type, name and default, in wire order, and
// nothing else. They are what the CDR codec and the MCAP schema texts
// need; ROS 2's own files, with their comments, are not copied. A
// recording's schema text for these types therefore differs from the one
// rosbag2 would write in its comments and blank lines only, which every
// ros2msg reader ignores. The package only serves definitions; it must not
// grow code that depends on a ROS 2 installation, and no comment may be
// added to its files (TestOnlyFieldLines).
package stdmsgs
