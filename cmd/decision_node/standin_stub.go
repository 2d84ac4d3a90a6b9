//go:build !rclgo

package main

import (
	"errors"
	"log/slog"

	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
)

// newStandinTransport: this build has no ROS 2 transport.
func newStandinTransport([]string, *slog.Logger) (transport.Transport, error) {
	return nil, errors.New("this build has no ROS 2 transport: build with -tags rclgo inside a sourced ROS 2 (Humble or Jazzy) workspace (colcon build does)")
}
