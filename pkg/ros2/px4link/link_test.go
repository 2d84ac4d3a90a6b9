package px4link

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// definitions reads the test layouts of a release.
func definitions(t testing.TB, rel px4.Release) *px4.Definitions {
	t.Helper()
	d, err := px4.NewDefinitions(rel, px4fixture.Texts(t, string(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func encode(t testing.TB, d *px4.Definitions, msg string, uints map[string]uint64) []byte {
	t.Helper()
	p, err := d.Plan(msg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range uints {
		if err := w.SetUint(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return w.Bytes()
}

// The topics, types and QoS are PX4's: commands best effort, volatile,
// keep last 1 on /fmu/in; answers read best effort, volatile from
// /fmu/out, with 1.16's versioned status topic.
func TestTopicsAndQoS(t *testing.T) {
	tests := []struct {
		rel    px4.Release
		ns     string
		cmd    string
		status string
	}{
		{"1.15", "", "/fmu/in/vehicle_command", "/fmu/out/vehicle_status"},
		{"1.16", "/uav_1", "/uav_1/fmu/in/vehicle_command", "/uav_1/fmu/out/vehicle_status_v1"},
	}
	for _, tc := range tests {
		ft := transport.NewFakeTransport()
		l, err := New(ft, Options{Definitions: definitions(t, tc.rel), Namespace: tc.ns})
		if err != nil {
			t.Fatal(err)
		}
		p := ft.Publisher(tc.cmd)
		if p == nil || p.TypeName != "px4_msgs/msg/VehicleCommand" || p.QoS.Reliability != qos.ReliabilityBestEffort ||
			p.QoS.Durability != qos.DurabilityVolatile || p.QoS.History != qos.HistoryKeepLast || p.QoS.Depth != 1 {
			t.Fatalf("%s: command publisher %+v", tc.rel, p)
		}
		if err := l.Subscribe(ft, nil); err != nil {
			t.Fatal(err)
		}
		typ, q, ok := ft.Subscription(tc.status)
		if !ok || typ != "px4_msgs/msg/VehicleStatus" || q.Reliability != qos.ReliabilityBestEffort || q.Durability != qos.DurabilityVolatile {
			t.Fatalf("%s: status subscription %q %+v %v", tc.rel, typ, q, ok)
		}
		if _, _, ok := ft.Subscription(strings.TrimSuffix(tc.cmd, "/in/vehicle_command") + "/out/vehicle_command_ack"); !ok {
			t.Fatalf("%s: no ack subscription", tc.rel)
		}
	}
}

// A command goes out in the release's layout, field for field.
func TestSendCommand(t *testing.T) {
	d := definitions(t, "1.15")
	ft := transport.NewFakeTransport()
	l, err := New(ft, Options{Definitions: d})
	if err != nil {
		t.Fatal(err)
	}
	c := px4.Command{TimestampUs: 7, Command: 176, Param1: 1, Param2: 4, Param3: 3, TargetSystem: 1, TargetComponent: 1,
		SourceSystem: 255, SourceComponent: 190, Confirmation: 1, FromExternal: true}
	if err := l.SendCommand(c, executor.SendInfo{ActionID: 1, Attempt: 2}); err != nil {
		t.Fatal(err)
	}
	msgs := ft.Published("/fmu/in/vehicle_command")
	if len(msgs) != 1 {
		t.Fatalf("%d published", len(msgs))
	}
	if n, _ := px4.ExpectedSize(px4.MsgVehicleCommand, "1.15"); len(msgs[0]) < n+4 {
		t.Fatalf("payload of %d bytes, want %d + header", len(msgs[0]), n)
	}
	got, err := d.Command(msgs[0])
	if err != nil || got != c {
		t.Fatalf("published %+v (%v), want %+v", got, err, c)
	}
	// A value the release cannot hold is an error, nothing is sent.
	d14 := definitions(t, "1.14")
	ft14 := transport.NewFakeTransport()
	l14, err := New(ft14, Options{Definitions: d14})
	if err != nil {
		t.Fatal(err)
	}
	c.SourceComponent = 300
	if err := l14.SendCommand(c, executor.SendInfo{}); err == nil || len(ft14.Published("/fmu/in/vehicle_command")) != 0 {
		t.Fatalf("1.14 with source component 300: %v", err)
	}
	ft.Publisher("/fmu/in/vehicle_command").FailWith(transport.ErrTransportClosed)
	if err := l.SendCommand(px4.Command{}, executor.SendInfo{}); !errors.Is(err, transport.ErrTransportClosed) {
		t.Fatalf("publish failure: %v", err)
	}
	if l.Stats().Sent != 1 {
		t.Fatalf("%+v", l.Stats())
	}
}

// Answers are buffered with their receive times and handed out once, in
// receive order, up to the time asked; garbage and foreign topics are
// refused and counted.
func TestDeliverReceive(t *testing.T) {
	d := definitions(t, "1.15")
	l, err := New(transport.NewFakeTransport(), Options{Definitions: d, MaxPending: 3})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Unix(100, 0)
	ack := encode(t, d, px4.MsgVehicleCommandAck, map[string]uint64{"command": 20, "result": 0, "target_system": 255, "target_component": 190})
	status := encode(t, d, px4.MsgVehicleStatus, map[string]uint64{"nav_state": 5, "arming_state": 2, "system_id": 1})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(l.Deliver("/fmu/out/vehicle_status", status, base.Add(20)))
	must(l.Deliver("/fmu/out/vehicle_command_ack", ack, base.Add(10)))
	if err := l.Deliver("/fmu/out/vehicle_command_ack", ack[:9], base); err == nil {
		t.Fatal("short ack accepted")
	}
	if err := l.Deliver("/fmu/out/battery_status", status, base); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("foreign topic: %v", err)
	}
	if got := l.Receive(base.UnixNano() + 9); got != nil {
		t.Fatalf("early: %+v", got)
	}
	got := l.Receive(base.UnixNano() + 20)
	if len(got) != 2 || got[0].Ack == nil || got[0].Ack.Command != 20 || got[0].ArrivalNs != base.UnixNano()+10 ||
		got[1].Status == nil || got[1].Status.NavState != 5 || !got[1].Status.Armed {
		t.Fatalf("%+v", got)
	}
	if l.Receive(1<<62) != nil {
		t.Fatal("handed out twice")
	}
	for i := range 5 {
		must(l.Deliver("/fmu/out/vehicle_status", status, base.Add(time.Duration(i))))
	}
	if got := l.Receive(1 << 62); len(got) != 3 || got[0].ArrivalNs != base.UnixNano()+2 {
		t.Fatalf("overflow kept %+v", got)
	}
	if s := l.Stats(); s.Acks != 1 || s.Statuses != 6 || s.Undecodable != 1 || s.Dropped != 2 {
		t.Fatalf("%+v", s)
	}
}

// The transport's goroutine delivers while the decision goroutine polls
// and sends; run with -race.
func TestConcurrentUse(t *testing.T) {
	d := definitions(t, "1.15")
	ft := transport.NewFakeTransport()
	l, err := New(ft, Options{Definitions: d})
	if err != nil {
		t.Fatal(err)
	}
	var notified sync.WaitGroup
	const n = 200
	notified.Add(n)
	if err := l.Subscribe(ft, notified.Done); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	runDone := make(chan error, 1)
	go func() { runDone <- ft.Run(ctx) }()
	status := encode(t, d, px4.MsgVehicleStatus, map[string]uint64{"nav_state": 4, "arming_state": 2, "system_id": 1})
	base := time.Unix(100, 0)
	go func() {
		for i := range n {
			if err := ft.Deliver(ctx, "/fmu/out/vehicle_status", status, base.Add(time.Duration(i))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	received := 0
	for received < n && ctx.Err() == nil {
		received += len(l.Receive(1 << 62))
		if err := l.SendCommand(px4.Command{Command: 20, TargetSystem: 1}, executor.SendInfo{}); err != nil {
			t.Fatal(err)
		}
		_ = l.Stats()
	}
	notified.Wait()
	cancel()
	if err := <-runDone; err != nil {
		t.Fatal(err)
	}
	if received != n {
		t.Fatalf("received %d of %d", received, n)
	}
}

func FuzzDeliver(f *testing.F) {
	d := definitions(f, "1.15")
	f.Add([]byte{0, 1, 0, 0}, true)
	f.Add(encode(f, d, px4.MsgVehicleStatus, map[string]uint64{"nav_state": 4}), false)
	f.Add(encode(f, d, px4.MsgVehicleCommandAck, map[string]uint64{"command": 20}), true)
	l, err := New(transport.NewFakeTransport(), Options{Definitions: d, MaxPending: 4})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, ack bool) {
		topic := "/fmu/out/vehicle_status"
		if ack {
			topic = "/fmu/out/vehicle_command_ack"
		}
		if err := l.Deliver(topic, data, time.Unix(1, 0)); err == nil && len(l.Receive(1<<62)) != 1 {
			t.Fatal("accepted but not buffered")
		}
	})
}
