// Package wire names the group of packages that know the bytes of ROS 2
// messages; it holds no code:
//
//   - ros2msg: the generated Go types and CDR codec of the ghost messages
//     and of the standard ones the node publishes, and their conversion to
//     and from the contracts of pkg/decisions;
//   - stdmsgs: the standard message definitions the node uses besides its
//     own;
//   - dynamic: decoding any message from its definition at run time (PX4
//     and odometry inputs, recordings of foreign types).
//
// Members import only msg (the definitions), pkg/decisions and each other:
// never a transport, a recording, the vehicle side, the engine, the
// session or the audit, so that every other group can import them. Recordings themselves
// are pkg/bag, which imports msg, pkg/ros2/qos and internal/limitedfile
// only. test/layout checks these rules.
package wire
