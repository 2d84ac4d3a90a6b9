// Package ros2 names the group of packages at the ROS 2 edge: what runs on
// a ROS 2 graph and what turns the node's ROS 2 parameters into plain Go
// values. It holds no code. Its members:
//
//   - transport: the Transport interface over serialized messages and
//     services, a fake for tests, and the rclgo transport behind the build
//     tag rclgo; the rmw form of a QoS profile and the services' profile.
//     It imports pkg/wire/qos only.
//   - clock (ROS time, wall or /clock), rosout (log records on /rosout) and
//     lifecycle (the managed-node state machine and its services) import
//     transport and pkg/wire only.
//   - px4link (the px4 executor's link over a transport) and standin (a
//     PX4 stand-in answering commands on a graph) adapt the vehicle side
//     (pkg/vehicle/executor, px4, px4sim) to a transport.
//   - config (the node's parameters from --ros-args and parameter files)
//     and param (the parameter services and their events) turn parameters
//     into the values of what they configure (engine.LoopOptions, the
//     session's and the executors' options, the policy, the assessment
//     thresholds), so they may also import pkg/decisions, pkg/rules,
//     pkg/engine, pkg/session and pkg/vehicle/executor. Only the node and
//     the command import them; the layers below take the values, never
//     the parameters.
//
// The group stands above everything but the node and the command: no
// package below imports it (QoS profiles, which recordings carry too, are
// pkg/wire/qos). No member imports pkg/audit, pkg/sim, pkg/seal, pkg/bag
// or pkg/node: the live node (pkg/node) wires them together, and replay
// and verify run without them. test/layout checks these rules.
package ros2
