package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// TestAddingAnInputIsOneTableEntry adds a second perception source (a
// one-byte message on its own topic) as one InputSpec: the Session decodes,
// counts and joins it with no other change.
func TestAddingAnInputIsOneTableEntry(t *testing.T) {
	inputs := append(DefaultInputs(), InputSpec{
		Key: "lidar_mode", Topic: "/lidar/mode", Type: "test/msg/Mode", QoS: qos.DefaultInput(),
		Kind: engine.InputPerception, Role: "a test perception source",
		NewDecode: func() DecodeFunc {
			return func(data []byte, arrivalNs int64, _ *Scratch, out *Decoded) error {
				if len(data) != 9 {
					return errors.New("want 9 bytes")
				}
				stamp := int64(0)
				for i := 7; i >= 0; i-- {
					stamp = stamp<<8 | int64(data[i])
				}
				out.Set(engine.PerceptionEvent{ArrivalNs: arrivalNs, Report: decisions.PerceptionReport{StampSimNs: stamp, Mode: decisions.PerceptionMode(data[8])}})
				return nil
			}
		},
	})
	if err := CheckTopics(inputs, DefaultTopics()); err != nil {
		t.Fatal(err)
	}
	var seen []decisions.Context
	s, err := NewSession(SessionOptions{Inputs: inputs, Loop: engine.LoopOptions{Policy: recordingPolicy{&seen}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Feed("/lidar/mode", 1, []byte{5, 0, 0, 0, 0, 0, 0, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Feed("/lidar/mode", 2, []byte{1}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "/lidar/mode") {
		t.Fatalf("corrupt message: %v", err)
	}
	if err := s.Step(engine.BeliefEvent{ArrivalNs: 3, Belief: belief(10)}); err != nil {
		t.Fatal(err)
	}
	if err := s.End(4); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].Perception == nil || seen[0].Perception.StampSimNs != 5 {
		t.Fatalf("the new input did not reach the context: %+v", seen)
	}
	if st := s.Stats().Input("lidar_mode"); st.Messages != 2 || st.Corrupt != 1 {
		t.Fatalf("stats %+v", st)
	}
}

type recordingPolicy struct{ seen *[]decisions.Context }

func (recordingPolicy) ID() string { return "recording_test_v1" }

func (p recordingPolicy) Decide(c decisions.Context) (decisions.Decision, error) {
	*p.seen = append(*p.seen, c)
	return decisions.ReferencePolicy{}.Decide(c)
}

func TestCheckTopicsRejectsCollisions(t *testing.T) {
	tests := []struct {
		name    string
		inputs  func() []InputSpec
		outputs Topics
		want    string
	}{
		{"an input on the decisions topic", func() []InputSpec {
			in := DefaultInputs()
			in[0].Topic = "/decisions"
			return in
		}, Topics{KeyDecisions: "/decisions"}, `topics.state and topics.decisions are both "/decisions"`},
		{"two inputs on one topic", func() []InputSpec {
			in := DefaultInputs()
			in[1].Topic = in[0].Topic
			return in
		}, nil, `topics.state and topics.self_assessment`},
		{"an empty topic", func() []InputSpec {
			in := DefaultInputs()
			in[2].Topic = ""
			return in
		}, nil, "topics.perception_mode is empty"},
		{"a repeated key", func() []InputSpec {
			in := DefaultInputs()
			return append(in, in[0])
		}, nil, `input key "state"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckTopics(tt.inputs(), tt.outputs)
			if !errors.Is(err, ErrTopics) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("CheckTopics = %v, want %q", err, tt.want)
			}
		})
	}
	if err := CheckTopics(DefaultInputs(), DefaultTopics()); err != nil {
		t.Fatalf("defaults: %v", err)
	}
}
