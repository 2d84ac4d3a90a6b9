package audit

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4sim"
)

// vehicleFlight simulates a flight acting through the px4 executor on a
// simulated PX4 whose system id is vehicle, as the node commanding it
// records it.
func vehicleFlight(t *testing.T, vehicle uint8) []byte {
	t.Helper()
	ex := executor.NewPX4(executor.PX4Options{Transport: px4sim.New(px4sim.Options{SystemID: vehicle})})
	out, res, err := replayBytes(t, simSource(t, 30*time.Second, 20), ReplayOptions{Session: session.SessionOptions{
		Executors: []session.Executor{ex}, Enable: enabled, TargetVehicle: uint32(vehicle),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counters.Actions.EvidenceAccepted == 0 {
		t.Fatalf("vehicle %d: no evidence accepted: %+v", vehicle, res.Counters.Actions)
	}
	return out
}

// unclosed is data as a writer that stopped before its summary leaves it:
// no index, every chunk complete.
func unclosed(t *testing.T, data []byte) []byte {
	t.Helper()
	if !openBytes(t, data).Indexed() {
		t.Fatal("the recording has no index to lose")
	}
	// The footer (a 9-byte record header, then the summary's start)
	// and the closing magic end the file.
	const tail = 9 + 20 + 8
	end := binary.LittleEndian.Uint64(data[len(data)-tail+9:])
	if end == 0 || end >= uint64(len(data)) {
		t.Fatalf("summary start %d of %d bytes", end, len(data))
	}
	return data[:end]
}

// TestChooseTarget: a flag wins; else the recording's first receipt names
// the vehicle, whether read through the index, from an unclosed file or
// across a bag's files; a recording without receipts takes the fallback.
func TestChooseTarget(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	two := vehicleFlight(t, 2)
	plainData, _, err := replayBytes(t, simSource(t, 10*time.Second, 20), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flight2 := write("vehicle2.mcap", two)
	plain := write("plain.mcap", plainData)
	open2 := write("vehicle2-unclosed.mcap", unclosed(t, two))
	cutEarly := write("vehicle2-cut.mcap", two[:len(two)/50])
	zero := write("vehicle0.mcap", rewrite(t, two, func(_ int, rc *session.ActionReceipt) bool { rc.Vehicle = 0; return true }))
	later3 := write("vehicle2-then-3.mcap", rewrite(t, two, func(i int, rc *session.ActionReceipt) bool {
		if i > 0 {
			rc.Vehicle = 3
		}
		return true
	}))
	fallback := Target{Vehicle: DefaultTargetVehicle, From: TargetDefault}
	configured := Target{Vehicle: 5, From: TargetFromConfig}
	tests := []struct {
		name     string
		given    uint32
		files    []string
		topic    string
		fallback Target
		want     Target
		err      string // in the error; "" for none
	}{
		{"receipts for vehicle 2", 0, []string{flight2}, "", fallback, Target{2, TargetFromReceipts}, ""},
		{"over the configuration's", 0, []string{flight2}, "", configured, Target{2, TargetFromReceipts}, ""},
		{"the flag wins", 1, []string{flight2}, "", fallback, Target{1, TargetGiven}, ""},
		{"no receipt", 0, []string{plain}, "", fallback, fallback, ""},
		{"no receipt, the configuration's", 0, []string{plain}, "", configured, configured, ""},
		{"receipts on another topic", 0, []string{flight2}, "/drone1/decisions/actions", fallback, fallback, ""},
		{"unclosed: read without an index", 0, []string{open2}, "", fallback, Target{2, TargetFromReceipts}, ""},
		{"cut before the first receipt", 0, []string{cutEarly}, "", fallback, fallback, ""},
		{"a bag's second file", 0, []string{plain, flight2}, "", fallback, Target{2, TargetFromReceipts}, ""},
		{"the first receipt's, not a later one's", 0, []string{later3}, "", fallback, Target{2, TargetFromReceipts}, ""},
		{"a receipt naming vehicle 0", 0, []string{zero}, "", fallback, Target{}, "names vehicle 0, not a system id"},
		{"a missing file", 0, []string{filepath.Join(dir, "none.mcap")}, "", fallback, Target{}, "none.mcap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fb := tc.fallback
			topic := tc.topic
			if topic == "" {
				topic = session.DefaultTopics().Actions()
			}
			got, err := ChooseTarget(tc.given, tc.files, topic, fb)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %+v, %v; want an error saying %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if _, _, err := RecordedVehicle([]string{cutEarly}, session.DefaultTopics().Actions()); !errors.Is(err, bag.ErrTruncated) {
		t.Fatalf("a file cut before its first receipt: %v, want bag.ErrTruncated", err)
	}
}

// TestVerifyTargetVehicle: a recording whose receipts name vehicle 2
// verifies against the vehicle its receipts name, and fails against
// vehicle 1 with the trail's findings; receipts naming another vehicle
// after the first are not hidden by the choice. The report names the
// target and where it came from.
func TestVerifyTargetVehicle(t *testing.T) {
	two := vehicleFlight(t, 2)
	mixed := rewrite(t, two, func(i int, rc *session.ActionReceipt) bool {
		if i > 0 {
			rc.Vehicle = 3
		}
		return true
	})
	plain, _, err := replayBytes(t, simSource(t, 10*time.Second, 20), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	execs := []session.Executor{executor.NewPX4(executor.PX4Options{})}
	tests := []struct {
		name   string
		data   []byte
		target Target
		execs  []session.Executor
		pass   bool
		want   []Finding
		report *Target
	}{
		{"vehicle 2, its receipts' target", two, Target{2, TargetFromReceipts}, execs, true, nil, &Target{2, TargetFromReceipts}},
		{"vehicle 2, given 1", two, Target{1, TargetGiven}, execs, false, []Finding{FindingActionDiverged, FindingActionEvidence}, &Target{1, TargetGiven}},
		{"vehicle 2 then 3", mixed, Target{2, TargetFromReceipts}, execs, false, []Finding{FindingActionDiverged}, &Target{2, TargetFromReceipts}},
		{"no receipt, no executor", plain, Target{1, TargetDefault}, nil, true, nil, nil},
		{"receipts, no executor", two, Target{1, TargetDefault}, nil, false, []Finding{FindingActionUntraced}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := VerifyOptions{TargetFrom: tc.target.From,
				Session: session.SessionOptions{Executors: tc.execs, TargetVehicle: tc.target.Vehicle}}
			if tc.execs != nil {
				opts.Session.Enable = enabled
			}
			r, err := Verify(openBytes(t, tc.data), opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed() != tc.pass {
				t.Fatalf("passed %v, want %v: %v %v", r.Passed(), tc.pass, r.Findings, r.Notes)
			}
			for _, f := range tc.want {
				if r.FindingCount(f) == 0 {
					t.Errorf("no %s: %v", f, r.Findings)
				}
			}
			switch {
			case tc.report == nil && r.Target != nil:
				t.Errorf("report names target %+v, want none", *r.Target)
			case tc.report != nil && (r.Target == nil || *r.Target != *tc.report):
				t.Errorf("report names target %+v, want %+v", r.Target, *tc.report)
			}
		})
	}
}
