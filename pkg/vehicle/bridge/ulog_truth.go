package bridge

import (
	"errors"
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
	"github.com/ghost-robotics/ghost/pkg/vehicle/ulog"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// PX4's ground-truth topics in a flight log (uORB names).
const (
	ULogPositionTruth = "vehicle_local_position_groundtruth"
	ULogAttitudeTruth = "vehicle_attitude_groundtruth"
)

// ULogTruthCounts counts a flight log's ground truth.
type ULogTruthCounts struct {
	// Position and Attitude count the samples of instance 0 of
	// vehicle_local_position_groundtruth and vehicle_attitude_groundtruth:
	// in the log (ScanULogTruth), or written (ULogSource.Truth).
	Position, Attitude uint64
	// Velocity counts the velocities written (a sample whose velocity is
	// not finite has none).
	Velocity uint64
	// Rejected counts the samples left out as unusable; LastRejected says
	// why the last one was.
	Rejected     uint64
	LastRejected error
	// Resets counts the estimator's position resets written; LostResets
	// those whose steps the log does not tell (see truth.ResetTracker).
	Resets, LostResets uint64
}

// Both reports whether the log holds both ground-truth topics: only then is
// it a simulator's truth (ADR-0037).
func (c ULogTruthCounts) Both() bool { return c.Position > 0 && c.Attitude > 0 }

// ScanULogTruth reads a whole flight log and counts its ground-truth
// samples, so that a caller knows before converting it whether the log
// holds a simulator's truth. A truncated log is counted up to the damage.
func ScanULogTruth(rd io.Reader) (ULogTruthCounts, error) {
	var c ULogTruthCounts
	r, err := ulog.NewReader(rd, ulog.Options{})
	if err != nil {
		return c, err
	}
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		if err != nil {
			return c, err
		}
		d, ok := m.(*ulog.Data)
		if !ok || d.MultiID() != 0 {
			continue
		}
		switch d.Name() {
		case ULogPositionTruth:
			c.Position++
		case ULogAttitudeTruth:
			c.Attitude++
		}
	}
}

// ulogTruth writes the ground truth of a log.
type ulogTruth struct {
	enc    *truth.Encoder
	resets truth.ResetTracker
	chans  []bag.Channel
	ids    map[string]uint16
}

// WithTruth makes s write the log's ground truth, and the estimator's
// position resets, in package truth's form. Call it before the first
// Next, for a log whose ScanULogTruth says Both: a log with one of the two
// topics holds no simulator truth, and s then writes none.
func (s *ULogSource) WithTruth() error {
	enc, err := truth.NewEncoder(truth.FramePX4)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	chans, err := truth.GhostChannels(true)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	t := &ulogTruth{enc: enc, ids: map[string]uint16{}}
	for i, c := range chans {
		id := uint16(i + 1)
		t.chans = append(t.chans, bag.Channel{ID: id, Topic: c.Topic, SchemaName: c.SchemaName, SchemaText: c.SchemaText,
			QoS: []qos.Profile{qos.DefaultInput()}})
		t.ids[c.Topic] = id
	}
	s.truthOut, s.Truth = t, &ULogTruthCounts{}
	return nil
}

// Channels returns the channels of the truth topics with their schemas
// (none without truth); the beliefs and assessments are ghost types.
func (s *ULogSource) Channels() []bag.Channel {
	if s.truthOut == nil {
		return nil
	}
	return s.truthOut.chans
}

// truthSample queues what one log sample gives of the truth: a position
// and velocity, an attitude, or an estimator reset. An unusable sample is
// counted and left out; only an encoding failure is an error.
func (s *ULogSource) truthSample(name string, d *ulog.Data) error {
	c := s.Truth
	var samples [2]truth.Sample
	n := 0
	var err error
	switch name {
	case ULogPositionTruth:
		var velErr error
		samples[0], samples[1], velErr, err = truth.PX4PositionTruth(d)
		n = 2
		if velErr != nil {
			n = 1
			c.Rejected++
			c.LastRejected = velErr
		}
	case ULogAttitudeTruth:
		samples[0], err = truth.PX4AttitudeTruth(d)
		n = 1
	case "vehicle_local_position":
		r, ok, err := s.truthOut.resets.Step(d)
		c.LostResets = s.truthOut.resets.Lost
		if err != nil || !ok {
			return nil // the belief's mapping counts what is wrong with the sample
		}
		topic, data, err := s.truthOut.enc.EncodeReset(r)
		if err != nil {
			return fmt.Errorf("bridge: %w", err)
		}
		c.Resets++
		s.queueTruth(topic, r.StampNs, data)
		return nil
	default:
		return nil
	}
	if err != nil {
		c.Rejected++
		c.LastRejected = err
		return nil
	}
	for _, sample := range samples[:n] {
		topic, data, err := s.truthOut.enc.Encode(sample)
		if err != nil {
			return fmt.Errorf("bridge: %w", err)
		}
		switch sample.Stream {
		case truth.StreamPosition:
			c.Position++
		case truth.StreamVelocity:
			c.Velocity++
		default:
			c.Attitude++
		}
		s.queueTruth(topic, sample.StampNs, data)
	}
	return nil
}

// queueTruth queues one truth message, logged at its own stamp: the time
// it describes, in the beliefs' clock.
func (s *ULogSource) queueTruth(topic string, stampNs int64, data []byte) {
	s.seq++
	t := uint64(stampNs)
	s.queue = append(s.queue, bag.Message{Topic: topic, SchemaName: s.schemaOf(topic), ChannelID: s.truthOut.ids[topic],
		Sequence: s.seq, LogTime: t, PublishTime: t, Data: append([]byte(nil), data...)})
}

func (s *ULogSource) schemaOf(topic string) string {
	for _, c := range s.truthOut.chans {
		if c.Topic == topic {
			return c.SchemaName
		}
	}
	return ""
}
