// Package px4link is the px4 executor's transport on a ROS 2 graph: it
// publishes VehicleCommand on <namespace>/fmu/in/vehicle_command, encoded
// with the vehicle's release of px4_msgs and with PX4's QoS, and buffers
// the VehicleCommandAck and VehicleStatus PX4 publishes, with their
// receive times, until the executor polls them.
//
// It is the edge between the vehicle side (pkg/vehicle/executor, which
// knows nothing of ROS 2) and a transport, so it lives with pkg/ros2 and
// must not import the node, the session or the audit. Its subscription
// handlers run on the transport's goroutine and the executor on the
// decision goroutine, so the buffer is guarded. It must not interpret
// what it carries: whether an acknowledgement is ghost's, or evidence at
// all, is the executor's and the Runner's judgement.
package px4link
