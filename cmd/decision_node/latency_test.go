package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/audit/latency"
	"github.com/ghost-robotics/ghost/pkg/bag"
)

// withPublishTimes copies a recording, giving every decision a publish time
// delay after its log time, as a live node's recording has.
func withPublishTimes(t *testing.T, in, out string, delay uint64) {
	t.Helper()
	r, err := bag.OpenRecording(in, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := bag.CreateRecording(out, bag.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chans := map[string]bag.ChannelID{}
	for m, err := range r.Messages() {
		if err != nil {
			t.Fatal(err)
		}
		ch, ok := chans[m.Topic]
		if !ok {
			if ch, err = w.AddMessageChannel(m.Topic, m.SchemaName); err != nil {
				t.Fatal(err)
			}
			chans[m.Topic] = ch
		}
		pub := m.LogTime
		if m.Topic == "/decisions" {
			pub += delay
		}
		if err := w.Write(ch, m.LogTime, pub, m.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLatency(t *testing.T) {
	dir := t.TempDir()
	flight := simulate(t, dir)

	// A simulation's recording has no wall-clock publish times.
	code, stdout, stderr := cli(t, "latency", flight)
	if code != exitFindings || !strings.Contains(stderr, "nothing to measure") {
		t.Errorf("latency of a sim recording: exit %d\n%s%s", code, stdout, stderr)
	}

	live := filepath.Join(dir, "live.mcap")
	withPublishTimes(t, flight, live, 250_000)
	jsonOut := filepath.Join(dir, "latency.json")
	code, stdout, stderr = cli(t, "latency", live, "--json", jsonOut)
	if code != exitOK {
		t.Fatalf("latency exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "last input -> decision") || !strings.Contains(stdout, "250.0 us") {
		t.Errorf("table lacks the decision row at 250 us:\n%s", stdout)
	}
	if !strings.Contains(stdout, "wall: the node's own processing time") {
		t.Errorf("table does not say which clock it measured:\n%s", stdout)
	}
	var r latency.Report
	data, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	// Decisions taken when their assessment arrived are logged at its
	// arrival: their latency is the delay alone. Those decided without an
	// assessment waited for the timeout, so the maximum is larger.
	if !r.WallClock || r.Decisions.N == 0 || r.Decisions.P50 != 250_000 || r.Decisions.Max <= r.Decisions.P50 {
		t.Errorf("report %+v", r)
	}
	// --json - writes the JSON alone on stdout.
	code, stdout, _ = cli(t, "latency", live, "--json", "-")
	var alone latency.Report
	if err := json.Unmarshal([]byte(stdout), &alone); code != exitOK || err != nil || alone != r {
		t.Errorf("--json -: exit %d, %v:\n%s", code, err, stdout)
	}
	if code, _, _ := cli(t, "latency"); code != exitUsage {
		t.Errorf("no recording: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := cli(t, "latency", filepath.Join(dir, "none.mcap")); code != exitIO {
		t.Errorf("missing recording: exit %d, want %d", code, exitIO)
	}
}
