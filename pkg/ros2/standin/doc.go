// Package standin is a stand-in for a PX4 autopilot on a ROS 2 graph,
// for proving the live action path without a simulator: it reads
// VehicleCommand on <namespace>/fmu/in/vehicle_command and answers as
// PX4's Commander would, with a VehicleCommandAck addressed to the
// command's source system and component on /fmu/out/vehicle_command_ack
// and a VehicleStatus showing the commanded nav_state and arming on
// /fmu/out/vehicle_status, encoded with the chosen release's px4_msgs.
//
// What a command does is the simulated PX4's model (pkg/vehicle/px4sim),
// so the stand-in and the simulator agree. It answers at once (no
// scripted latencies, drops or slowness) except for the kinds it is told
// to deny. It must not be mistaken for a vehicle: it flies nothing, and it
// does not check what a real Commander would (position, failsafes,
// pre-flight). It runs on a transport, so it sits at the ROS 2 edge; it
// must not import the node, the simulator or the audit.
package standin
