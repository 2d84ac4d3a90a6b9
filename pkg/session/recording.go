package session

import (
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// WriteFunc writes one serialized message, logged and published at t, to
// the recording's decisions channel (for a *bag.Recorder: a closure over
// Recorder.Write and the channel).
type WriteFunc func(t uint64, data []byte) error

// RecordingSink writes every decision's rationale to a recording channel as
// ghost/msg/DecisionRationale CDR, logged at the time clock returns (the
// session's current arrival time, so replays log identically). It does not
// own the recorder: closing the recording is the caller's job, after the
// Runner is closed.
type RecordingSink struct {
	write WriteFunc
	clock func() int64
	msg   ros2msg.DecisionRationale
	buf   []byte
}

// NewRecordingSink returns a sink that encodes each rationale and passes it
// to write.
func NewRecordingSink(write WriteFunc, clock func() int64) *RecordingSink {
	return &RecordingSink{write: write, clock: clock, buf: make([]byte, 0, 256)}
}

// Publish encodes the command's rationale (which carries its decision) and
// writes it.
func (s *RecordingSink) Publish(cmd engine.Command) error {
	d := cmd.Decision
	s.msg = ros2msg.RationaleToWire(&cmd.Rationale)
	buf, err := s.msg.AppendCDR(s.buf[:0])
	if err != nil {
		return fmt.Errorf("recording sink: encode %s: %w: %w", d, ErrEncoding, err)
	}
	s.buf = buf
	t := uint64(s.clock())
	if err := s.write(t, buf); err != nil {
		return fmt.Errorf("recording sink: write %s: %w: %w", d, ErrTransport, err)
	}
	return nil
}
