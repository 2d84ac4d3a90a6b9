// Package wire names the group of packages that know the bytes of ROS 2
// messages; it holds no code:
//
//   - ros2msg: the generated Go types and CDR codec of the ghost messages
//     and of the standard ones the node publishes, and their conversion to
//     and from the contracts of pkg/decisions;
//   - stdmsgs: the standard message definitions the node uses besides its
//     own;
//   - dynamic: decoding any message from its definition at run time (PX4
//     and odometry inputs, recordings of foreign types);
//   - qos: the QoS profiles of the topics, which recordings carry in their
//     channel metadata as well as transports on the graph.
//
// Members import only msg (the definitions), pkg/decisions (the contracts
// they convert to and from) and each other: never a transport or anything
// else of pkg/ros2, a recording, the vehicle side, the rule policies, the
// engine, the session or the audit, so that every other group can import
// them. Recordings themselves are pkg/bag, on the same floor, which
// imports msg, pkg/wire/qos and internal/limitedfile only. test/layout
// checks these rules.
package wire
