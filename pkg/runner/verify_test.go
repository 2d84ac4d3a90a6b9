package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2msg"
)

// simulatedRecording returns the messages of a short simulated flight with
// its decisions, in log-time order.
func simulatedRecording(t *testing.T) []bag.Message {
	t.Helper()
	out, _, err := replayBytes(t, simSource(t, 3*time.Second, 50), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return drainSource(t, openBytes(t, out))
}

// editDecision rewrites the n-th decision with edit.
func editDecision(t *testing.T, msgs []bag.Message, n int, edit func(*ros2msg.DecisionRationale)) decisions.Rationale {
	t.Helper()
	for i := range msgs {
		if msgs[i].Topic != "/decisions" {
			continue
		}
		if n > 0 {
			n--
			continue
		}
		var w ros2msg.DecisionRationale
		if err := w.UnmarshalCDR(msgs[i].Data); err != nil {
			t.Fatal(err)
		}
		edit(&w)
		data, err := w.MarshalCDR()
		if err != nil {
			t.Fatal(err)
		}
		msgs[i].Data = data
		return ros2msg.RationaleFromWire(&w)
	}
	t.Fatal("no such decision")
	return decisions.Rationale{}
}

// firstDecisionWith returns the index (among decisions) of the first one
// whose hash is (or is not) empty.
func firstDecisionWith(t *testing.T, msgs []bag.Message, withHash bool) int {
	t.Helper()
	n := 0
	for _, m := range msgs {
		if m.Topic != "/decisions" {
			continue
		}
		var w ros2msg.DecisionRationale
		if err := w.UnmarshalCDR(m.Data); err != nil {
			t.Fatal(err)
		}
		if (w.SelfAssessmentSHA256 != "") == withHash {
			return n
		}
		n++
	}
	t.Fatal("no such decision")
	return -1
}

func TestVerifyFindsEveryKindOfProblem(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, msgs []bag.Message) []bag.Message
		chain  ChainStatus
		rerun  RerunStatus
		pass   bool
		want   string
	}{
		{"untouched", func(t *testing.T, m []bag.Message) []bag.Message { return m },
			ChainVerified, RerunMatched, true, ""},
		{"broken chain", func(t *testing.T, m []bag.Message) []bag.Message {
			editDecision(t, m, firstDecisionWith(t, m, true), func(w *ros2msg.DecisionRationale) {
				w.SelfAssessmentSHA256 = strings.Repeat("0", 64)
			})
			return m
		}, ChainBroken, RerunNoContext, false, "hashes to"},
		{"assessment missing", func(t *testing.T, m []bag.Message) []bag.Message {
			var out []bag.Message
			for _, x := range m {
				if x.Topic != "/self_assessment" {
					out = append(out, x)
				}
			}
			return out
		}, ChainAssessmentMissing, RerunNoContext, false, "no self-assessment"},
		{"divergent decision", func(t *testing.T, m []bag.Message) []bag.Message {
			editDecision(t, m, firstDecisionWith(t, m, true), func(w *ros2msg.DecisionRationale) {
				w.Decision.Kind = ros2msg.DecisionKindEngageKill
				w.Decision.Reason = "felt_like_it"
			})
			return m
		}, ChainVerified, RerunDiverged, false, "re-run gives"},
		{"decision claims no assessment it had", func(t *testing.T, m []bag.Message) []bag.Message {
			editDecision(t, m, firstDecisionWith(t, m, true), func(w *ros2msg.DecisionRationale) {
				w.SelfAssessmentSHA256 = ""
			})
			return m
		}, ChainNoAssessmentClaimed, RerunDiverged, false, "re-run gives"},
		{"unknown policy", func(t *testing.T, m []bag.Message) []bag.Message {
			editDecision(t, m, 0, func(w *ros2msg.DecisionRationale) { w.PolicyID = "someone_elses_v2" })
			return m
		}, ChainVerified, RerunUnknownPolicy, true, ""},
		{"stamp mismatch", func(t *testing.T, m []bag.Message) []bag.Message {
			editDecision(t, m, 3, func(w *ros2msg.DecisionRationale) { w.BeliefStampSimNs++ })
			return m
		}, ChainVerified, RerunMatched, false, "must equal decision.decision_stamp_sim_ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := tt.tamper(t, simulatedRecording(t))
			report, err := Verify(&sliceSource{msgs: msgs}, VerifyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if report.Passed() != tt.pass {
				t.Fatalf("passed=%v, want %v: %+v", report.Passed(), tt.pass, report.Problems)
			}
			if report.ChainCount(tt.chain) == 0 || report.RerunCount(tt.rerun) == 0 {
				t.Fatalf("no decision with chain %v / rerun %v: %v %v", tt.chain, tt.rerun, report.ByChain, report.ByRerun)
			}
			if tt.want == "" {
				if !tt.pass || (len(report.Problems) != 0 && tt.rerun == RerunMatched) {
					t.Fatalf("unexpected problems %+v", report.Problems)
				}
				return
			}
			found := false
			for _, p := range report.Problems {
				found = found || strings.Contains(p.Problem, tt.want)
			}
			if !found {
				t.Fatalf("no problem mentions %q: %+v", tt.want, report.Problems)
			}
		})
	}
}

func TestAuditorWaitsForInputsRecordedAfterTheDecision(t *testing.T) {
	msgs := simulatedRecording(t)
	// Move every decision before the inputs it depends on, as a recorder
	// that receives /decisions first would log them.
	var reordered []bag.Message
	var held []bag.Message
	for _, m := range msgs {
		if m.Topic == "/decisions" {
			reordered = append(reordered, m)
			continue
		}
		held = append(held, m)
	}
	reordered = append(reordered, held...)
	report, err := Verify(&sliceSource{msgs: reordered}, VerifyOptions{Audit: AuditOptions{Window: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	if !report.Passed() || report.RerunCount(RerunMatched) != report.Decisions {
		t.Fatalf("passed=%v %v %v", report.Passed(), report.ByRerun, report.Problems)
	}
}

func TestAuditorMemoryIsBounded(t *testing.T) {
	a := NewAuditor(AuditOptions{Window: time.Second, MaxHeld: 100})
	th := decisions.Thresholds{PositionKnownStdM: 1, PositionUnknownStdM: 2, VelocityKnownStdMps: 1, VelocityUnknownStdMps: 2,
		OrientationKnownStdRad: 1, OrientationUnknownStdRad: 2, SchemaVersion: 1}
	for i := int64(0); i < 200_000; i++ {
		logTime := i * int64(time.Millisecond)
		s, err := decisions.Assess(i, nil, th)
		if err != nil {
			t.Fatal(err)
		}
		a.Assessment(logTime, &s)
		a.Belief(logTime, &decisions.Belief{StampSimNs: i, OrientationQ: [4]float64{1, 0, 0, 0}})
		a.Perception(logTime, decisions.PerceptionReport{StampSimNs: i})
		if i%3 == 0 { // decisions whose belief never comes
			a.Decision(logTime, decisions.Rationale{BeliefStampSimNs: -i})
		}
		if n := len(a.beliefs) + len(a.assessments); n > 2*100+2 {
			t.Fatalf("after %d inputs %d held", i, n)
		}
		if len(a.pending) > 100 || len(a.perception) > 101 {
			t.Fatalf("pending %d perception %d", len(a.pending), len(a.perception))
		}
	}
	r := a.Finish()
	if r.Decisions != 66667 || r.ProblemsOmitted == 0 || len(r.Problems) != 100 {
		t.Fatalf("decisions %d problems %d omitted %d", r.Decisions, len(r.Problems), r.ProblemsOmitted)
	}
}
