//go:build rclgo

package node_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
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
// timeout, and waits until discovery has matched them. stop stops the node and
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
	ready := newReadySignal(logger.Handler())
	go func() { nodeDone <- node.Run(nodeCtx, cfg, nodeT, slog.New(ready), opts...) }()
	peerDone := make(chan error, 1)
	go func() { peerDone <- peer.Run(ctx) }()
	select {
	case <-ready.ch:
	case err := <-nodeDone:
		t.Fatalf("the node stopped before it was ready: %v", err)
	case <-ctx.Done():
		t.Fatal("the node was not ready in time")
	}
	waitMatched(t, ctx, peer, nodeT)
	return func() error {
			stopNode()
			return <-nodeDone
		}, func() {
			cancel()
			<-peerDone
		}
}

// waitMatched returns once every topic peer and the node share, one
// publishing and the other subscribing, is matched on both sides, so
// nothing the test publishes or awaits is lost to discovery; it fails the
// test, naming the topics, if that does not happen before ctx ends.
func waitMatched(t *testing.T, ctx context.Context, peer, nodeT *transport.RCLTransport) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		open, err := unmatched(peer, nodeT)
		if err != nil {
			t.Fatal(err)
		}
		if len(open) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("discovery: not matched on both sides: %v", open)
		case <-tick.C:
		}
	}
}

// unmatched returns the topics on which one of a and b publishes and the
// other subscribes, but either side has no match yet. It reports none
// before both sides have endpoints that meet (the node subscribes and
// advertises in Run).
func unmatched(a, b *transport.RCLTransport) ([]string, error) {
	ea, err := a.Endpoints()
	if err != nil {
		return nil, err
	}
	eb, err := b.Endpoints()
	if err != nil {
		return nil, err
	}
	var open []string
	pairs := 0
	for _, x := range ea {
		for _, y := range eb {
			if x.Topic != y.Topic || x.Publisher == y.Publisher {
				continue
			}
			pairs++
			if x.Matched == 0 || y.Matched == 0 {
				open = append(open, x.Topic)
			}
		}
	}
	if pairs == 0 {
		return nil, errors.New("the node and the peer share no topic")
	}
	return open, nil
}

// readySignal passes records to its handler and closes ch at the node's
// "decision node ready", which it logs once every endpoint exists.
type readySignal struct {
	slog.Handler
	once *sync.Once
	ch   chan struct{}
}

func newReadySignal(h slog.Handler) *readySignal {
	return &readySignal{Handler: h, once: new(sync.Once), ch: make(chan struct{})}
}

func (h *readySignal) Enabled(context.Context, slog.Level) bool { return true }

func (h *readySignal) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "decision node ready" {
		h.once.Do(func() { close(h.ch) })
	}
	if !h.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h *readySignal) WithAttrs(a []slog.Attr) slog.Handler {
	return &readySignal{Handler: h.Handler.WithAttrs(a), once: h.once, ch: h.ch}
}

func (h *readySignal) WithGroup(name string) slog.Handler {
	return &readySignal{Handler: h.Handler.WithGroup(name), once: h.once, ch: h.ch}
}
