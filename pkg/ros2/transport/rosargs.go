package transport

// rclRosoutOff is rcl's flag that keeps rcl from creating a /rosout
// publisher of its own on the node.
const rclRosoutOff = "--disable-rosout-logs"

// RCLArgs returns the process arguments as the rcl context is to parse
// them: args, then a ROS arguments block turning rcl's own /rosout
// publisher off. The node publishes its log lines on /rosout itself, so
// the graph lists exactly one /rosout publisher for it: Humble's
// rcl_node_init would add a second one; Iron and later create none in
// rcl_node_init, and the flag changes nothing there. Appended last, it
// wins over an --enable-rosout-logs given earlier.
func RCLArgs(args []string) []string {
	out := make([]string, 0, len(args)+2)
	out = append(out, args...)
	return append(out, "--ros-args", rclRosoutOff)
}
