// Package vehicle names the group of packages on the vehicle's side; it
// holds no code. They turn what a real or simulated autopilot publishes
// into ghost beliefs, and decisions into commands it obeys:
//
//   - mapping: the one mapping of estimator outputs to a belief and its
//     self-assessment (imports pkg/decisions only);
//   - px4: the px4_msgs messages of each supported PX4 release, their
//     topics, QoS and constants; ulog: the PX4 flight log reader (imports
//     nothing of the project);
//   - bridge: decodes PX4 (uXRCE-DDS), nav_msgs/Odometry and ULog sources
//     and encodes the ghost beliefs the node then decides from;
//   - truth: a simulator's ground truth as a recording holds it;
//   - executor: the executors decisions act through (px4, log); px4link:
//     the px4 executor's link over a ROS 2 transport; standin: a PX4
//     stand-in that answers commands on a ROS 2 graph.
//
// Members may import msg, pkg/decisions, pkg/wire, pkg/bag, pkg/ros2/qos,
// pkg/ros2/transport, pkg/engine and pkg/session
// (executors serve the session's registry), pkg/sim
// (the stand-in answers with the simulated PX4's model) and each other.
// They must not import pkg/audit, pkg/node, pkg/seal, pkg/rules or the rest
// of pkg/ros2 (clock, rosout, lifecycle, config, param). test/layout checks
// these rules.
package vehicle
