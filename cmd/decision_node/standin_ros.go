//go:build rclgo

package main

import (
	"log/slog"

	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
)

// newStandinTransport is the stand-in's node on the ROS 2 graph.
func newStandinTransport(rosArgs []string, logger *slog.Logger) (transport.Transport, error) {
	return transport.NewRCLTransport(rosArgs, "px4_standin", "", logger)
}
