// Package ros2 names the group of packages that make the decision node a
// ROS 2 node; it holds no code. Its members:
//
//   - qos: the quality-of-service profiles. They are data that recordings
//     and the input table use as well, so qos imports nothing of the
//     project and is the only member needed off a ROS 2 graph.
//   - transport: the Transport interface over serialized messages and
//     services, a fake for tests, and the rclgo transport behind the build
//     tag rclgo. It imports qos only.
//   - clock (ROS time, wall or /clock), rosout (log records on /rosout) and
//     lifecycle (the managed-node state machine and its services) import
//     qos, transport and pkg/wire only.
//   - config (the node's parameters from --ros-args and parameter files)
//     and param (the parameter services and their events) turn parameters
//     into the options of what they configure, so they may also import
//     pkg/decisions, pkg/rules, pkg/engine, pkg/session and
//     pkg/vehicle/executor.
//
// No member imports pkg/audit, pkg/sim, pkg/seal, pkg/bag or pkg/node: the
// live node (pkg/node) wires them together, and replay and verify run
// without them. test/layout checks these rules.
package ros2
