// Package ros2cli runs the ros2 command-line tool for the live tests that
// drive a node as a user would. It only runs the tool and reads its
// output; it must not start ROS 2 itself or depend on rclgo.
package ros2cli

import (
	"context"
	"os/exec"
	"strings"
)

// notFound is what ros2 prints while a --no-daemon call has not yet
// discovered the node it was asked about.
const notFound = "Node not found"

// Run runs the ros2 binary at path with args and returns its combined
// output. Each --no-daemon call discovers the graph anew and, until it
// has, says the node is not there: Run tries again until the call gets
// past that or ctx ends, and returns the last output and error (ctx's
// error when it ended before the first call).
func Run(ctx context.Context, path string, args ...string) ([]byte, error) {
	var out []byte
	err := ctx.Err()
	for ctx.Err() == nil {
		out, err = exec.CommandContext(ctx, path, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), notFound) {
			break
		}
	}
	return out, err
}
