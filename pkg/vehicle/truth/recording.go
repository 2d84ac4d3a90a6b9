package truth

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// ErrRecording is wrapped by the errors of a recording whose truth
// channels cannot be read as truth (a truth topic of another type, two
// truths, several vehicles' truths).
var ErrRecording = errors.New("recorded truth unusable")

// Recorded says where a recording keeps its truth.
type Recorded struct {
	Form Form
	// Topics are the truth topics by stream, "" where absent. PX4's form
	// has its position and velocity on one topic.
	Topics [NumStreams]string
	// ResetTopic carries the estimator's resets, "" when the recording has
	// none (then an estimator reset cannot be told from an error).
	ResetTopic string
	// OriginTopic carries the origin the estimator declares for its local
	// frame (PX4's form: the reset topic). Topics[StreamGlobal] and
	// OriginTopic are both set or both "": the global position is of use
	// only to put the truth in that origin.
	OriginTopic string
	// Why says, for FormNone, what is missing.
	Why string
}

// PX4 types of the truth and reset topics.
const (
	typePX4LocalPosition = px4.Package + "/msg/" + px4.MsgVehicleLocalPosition
	typePX4Attitude      = px4.Package + "/msg/" + px4.MsgVehicleAttitude
	typePX4Global        = px4.Package + "/msg/VehicleGlobalPosition"
)

// Find looks for the truth among a recording's channels. PX4's topics are
// looked for below px4Namespace ("/uav_1"); with "" any one namespace is
// taken, and a recording with several is refused. A simulator truth needs
// both position and attitude: with one alone the form is FormNone, and Why
// says which is missing. A truth topic of an unexpected type, or both
// forms in one recording, is an error wrapping ErrRecording.
func Find(channels []bag.Channel, px4Namespace string) (Recorded, error) {
	ghost, err := findGhost(channels)
	if err != nil {
		return Recorded{}, err
	}
	px, err := findPX4(channels, px4Namespace)
	if err != nil {
		return Recorded{}, err
	}
	switch {
	case ghost.Form != FormNone && px.Form != FormNone:
		return Recorded{}, fmt.Errorf("%w: both ghost's %s and PX4's %s: one recording holds one truth",
			ErrRecording, ghost.Topics[StreamPosition], px.Topics[StreamPosition])
	case ghost.Form != FormNone:
		return ghost, nil
	case px.Form != FormNone:
		return px, nil
	case ghost.Why != "":
		return ghost, nil
	}
	return px, nil
}

// typeOf returns the schema of topic's channel, "" when absent.
func typeOf(channels []bag.Channel, topic string) (string, bool) {
	for _, c := range channels {
		if c.Topic == topic {
			return c.SchemaName, true
		}
	}
	return "", false
}

func want(topic, got, wantType string) error {
	if bag.SameMessageType(got, wantType) {
		return nil
	}
	return fmt.Errorf("%w: %s has type %s, want %s", ErrRecording, topic, got, wantType)
}

func findGhost(channels []bag.Channel) (Recorded, error) {
	r := Recorded{Form: FormGhost}
	for _, c := range []struct {
		s     Stream
		topic string
		typ   string
	}{{StreamPosition, TopicPosition, TypePointStamped}, {StreamVelocity, TopicVelocity, TypeVector3Stamped}, {StreamAttitude, TopicAttitude, TypeQuaternionStamped}} {
		if got, ok := typeOf(channels, c.topic); ok {
			if err := want(c.topic, got, c.typ); err != nil {
				return Recorded{}, err
			}
			r.Topics[c.s] = c.topic
		}
	}
	if got, ok := typeOf(channels, TopicEstimatorReset); ok {
		if err := want(TopicEstimatorReset, got, TypeVector3Stamped); err != nil {
			return Recorded{}, err
		}
		r.ResetTopic = TopicEstimatorReset
	}
	gotG, okG := typeOf(channels, TopicGlobalPosition)
	gotO, okO := typeOf(channels, TopicEstimatorOrigin)
	for _, c := range []struct {
		ok         bool
		topic, got string
	}{{okG, TopicGlobalPosition, gotG}, {okO, TopicEstimatorOrigin, gotO}} {
		if c.ok {
			if err := want(c.topic, c.got, TypePointStamped); err != nil {
				return Recorded{}, err
			}
		}
	}
	if okG && okO {
		r.Topics[StreamGlobal], r.OriginTopic = TopicGlobalPosition, TopicEstimatorOrigin
	}
	return complete(r, TopicPosition, TopicAttitude), nil
}

