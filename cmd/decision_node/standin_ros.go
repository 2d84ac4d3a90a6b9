//go:build rclgo

package main

import (
	"log/slog"

	"github.com/ghost-robotics/ghost/pkg/ros2"
)

// newStandinTransport is the stand-in's node on the ROS 2 graph.
func newStandinTransport(rosArgs []string, logger *slog.Logger) (ros2.Transport, error) {
	return ros2.NewRCLTransport(rosArgs, "px4_standin", "", logger)
}
