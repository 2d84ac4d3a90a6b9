package transport

import (
	"context"
	"errors"
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
func TestQoSProfileRMW(t *testing.T) {
	tests := []struct {
		name string
		in   QoSProfile
		want RMWQoS
	}{
		{"input default", DefaultInputQoS(), RMWQoS{History: 1, Depth: 10, Reliability: 1, Durability: 2}},
		{"decisions default", DefaultDecisionsQoS(), RMWQoS{History: 1, Depth: 100, Reliability: 1, Durability: 1}},
		{"best effort keep all", QoSProfile{History: HistoryKeepAll, Reliability: ReliabilityBestEffort, Durability: DurabilitySystemDefault},
			RMWQoS{History: 2, Reliability: 2, Durability: 0}},
		{"system defaults", QoSProfile{}, RMWQoS{}},
		{"liveliness and durations", QoSProfile{History: HistoryKeepLast, Depth: 1, Liveliness: LivelinessManualByTopic,
			Deadline: time.Second, Lifespan: 2 * time.Second, LivelinessLeaseDuration: 3 * time.Second, AvoidROSNamespaceConventions: true},
			RMWQoS{History: 1, Depth: 1, Liveliness: 3, Deadline: time.Second, Lifespan: 2 * time.Second,
				LivelinessLeaseDuration: 3 * time.Second, AvoidROSNamespaceConventions: true}},
		{"automatic liveliness", QoSProfile{Liveliness: LivelinessAutomatic}, RMWQoS{Liveliness: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.RMW()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("RMW() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestQoSProfileRMWRejects(t *testing.T) {
	for _, p := range []QoSProfile{
		{History: HistoryKeepLast, Depth: 0},
		{Reliability: 7},
		{Durability: 3},
		{History: 9},
		{Liveliness: 2},
		{Deadline: -1},
	} {
		if got, err := p.RMW(); !errors.Is(err, ErrInvalidQoS) {
			t.Errorf("RMW(%+v) = %+v, %v; want ErrInvalidQoS", p, got, err)
		}
	}
}

func TestFakeTransport(t *testing.T) {
	ft := NewFakeTransport()
	var mu sync.Mutex
	var got []string
	err := ft.Subscribe("/in", "ghost/msg/VehicleState", DefaultInputQoS(), func(data []byte, recv time.Time) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(data)+"@"+recv.UTC().Format("15:04:05"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ft.Subscribe("/in", "ghost/msg/VehicleState", DefaultInputQoS(), func([]byte, time.Time) {}); err == nil {
		t.Error("second subscription on /in succeeded")
	}
	if err := ft.Subscribe("/bad", "VehicleState", DefaultInputQoS(), func([]byte, time.Time) {}); !errors.Is(err, ErrTypeName) {
		t.Errorf("bad type name: %v", err)
	}
	pub, err := ft.Advertise("/out", "ghost/msg/DecisionRationale", DefaultDecisionsQoS())
	if err != nil {
		t.Fatal(err)
	}
	if typ, qos, ok := ft.Subscription("/in"); !ok || typ != "ghost/msg/VehicleState" || qos != DefaultInputQoS() {
		t.Errorf("Subscription(/in) = %q %+v %v", typ, qos, ok)
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
	if _, err := ft.Advertise("/late", "ghost/msg/Decision", DefaultInputQoS()); !errors.Is(err, ErrTransportRunning) {
		t.Errorf("Advertise while running: %v", err)
	}
	mu.Lock()
	if len(got) != 1 || got[0] != "a@03:04:05" {
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
