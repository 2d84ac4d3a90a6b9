//go:build rclgo

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ghost-robotics/ghost/pkg/node"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/rosout"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
)

// rosBuild: this build runs as a ROS 2 node when no command is given.
const rosBuild = true

// rosMiddleware is the rmw implementation this process loads.
func rosMiddleware() string { return transport.MiddlewareName() }

// runNode runs the decision node on ROS 2 until SIGINT or SIGTERM, then
// decides what is pending, publishes it, closes every sink and returns nil
// (exit status 0).
func runNode(args []string, stderr io.Writer) error {
	cfg, rest, err := config.FromArgs(args)
	if err != nil {
		return fail(exitUsage, "%w", err)
	}
	if len(rest) > 0 {
		return fail(exitUsage, "%q: the node takes its arguments after --ros-args (run 'decision_node -h' for the commands)",
			strings.Join(rest, " "))
	}
	// Log lines go to stderr and, once the node runs, to /rosout, both
	// filtered by one LevelVar: --log-level or log_level sets it, the
	// log_level parameter changes it while running; /rosout carries the
	// logger name in its own field.
	level := new(slog.LevelVar)
	level.Set(cfg.LogLevel)
	ro := rosout.New(rosout.Options{Name: cfg.LoggerName(), Level: level})
	text := slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}).
		WithAttrs([]slog.Attr{slog.String("logger", cfg.LoggerName())})
	logger := slog.New(slog.NewMultiHandler(text, ro))
	// The rcl node takes its default name and the root namespace: rcl
	// applies __node, __ns and the topic remaps from args itself.
	t, err := transport.NewRCLTransport(args, config.DefaultNodeName, "", logger)
	if err != nil {
		return fail(exitIO, "%w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runErr := node.Run(ctx, cfg, t, logger, node.WithRosout(ro), node.WithLevel(level))
	if err := errors.Join(runErr, t.Close()); err != nil {
		return fail(exitIO, "%w", fmt.Errorf("decision node: %w", err))
	}
	return nil
}
