//go:build !rclgo

package main

import (
	"io"
	"strings"
)

// rosBuild: this build has no ROS 2 transport.
const rosBuild = false

// runNode is the ROS 2 node; this build has no ROS 2 transport.
func runNode(args []string, stderr io.Writer) error {
	return fail(exitUsage, "%q is not a command, and this build has no ROS 2 transport: "+
		"build with -tags rclgo inside a sourced ROS 2 Humble workspace (colcon build does), "+
		"or use sim, replay or verify\n\n%s", strings.Join(args, " "), usage)
}
