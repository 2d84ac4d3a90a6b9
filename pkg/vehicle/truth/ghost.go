package truth

import (
	"fmt"
	"math"

	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
	"github.com/ghost-robotics/ghost/pkg/wire/stdmsgs"
)

// Channel is one topic of ghost's form with its type and rosbag2 schema
// text.
type Channel struct {
	Topic, SchemaName, SchemaText string
}

// GhostChannels returns the channels of ghost's form: position, velocity
// and attitude, and the estimator's resets when resets is set.
func GhostChannels(resets bool) ([]Channel, error) {
	chans := []Channel{
		{Topic: TopicPosition, SchemaName: TypePointStamped},
		{Topic: TopicVelocity, SchemaName: TypeVector3Stamped},
		{Topic: TopicAttitude, SchemaName: TypeQuaternionStamped},
	}
	if resets {
		chans = append(chans, Channel{Topic: TopicEstimatorReset, SchemaName: TypeVector3Stamped})
	}
	return withSchemas(chans)
}

// GhostGlobalChannels returns the channels of the global position and of
// the estimator's declared origin in ghost's form: with both, an audit
// puts the truth in the estimator's own frame.
func GhostGlobalChannels() ([]Channel, error) {
	return withSchemas([]Channel{
		{Topic: TopicGlobalPosition, SchemaName: TypePointStamped},
		{Topic: TopicEstimatorOrigin, SchemaName: TypePointStamped},
	})
}

func withSchemas(chans []Channel) ([]Channel, error) {
	for i := range chans {
		text, err := stdmsgs.SchemaText(chans[i].SchemaName)
		if err != nil {
			return nil, fmt.Errorf("truth: %w", err)
		}
		chans[i].SchemaText = text
	}
	return chans, nil
}

// Encoder writes truth samples and resets in ghost's form. The bytes it
// returns are valid until its next call; it is not safe for concurrent use.
type Encoder struct {
	frame string
	pos   ros2msg.PointStamped
	vec   ros2msg.Vector3Stamped
	att   ros2msg.QuaternionStamped
	buf   []byte
}

// NewEncoder returns an Encoder whose samples say frame (FrameSim,
// FramePX4) in header.frame_id; the global position says FrameGeodetic.
func NewEncoder(frame string) (*Encoder, error) {
	if frame == "" || frame == FrameEstimator || frame == FrameGeodetic {
		return nil, fmt.Errorf("truth: frame %q: a truth frame must be named, and is not the estimator's", frame)
	}
	return &Encoder{frame: frame}, nil
}

// header returns the header of a message stamped ns (>= 0).
func header(ns int64, frame string) ros2msg.RosHeader {
	return ros2msg.RosHeader{
		Stamp:   ros2msg.RosTime{Sec: int32(ns / 1e9), Nanosec: uint32(ns % 1e9)},
		FrameID: frame,
	}
}

// maxStampNs is the latest stamp a builtin_interfaces/Time holds.
const maxStampNs = (1<<31-1)*int64(1e9) + 999_999_999

// Encode returns the topic and bytes of one sample, which Check must
// accept.
func (e *Encoder) Encode(s Sample) (topic string, data []byte, err error) {
	if s, err = s.Check(); err != nil {
		return "", nil, err
	}
	if s.StampNs > maxStampNs {
		return "", nil, sampleErr("truth "+s.Stream.String(), "stamp", s.StampNs, "beyond builtin_interfaces/Time")
	}
	h := header(s.StampNs, e.frame)
	v := s.Value
	switch s.Stream {
	case StreamPosition:
		e.pos = ros2msg.PointStamped{Header: h, Point: ros2msg.GeometryPoint{X: v[0], Y: v[1], Z: v[2]}}
		topic = TopicPosition
		e.buf, err = e.pos.AppendCDR(e.buf[:0])
	case StreamGlobal:
		h.FrameID = FrameGeodetic
		e.pos = ros2msg.PointStamped{Header: h, Point: ros2msg.GeometryPoint{X: v[0], Y: v[1], Z: v[2]}}
		topic = TopicGlobalPosition
		e.buf, err = e.pos.AppendCDR(e.buf[:0])
	case StreamVelocity:
		e.vec = ros2msg.Vector3Stamped{Header: h, Vector: ros2msg.GeometryVector3{X: v[0], Y: v[1], Z: v[2]}}
		topic = TopicVelocity
		e.buf, err = e.vec.AppendCDR(e.buf[:0])
	default:
		q := s.Q
		e.att = ros2msg.QuaternionStamped{Header: h, Quaternion: ros2msg.GeometryQuaternion{X: q[1], Y: q[2], Z: q[3], W: q[0]}}
		topic = TopicAttitude
		e.buf, err = e.att.AppendCDR(e.buf[:0])
	}
	if err != nil {
		return "", nil, fmt.Errorf("truth: encode %s at %d: %w", s.Stream, s.StampNs, err)
	}
	return topic, e.buf, nil
}

