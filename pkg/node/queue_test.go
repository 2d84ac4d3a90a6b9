package node

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// A node that takes nothing from its queue (starved of CPU) drops and
// counts best-effort inputs once the queue is full, without holding up
// the transport; a reliable input waits for room.
func TestInputQueueFull(t *testing.T) {
	for _, tt := range []struct {
		name        string
		reliability qos.Reliability
		sent        int
		wantDropped uint64
		blocks      bool
	}{
		{"best effort, below capacity", qos.ReliabilityBestEffort, inputQueue, 0, false},
		{"best effort, past capacity", qos.ReliabilityBestEffort, inputQueue + 44, 44, false},
		{"reliable waits for room", qos.ReliabilityReliable, inputQueue + 1, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			p := cfg.QoS[session.KeyState]
			if p == (qos.Profile{}) {
				p = qos.DefaultInput()
			}
			p.Reliability = tt.reliability
			cfg.QoS[session.KeyState] = p
			ft := transport.NewFakeTransport()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var logs bytes.Buffer
			n, err := newNode(ctx, cfg, ft, slog.New(slog.NewTextHandler(&logs, nil)), func() time.Time { return base }, "")
			if err != nil {
				t.Fatal(err)
			}
			go func() { _ = ft.Run(ctx) }()
			data := beliefCDR(t, testBelief(1_000_000))
			sent := make(chan error, 1)
			go func() {
				for i := range tt.sent {
					if err := ft.Deliver(ctx, cfg.Topics[session.KeyState], data, base.Add(time.Duration(i))); err != nil {
						sent <- err
						return
					}
				}
				sent <- nil
			}()
			if tt.blocks {
				// The last delivery waits until the node takes one.
				for len(n.in) < inputQueue {
					select {
					case err := <-sent:
						t.Fatalf("all %d delivered to a queue of %d: %v", tt.sent, inputQueue, err)
					case <-ctx.Done():
						t.Fatal(ctx.Err())
					default:
						time.Sleep(time.Millisecond)
					}
				}
				<-n.in
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
			if got := n.queue.dropped.Load(); got != tt.wantDropped {
				t.Errorf("dropped %d, want %d", got, tt.wantDropped)
			}
			d := n.diagnostics(base)
			if got := count(t, d, "input_queue.dropped"); got != tt.wantDropped {
				t.Errorf("diagnostics input_queue.dropped = %d, want %d", got, tt.wantDropped)
			}
			if tt.wantDropped > 0 && d.Status[0].Level != ros2msg.DiagnosticStatusWarn {
				t.Errorf("level %d (%s), want WARN", d.Status[0].Level, d.Status[0].Message)
			}
			if got := n.queue.droppedOf(cfg.Topics[session.KeyState]); got != tt.wantDropped {
				t.Errorf("dropped on %s: %d, want %d", cfg.Topics[session.KeyState], got, tt.wantDropped)
			}
			n.checkQueue()
			logged := strings.Contains(logs.String(), "inputs dropped")
			if logged != (tt.wantDropped > 0) {
				t.Errorf("drop logged %v, want %v:\n%s", logged, tt.wantDropped > 0, logs.String())
			}
			if tt.wantDropped > 0 && !strings.Contains(logs.String(), fmt.Sprintf("dropped_total=%d", tt.wantDropped)) {
				t.Errorf("log lacks the total:\n%s", logs.String())
			}
		})
	}
}