// complete turns r into FormNone, saying why, unless it has both position
// and attitude.
func complete(r Recorded, posTopic, attTopic string) Recorded {
	hasPos, hasAtt := r.Topics[StreamPosition] != "", r.Topics[StreamAttitude] != ""
	switch {
	case hasPos && hasAtt:
		return r
	case hasPos:
		return Recorded{Why: fmt.Sprintf("%s without %s: a simulator truth needs both", posTopic, attTopic)}
	case hasAtt:
		return Recorded{Why: fmt.Sprintf("%s without %s: a simulator truth needs both", attTopic, posTopic)}
	}
	return Recorded{}
}

// px4Namespace returns the namespace of topic when it is base below one
// ("/uav_1" + base, or "" + base), possibly with the version suffix PX4
// 1.16 and later give versioned messages ("_v1").
func px4Namespace(topic, base string) (string, bool) {
	if i := strings.LastIndex(topic, "_v"); i > 0 && i+2 < len(topic) && strings.Trim(topic[i+2:], "0123456789") == "" {
		topic = topic[:i]
	}
	p, ok := strings.CutSuffix(topic, base)
	return p, ok && (p == "" || p[0] == '/')
}

// px4ChannelOf returns the channel of base below ns, versioned or not.
func px4ChannelOf(channels []bag.Channel, ns, base string) (bag.Channel, bool) {
	for _, c := range channels {
		if p, ok := px4Namespace(c.Topic, base); ok && p == ns {
			return c, true
		}
	}
	return bag.Channel{}, false
}

func findPX4(channels []bag.Channel, ns string) (Recorded, error) {
	var namespaces []string
	for _, c := range channels {
		for _, t := range []string{PX4TopicLocalPositionTruth, PX4TopicAttitudeTruth} {
			if p, ok := px4Namespace(c.Topic, t); ok && !slices.Contains(namespaces, p) {
				namespaces = append(namespaces, p)
			}
		}
	}
	switch {
	case ns != "":
	case len(namespaces) == 0:
		return Recorded{}, nil
	case len(namespaces) > 1:
		slices.Sort(namespaces)
		return Recorded{}, fmt.Errorf("%w: PX4 ground truth of several vehicles (namespaces %q): choose one", ErrRecording, namespaces)
	default:
		ns = namespaces[0]
	}
	r := Recorded{Form: FormPX4}
	pos, att := ns+PX4TopicLocalPositionTruth, ns+PX4TopicAttitudeTruth
	if c, ok := px4ChannelOf(channels, ns, PX4TopicLocalPositionTruth); ok {
		if err := want(c.Topic, c.SchemaName, typePX4LocalPosition); err != nil {
			return Recorded{}, err
		}
		pos = c.Topic
		r.Topics[StreamPosition], r.Topics[StreamVelocity] = pos, pos
	}
	if c, ok := px4ChannelOf(channels, ns, PX4TopicAttitudeTruth); ok {
		if err := want(c.Topic, c.SchemaName, typePX4Attitude); err != nil {
			return Recorded{}, err
		}
		att = c.Topic
		r.Topics[StreamAttitude] = att
	}
	if c, ok := px4ChannelOf(channels, ns, PX4TopicLocalPosition); ok && r.Topics[StreamPosition] != "" &&
		bag.SameMessageType(c.SchemaName, typePX4LocalPosition) {
		r.ResetTopic = c.Topic
	}
	if c, ok := px4ChannelOf(channels, ns, PX4TopicGlobalTruth); ok {
		if err := want(c.Topic, c.SchemaName, typePX4Global); err != nil {
			return Recorded{}, err
		}
		if r.ResetTopic != "" {
			r.Topics[StreamGlobal], r.OriginTopic = c.Topic, r.ResetTopic
		}
	}
	return complete(r, pos, att), nil
}

// Decoded is what one truth message holds.
type Decoded struct {
	// Samples[:N] are its truth samples (PX4's local position truth gives
	// a position and a velocity).
	Samples [2]Sample
	N       int
	// Reset is the estimator reset it records, when HasReset.
	Reset    Reset
	HasReset bool
	// Origin is the estimator's origin it declares, when HasOrigin: a
	// first or a changed one. OriginErr says why PX4's local position
	// gave none when its origin could not be read (the error Decode
	// returns is then the resets').
	Origin    Origin
	HasOrigin bool
	OriginErr error
	// Partial says why a part of the message was left out (a velocity that
	// is not finite), nil when nothing was.
	Partial error
}

// Decoder decodes the truth messages of one recording. It is not safe for
// concurrent use.
type Decoder struct {
	rec     Recorded
	ghost   ghostDecoder
	plans   map[string]*dynamic.Plan
	msg     dynamic.Message
	frame   string
	resets  ResetTracker
	origins OriginTracker
}