// EncodeReset returns the topic and bytes of one estimator reset.
func (e *Encoder) EncodeReset(r Reset) (topic string, data []byte, err error) {
	if err := r.check(); err != nil {
		return "", nil, err
	}
	if r.StampNs > maxStampNs {
		return "", nil, sampleErr("estimator reset", "stamp", r.StampNs, "beyond builtin_interfaces/Time")
	}
	d := r.Delta
	e.vec = ros2msg.Vector3Stamped{Header: header(r.StampNs, FrameEstimator), Vector: ros2msg.GeometryVector3{X: d[0], Y: d[1], Z: d[2]}}
	if e.buf, err = e.vec.AppendCDR(e.buf[:0]); err != nil {
		return "", nil, fmt.Errorf("truth: encode reset at %d: %w", r.StampNs, err)
	}
	return TopicEstimatorReset, e.buf, nil
}

// EncodeOrigin returns the topic and bytes of the estimator's declared
// origin: latitude, longitude and altitude in FrameGeodetic, NaN for a
// half not declared.
func (e *Encoder) EncodeOrigin(o Origin) (topic string, data []byte, err error) {
	if err := o.check(); err != nil {
		return "", nil, err
	}
	if o.StampNs > maxStampNs {
		return "", nil, sampleErr("estimator origin", "stamp", o.StampNs, "beyond builtin_interfaces/Time")
	}
	e.pos = ros2msg.PointStamped{Header: header(o.StampNs, FrameGeodetic), Point: ros2msg.GeometryPoint{X: o.Lat, Y: o.Lon, Z: o.Alt}}
	if e.buf, err = e.pos.AppendCDR(e.buf[:0]); err != nil {
		return "", nil, fmt.Errorf("truth: encode origin at %d: %w", o.StampNs, err)
	}
	return TopicEstimatorOrigin, e.buf, nil
}

func (r Reset) check() error {
	if r.StampNs < 0 {
		return sampleErr("estimator reset", "stamp", r.StampNs, "must be >= 0 ns")
	}
	for i, v := range r.Delta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return sampleErr("estimator reset", fmt.Sprintf("delta[%d]", i), v, "not finite")
		}
	}
	return nil
}

// stampOf reads a header stamp: seconds >= 0, nanoseconds below 1e9.
func stampOf(where string, h *ros2msg.RosHeader) (int64, error) {
	switch {
	case h.Stamp.Sec < 0:
		return 0, sampleErr(where, "header.stamp.sec", h.Stamp.Sec, "must be >= 0")
	case h.Stamp.Nanosec >= 1e9:
		return 0, sampleErr(where, "header.stamp.nanosec", h.Stamp.Nanosec, "must be below 1e9")
	}
	return int64(h.Stamp.Sec)*1e9 + int64(h.Stamp.Nanosec), nil
}

// ghostDecoder decodes ghost's form; it keeps the decoded messages to
// spare allocations.
type ghostDecoder struct {
	pos ros2msg.PointStamped
	vec ros2msg.Vector3Stamped
	att ros2msg.QuaternionStamped
}

