package audit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Problems are grouped by cause with exact counts, however many were
// omitted from the problem list, with a few distinct examples; a passing
// report's JSON does not change.
func TestVerifyGroupsProblemsByCause(t *testing.T) {
	base := simulatedRecording(t)
	tests := []struct {
		name    string
		tamper  func(t *testing.T, msgs []bag.Message) []bag.Message
		relax   []Finding
		want    []Cause // Cause, Subject, Count and Findings compared
		passing bool
	}{
		{"untouched", nil, nil, nil, true},
		{"every decision names a policy not supplied", func(t *testing.T, msgs []bag.Message) []bag.Message {
			for i := 0; editsDecision(t, msgs, i, func(w *ros2msg.DecisionRationale) { w.PolicyID = "someone_elses_v2" }); i++ {
			}
			return msgs
		}, nil, []Cause{{Cause: CausePolicyNotSupplied, Subject: "someone_elses_v2", Findings: map[string]uint64{"unknown_policy": 0}}}, false},
		{"relaxed, the verdict passes", func(t *testing.T, msgs []bag.Message) []bag.Message {
			for i := 0; editsDecision(t, msgs, i, func(w *ros2msg.DecisionRationale) { w.PolicyID = "someone_elses_v2" }); i++ {
			}
			return msgs
		}, []Finding{FindingUnknownPolicy}, []Cause{{Cause: CausePolicyNotSupplied, Subject: "someone_elses_v2", Findings: map[string]uint64{"unknown_policy": 0}}}, true},
		{"the recorder started after three decisions", func(t *testing.T, msgs []bag.Message) []bag.Message {
			return dropInputsBefore(t, msgs, decisionStamp(t, msgs, 3))
		}, nil, []Cause{{Cause: CauseRecordingStartedLate, Count: 3, Findings: map[string]uint64{"assessment_missing": 3}}}, false},
		{"an assessment lost in flight", func(t *testing.T, msgs []bag.Message) []bag.Message {
			s := decisionStamp(t, msgs, 20)
			return slices.DeleteFunc(msgs, func(m bag.Message) bool {
				a, ok := decodeAssessment(m.Data)
				return m.Topic == "/self_assessment" && ok && a.BeliefStampSimNs == s
			})
		}, nil, []Cause{{Cause: "assessment_missing", Count: 1, Findings: map[string]uint64{"assessment_missing": 1}}}, false},
		{"one decision edited", func(t *testing.T, msgs []bag.Message) []bag.Message {
			editDecision(t, msgs, 3, func(w *ros2msg.DecisionRationale) { w.Decision.Reason = "looked_fine" })
			return msgs
		}, nil, []Cause{{Cause: "diverged", Count: 1, Findings: map[string]uint64{"diverged": 1}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := append([]bag.Message(nil), base...)
			if tt.tamper != nil {
				msgs = tt.tamper(t, msgs)
			}
			report, err := Verify(&sliceSource{msgs: msgs}, VerifyOptions{Relax: tt.relax, MaxProblems: 5})
			if err != nil {
				t.Fatal(err)
			}
			if report.Passed() != tt.passing {
				t.Fatalf("verdict %s %v", report.Verdict, report.Reasons)
			}
			got := report.ProblemCauses()
			if len(got) != len(tt.want) {
				t.Fatalf("causes %+v, want %+v", got, tt.want)
			}
			var total uint64
			for i, w := range tt.want {
				g := got[i]
				if w.Count == 0 {
					w.Count = report.Decisions // every decision
					for f := range w.Findings {
						w.Findings[f] = report.Decisions
					}
				}
				if g.Cause != w.Cause || g.Subject != w.Subject || g.Count != w.Count || fmt.Sprint(g.Findings) != fmt.Sprint(w.Findings) {
					t.Errorf("cause %d: %+v, want %+v", i, g, w)
				}
				if len(g.Examples) == 0 || len(g.Examples) > MaxCauseExamples {
					t.Errorf("cause %d: %d examples", i, len(g.Examples))
				}
				shapes := map[string]bool{}
				for _, e := range g.Examples {
					if shapes[numbersOut(e)] {
						t.Errorf("cause %d: two examples alike: %q", i, g.Examples)
					}
					shapes[numbersOut(e)] = true
				}
				total += g.Count
			}
			if tt.name == "one decision edited" && !strings.Contains(got[0].Examples[0], "looked_fine") {
				t.Errorf("the example does not show the edit: %q", got[0].Examples)
			}
			data, err := json.Marshal(report)
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(data), `"causes"`); has == tt.passing {
				t.Errorf("passing %v, JSON has causes: %v", tt.passing, has)
			}
			if !tt.passing && uint64(len(report.Problems))+report.ProblemsOmitted+uint64(len(report.Notes)) != total {
				t.Errorf("%d problems listed, %d omitted, %d notes; the causes count %d", len(report.Problems), report.ProblemsOmitted, len(report.Notes), total)
			}
		})
	}
}

// A recording naming more policies than a report tells apart groups the
// rest by finding, and loses no count.
func TestVerifyBoundsTheCauses(t *testing.T) {
	msgs := simulatedRecording(t)
	n := 0
	for ; editsDecision(t, msgs, n, func(w *ros2msg.DecisionRationale) { w.PolicyID = fmt.Sprintf("policy_%d", n) }); n++ {
	}
	if n <= maxCauses {
		t.Fatalf("only %d decisions", n)
	}
	report, err := Verify(&sliceSource{msgs: msgs}, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	causes := report.ProblemCauses()
	var total uint64
	for _, c := range causes {
		total += c.Count
	}
	last := causes[len(causes)-1]
	if len(causes) != maxCauses+1 || last.Cause != string(FindingUnknownPolicy) || last.Subject != "" || total != report.Decisions {
		t.Fatalf("%d causes, the last %s %q, %d problems of %d decisions", len(causes), last.Cause, last.Subject, total, report.Decisions)
	}
}

func TestNumbersOut(t *testing.T) {
	for in, want := range map[string]string{
		"":                            "",
		"decision hold@0 (a)":         "decision hold@# (a)",
		"action 12 at stamp 43940000": "action # at stamp #",
		"sha 9f86d08 v2":              "sha #f#d# v#",
	} {
		if got := numbersOut(in); got != want {
			t.Errorf("numbersOut(%q) = %q, want %q", in, got, want)
		}
	}
}

// decisionStamp returns the stamp of the n-th decision.
func decisionStamp(t *testing.T, msgs []bag.Message, n int) int64 {
	t.Helper()
	for _, m := range msgs {
		if m.Topic != "/decisions" {
			continue
		}
		if n > 0 {
			n--
			continue
		}
		r, ok := decodeRationale(m.Data)
		if !ok {
			t.Fatal("undecodable decision")
		}
		return r.BeliefStampSimNs
	}
	t.Fatal("no such decision")
	return 0
}

// dropInputsBefore drops the beliefs, assessments and perception modes
// stamped before s, as a recorder that subscribed late misses them.
func dropInputsBefore(t *testing.T, msgs []bag.Message, s int64) []bag.Message {
	t.Helper()
	return slices.DeleteFunc(msgs, func(m bag.Message) bool {
		if m.Topic == "/decisions" {
			return false
		}
		stamp, ok := stampOf(m)
		return ok && stamp < s
	})
}
