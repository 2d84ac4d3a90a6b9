package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// With the defaults nothing acts: no executor, no enabled kind, no route.
func TestExecutorsDefaultExecutesNothing(t *testing.T) {
	so, err := Default().SessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	if len(so.Executors) != 0 || len(so.Enable) != 0 || so.TargetVehicle != 0 {
		t.Fatalf("defaults act: executors %d, enable %v, vehicle %d", len(so.Executors), so.Enable, so.TargetVehicle)
	}
	for k, r := range so.Loop.Actions.Routes {
		if r.Executor != "" || r.Enabled {
			t.Fatalf("default route of %s: %+v", decisions.Kind(k), r)
		}
	}
}

func TestExecutorsFromArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		id      string
		enable  []decisions.Kind
		vehicle uint32
		retries int
		ack     time.Duration
	}{
		{"px4 with the default kinds", []string{"-p", "executors.executor:=px4"}, "px4",
			[]decisions.Kind{decisions.KindHold, decisions.KindYieldToPilot, decisions.KindEngageRTL, decisions.KindEngageLand}, 1, 2, time.Second},
		{"kill needs its own switch", []string{"-p", "executors.executor:=px4", "-p", "executors.enable:=engage_rtl", "-p", "executors.enable_kill:=true"}, "px4",
			[]decisions.Kind{decisions.KindEngageRTL, decisions.KindEngageKill}, 1, 2, time.Second},
		{"log, vehicle 7, no retries", []string{"-p", "executors.executor:=log", "-p", "executors.target_vehicle:=7", "-p", "executors.max_retries:=0",
			"-p", "executors.ack_timeout_s:=0.25", "-p", "executors.enable:= hold , engage_land"}, "log",
			[]decisions.Kind{decisions.KindHold, decisions.KindEngageLand}, 7, -1, 250 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _, err := FromArgs(append([]string{"--ros-args"}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			so, err := cfg.SessionOptions()
			if err != nil {
				t.Fatal(err)
			}
			if len(so.Executors) != 1 || so.Executors[0].ID() != tc.id || !reflect.DeepEqual(so.Enable, tc.enable) || so.TargetVehicle != tc.vehicle ||
				so.Loop.Actions.MaxRetries != tc.retries || so.Loop.Actions.AckTimeout != tc.ack {
				t.Fatalf("executors %d, enable %v, vehicle %d, actions %+v", len(so.Executors), so.Enable, so.TargetVehicle, so.Loop.Actions)
			}
		})
	}
}

// Every bad value is refused, naming the parameter and the value.
func TestExecutorsRejected(t *testing.T) {
	tests := []struct {
		arg      string
		sentinel error
		contains []string
	}{
		{"executors.executor:=mavlink", ErrInvalidValue, []string{`"executors.executor"`, "mavlink", "px4 or log"}},
		{"executors.enable:=hold,fly_away", ErrInvalidValue, []string{`"executors.enable"`, "fly_away"}},
		{"executors.enable:=engage_kill", ErrInvalidValue, []string{`"executors.enable"`, "executors.enable_kill"}},
		{"executors.enable:=proceed", ErrInvalidValue, []string{`"executors.enable"`, "proceed", "nothing"}},
		{"executors.enable:=hold,hold", ErrInvalidValue, []string{`"executors.enable"`, "twice"}},
		{"executors.target_vehicle:=0", ErrInvalidValue, []string{`"executors.target_vehicle"`, "1 to 255"}},
		{"executors.target_vehicle:=256", ErrInvalidValue, []string{`"executors.target_vehicle"`, "256"}},
		{"executors.max_retries:=-1", ErrInvalidValue, []string{`"executors.max_retries"`, "0 to 250"}},
		{"executors.ack_timeout_s:=0.0", ErrInvalidValue, []string{`"executors.ack_timeout_s"`}},
		{"executors.reach_timeout_s:=-1.0", ErrInvalidValue, []string{`"executors.reach_timeout_s"`}},
		{"executors.enable_kill:=yes please", ErrWrongType, []string{`"executors.enable_kill"`}},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			_, _, err := FromArgs([]string{"--ros-args", "-p", "executors.executor:=px4", "-p", tc.arg})
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("err = %v, want %v", err, tc.sentinel)
			}
			for _, s := range tc.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
		})
	}
	// A Config built in code is checked too.
	c := Default()
	c.Executors.Executor = "px5"
	if _, err := c.SessionOptions(); err == nil || !strings.Contains(err.Error(), "executors.executor") {
		t.Fatalf("SessionOptions: %v", err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `"px5"`) {
		t.Fatalf("Validate: %v", err)
	}
}

// The re-command settings reach the Loop as plain values: the defaults,
// other values, and 0 for either as the Loop's "never".
func TestExecutorsRecommand(t *testing.T) {
	tests := []struct {
		args     []string
		interval time.Duration
		max      int
	}{
		{nil, 5 * time.Second, 5},
		{[]string{"-p", "executors.recommand_interval_s:=2.5", "-p", "executors.max_recommands:=9"}, 2500 * time.Millisecond, 9},
		{[]string{"-p", "executors.recommand_interval_s:=0.0"}, -1, 5},
		{[]string{"-p", "executors.max_recommands:=0"}, -1, 0},
	}
	for _, tc := range tests {
		cfg, _, err := FromArgs(append([]string{"--ros-args", "-p", "executors.executor:=px4"}, tc.args...))
		if err != nil {
			t.Fatal(err)
		}
		so, err := cfg.SessionOptions()
		if err != nil {
			t.Fatal(err)
		}
		if a := so.Loop.Actions; a.RecommandInterval != tc.interval || a.MaxRecommands != tc.max {
			t.Errorf("%q: interval %s, max %d; want %s, %d", tc.args, a.RecommandInterval, a.MaxRecommands, tc.interval, tc.max)
		}
	}
	for _, arg := range []string{"executors.recommand_interval_s:=-1.0", "executors.max_recommands:=-1", "executors.max_recommands:=251"} {
		_, _, err := FromArgs([]string{"--ros-args", "-p", "executors.executor:=px4", "-p", arg})
		if !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), strings.Split(arg, ":=")[0]) {
			t.Errorf("%s: err = %v", arg, err)
		}
	}
}

// With input.source px4 the action deadlines count in PX4's time (its
// belief stamps); with the other sources in arrival time.
func TestDeadlinesFollowTheInputSource(t *testing.T) {
	for source, want := range map[string]engine.DeadlineClock{
		SourceGhost: engine.DeadlinesArrival, SourcePX4: engine.DeadlinesVehicle, SourceOdometry: engine.DeadlinesArrival,
	} {
		cfg, _, err := FromArgs([]string{"--ros-args", "-p", "input.source:=" + source, "-p", "executors.executor:=px4"})
		if err != nil {
			t.Fatal(err)
		}
		so, err := cfg.SessionOptions()
		if err != nil {
			t.Fatal(err)
		}
		if so.Loop.Actions.Deadlines != want {
			t.Errorf("input.source %s: deadlines in %s time, want %s", source, so.Loop.Actions.Deadlines, want)
		}
	}
}
