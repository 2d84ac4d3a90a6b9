// Package transport connects the node to a ROS 2 graph: the Transport
// interface (publishers and subscriptions of serialized messages, and
// services), an in-memory fake transport for tests, and the rclgo
// transport (files importing rclgo carry the build tag rclgo, so
// everything else builds without ROS 2). Topics are described with the
// profiles of pkg/wire/qos; their rmw form and the services' profile,
// which only a graph needs, are here.
//
// It moves bytes; it must not decode messages, decide, or store anything.
package transport
