package sim

import (
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2msg"
	"github.com/ghost-robotics/ghost/pkg/runner"
)

// Publisher serializes the vehicle's publications as ROS 2 messages (CDR),
// logged at their arrival time: a message source like a recording. Next
// returns io.EOF after the last message.
type Publisher struct {
	v      *Vehicle
	topics [3]string // by runner.InputKind
	seq    uint32
	buf    []byte
}

// NewPublisher publishes v's events on the topics of inputs: beliefs on
// the first input of kind runner.InputBelief, and so on (nil means
// runner.DefaultInputs()).
func NewPublisher(v *Vehicle, inputs []runner.InputSpec) *Publisher {
	if inputs == nil {
		inputs = runner.DefaultInputs()
	}
	p := &Publisher{v: v}
	for i := len(inputs) - 1; i >= 0; i-- {
		if k := int(inputs[i].Kind); k < len(p.topics) {
			p.topics[k] = inputs[i].Topic
		}
	}
	return p
}

// Total returns the number of messages the flight publishes.
func (p *Publisher) Total() uint64 { return p.v.Messages() }

// Next returns the next message. Its Data is valid until the next call.
func (p *Publisher) Next() (bag.Message, error) {
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
		m.Topic, m.SchemaName = p.topics[runner.InputBelief], w.SchemaName()
		p.buf, err = w.AppendCDR(p.buf[:0])
	case EventAssessment:
		w := ros2msg.SelfAssessmentToWire(ev.Assessment)
		m.Topic, m.SchemaName = p.topics[runner.InputAssessment], w.SchemaName()
		p.buf, err = w.AppendCDR(p.buf[:0])
	case EventPerception:
		w := ros2msg.PerceptionToWire(*ev.Perception)
		m.Topic, m.SchemaName = p.topics[runner.InputPerception], w.SchemaName()
		p.buf, err = w.AppendCDR(p.buf[:0])
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
