package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2/standin"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
)

func TestStandinUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"px4-standin", "--system-id", "0"}, exitUsage, "--system-id 0"},
		{[]string{"px4-standin", "--deny", "fly_away"}, exitUsage, `--deny "fly_away"`},
		{[]string{"px4-standin", "--deny", "proceed"}, exitUsage, "--deny proceed"},
		{[]string{"px4-standin", "extra"}, exitUsage, "takes no arguments"},
		{[]string{"px4-standin", "--status-period", "-1s"}, exitUsage, "--status-period"},
	}
	for _, tc := range tests {
		code, _, stderr := cli(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	t.Setenv("AMENT_PREFIX_PATH", t.TempDir())
	if code, _, stderr := cli(t, "px4-standin"); code != exitIO || !strings.Contains(stderr, "px4_msgs") {
		t.Errorf("without px4_msgs: exit %d, %q", code, stderr)
	}
}

// The command's loop answers on its transport and publishes the status
// every period.
func TestServeStandin(t *testing.T) {
	defs, err := px4.NewDefinitions("1.15", px4fixture.Texts(t, "1.15"))
	if err != nil {
		t.Fatal(err)
	}
	ft := transport.NewFakeTransport()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	tick := make(chan time.Time)
	done := make(chan error, 1)
	so := standinOptions{opts: standin.Options{Definitions: defs, Deny: []decisions.Kind{decisions.KindHold}}}
	go func() { done <- serveStandin(runCtx, ft, so, slog.New(slog.DiscardHandler), tick) }()
	if _, err := ft.WaitPublished(ctx, "/fmu/out/vehicle_status", 1); err != nil {
		t.Fatal(err)
	}
	vc, _, _ := executor.PX4Command(decisions.KindHold)
	c, _ := executor.ToPX4(session.ActionRequest{Attempt: 1, Vehicle: 1, Command: vc}, 255, 190)
	data, err := defs.EncodeCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := ft.Deliver(ctx, "/fmu/in/vehicle_command", data, time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	acks, err := ft.WaitPublished(ctx, "/fmu/out/vehicle_command_ack", 1)
	if err != nil {
		t.Fatal(err)
	}
	if a, err := defs.CommandAck(acks[0]); err != nil || a.Result != decisions.AckDenied || a.TargetSystem != 255 {
		t.Fatalf("%+v %v", a, err)
	}
	tick <- time.Unix(2, 0)
	if _, err := ft.WaitPublished(ctx, "/fmu/out/vehicle_status", 2); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
