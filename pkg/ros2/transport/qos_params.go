package transport

// ParameterEventsQoS is rmw_qos_profile_parameter_events, the profile
// rclcpp publishes and subscribes /parameter_events with: reliable,
// volatile, keep last 1000.
func ParameterEventsQoS() QoSProfile {
	return QoSProfile{
		History:     HistoryKeepLast,
		Depth:       1000,
		Reliability: ReliabilityReliable,
		Durability:  DurabilityVolatile,
	}
}

// ServicesQoS is rmw_qos_profile_services_default, the profile of every
// parameter and lifecycle service: reliable, volatile, keep last 10.
func ServicesQoS() QoSProfile {
	return QoSProfile{
		History:     HistoryKeepLast,
		Depth:       10,
		Reliability: ReliabilityReliable,
		Durability:  DurabilityVolatile,
	}
}
