// Package qos holds the ROS 2 quality-of-service profiles of the topics
// the project publishes, subscribes and records: their policies with the
// integers of rmw/types.h, the profiles of the inputs, /decisions and
// /parameter_events, the parameter spellings, and the
// offered_qos_profiles YAML that rosbag2 writes into a recording's
// channel metadata.
//
// A profile is a fact about a recorded topic, so it sits with the wire
// formats: recordings, the input table, the simulator and the transports
// all describe topics with it. It must import nothing of the project and
// do no I/O; what only a live ROS 2 graph needs (the rmw form a client
// library takes, the services' profile) is pkg/ros2/transport's.
package qos
