//go:build rclgo

package node_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/node"
	"github.com/ghost-robotics/ghost/pkg/nodeconfig"
	"github.com/ghost-robotics/ghost/pkg/ros2"
)

// startLive runs the node with cfg on its own rcl transport (args are ROS
// arguments) beside peer, which it also runs, both under a context of
// timeout, and waits a second for discovery. stop stops the node and
// returns Run's error; end then stops the peer.
func startLive(t *testing.T, args []string, cfg nodeconfig.Config, peer *ros2.RCLTransport, logger *slog.Logger,
	timeout time.Duration, opts ...node.Option) (stop func() error, end func()) {
	t.Helper()
	nodeT, err := ros2.NewRCLTransport(args, nodeconfig.DefaultNodeName, "", logger)
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
