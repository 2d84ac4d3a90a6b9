package bridge

import (
	"errors"
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/px4"
	"github.com/ghost-robotics/ghost/pkg/ulog"
)

// ULogSource reads a PX4 flight log and yields the ghost messages its
// samples map to, in order, as a recording would hold them: for every
// accepted estimator sample its belief (VehicleState) and self-assessment,
// both logged at the belief's own stamp. It is an audit.Source, so the log
// is decided exactly as a recording is replayed.
//
// Only instance 0 of each topic is read (the primary estimator and
// battery). Samples the mapping rejects (stamps that repeat or go back, no
// attitude yet, a quaternion of zero norm) are counted by the bridge's
// Tracker and skipped; fields a sample lacks are counted in FieldErrors.
type ULogSource struct {
	r        *ulog.Reader
	b        *Bridge
	position string
	queue    []bag.Message
	head     int
	seq      uint32
	// FieldErrors counts samples that lacked a field the mapping reads.
	FieldErrors uint64
	// LastFieldError is the last such error, for the summary.
	LastFieldError error
	// Samples counts the samples of the topics read, by topic.
	Samples map[string]uint64
}

// NewULogSource reads the log r through b; position is PositionLocalPosition
// (what PX4 logs by default) or PositionOdometry.
func NewULogSource(r *ulog.Reader, b *Bridge, position string) (*ULogSource, error) {
	if position != PositionOdometry && position != PositionLocalPosition {
		return nil, fmt.Errorf("bridge: position %q: want %s or %s", position, PositionOdometry, PositionLocalPosition)
	}
	return &ULogSource{r: r, b: b, position: position, Samples: map[string]uint64{}}, nil
}

// Reader returns the underlying ULog reader, for its problems and
// truncation.
func (s *ULogSource) Reader() *ulog.Reader { return s.r }

// Next returns the next ghost message, io.EOF after the last. A truncated
// log ends cleanly (the reader reports the truncation); a log that cannot be
// read further returns the reader's error.
func (s *ULogSource) Next() (bag.Message, error) {
	for s.head >= len(s.queue) {
		s.queue, s.head = s.queue[:0], 0
		m, err := s.r.Next()
		if err != nil {
			return bag.Message{}, err // io.EOF at the end
		}
		d, ok := m.(*ulog.Data)
		if !ok || d.MultiID() != 0 {
			continue
		}
		name := d.Name()
		switch name {
		case "vehicle_odometry", "vehicle_local_position", "vehicle_attitude", "vehicle_status", "battery_status":
		default:
			continue
		}
		s.Samples[name]++
		out, err := s.b.PX4Sample(name, d, s.position)
		if err != nil {
			if errors.Is(err, px4.ErrField) {
				s.FieldErrors++
				s.LastFieldError = err
			}
			continue // counted by the Tracker (rejections) or above
		}
		for _, o := range out {
			s.seq++
			t := uint64(s.b.lastStamp())
			s.queue = append(s.queue, bag.Message{
				Topic: o.Topic, SchemaName: o.Type, Sequence: s.seq, LogTime: t, PublishTime: t,
				Data: append([]byte(nil), o.Data...),
			})
		}
	}
	m := s.queue[s.head]
	s.head++
	return m, nil
}
