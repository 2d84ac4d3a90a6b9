package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// On a simulated flight with the px4 executor, the timeline after the GPS
// loss shows the first decision other than proceed, then a command sent,
// then one accepted, and the vehicle's mode changing.
func TestTimelineOfASimulatedFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs decision_node sim")
	}
	dir := t.TempDir()
	flight := filepath.Join(dir, "flight.mcap")
	sim := exec.Command("go", "run", "../../../cmd/decision_node", "sim", "--out", flight, "--duration", "60s",
		"--policy-file", "../../../config/policies/px4_failsafe_like.yaml", "--executor", "px4")
	if out, err := sim.CombinedOutput(); err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	var out bytes.Buffer
	// The simulated GPS degrades from 43 s of the flight on.
	if err := run([]string{"--event-ns", "43000000000", flight}, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	first := strings.Index(text, "first decision other than proceed")
	sent := strings.Index(text, " sent: ")
	accepted := strings.Index(text, " accepted: ")
	mode := strings.Index(text, "vehicle: ")
	if first < 0 || sent < first || accepted < sent || mode < 0 {
		t.Errorf("want a decision, then a command sent, then one accepted, and a mode change; got\n%s", text)
	}
}

// The vehicle-time column follows the belief stamps, whatever the log times
// do: at half real time a mode change 2 s of log time after the event is
// 1 s of the vehicle's time after it.
func TestTimelineVehicleTime(t *testing.T) {
	const s = uint64(time.Second)
	state := func(logS float64, stampS float64, mode decisions.FlightMode) bag.Message {
		m := ros2msg.NewVehicleState()
		m.StampSimNs = int64(stampS * float64(s))
		m.Flight.FlightMode = uint8(mode)
		m.Flight.Armed = true
		data, err := m.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		return bag.Message{Topic: "/state/nav", LogTime: uint64(logS * float64(s)), Data: data}
	}
	tests := []struct {
		name    string
		rtf     float64
		wantLog string
		wantVeh string
	}{
		{"real time", 1, "2.000 s", "2.000 s"},
		{"half real time", 0.5, "2.000 s", "1.000 s"},
		{"quarter real time", 0.25, "2.000 s", "0.500 s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := &Timeline{event: 10 * s, sent: map[uint64]bool{}}
			// Beliefs every 0.5 s of log time from 9 s; the mode changes at 12 s.
			for logS := 9.0; logS <= 13; logS += 0.5 {
				mode := decisions.FlightModeOffboard
				if logS >= 12 {
					mode = decisions.FlightModeLand
				}
				if err := tl.Add(state(logS, 100+logS*tt.rtf, mode)); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			if err := tl.Print(&out); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("want a header and one mode change, got\n%s", out.String())
			}
			f := strings.Fields(lines[1])
			if got := f[0] + " " + f[1]; got != tt.wantLog {
				t.Errorf("after event = %s, want %s", got, tt.wantLog)
			}
			if got := f[2] + " " + f[3]; got != tt.wantVeh {
				t.Errorf("vehicle time = %s, want %s\n%s", got, tt.wantVeh, out.String())
			}
		})
	}
}

// An advisory flight sends nothing: the timeline still names the first
// decision after the event and the first of each kind, once, so ghost's
// land shows.
func TestTimelineFirstOfEachKind(t *testing.T) {
	const s = uint64(time.Second)
	decision := func(logS float64, k decisions.Kind, reason string) bag.Message {
		m := ros2msg.NewDecisionRationale()
		m.Decision.Kind = uint8(k)
		m.Decision.Reason = reason
		data, err := m.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		return bag.Message{Topic: "/decisions", LogTime: uint64(logS * float64(s)), Data: data}
	}
	tl := &Timeline{event: 10 * s, sent: map[uint64]bool{}}
	for _, m := range []bag.Message{
		decision(9, decisions.KindHold, "before_the_event"),
		decision(11, decisions.KindProceed, "nominal"),
		decision(13, decisions.KindHold, "belief_uncertain"),
		decision(14, decisions.KindHold, "belief_uncertain"),
		decision(17, decisions.KindEngageLand, "position_unknown"),
		decision(18, decisions.KindEngageLand, "position_unknown"),
	} {
		if err := tl.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := tl.Print(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"1.000 s", "first decision: proceed (nominal)",
		"3.000 s", "first decision other than proceed: hold (belief_uncertain)",
		"7.000 s", "first engage_land decision (position_unknown)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("timeline lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "engage_land"); n != 1 {
		t.Errorf("engage_land named %d times, want once:\n%s", n, text)
	}
	if strings.Contains(text, "before_the_event") {
		t.Errorf("a decision before the event is in the timeline:\n%s", text)
	}
}
