//go:build !rclgo

package main

import (
	"io"
)

// rosBuild: this build has no ROS 2 transport.
const rosBuild = false

// rosMiddleware: this build loads no middleware.
func rosMiddleware() string { return "" }

// runNode is the ROS 2 node; this build has no ROS 2 transport.
func runNode(args []string, stderr io.Writer) error {
	return fail(exitUsage, "%s is a ROS 2 node command line, and this build has no ROS 2 transport: "+
		"build with -tags rclgo inside a sourced ROS 2 (Humble or Jazzy) workspace (colcon build does), "+
		"or run a command: %s (see 'decision_node -h')", quoteArgs(args[:min(len(args), 4)]), commandNames())
}
