//go:build rclgo

package node_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/node"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
)

// liveGraph skips without a sourced ROS 2 and otherwise returns the
// default configuration with every topic under prefix, which names this
// test and process so that parallel runs stay apart, a peer transport
// named peerName (closed when the test ends; the test skips without a ROS 2
// context), and a logger that discards.
func liveGraph(t *testing.T, test, peerName string) (cfg config.Config, prefix string, peer *transport.RCLTransport, logger *slog.Logger) {
	t.Helper()
	if os.Getenv("AMENT_PREFIX_PATH") == "" {
		t.Skip("ROS 2 is not sourced (AMENT_PREFIX_PATH is empty)")
	}
	logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	prefix = fmt.Sprintf("/ghost_%s_%d", test, os.Getpid())
	cfg = config.Default()
	for k, v := range cfg.Topics {
		if strings.HasPrefix(v, "/") {
			cfg.Topics[k] = prefix + v
		}
	}
	peer, err := transport.NewRCLTransport(nil, peerName, "", logger)
	if err != nil {
		t.Skipf("no ROS 2 context: %v", err)
	}
	t.Cleanup(func() { peer.Close() })
	return cfg, prefix, peer, logger
}

// startLive runs the node with cfg on its own rcl transport (args are ROS
// arguments) beside peer, which it also runs, both under a context of
// timeout, and waits a second for discovery. stop stops the node and
// returns Run's error; end then stops the peer.
func startLive(t *testing.T, args []string, cfg config.Config, peer *transport.RCLTransport, logger *slog.Logger,
	timeout time.Duration, opts ...node.Option) (stop func() error, end func()) {
	t.Helper()
	nodeT, err := transport.NewRCLTransport(args, config.DefaultNodeName, "", logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nodeT.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	nodeCtx, stopNode := context.WithCancel(ctx)
	nodeDone := make(chan error, 1)
	go func() { nodeDone <- node.Run(nodeCtx, cfg, nodeT, logger, opts...) }()
	peerDone := make(chan error, 1)
	go func() { peerDone <- peer.Run(ctx) }()
	time.Sleep(time.Second) // discovery
	return func() error {
			stopNode()
			return <-nodeDone
		}, func() {
			cancel()
			<-peerDone
		}
}
