package bridge

import (
	"fmt"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// MessageSource yields recorded messages in log-time order (a *bag.Reader).
type MessageSource interface {
	Next() (bag.Message, error)
}

// Translation reads a recording of a vehicle's own topics through a
// Source: every message comes out as it was, followed by the ghost
// messages it maps to (the belief and its assessment), logged at its log
// time. Replaying it records both and decides the ghost ones, exactly as
// the live node with that input.source would.
type Translation struct {
	in    MessageSource
	src   Source
	subs  map[string]bool
	queue []bag.Message
	head  int
	seq   uint32
	// Rejected counts the vehicle messages the source refused; LastErr is
	// the last refusal.
	Rejected uint64
	LastErr  error
}

// NewTranslation reads in through src.
func NewTranslation(in MessageSource, src Source) *Translation {
	t := &Translation{in: in, src: src, subs: map[string]bool{}}
	for _, s := range src.Subscriptions() {
		t.subs[s.Topic] = true
	}
	return t
}

// Channels passes the input's channels through, so replay copies the
// vehicle topics with the schemas they were recorded with.
func (t *Translation) Channels() []bag.Channel {
	if c, ok := t.in.(interface{ Channels() []bag.Channel }); ok {
		return c.Channels()
	}
	return nil
}

// Next returns the next message.
func (t *Translation) Next() (bag.Message, error) {
	if t.head < len(t.queue) {
		m := t.queue[t.head]
		t.head++
		return m, nil
	}
	t.queue, t.head = t.queue[:0], 0
	m, err := t.in.Next()
	if err != nil || !t.subs[m.Topic] {
		return m, err
	}
	out, err := t.src.Handle(m.Topic, m.Data, int64(m.LogTime))
	if err != nil {
		t.Rejected++
		t.LastErr = err
		return m, nil
	}
	for _, o := range out {
		t.seq++
		t.queue = append(t.queue, bag.Message{Topic: o.Topic, SchemaName: o.Type, ChannelID: 0, Sequence: t.seq,
			LogTime: m.LogTime, PublishTime: m.LogTime, Data: append([]byte(nil), o.Data...)})
	}
	return m, nil
}

// firstSection is a rosbag2 schema text's own definition, without the
// definitions of the types it uses.
func firstSection(schema string) string {
	if i := strings.Index(schema, "\n====="); i >= 0 {
		return schema[:i+1]
	}
	return schema
}

// PX4DefinitionsOf compiles the px4_msgs definitions a recording's channels
// carry, telling the release from their layouts.
func PX4DefinitionsOf(channels []bag.Channel) (*px4.Definitions, error) {
	texts := map[string]string{}
	for _, c := range channels {
		if name, ok := strings.CutPrefix(c.SchemaName, px4.Package+"/msg/"); ok {
			texts[name] = firstSection(c.SchemaText)
		}
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("bridge: the recording has no px4_msgs channel")
	}
	return px4.DetectDefinitions(texts, "the recording's schemas")
}

// OdometryDefinitionsOf compiles the nav_msgs/Odometry and
// sensor_msgs/BatteryState definitions a recording's channels carry.
func OdometryDefinitionsOf(channels []bag.Channel) (OdometryDefinitions, error) {
	var d OdometryDefinitions
	for _, c := range channels {
		var dst **dynamic.Plan
		switch {
		case bag.SameMessageType(c.SchemaName, TypeOdometry):
			dst = &d.Odometry
		case bag.SameMessageType(c.SchemaName, TypeBatteryState):
			dst = &d.Battery
		default:
			continue
		}
		p, err := dynamic.CompileSchema(c.SchemaName, c.SchemaText)
		if err != nil {
			return d, fmt.Errorf("bridge: %s on %s: %w", c.SchemaName, c.Topic, err)
		}
		*dst = p
	}
	if d.Odometry == nil {
		return d, fmt.Errorf("bridge: the recording has no %s channel", TypeOdometry)
	}
	return d, nil
}
