package standin

import (
	"context"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

func definitions(t testing.TB, rel px4.Release) *px4.Definitions {
	t.Helper()
	d, err := px4.NewDefinitions(rel, px4fixture.Texts(t, string(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// command is what the px4 executor sends for kind to vehicle 1.
func command(t *testing.T, d *px4.Definitions, k decisions.Kind, attempt uint8, target uint32) []byte {
	t.Helper()
	vc, _, err := executor.PX4Command(k)
	if err != nil {
		t.Fatal(err)
	}
	c, err := executor.ToPX4(session.ActionRequest{ActionID: 1, Attempt: attempt, Vehicle: target, Command: vc, TimeNs: 5e9}, 255, 190)
	if err != nil {
		t.Fatal(err)
	}
	data, err := d.EncodeCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The stand-in answers each command as Commander would: an ack to the
// command's source, then the nav_state or arming it commands; a denied
// kind gets DENIED and no state change; another system's command nothing.
func TestStandIn(t *testing.T) {
	for _, rel := range []px4.Release{"1.14", "1.15", "1.16"} {
		t.Run(string(rel), func(t *testing.T) {
			d := definitions(t, rel)
			ft := transport.NewFakeTransport()
			s, err := New(ft, Options{Definitions: d, Deny: []decisions.Kind{decisions.KindEngageLand}})
			if err != nil {
				t.Fatal(err)
			}
			ackTopic, _ := d.TopicName(px4.MsgVehicleCommandAck, "")
			statusTopic, _ := d.TopicName(px4.MsgVehicleStatus, "")
			if p := ft.Publisher(statusTopic); p == nil || p.QoS.Reliability != qos.ReliabilityBestEffort || p.QoS.Durability != qos.DurabilityTransientLocal {
				t.Fatalf("status publisher %+v", p)
			}
			if _, q, ok := ft.Subscription("/fmu/in/vehicle_command"); !ok || q.Reliability != qos.ReliabilityBestEffort {
				t.Fatalf("command subscription %+v %v", q, ok)
			}
			at := time.Unix(10, 0)
			steps := []struct {
				kind    decisions.Kind
				target  uint32
				result  int // -1: no ack
				mode    uint8
				armed   bool
				statusN int
			}{
				{decisions.KindEngageRTL, 1, int(decisions.AckAccepted), px4.NavStateAutoRTL, true, 1},
				{decisions.KindHold, 1, int(decisions.AckAccepted), px4.NavStateAutoLoiter, true, 2},
				{decisions.KindEngageLand, 1, int(decisions.AckDenied), px4.NavStateAutoLoiter, true, 2},
				{decisions.KindEngageRTL, 2, -1, px4.NavStateAutoLoiter, true, 2},
				{decisions.KindYieldToPilot, 1, int(decisions.AckAccepted), px4.NavStatePosctl, true, 3},
				{decisions.KindEngageKill, 1, int(decisions.AckAccepted), px4.NavStatePosctl, false, 4},
				{decisions.KindHold, 1, int(decisions.AckDenied), px4.NavStatePosctl, false, 4}, // disarmed: Commander refuses
			}
			acks := 0
			for i, st := range steps {
				if err := s.Handle(command(t, d, st.kind, 1, st.target), at); err != nil {
					t.Fatal(err)
				}
				got := ft.Published(ackTopic)
				if st.result >= 0 {
					acks++
				}
				if len(got) != acks {
					t.Fatalf("step %d (%s): %d acks, want %d", i, st.kind, len(got), acks)
				}
				if st.result >= 0 {
					a, err := d.CommandAck(got[acks-1])
					want, _, _ := executor.PX4Command(st.kind)
					if err != nil || a.Command != want.ID || int(a.Result) != st.result || a.TargetSystem != 255 || a.TargetComponent != 190 {
						t.Fatalf("step %d (%s): ack %+v %v", i, st.kind, a, err)
					}
				}
				statuses := ft.Published(statusTopic)
				// statusN answers, and one periodic status per earlier step.
				if len(statuses) != st.statusN+i {
					t.Fatalf("step %d (%s): %d statuses, want %d", i, st.kind, len(statuses), st.statusN+i)
				}
				if err := s.PublishStatus(at); err != nil {
					t.Fatal(err)
				}
				statuses = ft.Published(statusTopic)
				v, err := d.Status(statuses[len(statuses)-1])
				if err != nil || v.NavState != st.mode || v.Armed != st.armed || v.SystemID != 1 {
					t.Fatalf("step %d (%s): state %+v %v, want mode %d armed %v", i, st.kind, v, err, st.mode, st.armed)
				}
			}
			if s.Handle([]byte{0, 1, 0, 0, 1}, at) == nil {
				t.Fatal("garbage accepted")
			}
			if got := s.Stats(); got.Commands != uint64(len(steps)) || got.Ignored != 1 || got.Denied != 2 || got.Accepted != 4 || got.Undecodable != 1 {
				t.Fatalf("%+v", got)
			}
		})
	}
}

// Wired to a transport, the stand-in answers what arrives on the command
// topic.
func TestStandInOnTransport(t *testing.T) {
	d := definitions(t, "1.15")
	ft := transport.NewFakeTransport()
	if _, err := New(ft, Options{Definitions: d, SystemID: 3}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- ft.Run(ctx) }()
	if err := ft.Deliver(ctx, "/fmu/in/vehicle_command", command(t, d, decisions.KindEngageRTL, 1, 3), time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	got, err := ft.WaitPublished(ctx, "/fmu/out/vehicle_status", 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := d.Status(got[0]); err != nil || v.SystemID != 3 || v.NavState != px4.NavStateAutoRTL {
		t.Fatalf("%+v %v", v, err)
	}
	cancel()
	<-done
}

func TestStandInOptions(t *testing.T) {
	d := definitions(t, "1.15")
	if _, err := New(transport.NewFakeTransport(), Options{}); err == nil {
		t.Fatal("no definitions accepted")
	}
	if _, err := New(transport.NewFakeTransport(), Options{Definitions: d, Deny: []decisions.Kind{decisions.KindProceed}}); err == nil {
		t.Fatal("deny proceed accepted")
	}
	if _, err := New(transport.NewFakeTransport(), Options{Definitions: d, Namespace: "1bad"}); err == nil {
		t.Fatal("bad namespace accepted")
	}
}

func FuzzHandle(f *testing.F) {
	d := definitions(f, "1.15")
	f.Add([]byte{0, 1, 0, 0})
	data, _ := d.EncodeCommand(px4.Command{Command: 20, TargetSystem: 1, TargetComponent: 1})
	f.Add(data)
	s, err := New(transport.NewFakeTransport(), Options{Definitions: d})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = s.Handle(data, time.Unix(1, 0)) // never panics
	})
}
