package node

import (
	"fmt"
	"sync"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// rosSink publishes each decision's rationale as the Runner serialized it
// (ghost/msg/DecisionRationale), the bytes the recording writes too. It is
// used from the node goroutine only; Publisher.Publish copies data.
type rosSink struct {
	pub    transport.Publisher
	topic  string
	closed bool
	// encoded, when set, is handed each rationale's bytes before they are
	// published (sealing): the seal covers the bytes published and
	// recorded.
	encoded func([]byte)
}

// PublishEncoded publishes the rationale's bytes.
func (s *rosSink) PublishEncoded(cmd engine.Command, data []byte) error {
	d := cmd.Decision
	if s.closed {
		return fmt.Errorf("publish %s on %s: %w", d, s.topic, session.ErrSinkClosed)
	}
	if s.encoded != nil {
		s.encoded(data)
	}
	if err := s.pub.Publish(data); err != nil {
		return fmt.Errorf("publish %s on %s: %w: %w", d, s.topic, session.ErrTransport, err)
	}
	return nil
}

// Close stops the sink. The publisher itself belongs to the transport,
// which the caller of Run closes.
func (s *rosSink) Close() error {
	s.closed = true
	return nil
}

// recording is the in-node MCAP recording: every input as received (log
// time = receive time on the node's clock, so a replay reproduces the live
// joins) and every decision as published. Publish times are the wall
// clock's: when an input was received, when an output was recorded; replay
// and verify never read them, `decision_node latency` does.
type recording struct {
	rec       *bag.Recorder
	path      string
	inputs    []bag.ChannelID // by index of node.inputs
	decisions *session.RecordingSink

	mu     sync.Mutex // guards closed against the node goroutine and Close
	closed bool
}

// PublishEncoded records the decision's encoded rationale on the decisions
// channel.
func (s *recording) PublishEncoded(cmd engine.Command, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("record %s in %s: %w", cmd.Decision, s.path, session.ErrSinkClosed)
	}
	if err := s.decisions.PublishEncoded(cmd, data); err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	return nil
}

// input records one received message: recv on the node's clock, wall on
// the wall clock.
func (s *recording) input(k int, data []byte, recv, wall time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("record input in %s: %w", s.path, session.ErrSinkClosed)
	}
	return s.rec.Write(s.inputs[k], uint64(recv.UnixNano()), uint64(wall.UnixNano()), data)
}

// Close finishes the recording (summary, index, sync); called once by the
// Runner after the last decision.
func (s *recording) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.rec.Close(); err != nil {
		return fmt.Errorf("close recording %s: %w", s.path, err)
	}
	return nil
}
