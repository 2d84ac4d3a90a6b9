package sim

import (
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Publisher serializes the vehicle's publications as ROS 2 messages (CDR),
// logged at their arrival time: a message source like a recording. Next
// returns io.EOF after the last message.
//
// The ground truth, when the vehicle has it, goes out in package truth's
// form (ghost's, frame truth.FrameSim): position, velocity and attitude,
// one message each, on the truth topics, which no input of the decision
// path reads. Its channels and schemas are in Channels.
type Publisher struct {
	v      *Vehicle
	topics [3]string // by engine.InputKind
	seq    uint32
	buf    []byte
	truth  *truth.Encoder
	chans  []bag.Channel
	// pending[next:] are the truth messages of one sample not yet
	// returned.
	pending [truthStreams]bag.Message
	next    int
	bufs    [truthStreams][]byte
}

// NewPublisher publishes v's events on the topics of inputs: beliefs on
// the first input of kind engine.InputBelief, and so on (nil means
// session.DefaultInputs()).
func NewPublisher(v *Vehicle, inputs []session.InputSpec) *Publisher {
	if inputs == nil {
		inputs = session.DefaultInputs()
	}
	p := &Publisher{v: v}
	for i := len(inputs) - 1; i >= 0; i-- {
		if k := int(inputs[i].Kind); k < len(p.topics) {
			p.topics[k] = inputs[i].Topic
		}
	}
	if v.opts.Truth {
		// Errors here are programming errors of the fixed frame and the
		// embedded schemas; the first truth message reports them.
		p.truth, _ = truth.NewEncoder(truth.FrameSim)
		chans, _ := truth.GhostChannels(false)
		for i, c := range chans {
			p.chans = append(p.chans, bag.Channel{ID: uint16(i + 1), Topic: c.Topic, SchemaName: c.SchemaName,
				SchemaText: c.SchemaText, QoS: []qos.Profile{qos.DefaultInput()}})
		}
	}
	return p
}

// Total returns the number of messages the flight publishes (a truth
// sample is three).
func (p *Publisher) Total() uint64 {
	n := p.v.Messages()
	if p.v.opts.Truth {
		n += 2 * uint64(p.v.TruthSamples())
	}
	return n
}

// Channels returns the channels of the truth topics with their schemas,
// none without truth: the decision path's own topics are ghost types whose
// schemas a recorder knows.
func (p *Publisher) Channels() []bag.Channel { return p.chans }

// Next returns the next message. Its Data is valid until the next call.
func (p *Publisher) Next() (bag.Message, error) {
	if p.next > 0 && p.next < len(p.pending) {
		p.next++
		return p.pending[p.next-1], nil
	}
	ev, ok, err := p.v.Next()
	if err != nil {
		return bag.Message{}, err
	}
	if !ok {
		return bag.Message{}, io.EOF
	}
	m := bag.Message{LogTime: uint64(ev.ArrivalNs), PublishTime: uint64(ev.ArrivalNs)}
	p.seq++
	m.Sequence = p.seq
	switch ev.Kind {
	case EventBelief:
		w := ros2msg.BeliefToWire(&ev.Belief.Belief)
		w.StampWallNs = ev.Belief.StampSimNs
		w.Nav.PositionEnuM = ev.Belief.PositionENU
		w.Nav.LinearVelocityWorldMps = ev.Belief.VelocityENU
		w.Sensors = sensors
		m.Topic, m.SchemaName = p.topics[engine.InputBelief], w.SchemaName()
		p.buf, err = w.AppendCDR(p.buf[:0])
	case EventAssessment:
		w := ros2msg.SelfAssessmentToWire(ev.Assessment)
		m.Topic, m.SchemaName = p.topics[engine.InputAssessment], w.SchemaName()
		p.buf, err = w.AppendCDR(p.buf[:0])
	case EventPerception:
		w := ros2msg.PerceptionToWire(*ev.Perception)
		m.Topic, m.SchemaName = p.topics[engine.InputPerception], w.SchemaName()
		p.buf, err = w.AppendCDR(p.buf[:0])
	case EventTruth:
		return p.truthMessages(m, ev.Truth)
	}
	if err != nil {
		return bag.Message{}, fmt.Errorf("sim: encode %s at %d: %w", m.Topic, ev.ArrivalNs, err)
	}
	m.Data = p.buf
	return m, nil
}

// sensors is the simulated vehicle's sensor suite, all healthy.
var sensors = []ros2msg.SensorHealth{
	{SensorID: "imu0", Health: ros2msg.SensorHealthHealthOK},
	{SensorID: "gps0", Health: ros2msg.SensorHealthHealthOK},
	{SensorID: "cam0", Health: ros2msg.SensorHealthHealthOK},
}

// truthStreams are the truth streams the simulator writes: position,
// velocity and attitude in its world frame (it has no global position).
const truthStreams = 3

// truthMessages returns the first of a truth sample's three messages and
// keeps the others for the next calls.
func (p *Publisher) truthMessages(m bag.Message, tr *Truth) (bag.Message, error) {
	if p.truth == nil || len(p.chans) != truthStreams {
		return bag.Message{}, fmt.Errorf("sim: truth at %d: no truth encoder", tr.StampNs)
	}
	samples := [truthStreams]truth.Sample{
		{Stream: truth.StreamPosition, StampNs: tr.StampNs, Value: tr.PositionENU},
		{Stream: truth.StreamVelocity, StampNs: tr.StampNs, Value: tr.VelocityENU},
		{Stream: truth.StreamAttitude, StampNs: tr.StampNs, Q: tr.Q},
	}
	for i, s := range samples {
		topic, data, err := p.truth.Encode(s)
		if err != nil {
			return bag.Message{}, fmt.Errorf("sim: %w", err)
		}
		c := p.chans[i]
		if topic != c.Topic {
			return bag.Message{}, fmt.Errorf("sim: truth %s went to %s, not %s", s.Stream, topic, c.Topic)
		}
		p.bufs[i] = append(p.bufs[i][:0], data...)
		out := m
		if i > 0 {
			p.seq++
			out.Sequence = p.seq
		}
		out.Topic, out.SchemaName, out.ChannelID, out.Data = c.Topic, c.SchemaName, c.ID, p.bufs[i]
		p.pending[i] = out
	}
	p.next = 1
	return p.pending[0], nil
}
