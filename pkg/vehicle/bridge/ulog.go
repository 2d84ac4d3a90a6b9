package bridge

import (
	"errors"
	"fmt"
	"math"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
	"github.com/ghost-robotics/ghost/pkg/vehicle/ulog"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
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
//
// With WithTruth, the simulator's ground truth the log holds goes out too,
// in package truth's form (frame truth.FramePX4), with the estimator's
// position resets: a record beside the beliefs that no decision reads.
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
	// Truth counts what went out of the ground truth; nil without it.
	Truth    *ULogTruthCounts
	truthOut *ulogTruth
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
		if s.truthOut != nil {
			if err := s.truthSample(name, d); err != nil {
				return bag.Message{}, err
			}
		}
		switch name {
		case "vehicle_odometry", "vehicle_local_position", "vehicle_attitude", "vehicle_status", "battery_status",
			"vehicle_gps_position", "estimator_status_flags", "estimator_status", "estimator_states", "failsafe_flags":
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

// PX4Topics turns a flight log into the PX4 topics a vehicle publishes over
// uXRCE-DDS, each sample encoded by field name with the px4_msgs
// definitions of one release: what `ros2 bag record` of a PX4 vehicle
// holds. Float fields the release has and the log lacks are written as NaN
// (unknown: an older log has no heading_var, and its orientation must stay
// unknown), other fields as zero (a missing timestamp_sample reads as "use
// timestamp" downstream).
// Only instance 0 of each topic is written.
type PX4Topics struct {
	r       *ulog.Reader
	defs    *px4.Definitions
	ns      string
	writers map[string]*dynamic.Writer // ulog topic -> writer
	plans   map[string]*dynamic.Plan
	names   map[string]string   // ulog topic -> px4_msgs message
	dds     map[string]string   // ulog topic -> DDS topic
	order   []string            // ulog topics, in the order of Channels
	leaves  map[string][]string // ulog topic -> scalar paths, arrays expanded ("q[0]")
	seq     uint32
	last    uint64 // newest log time written
	// Samples counts the samples written, by ULog topic.
	Samples map[string]uint64
}

// px4LogTopics are the topics written, by their uORB name.
var px4LogTopics = map[string]string{
	"vehicle_odometry":       px4.MsgVehicleOdometry,
	"vehicle_local_position": px4.MsgVehicleLocalPosition,
	"vehicle_attitude":       px4.MsgVehicleAttitude,
	"vehicle_status":         px4.MsgVehicleStatus,
	"battery_status":         px4.MsgBatteryStatus,
}

// NewPX4Topics reads r, encoding with defs, under namespace ns.
func NewPX4Topics(r *ulog.Reader, defs *px4.Definitions, ns string) (*PX4Topics, error) {
	t := &PX4Topics{r: r, defs: defs, ns: ns, writers: map[string]*dynamic.Writer{}, plans: map[string]*dynamic.Plan{},
		names: map[string]string{}, dds: map[string]string{}, leaves: map[string][]string{}, Samples: map[string]uint64{}}
	for _, topic := range []string{"vehicle_odometry", "vehicle_local_position", "vehicle_attitude", "vehicle_status", "battery_status"} {
		name := px4LogTopics[topic]
		dds, err := defs.TopicName(name, ns)
		if err != nil {
			return nil, fmt.Errorf("bridge: %w", err)
		}
		if err := t.add(topic, name, dds); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// add writes the samples of ulog topic as px4_msgs message name on dds.
func (t *PX4Topics) add(topic, name, dds string) error {
	p, err := t.defs.Plan(name)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	w, err := p.NewWriter()
	if err != nil {
		return fmt.Errorf("bridge: %s: %w", name, err)
	}
	t.plans[topic], t.writers[topic], t.names[topic], t.dds[topic] = p, w, name, dds
	t.order = append(t.order, topic)
	for _, path := range p.Paths() {
		if _, err := p.Field(path + "[0]"); err != nil {
			t.leaves[topic] = append(t.leaves[topic], path)
			continue
		}
		for i := 0; i < 1024; i++ {
			elem := fmt.Sprintf("%s[%d]", path, i)
			if _, err := p.Field(elem); err != nil {
				break
			}
			t.leaves[topic] = append(t.leaves[topic], elem)
		}
	}
	return nil
}

// WithTruth also writes the log's ground truth, as a SITL vehicle whose
// topic list names them exports it: vehicle_local_position_groundtruth
// and vehicle_attitude_groundtruth on /fmu/out/ (see package truth). Call
// it before the first Next, for a log whose ScanULogTruth says Both.
func (t *PX4Topics) WithTruth() error {
	if err := t.add(ULogPositionTruth, px4.MsgVehicleLocalPosition, t.ns+truth.PX4TopicLocalPositionTruth); err != nil {
		return err
	}
	return t.add(ULogAttitudeTruth, px4.MsgVehicleAttitude, t.ns+truth.PX4TopicAttitudeTruth)
}

// Channel is one output channel of PX4Topics.
type Channel struct {
	Topic, SchemaName, SchemaText string
}

// Channels are the DDS topics written, with their px4_msgs schemas.
func (t *PX4Topics) Channels() ([]Channel, error) {
	var out []Channel
	for _, topic := range t.order {
		name, dds := t.names[topic], t.dds[topic]
		text, err := t.defs.SchemaText(name)
		if err != nil {
			return nil, fmt.Errorf("bridge: %w", err)
		}
		out = append(out, Channel{Topic: dds, SchemaName: px4.Package + "/msg/" + name, SchemaText: text})
	}
	return out, nil
}

// Next returns the next sample as a DDS message, logged at its timestamp;
// io.EOF at the end of the log.
func (t *PX4Topics) Next() (bag.Message, error) {
	for {
		m, err := t.r.Next()
		if err != nil {
			return bag.Message{}, err
		}
		d, ok := m.(*ulog.Data)
		if !ok || d.MultiID() != 0 {
			continue
		}
		w := t.writers[d.Name()]
		if w == nil {
			continue
		}
		ts, ok := d.Uint("timestamp")
		if !ok {
			continue
		}
		w.Reset()
		for _, path := range t.leaves[d.Name()] {
			ref, err := t.plans[d.Name()].Field(path)
			if err != nil {
				continue
			}
			switch k := ref.Kind(); {
			case k == dynamic.KindBool:
				if v, ok := d.Bool(path); ok {
					_ = w.SetBool(path, v)
				}
			case k == dynamic.KindFloat32 || k == dynamic.KindFloat64:
				v, ok := d.Float(path)
				if !ok {
					v = math.NaN() // a quantity the log does not have is unknown, not zero
				}
				_ = w.SetFloat(path, v)
			case k == dynamic.KindInt8 || k == dynamic.KindInt16 || k == dynamic.KindInt32 || k == dynamic.KindInt64:
				if v, ok := d.Int(path); ok {
					_ = w.SetInt(path, v)
				}
			default:
				if v, ok := d.Uint(path); ok {
					_ = w.SetUint(path, v)
				}
			}
		}
		dds := t.dds[d.Name()]
		t.seq++
		t.Samples[d.Name()]++
		// The logger writes samples as it receives them, which is not
		// quite timestamp order across topics: log times never go back, so
		// a reader in log-time order sees the log's order, as a subscriber
		// would have.
		t.last = max(t.last, ts*1000)
		return bag.Message{Topic: dds, SchemaName: px4.Package + "/msg/" + t.names[d.Name()], Sequence: t.seq,
			LogTime: t.last, PublishTime: ts * 1000, Data: w.Bytes()}, nil
	}
}
