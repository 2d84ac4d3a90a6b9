package transport

import (
	"context"
	"errors"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"sync"
	"testing"
	"time"
)

var _ Transport = (*FakeTransport)(nil)

func TestSplitTypeName(t *testing.T) {
	tests := []struct {
		in       string
		pkg, msg string
	}{
		{"ghost/msg/VehicleState", "ghost", "VehicleState"},
		{"diagnostic_msgs/msg/DiagnosticArray", "diagnostic_msgs", "DiagnosticArray"},
		{"ghost/VehicleState", "", ""},
		{"ghost/srv/Foo", "", ""},
		{"ghost/msg/", "", ""},
		{"/msg/X", "", ""},
		{"ghost/msg/Vehicle State", "", ""},
		{"ghost/msg/X/Y", "", ""},
		{"9ghost/msg/X", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			pkg, msg, err := SplitTypeName(tt.in)
			if tt.pkg == "" {
				if !errors.Is(err, ErrTypeName) {
					t.Fatalf("SplitTypeName(%q) = %q, %q, %v; want ErrTypeName", tt.in, pkg, msg, err)
				}
				return
			}
			if err != nil || pkg != tt.pkg || msg != tt.msg {
				t.Fatalf("SplitTypeName(%q) = %q, %q, %v", tt.in, pkg, msg, err)
			}
		})
	}
}

// The integers are those of rmw/types.h (Humble), written out here
// independently of the Go enums.
func TestFakeTransport(t *testing.T) {
	ft := NewFakeTransport()
	var mu sync.Mutex
	var got []string
	err := ft.Subscribe("/in", "ghost/msg/VehicleState", qos.DefaultInput(), func(data []byte, recv time.Time) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(data)+"@"+recv.UTC().Format("15:04:05"))
	})
	if err != nil {
		t.Fatal(err)
	}
	// A second subscription of the type gets every message too, after the
	// first; another type on the topic is refused.
	if err := ft.Subscribe("/in", "ghost/msg/VehicleState", qos.DefaultInput(), func(data []byte, _ time.Time) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, "second:"+string(data))
	}); err != nil {
		t.Errorf("second subscription on /in: %v", err)
	}
	if err := ft.Subscribe("/in", "ghost/msg/Decision", qos.DefaultInput(), func([]byte, time.Time) {}); err == nil {
		t.Error("a subscription of another type on /in succeeded")
	}
	if err := ft.Subscribe("/bad", "VehicleState", qos.DefaultInput(), func([]byte, time.Time) {}); !errors.Is(err, ErrTypeName) {
		t.Errorf("bad type name: %v", err)
	}
	pub, err := ft.Advertise("/out", "ghost/msg/DecisionRationale", qos.DefaultDecisions())
	if err != nil {
		t.Fatal(err)
	}
	if typ, q, ok := ft.Subscription("/in"); !ok || typ != "ghost/msg/VehicleState" || q != qos.DefaultInput() {
		t.Errorf("Subscription(/in) = %q %+v %v", typ, q, ok)
	}

	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- ft.Run(ctx) }()

	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := ft.Deliver(ctx, "/in", []byte("a"), at); err != nil {
		t.Fatal(err)
	}
	if err := ft.Deliver(ctx, "/nobody", []byte("b"), at); err == nil {
		t.Error("delivery without a subscription succeeded")
	}
	if _, err := ft.Advertise("/late", "ghost/msg/Decision", qos.DefaultInput()); !errors.Is(err, ErrTransportRunning) {
		t.Errorf("Advertise while running: %v", err)
	}
	mu.Lock()
	if len(got) != 2 || got[0] != "a@03:04:05" || got[1] != "second:a" {
		t.Errorf("handler saw %q", got)
	}
	mu.Unlock()

	go func() {
		_ = pub.Publish([]byte{1})
		_ = pub.Publish([]byte{2})
	}()
	msgs, err := ft.WaitPublished(ctx, "/out", 2)
	if err != nil || len(msgs) != 2 || msgs[0][0] != 1 || msgs[1][0] != 2 {
		t.Fatalf("WaitPublished = %v, %v", msgs, err)
	}
	boom := errors.New("disk full")
	ft.Publisher("/out").FailWith(boom)
	if err := pub.Publish([]byte{3}); !errors.Is(err, boom) {
		t.Errorf("Publish after FailWith = %v", err)
	}

	cancel()
	if err := <-runErr; err != nil {
		t.Errorf("Run = %v, want nil after cancel", err)
	}
	_ = ft.Close()
	_ = ft.Close()
	if ft.CloseCount() != 2 {
		t.Errorf("CloseCount = %d", ft.CloseCount())
	}
	ft.Publisher("/out").FailWith(nil)
	if err := pub.Publish([]byte{4}); !errors.Is(err, ErrTransportClosed) {
		t.Errorf("Publish after Close = %v", err)
	}
	if err := ft.Run(context.Background()); !errors.Is(err, ErrTransportClosed) {
		t.Errorf("Run after Close = %v", err)
	}
}
