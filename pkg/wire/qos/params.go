package qos

// ParameterEvents is rmw_qos_profile_parameter_events, the profile
// rclcpp publishes and subscribes /parameter_events with: reliable,
// volatile, keep last 1000.
func ParameterEvents() Profile {
	return Profile{
		History:     HistoryKeepLast,
		Depth:       1000,
		Reliability: ReliabilityReliable,
		Durability:  DurabilityVolatile,
	}
}
