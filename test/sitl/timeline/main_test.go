package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
