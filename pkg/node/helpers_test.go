package node

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
)

func writeFile(path string) error { return os.WriteFile(path, []byte("x"), 0o600) }

// benchNode builds a node on a FakeTransport without running it, for tests
// and benchmarks of its per-message path.
func benchNode(tb testing.TB) (*node, *transport.FakeTransport) {
	tb.Helper()
	ft := transport.NewFakeTransport()
	n, err := newNode(context.Background(), testConfig(), ft, slog.New(slog.DiscardHandler), func() time.Time { return base }, "")
	if err != nil {
		tb.Fatal(err)
	}
	return n, ft
}
