// Package clock is the node's ROS time: the wall clock, or, with the
// standard parameter use_sim_time, the time the simulator publishes on
// /clock (rosgraph_msgs/msg/Clock), as rclcpp's TimeSource follows it.
//
// A sim-time Clock has no time until the first /clock message: callers wait
// (the node decides nothing) until Ready. After that its time is the last
// /clock value; nothing advances it in between, so a paused simulator stops
// every timeout that runs on it.
//
// Time jumping backwards (a simulator reset) is not applied to the
// timeline: Timeline continues from where it was and advances with /clock
// from then on, and the jump is counted and reported in the Update. Arrival
// times, recordings and the assessment timeout measured on the timeline
// therefore never run backwards: a belief's wait counts the simulated time
// before and after a reset, replay and verify of a recording see the same
// times the node saw, and the jump is visible in logs and diagnostics.
// Now, the ROS time stamps carry, does follow the reset, as other nodes'
// clocks do.
//
// The package keeps time; it must not decide, publish or log anything.
package clock
