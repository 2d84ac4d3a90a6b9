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
//   - executor: the executors decisions act through (px4, log), each over
//     a transport interface of its own; px4sim: a simulated PX4 autopilot
//     behind that interface.
//
// Members may import msg, pkg/decisions, pkg/wire, pkg/bag, pkg/engine
// and pkg/session (executors serve the session's registry) and each
// other. They must not import anything of pkg/ros2 (the PX4 link and
// stand-in that put them on a ROS 2 graph are pkg/ros2/px4link and
// pkg/ros2/standin), pkg/audit, pkg/sim, pkg/node, pkg/seal or pkg/rules.
// test/layout checks these rules.
package vehicle
