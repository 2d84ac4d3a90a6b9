// Package px4sim is a simulated PX4 autopilot behind the px4 executor's
// transport: it answers VehicleCommands with VehicleCommandAck and
// VehicleStatus on a scripted schedule (accept, deny, drop, slow, ...), so
// every outcome of an action can be produced and audited without a
// vehicle. The simulated flight (pkg/sim, through the command line) and
// the PX4 stand-in on a ROS 2 graph (pkg/ros2/standin) both answer with
// it, so they agree on what a command does.
//
// It is deterministic: no clock, no randomness; time is the send times it
// is given. It must not import the simulator, the audit, the node or
// anything of pkg/ros2, and it does not feed back into a flight's beliefs.
package px4sim
