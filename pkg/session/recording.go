package session

import (
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// rationaleCDR encodes the rationales the Runner hands its EncodedSinks,
// into one buffer reused from decision to decision.
type rationaleCDR struct {
	msg ros2msg.DecisionRationale
	buf []byte
	// encodes counts the rationales encoded (tests check that every sink
	// shares one encoding).
	encodes uint64
}

// encode returns cmd's rationale as CDR, valid until the next call, or an
// error wrapping ErrEncoding.
func (c *rationaleCDR) encode(cmd *engine.Command) ([]byte, error) {
	c.encodes++
	c.msg = ros2msg.RationaleToWire(&cmd.Rationale)
	buf, err := c.msg.AppendCDR(c.buf[:0])
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w: %w", cmd.Decision, ErrEncoding, err)
	}
	c.buf = buf
	return buf, nil
}

// WriteFunc writes one serialized message, logged and published at t, to
// the recording's decisions channel (for a *bag.Recorder: a closure over
// Recorder.Write and the channel).
type WriteFunc func(t uint64, data []byte) error

// RecordingSink writes every decision's rationale, as the Runner encoded
// it (ghost/msg/DecisionRationale CDR), to a recording channel, logged at
// the time clock returns (the session's current arrival time, so replays
// log identically). Register it with Runner.RegisterEncoded. It does not
// own the recorder: closing the recording is the caller's job, after the
// Runner is closed.
type RecordingSink struct {
	write WriteFunc
	clock func() int64
}

// NewRecordingSink returns a sink that passes each encoded rationale to
// write.
func NewRecordingSink(write WriteFunc, clock func() int64) *RecordingSink {
	return &RecordingSink{write: write, clock: clock}
}

// PublishEncoded writes the command's encoded rationale (which carries its
// decision).
func (s *RecordingSink) PublishEncoded(cmd engine.Command, data []byte) error {
	if err := s.write(uint64(s.clock()), data); err != nil {
		return fmt.Errorf("recording sink: write %s: %w: %w", cmd.Decision, ErrTransport, err)
	}
	return nil
}
