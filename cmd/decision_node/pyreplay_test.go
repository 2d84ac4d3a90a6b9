package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/pkg/audit/pyref"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// TestReplayReferenceRecording: replay turns a Python reference recording
// into a ghost ROS 2 recording whose decisions are the reference's own
// (kinds, reasons, hashes, stamps, policy), and verify passes on it. In
// gps_denial the holds come from the calibrated level while the raw level
// is known, so deciding on the raw assessments would diverge.
func TestReplayReferenceRecording(t *testing.T) {
	recordings := map[string]string{}
	for _, name := range []string{"gps_denial", "gps_degradation_loss_recovery", "cascade_dropout_ewma"} {
		recordings[name] = golden.Path(t, "python", name+".mcap")
	}
	for name, in := range recordings {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "replayed.mcap")
			if code, stdout, stderr := cli(t, "replay", "--in", in, "--out", out, "--quiet"); code != exitOK {
				t.Fatalf("replay exit %d:\n%s%s", code, stdout, stderr)
			}
			want := referenceDecisions(t, in)
			got, topics := ghostDecisions(t, out)
			if len(got) == 0 || len(got) != len(want) {
				t.Fatalf("%d decisions replayed, the reference recorded %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("decision %d: replayed %+v, the reference recorded %+v", i, got[i], want[i])
				}
			}
			for _, topic := range []string{"/state/nav", "/self_assessment", "/decisions"} {
				if topics[topic] == 0 {
					t.Errorf("no CDR messages on %s", topic)
				}
			}
			if topics["/self_assessment/calibrated"] != topics["/self_assessment"] && strings.HasPrefix(name, "gps_denial") {
				t.Errorf("%d calibrated and %d raw assessments", topics["/self_assessment/calibrated"], topics["/self_assessment"])
			}
			code, stdout, stderr := cli(t, "verify", out)
			if code != exitOK || !strings.Contains(stdout, "verdict: PASS") {
				t.Fatalf("verify exit %d:\n%s%s", code, stdout, stderr)
			}
			if topics["/self_assessment/calibrated"] > 0 && !strings.Contains(stdout, "calibrated assessments of /self_assessment/calibrated") {
				t.Errorf("verify did not decide on the calibrated assessments:\n%s", stdout)
			}
		})
	}
}

// TestReplayReferenceHoldsComeFromCalibration pins why the test above
// needs the calibrated input: verify with the calibrated channel ignored
// (the raw assessments as the Loop's input) diverges on gps_denial.
func TestReplayReferenceHoldsComeFromCalibration(t *testing.T) {
	want := referenceDecisions(t, referenceRecording(t)+".mcap")
	holdsWhileKnown := 0
	for _, r := range want {
		if r.Decision.Kind == decisions.KindHold {
			holdsWhileKnown++
		}
	}
	out := filepath.Join(t.TempDir(), "replayed.mcap")
	if code, stdout, stderr := cli(t, "replay", "--in", referenceRecording(t)+".mcap", "--out", out, "--quiet"); code != exitOK {
		t.Fatalf("replay exit %d:\n%s%s", code, stdout, stderr)
	}
	r, err := bag.OpenRecording(out, bag.ReaderOptions{Topics: []string{"/self_assessment"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var sa ros2msg.BeliefSelfAssessment
	known := 0
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		if err := sa.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		if decisions.Level(sa.OverallLevel) == decisions.LevelKnown {
			known++
		}
	}
	// Every raw assessment is known, yet the reference held: the holds
	// come from the calibrated level only.
	if holdsWhileKnown == 0 || known != len(want) {
		t.Fatalf("%d holds, %d of %d raw assessments known: the recording no longer shows a calibrated hold", holdsWhileKnown, known, len(want))
	}
}

// referenceDecisions reads the decisions a Python reference recording holds.
func referenceDecisions(t *testing.T, path string) []decisions.Rationale {
	t.Helper()
	r, err := bag.OpenRecording(path, bag.ReaderOptions{Encodings: jsonEncoding})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	roles := map[string]pyref.Role{}
	for _, c := range channelInfos(r) {
		roles[c.Topic] = pyref.RoleOf(c)
	}
	var out []decisions.Rationale
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		if roles[m.Topic] != pyref.RoleDecision {
			continue
		}
		d, err := pyref.DecodeRationale(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// ghostDecisions reads the decisions of a ghost recording and counts the
// CDR messages per topic.
func ghostDecisions(t *testing.T, path string) ([]decisions.Rationale, map[string]int) {
	t.Helper()
	r, err := bag.OpenRecording(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	topics := map[string]int{}
	for _, c := range r.Channels() {
		if c.MessageEncoding != "cdr" {
			t.Errorf("channel %s has encoding %q", c.Topic, c.MessageEncoding)
		}
	}
	var out []decisions.Rationale
	var dr ros2msg.DecisionRationale
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		topics[m.Topic]++
		if m.Topic != "/decisions" {
			continue
		}
		if err := dr.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		out = append(out, ros2msg.RationaleFromWire(&dr))
	}
	return out, topics
}
