package session

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// recordingWriter counts writes and can fail them.
type recordingWriter struct {
	bytes.Buffer
	writes int
	err    error
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.err != nil {
		return 0, w.err
	}
	return w.Buffer.Write(p)
}

func TestJSONLinesSink(t *testing.T) {
	with := commandFor(t, 5, uncertain, true)
	without := commandFor(t, 6, known, false)
	w := &recordingWriter{}
	s := newJSONLinesSink(w)
	for _, c := range []engine.Command{with, without} {
		if err := s.Publish(c); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"belief_stamp_sim_ns":5,"decision":{"decision_stamp_sim_ns":5,"kind":"hold","reason":"overall_uncertain","schema_version":1},` +
		`"policy_id":"uncertainty_aware_reference_v1","schema_version":1,"self_assessment_sha256":"` + with.Context.SelfAssessment.SHA256() + `"}` + "\n" +
		`{"belief_stamp_sim_ns":6,"decision":{"decision_stamp_sim_ns":6,"kind":"abstain_uncertain","reason":"no_assessment","schema_version":1},` +
		`"policy_id":"uncertainty_aware_reference_v1","schema_version":1,"self_assessment_sha256":null}` + "\n"
	if w.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", w.String(), want)
	}
	if w.writes != 2 {
		t.Errorf("%d writes for 2 decisions, want one each", w.writes)
	}

	w.err = errors.New("no space left on device")
	err := s.Publish(with)
	if !errors.Is(err, ErrTransport) || !errors.Is(err, w.err) || !strings.Contains(err.Error(), "hold@5") {
		t.Errorf("failed write: %v, want ErrTransport wrapping the cause and naming the decision", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	w.err = nil
	if err := s.Publish(with); !errors.Is(err, ErrSinkClosed) {
		t.Errorf("after Close: %v", err)
	}
	if w.writes != 3 {
		t.Errorf("closed sink wrote (%d writes)", w.writes)
	}
}

func TestMemorySink(t *testing.T) {
	s := &memorySink{}
	cmds := []engine.Command{commandFor(t, 1, known, true), commandFor(t, 2, unknown, true)}
	for _, c := range cmds {
		if err := s.Publish(c); err != nil {
			t.Fatal(err)
		}
	}
	got := s.Records()
	if len(got) != 2 || got[0].Decision != cmds[0].Decision || got[1].Rationale != cmds[1].Rationale {
		t.Fatalf("records %+v", got)
	}
	got[0].Decision.Reason = "changed"
	if s.Records()[0].Decision.Reason == "changed" {
		t.Error("Records shares the sink's storage")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(cmds[0]); !errors.Is(err, ErrSinkClosed) {
		t.Errorf("after Close: %v", err)
	}
	if len(s.Records()) != 2 {
		t.Error("closed sink recorded")
	}
}

func TestFuncSink(t *testing.T) {
	var seen []decisions.Decision
	s := FuncSink(func(cmd engine.Command) error {
		d, r := cmd.Decision, cmd.Rationale
		seen = append(seen, d)
		if r.Decision != d {
			t.Errorf("rationale of %s passed with %s", r.Decision, d)
		}
		return nil
	})
	c := commandFor(t, 3, known, true)
	if err := s.Publish(c); err != nil || len(seen) != 1 || seen[0] != c.Decision {
		t.Errorf("FuncSink: %v, saw %v", err, seen)
	}
}

// TestSinkErrorClassification checks the sentinel and typed errors a sink
// may return, including wrapped ones.
func TestSinkErrorClassification(t *testing.T) {
	tests := []struct {
		name string
		err  error
		kind FailureKind
	}{
		{"unclassified is transport", errors.New("broken pipe"), FailureTransport},
		{"transport", errors.Join(errors.New("x"), ErrTransport), FailureTransport},
		{"encoding", errors.Join(errors.New("x"), ErrEncoding), FailureEncoding},
		{"closed", errors.Join(errors.New("x"), ErrSinkClosed), FailureClosed},
		{"typed keeps its kind", &SinkError{SinkID: "inner", Kind: FailureClosed, Err: errors.New("gone")}, FailureClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			se := classify("outer", tc.err)
			if se.Kind != tc.kind || se.SinkID != "outer" || !errors.Is(se, tc.err) || !errors.Is(se, tc.kind.sentinel()) {
				t.Errorf("classify: %+v", se)
			}
			if !strings.HasPrefix(se.Error(), "sink outer: "+tc.kind.String()+" failure: ") {
				t.Errorf("Error() = %q", se.Error())
			}
		})
	}
}
