package px4link

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/vehicle/executor"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// DefaultMaxPending bounds the arrivals held between two polls; beyond it
// the oldest are dropped and counted.
const DefaultMaxPending = 1024

// ErrUnknownTopic is wrapped by Deliver's error for a topic the link does
// not read.
var ErrUnknownTopic = errors.New("not a topic of the link")

// Options configure a Link.
type Options struct {
	// Definitions are the px4_msgs of the vehicle's release (required).
	Definitions *px4.Definitions
	// Namespace prefixes the PX4 topics: "" for /fmu/..., "/uav_1" for
	// /uav_1/fmu/....
	Namespace string
	// MaxPending bounds the buffered arrivals; default DefaultMaxPending.
	MaxPending int
}

// Subscription is one topic the link reads.
type Subscription struct {
	Topic, Type string
	QoS         qos.Profile
}

// Stats count what went through the link.
type Stats struct {
	Sent, Acks, Statuses uint64
	// Undecodable counts messages that did not decode with the release's
	// definitions; Dropped arrivals that overflowed the buffer.
	Undecodable, Dropped uint64
}

// Link implements executor.Transport over a transport.Transport. Its methods
// are safe for concurrent use.
type Link struct {
	defs        *px4.Definitions
	pub         transport.Publisher
	cmdTopic    string
	ackTopic    string
	statusTopic string
	max         int
	mu          sync.Mutex
	pending     []executor.Arrival // by arrival time, then delivery
	stats       Stats
}

var _ executor.Transport = (*Link)(nil)

// QoSProfile converts PX4's QoS facts into a ROS 2 profile.
func QoSProfile(q px4.QoS) qos.Profile {
	p := qos.Profile{History: qos.HistoryKeepLast, Depth: uint32(max(q.Depth, 1)),
		Reliability: qos.ReliabilityBestEffort, Durability: qos.DurabilityVolatile}
	if q.Reliability == "reliable" {
		p.Reliability = qos.ReliabilityReliable
	}
	if q.Durability == "transient_local" {
		p.Durability = qos.DurabilityTransientLocal
	}
	return p
}

// TypeName is the ROS 2 type name of a px4_msgs message.
func TypeName(message string) string { return px4.Package + "/msg/" + message }

// New advertises the command topic on t (before t runs). Subscribe, or
// the caller's own subscriptions to Subscriptions() with Deliver, bring
// the vehicle's answers in.
func New(t transport.Transport, opts Options) (*Link, error) {
	if opts.Definitions == nil {
		return nil, errors.New("px4link: no px4_msgs definitions")
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	l := &Link{defs: opts.Definitions, max: opts.MaxPending}
	var err error
	for _, x := range []struct {
		msg string
		dst *string
	}{{px4.MsgVehicleCommand, &l.cmdTopic}, {px4.MsgVehicleCommandAck, &l.ackTopic}, {px4.MsgVehicleStatus, &l.statusTopic}} {
		if *x.dst, err = l.defs.TopicName(x.msg, opts.Namespace); err != nil {
			return nil, fmt.Errorf("px4link: %w", err)
		}
	}
	if l.pub, err = t.Advertise(l.cmdTopic, TypeName(px4.MsgVehicleCommand), QoSProfile(px4.PublishQoS)); err != nil {
		return nil, fmt.Errorf("px4link: advertise %s: %w", l.cmdTopic, err)
	}
	return l, nil
}

// CommandTopic is the topic commands are published on.
func (l *Link) CommandTopic() string { return l.cmdTopic }

// Subscriptions are the topics the link reads, with PX4's subscriber QoS
// (best effort, volatile: PX4 writes best effort, transient local).
func (l *Link) Subscriptions() []Subscription {
	q := QoSProfile(px4.SubscribeQoS)
	return []Subscription{
		{Topic: l.ackTopic, Type: TypeName(px4.MsgVehicleCommandAck), QoS: q},
		{Topic: l.statusTopic, Type: TypeName(px4.MsgVehicleStatus), QoS: q},
	}
}

// Subscribe subscribes to Subscriptions() on t, delivering to the link;
// notify (may be nil) is called after each arrival is buffered, on the
// transport's goroutine. A message that does not decode is counted.
func (l *Link) Subscribe(t transport.Transport, notify func()) error {
	for _, s := range l.Subscriptions() {
		topic := s.Topic
		if err := t.Subscribe(topic, s.Type, s.QoS, func(data []byte, recv time.Time) {
			if l.Deliver(topic, data, recv) == nil && notify != nil {
				notify()
			}
		}); err != nil {
			return fmt.Errorf("px4link: subscribe %s: %w", topic, err)
		}
	}
	return nil
}

// Deliver decodes one message of an ack or status topic received at recv
// and buffers it. It returns an error, and counts it, when the message
// does not decode.
func (l *Link) Deliver(topic string, data []byte, recv time.Time) error {
	a := executor.Arrival{ArrivalNs: recv.UnixNano()}
	switch topic {
	case l.ackTopic:
		ack, err := l.defs.CommandAck(data)
		if err != nil {
			l.count(func(s *Stats) { s.Undecodable++ })
			return fmt.Errorf("px4link: %s: %w", topic, err)
		}
		a.Ack = &ack
	case l.statusTopic:
		st, err := l.defs.Status(data)
		if err != nil {
			l.count(func(s *Stats) { s.Undecodable++ })
			return fmt.Errorf("px4link: %s: %w", topic, err)
		}
		a.Status = &st
	default:
		return fmt.Errorf("px4link: %q: %w", capText(topic, 80), ErrUnknownTopic)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if a.Ack != nil {
		l.stats.Acks++
	} else {
		l.stats.Statuses++
	}
	i := sort.Search(len(l.pending), func(i int) bool { return l.pending[i].ArrivalNs > a.ArrivalNs })
	l.pending = append(l.pending, executor.Arrival{})
	copy(l.pending[i+1:], l.pending[i:])
	l.pending[i] = a
	if n := len(l.pending) - l.max; n > 0 {
		l.stats.Dropped += uint64(n)
		l.pending = append(l.pending[:0], l.pending[n:]...)
	}
	return nil
}

func (l *Link) count(f func(*Stats)) {
	l.mu.Lock()
	f(&l.stats)
	l.mu.Unlock()
}

// SendCommand encodes c with the release's layout and publishes it.
func (l *Link) SendCommand(c px4.Command, _ executor.SendInfo) error {
	data, err := l.defs.EncodeCommand(c)
	if err != nil {
		return fmt.Errorf("px4link: %w", err)
	}
	if err := l.pub.Publish(data); err != nil {
		return fmt.Errorf("px4link: publish %s: %w", l.cmdTopic, err)
	}
	l.count(func(s *Stats) { s.Sent++ })
	return nil
}

// Receive returns the arrivals received up to upToNs, in receive order,
// and forgets them.
func (l *Link) Receive(upToNs int64) []executor.Arrival {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := sort.Search(len(l.pending), func(i int) bool { return l.pending[i].ArrivalNs > upToNs })
	if n == 0 {
		return nil
	}
	out := append([]executor.Arrival(nil), l.pending[:n]...)
	l.pending = append(l.pending[:0], l.pending[n:]...)
	return out
}

// Stats returns the counts so far.
func (l *Link) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// capText shortens s to n bytes for an error message.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