// DecodeGhost decodes one message of ghost's form: a truth sample of
// stream s (s < NumStreams) and its frame. It is the decoder of the truth
// topics of sim and ulog recordings.
func DecodeGhost(s Stream, data []byte) (Sample, string, error) {
	var d ghostDecoder
	return d.sample(s, data)
}

func (d *ghostDecoder) sample(s Stream, data []byte) (Sample, string, error) {
	out := Sample{Stream: s}
	where := "truth " + s.String()
	var h *ros2msg.RosHeader
	switch s {
	case StreamPosition, StreamGlobal:
		topic := TopicPosition
		if s == StreamGlobal {
			topic = TopicGlobalPosition
		}
		if err := d.pos.UnmarshalCDR(data); err != nil {
			return out, "", fmt.Errorf("truth: %s: %w", topic, err)
		}
		h, out.Value = &d.pos.Header, [3]float64{d.pos.Point.X, d.pos.Point.Y, d.pos.Point.Z}
	case StreamVelocity:
		if err := d.vec.UnmarshalCDR(data); err != nil {
			return out, "", fmt.Errorf("truth: %s: %w", TopicVelocity, err)
		}
		h, out.Value = &d.vec.Header, [3]float64{d.vec.Vector.X, d.vec.Vector.Y, d.vec.Vector.Z}
	case StreamAttitude:
		if err := d.att.UnmarshalCDR(data); err != nil {
			return out, "", fmt.Errorf("truth: %s: %w", TopicAttitude, err)
		}
		q := d.att.Quaternion
		h, out.Q = &d.att.Header, [4]float64{q.W, q.X, q.Y, q.Z}
	default:
		return out, "", sampleErr("truth", "stream", uint8(s), "not a truth stream")
	}
	var err error
	if out.StampNs, err = stampOf(where, h); err != nil {
		return out, "", err
	}
	if out, err = out.Check(); err != nil {
		return out, "", err
	}
	if s == StreamGlobal && h.FrameID != FrameGeodetic {
		return out, "", sampleErr(where, "header.frame_id", fmt.Sprintf("%q", h.FrameID), "want "+FrameGeodetic)
	}
	return out, h.FrameID, nil
}

// DecodeGhostOrigin decodes one estimator origin of ghost's form.
func DecodeGhostOrigin(data []byte) (Origin, error) {
	var d ghostDecoder
	return d.origin(data)
}

func (d *ghostDecoder) origin(data []byte) (Origin, error) {
	if err := d.pos.UnmarshalCDR(data); err != nil {
		return Origin{}, fmt.Errorf("truth: %s: %w", TopicEstimatorOrigin, err)
	}
	if d.pos.Header.FrameID != FrameGeodetic {
		return Origin{}, sampleErr("estimator origin", "header.frame_id", fmt.Sprintf("%q", d.pos.Header.FrameID), "want "+FrameGeodetic)
	}
	stamp, err := stampOf("estimator origin", &d.pos.Header)
	if err != nil {
		return Origin{}, err
	}
	o := Origin{StampNs: stamp, Lat: d.pos.Point.X, Lon: d.pos.Point.Y, Alt: d.pos.Point.Z}
	return o, o.check()
}

// DecodeGhostReset decodes one estimator reset of ghost's form.
func DecodeGhostReset(data []byte) (Reset, error) {
	var d ghostDecoder
	return d.reset(data)
}

func (d *ghostDecoder) reset(data []byte) (Reset, error) {
	if err := d.vec.UnmarshalCDR(data); err != nil {
		return Reset{}, fmt.Errorf("truth: %s: %w", TopicEstimatorReset, err)
	}
	if d.vec.Header.FrameID != FrameEstimator {
		return Reset{}, sampleErr("estimator reset", "header.frame_id", fmt.Sprintf("%q", d.vec.Header.FrameID), "want "+FrameEstimator)
	}
	stamp, err := stampOf("estimator reset", &d.vec.Header)
	if err != nil {
		return Reset{}, err
	}
	r := Reset{StampNs: stamp, Delta: [3]float64{d.vec.Vector.X, d.vec.Vector.Y, d.vec.Vector.Z}}
	return r, r.check()
}
