package runner

import (
	"errors"

	"github.com/ghost-robotics/ghost/pkg/ros2msg"
)

// Decoder turns serialized input messages (CDR) into Loop events. It keeps
// decoding scratch, so it is not safe for concurrent use: one per goroutine.
// What it returns shares nothing with its scratch (a belief's covariance
// and goal are freshly allocated by the codec), so events may be kept.
type Decoder struct {
	topics Topics
	vs     ros2msg.VehicleState
	sa     ros2msg.BeliefSelfAssessment
	pm     ros2msg.PerceptionMode
}

// NewDecoder returns a decoder for the input topics of t.
func NewDecoder(t Topics) *Decoder { return &Decoder{topics: t} }

// Decode returns the event for a message on one of the input topics, and
// nil, nil for a message on another topic. A message that does not decode
// gives a *CorruptError naming the topic and byte offset.
func (d *Decoder) Decode(topic string, arrivalNs int64, data []byte) (Event, error) {
	switch topic {
	case d.topics.State:
		if err := d.vs.UnmarshalCDR(data); err != nil {
			return nil, corrupt(topic, err)
		}
		b, err := ros2msg.BeliefFromWire(&d.vs)
		if err != nil {
			return nil, corrupt(topic, err)
		}
		return BeliefEvent{ArrivalNs: arrivalNs, Belief: b}, nil
	case d.topics.SelfAssessment:
		if err := d.sa.UnmarshalCDR(data); err != nil {
			return nil, corrupt(topic, err)
		}
		return AssessmentEvent{ArrivalNs: arrivalNs, Assessment: ros2msg.SelfAssessmentFromWire(&d.sa)}, nil
	case d.topics.PerceptionMode:
		if err := d.pm.UnmarshalCDR(data); err != nil {
			return nil, corrupt(topic, err)
		}
		return PerceptionEvent{ArrivalNs: arrivalNs, Report: ros2msg.PerceptionFromWire(&d.pm)}, nil
	}
	return nil, nil
}

func corrupt(topic string, err error) error {
	off := -1
	var de *ros2msg.DecodeError
	if errors.As(err, &de) {
		off = de.Offset
	}
	return &CorruptError{Topic: topic, Offset: off, Err: err}
}
