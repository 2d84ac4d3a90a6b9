package node

import (
	"errors"
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
// and verify never read them, `decision_node latency` does. With
// recording.max_size_mb or recording.max_duration_s it continues in a new
// file when the current one is full (rotation.go).
type recording struct {
	rec       *bag.Recorder   // the current file's
	path      string          // the current file
	inputs    []bag.ChannelID // by index of node.inputs
	decisions *session.RecordingSink

	mu     sync.Mutex // guards everything against the node goroutine and Close
	closed bool
	split  splitting
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
	return s.write(s.inputs[k], uint64(recv.UnixNano()), uint64(wall.UnixNano()), data)
}

// write records one message on a channel that addChannel returned.
func (s *recording) write(ch bag.ChannelID, t, pub uint64, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("record in %s: %w", s.path, session.ErrSinkClosed)
	}
	return s.writeLocked(ch, t, pub, data)
}

// writeLocked writes in the current file, after starting the next one when
// the current one is full; s.mu is held.
func (s *recording) writeLocked(ch bag.ChannelID, t, pub uint64, data []byte) error {
	s.rotateIfDue(t)
	return s.rec.Write(ch, t, pub, data)
}

// addChannel declares a channel with add, which the recording calls again
// on every file it continues in, in the same order, so a channel keeps its
// ID across files.
func (s *recording) addChannel(add func(*bag.Recorder) (bag.ChannelID, error)) (bag.ChannelID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, err := add(s.rec)
	if err != nil {
		return 0, err
	}
	s.split.decls = append(s.split.decls, channelDecl{add: add, id: id})
	return id, nil
}

// Close finishes the recording (summary, index, sync), after the files it
// left finished closing; called once by the Runner after the last decision.
func (s *recording) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.rec.Close()
	if err != nil {
		err = fmt.Errorf("close recording %s: %w", s.path, err)
	}
	return errors.Join(s.split.wait(), err)
}