// NewDecoder returns the decoder of rec's topics, compiling PX4's messages
// from the schemas the recording carries.
func NewDecoder(rec Recorded, channels []bag.Channel) (*Decoder, error) {
	d := &Decoder{rec: rec, plans: map[string]*dynamic.Plan{}}
	if rec.Form != FormPX4 {
		return d, nil
	}
	for _, topic := range []string{rec.Topics[StreamPosition], rec.Topics[StreamAttitude], rec.ResetTopic, rec.Topics[StreamGlobal]} {
		if topic == "" || d.plans[topic] != nil {
			continue
		}
		for _, c := range channels {
			if c.Topic != topic {
				continue
			}
			p, err := dynamic.CompileSchema(c.SchemaName, c.SchemaText)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrRecording, topic, err)
			}
			d.plans[topic] = p
			break
		}
	}
	return d, nil
}

// Frame returns the frame ghost's form names (the first sample's), "" for
// PX4's form or before the first sample.
func (d *Decoder) Frame() string { return d.frame }

// LostResets counts the estimator resets whose steps are unknown (see
// ResetTracker.Lost).
func (d *Decoder) LostResets() uint64 { return d.resets.Lost }

// Decode decodes a message of topic into out. It reports false for a topic
// that is neither a truth topic, the reset topic nor the origin topic; an
// error rejects the message. PX4's local position carries the resets and
// the origin, and one can be read without the other: the error is the
// resets', out.OriginErr the origin's.
func (d *Decoder) Decode(topic string, data []byte, out *Decoded) (bool, error) {
	*out = Decoded{}
	r := &d.rec
	switch {
	case topic == "" || r.Form == FormNone:
		return false, nil
	case topic == r.ResetTopic && r.Form == FormGhost:
		var err error
		out.Reset, err = d.ghost.reset(data)
		out.HasReset = err == nil
		return true, err
	case topic == r.OriginTopic && r.Form == FormGhost:
		var err error
		out.Origin, err = d.ghost.origin(data)
		out.HasOrigin = err == nil
		return true, err
	case topic == r.ResetTopic:
		if err := d.decodePX4(topic, data); err != nil {
			if topic == r.OriginTopic {
				out.OriginErr = err
			}
			return true, err
		}
		f := px4.FieldsOf(&d.msg)
		if topic == r.OriginTopic {
			out.Origin, out.HasOrigin, out.OriginErr = d.origins.Step(f)
		}
		var err error
		out.Reset, out.HasReset, err = d.resets.Step(f)
		return true, err
	}
	if r.Form == FormPX4 {
		return d.px4Sample(topic, data, out)
	}
	for s := Stream(0); s < NumStreams; s++ {
		if topic != r.Topics[s] {
			continue
		}
		sample, frame, err := d.ghost.sample(s, data)
		if err != nil {
			return true, err
		}
		if s == StreamGlobal { // its own frame, checked by sample
			out.Samples[0], out.N = sample, 1
			return true, nil
		}
		if d.frame == "" {
			d.frame = frame
		} else if frame != d.frame {
			return true, sampleErr("truth "+s.String(), "header.frame_id", fmt.Sprintf("%q", frame), fmt.Sprintf("the truth's frame is %q", d.frame))
		}
		out.Samples[0], out.N = sample, 1
		return true, nil
	}
	return false, nil
}

func (d *Decoder) decodePX4(topic string, data []byte) error {
	p := d.plans[topic]
	if p == nil {
		return fmt.Errorf("%w: %s: no schema in the recording", ErrRecording, topic)
	}
	if err := p.DecodeInto(&d.msg, data); err != nil {
		return fmt.Errorf("truth: %s: %w", topic, err)
	}
	return nil
}

func (d *Decoder) px4Sample(topic string, data []byte, out *Decoded) (bool, error) {
	r := &d.rec
	switch topic {
	case r.Topics[StreamPosition]:
		if err := d.decodePX4(topic, data); err != nil {
			return true, err
		}
		pos, vel, velErr, err := PX4PositionTruth(px4.FieldsOf(&d.msg))
		if err != nil {
			return true, err
		}
		out.Samples[0], out.N, out.Partial = pos, 1, velErr
		if velErr == nil {
			out.Samples[1], out.N = vel, 2
		}
		return true, nil
	case r.Topics[StreamAttitude]:
		if err := d.decodePX4(topic, data); err != nil {
			return true, err
		}
		s, err := PX4AttitudeTruth(px4.FieldsOf(&d.msg))
		if err != nil {
			return true, err
		}
		out.Samples[0], out.N = s, 1
		return true, nil
	case r.Topics[StreamGlobal]:
		if err := d.decodePX4(topic, data); err != nil {
			return true, err
		}
		s, err := PX4GlobalTruth(px4.FieldsOf(&d.msg))
		if err != nil {
			return true, err
		}
		out.Samples[0], out.N = s, 1
		return true, nil
	}
	return topic == r.ResetTopic, nil
}
