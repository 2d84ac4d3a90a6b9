package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// withCalibrated returns the default inputs with the calibrated input
// enabled on its conventional topic.
func withCalibrated() []InputSpec {
	in := DefaultInputs()
	for i := range in {
		if in[i].Key == KeySelfAssessmentCalibrated {
			in[i].Topic = CalibratedTopic
		}
	}
	return in
}

func TestEnabledInputs(t *testing.T) {
	keys := func(in []InputSpec) string {
		var b strings.Builder
		for _, i := range in {
			b.WriteString(i.Key)
			if i.ChainOnly {
				b.WriteString("(chain)")
			}
			b.WriteString(" ")
		}
		return b.String()
	}
	tests := []struct {
		name   string
		inputs []InputSpec
		want   string
	}{
		{"disabled by default", DefaultInputs(), "state self_assessment perception_mode action_evidence parameter_events transition_event "},
		{"enabled, the raw input is chain only", withCalibrated(), "state self_assessment(chain) perception_mode self_assessment_calibrated action_evidence parameter_events transition_event "},
		{"idempotent", Enabled(withCalibrated()), "state self_assessment(chain) perception_mode self_assessment_calibrated action_evidence parameter_events transition_event "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keys(Enabled(tt.inputs)); got != tt.want {
				t.Fatalf("Enabled = %q, want %q", got, tt.want)
			}
		})
	}
	if err := CheckTopics(DefaultInputs(), DefaultTopics()); err != nil {
		t.Fatalf("a disabled optional input claims no topic: %v", err)
	}
	bad := withCalibrated()
	bad[3].Replaces = "no_such_input"
	if err := CheckTopics(bad, nil); !errors.Is(err, ErrTopics) || !strings.Contains(err.Error(), `"no_such_input"`) {
		t.Fatalf("replacing a missing input: %v", err)
	}
	clash := withCalibrated()
	clash[3].Topic = clash[1].Topic
	if err := CheckTopics(clash, nil); !errors.Is(err, ErrTopics) {
		t.Fatalf("the calibrated input on the raw topic: %v", err)
	}
}

// TestCalibratedInputDecides: with the calibrated input enabled the Loop
// decides on the calibrated record (hold on the adjusted level while the
// raw level is known), the raw message published first is counted but
// not joined (no conflict with the calibrated one), and the rationale
// still hashes the raw assessment. Disabled, the same messages decide on
// the raw assessment.
func TestCalibratedInputDecides(t *testing.T) {
	raw := assessment(t, 10, decisions.LevelKnown)
	rawWire := ros2msg.SelfAssessmentToWire(&raw)
	rawCDR, err := rawWire.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	calWire := ros2msg.CalibratedToWire(&raw, calibration(decisions.LevelUncertain))
	calCDR, err := calWire.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	b := belief(10)
	bWire := ros2msg.BeliefToWire(&b)
	bCDR, err := bWire.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		inputs []InputSpec
		want   decisions.Kind
		cal    bool
	}{
		{"enabled", withCalibrated(), decisions.KindHold, true},
		{"disabled", DefaultInputs(), decisions.KindProceed, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var seen []decisions.Context
			s, err := NewSession(SessionOptions{Inputs: tt.inputs, Loop: engine.LoopOptions{Policy: recordingPolicy{&seen}}})
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range []struct {
				topic string
				data  []byte
			}{{"/self_assessment", rawCDR}, {CalibratedTopic, calCDR}, {"/state/nav", bCDR}} {
				if err := s.Feed(m.topic, int64(i+1), m.data); err != nil {
					t.Fatalf("%s: %v", m.topic, err)
				}
				if r := s.LastOutput().Rejections; len(r) > 0 {
					t.Fatalf("%s rejected: %+v", m.topic, r)
				}
			}
			if len(seen) != 1 {
				t.Fatalf("%d decisions", len(seen))
			}
			c := s.LastOutput().Commands[0]
			if c.Decision.Kind != tt.want || (c.Context.Calibration != nil) != tt.cal || c.Rationale.SelfAssessmentSHA256 != raw.SHA256() {
				t.Fatalf("decided %s with calibration %v, hash %s; want %s, calibration %v, the raw hash", c.Decision.Kind,
					c.Context.Calibration != nil, c.Rationale.SelfAssessmentSHA256, tt.want, tt.cal)
			}
			if st := s.Stats().Input(KeySelfAssessment); st.Messages != 1 {
				t.Fatalf("raw assessments counted %+v", st)
			}
		})
	}
}
