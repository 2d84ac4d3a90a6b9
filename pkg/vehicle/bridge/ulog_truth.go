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
	ULogGlobalTruth   = "vehicle_global_position_groundtruth"
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
	// Global counts the samples of vehicle_global_position_groundtruth:
	// in the log, or written. Origins counts the estimator's declared
	// origins written (the first, and each change).
	Global, Origins uint64
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
		case ULogGlobalTruth:
			c.Global++
		}
	}
}

// ulogTruth writes the ground truth of a log.
type ulogTruth struct {
	enc     *truth.Encoder
	resets  truth.ResetTracker
	origins truth.OriginTracker
	global  bool
	chans   []bag.Channel
	ids     map[string]uint16
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
	t.add(chans)
	s.truthOut, s.Truth = t, &ULogTruthCounts{}
	return nil
}

// WithGlobalTruth makes s also write the log's global ground truth and the
// origin the estimator declares in vehicle_local_position, with which an
// audit expresses the truth in the estimator's own frame. Call it after
// WithTruth, for a log whose ScanULogTruth counts Global samples.
func (s *ULogSource) WithGlobalTruth() error {
	if s.truthOut == nil {
		return errors.New("bridge: the global ground truth goes with the ground truth: call WithTruth first")
	}
	chans, err := truth.GhostGlobalChannels()
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	s.truthOut.add(chans)
	s.truthOut.global = true
	return nil
}

func (t *ulogTruth) add(chans []truth.Channel) {
	for _, c := range chans {
		id := uint16(len(t.chans) + 1)
		t.chans = append(t.chans, bag.Channel{ID: id, Topic: c.Topic, SchemaName: c.SchemaName, SchemaText: c.SchemaText,
			QoS: []qos.Profile{qos.DefaultInput()}})
		t.ids[c.Topic] = id
	}
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
// and velocity, an attitude, a global position, or the estimator's reset
// and origin. An unusable sample is counted and left out; only an encoding
// failure is an error.
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
	case ULogGlobalTruth:
		if !s.truthOut.global {
			return nil
		}
		samples[0], err = truth.PX4GlobalTruth(d)
		n = 1
	case "vehicle_local_position":
		return s.estimatorFrame(d)
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
		case truth.StreamGlobal:
			c.Global++
		default:
			c.Attitude++
		}
		s.queueTruth(topic, sample.StampNs, data)
	}
	return nil
}

// estimatorFrame queues the estimator's reset and its declared origin
// (with the global truth) that one of its samples records. What is wrong
// with the sample is the belief's mapping's to count.
func (s *ULogSource) estimatorFrame(d *ulog.Data) error {
	t, c := s.truthOut, s.Truth
	r, ok, err := t.resets.Step(d)
	c.LostResets = t.resets.Lost
	if err == nil && ok {
		topic, data, err := t.enc.EncodeReset(r)
		if err != nil {
			return fmt.Errorf("bridge: %w", err)
		}
		c.Resets++
		s.queueTruth(topic, r.StampNs, data)
	}
	if !t.global {
		return nil
	}
	o, ok, err := t.origins.Step(d)
	if err != nil || !ok {
		return nil
	}
	topic, data, err := t.enc.EncodeOrigin(o)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	c.Origins++
	s.queueTruth(topic, o.StampNs, data)
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
