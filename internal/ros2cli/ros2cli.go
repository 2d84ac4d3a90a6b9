// Package ros2cli runs the ros2 command-line tool for the live tests that
// drive a node as a user would. It only runs the tool and reads its
// output; it must not start ROS 2 itself or depend on rclgo.
package ros2cli

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
)

// notFound is what ros2 prints while a --no-daemon call has not yet
// discovered the node it was asked about.
const notFound = "Node not found"

// Run runs the ros2 binary at path with args and returns its combined
// output. Each --no-daemon call discovers the graph anew and, until it
// has, says the node is not there; `param list` discovers it twice, the
// node and then its services, and when the second discovery has not yet
// seen the node's list_parameters service it prints nothing and succeeds.
// Run tries again in both cases until the call gets past them or ctx
// ends, and returns the last output and error (ctx's error when the last
// call had none). Every call the live tests make prints something
// when it has reached the node.
func Run(ctx context.Context, path string, args ...string) ([]byte, error) {
	var out []byte
	var err error
	for {
		if ctx.Err() != nil {
			if err == nil {
				err = ctx.Err()
			}
			return out, err
		}
		out, err = exec.CommandContext(ctx, path, args...).CombinedOutput()
		undiscovered := strings.Contains(string(out), notFound) ||
			(err == nil && len(bytes.TrimSpace(out)) == 0)
		if !undiscovered {
			return out, err
		}
	}
}
