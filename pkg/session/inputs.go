package session

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Topic keys: the <key> of the topics.<key> and qos.<key>.* parameters. The
// inputs' keys come from their InputSpec; these name the outputs.
const (
	KeyDecisions   = "decisions"
	KeyDiagnostics = "diagnostics"
	// KeyActions names the action receipts (ghost/msg/ActionReceipt).
	KeyActions = "actions"
	// KeySeal names the recording seals (ghost/msg/RecordingSeal).
	KeySeal = "seal"
)

// DecodeFunc turns one serialized message into the Loop event it carries.
// arrivalNs is the message's arrival time (receive time, log time or
// simulated time). A DecodeFunc may keep scratch between calls and is then
// not safe for concurrent use; what it returns must share nothing with that
// scratch.
type DecodeFunc func(data []byte, arrivalNs int64) (engine.Event, error)

// InputSpec declares one input of the decision session, once. The Session,
// the replay and verify readers, the live node's subscriptions, the
// simulator's publications and the parameter keys all derive from the list
// of InputSpecs (DefaultInputs), so adding an input is one entry plus its
// decoder.
type InputSpec struct {
	// Key names the input in parameters (topics.<Key>, qos.<Key>.*),
	// counters and diagnostics: snake_case, unique.
	Key string
	// Topic is the topic the input is read from (the default in
	// DefaultInputs; Topics.Apply puts the configured one).
	Topic string
	// Type is the ROS 2 message type, "pkg/msg/Name".
	Type string
	// QoS is the default subscription profile.
	QoS qos.Profile
	// Kind is the kind of event the input becomes.
	Kind engine.InputKind
	// Role says in a few words what the input is, for parameter docs.
	Role string
	// NewDecode returns a decoder with its own scratch: one per goroutine.
	NewDecode func() DecodeFunc
	// Optional inputs are disabled while their Topic is empty: nothing
	// subscribes to, records, reads or checks them. Other inputs need a
	// topic.
	Optional bool
	// Replaces, when the input is enabled, is the Key of the input it
	// stands in for as the Loop's input: that one becomes ChainOnly (see
	// Enabled).
	Replaces string
	// ChainOnly inputs are subscribed, decoded, counted and recorded, but
	// not fed to the Loop: they are the raw self-assessments the chain check
	// hashes while a calibrated input delivers the same assessments with
	// their calibration. Enabled sets it.
	ChainOnly bool
	// NewDecodeInto, optional, returns a decoder that writes the event by
	// value into a Decoded and puts the bulky parts of an event (a belief's
	// covariance) in storage the caller reuses (Decoder.DecodeInto); without
	// it DecodeInto uses NewDecode.
	NewDecodeInto func() DecodeIntoFunc
}

// Disabled reports whether the input is an optional one without a topic.
func (in *InputSpec) Disabled() bool { return in.Optional && in.Topic == "" }

// Enabled returns the inputs that are not Disabled, with ChainOnly set on
// every input an enabled one Replaces. Every consumer of an input list
// (sessions, decoders, subscriptions, recordings) works on its result; it
// is idempotent.
func Enabled(inputs []InputSpec) []InputSpec {
	out := make([]InputSpec, 0, len(inputs))
	for _, in := range inputs {
		if !in.Disabled() {
			out = append(out, in)
		}
	}
	for _, in := range out {
		if in.Replaces == "" {
			continue
		}
		for i := range out {
			if out[i].Key == in.Replaces {
				out[i].ChainOnly = true
			}
		}
	}
	return out
}

// DecodeIntoFunc is a DecodeFunc that writes the event into out, by value,
// and takes a belief's covariance from s (a nil s allocates it): the event
// is then valid until s is reset.
type DecodeIntoFunc func(data []byte, arrivalNs int64, s *Scratch, out *Decoded) error

// Decoded is one decoded input event held by value. Returning events as an
// Event interface boxes each one on the heap (a self-assessment is about
// 300 bytes); a Decoded keeps them in the caller's storage, and
// Session.ApplyDecoded steps the Loop with them without boxing.
type Decoded struct {
	kind       decodedKind
	belief     engine.BeliefEvent
	assessment engine.AssessmentEvent
	perception engine.PerceptionEvent
	other      engine.Event // from a DecodeFunc
}

type decodedKind uint8

const (
	decodedNone decodedKind = iota
	decodedBelief
	decodedAssessment
	decodedPerception
	decodedOther
)

// Event returns the event as an Event (boxed: for callers that keep it),
// nil when there is none.
func (d *Decoded) Event() engine.Event {
	switch d.kind {
	case decodedBelief:
		return d.belief
	case decodedAssessment:
		return d.assessment
	case decodedPerception:
		return d.perception
	case decodedOther:
		return d.other
	}
	return nil
}

// Assessment returns the assessment a self-assessment input carried.
func (d *Decoded) Assessment() (*decisions.SelfAssessment, bool) {
	switch {
	case d.kind == decodedAssessment:
		return &d.assessment.Assessment, true
	case d.kind == decodedOther:
		if a, ok := d.other.(engine.AssessmentEvent); ok {
			return &a.Assessment, true
		}
	}
	return nil, false
}

// DropDonor makes a donated belief's covariance lent instead (see
// BeliefEvent.Donor): for a caller that steps several Loops with d, each
// of which must then keep a copy.
func (d *Decoded) DropDonor() { d.belief.Donor = nil }

func (d *Decoded) set(ev engine.Event) {
	*d = Decoded{}
	switch e := ev.(type) {
	case nil:
	case engine.BeliefEvent:
		d.kind, d.belief = decodedBelief, e
	case engine.AssessmentEvent:
		d.kind, d.assessment = decodedAssessment, e
	case engine.PerceptionEvent:
		d.kind, d.perception = decodedPerception, e
	default:
		d.kind, d.other = decodedOther, ev
	}
}

// Scratch is reusable storage for the covariances of decoded beliefs. A
// batch of messages is decoded into it, the events are stepped through a
// Loop (which copies what it keeps, see BeliefEvent), and Reset makes the
// storage free for the next batch: in steady state decoding a belief
// allocates no covariance. The zero value is ready; not safe for concurrent
// use.
type Scratch struct {
	buf  []float64
	used int // floats handed out since Reset, across blocks

	pool *engine.CovariancePool // see DrawFrom
	own  [][]float64            // taken from pool, not handed out yet
}

// DrawFrom makes s hand out every 225-value covariance from p, for good:
// the events decoded with s donate that storage to the Loop that keeps
// them (BeliefEvent.Donor), and Reset does not reclaim it. Other lengths
// (which the Loop rejects) get storage of their own.
func (s *Scratch) DrawFrom(p *engine.CovariancePool) { s.pool = p }

// scratchBlock is the smallest block a Scratch allocates: 64 covariances.
const scratchBlock = 64 * 225

// Floats returns n float64s of s's storage, valid until Reset (for good
// after DrawFrom).
func (s *Scratch) Floats(n int) []float64 {
	if s.pool != nil {
		if n == decisions.CovarianceLen {
			return s.drawCovariance()
		}
		return make([]float64, n)
	}
	if n > cap(s.buf)-len(s.buf) {
		// The old block stays alive for the slices already handed out
		// and is left to the collector.
		s.buf = make([]float64, 0, max(2*cap(s.buf), n, scratchBlock))
	}
	s.used += n
	start := len(s.buf)
	s.buf = s.buf[:start+n]
	return s.buf[start : start+n : start+n]
}

// Reset frees all of s's storage for reuse: every slice Floats returned,
// and the events holding them, become invalid. A Scratch that had to grow
// since the last Reset takes one block of all it handed out, so that the
// next batch of the same size fits without allocating.
func (s *Scratch) Reset() {
	if s.used > cap(s.buf) {
		s.buf = make([]float64, 0, s.used)
	}
	s.buf, s.used = s.buf[:0], 0
}

// TopicOf returns the topic of the input with key in inputs, "" when there
// is none.
func TopicOf(inputs []InputSpec, key string) string {
	for i := range inputs {
		if inputs[i].Key == key {
			return inputs[i].Topic
		}
	}
	return ""
}

// Input keys of the ghost inputs.
const (
	KeyState                    = "state"
	KeySelfAssessment           = "self_assessment"
	KeyPerceptionMode           = "perception_mode"
	KeySelfAssessmentCalibrated = "self_assessment_calibrated"
	KeyActionEvidence           = "action_evidence"
)

// CalibratedTopic is the conventional topic of calibrated self-assessments
// (ghost/msg/CalibratedSelfAssessment), where a calibration stage publishes
// them. The input is disabled by default: its default topic is empty.
const CalibratedTopic = "/self_assessment/calibrated"

// DefaultInputs returns the inputs of the ghost message set
// (ghost/msg/VehicleState, BeliefSelfAssessment, PerceptionMode,
// CalibratedSelfAssessment and the executors' ActionEvidence) on their
// default topics.
//
// The calibrated input is optional and disabled by default. Enabled, it
// replaces the self-assessment input as the Loop's assessment input: a
// calibration stage publishes, for each belief stamp, the raw assessment
// and then the calibrated record carrying that same raw assessment with its
// envelope (ADR-0027), so deciding on the raw one first would lose the
// calibrated context. The raw assessments are still subscribed and
// recorded (ChainOnly): the chain check hashes them.
//
// The evidence input is what executors returned (a PX4 executor maps
// VehicleCommandAck and VehicleStatus to it): recorded as it arrived, so
// replay and verify re-check it as the live runner did.
//
// The parameter events input is how run-time parameter changes reach the
// Loop (ParameterEvent): the node publishes its own changes on
// /parameter_events and reads them back like any input, so recordings keep
// them and replay applies them at the same point.
func DefaultInputs() []InputSpec {
	return []InputSpec{
		{
			Key: KeyState, Topic: "/state/nav", Type: "ghost/msg/VehicleState", QoS: qos.DefaultInput(),
			Kind: engine.InputBelief, Role: "belief (VehicleState) input", NewDecode: decodeBelief, NewDecodeInto: decodeBeliefInto,
		},
		{
			Key: KeySelfAssessment, Topic: "/self_assessment", Type: "ghost/msg/BeliefSelfAssessment", QoS: qos.DefaultInput(),
			Kind: engine.InputAssessment, Role: "self-assessment input", NewDecode: decodeAssessment, NewDecodeInto: decodeAssessmentInto,
		},
		{
			Key: KeyPerceptionMode, Topic: "/perception/mode", Type: "ghost/msg/PerceptionMode", QoS: qos.DefaultInput(),
			Kind: engine.InputPerception, Role: "perception mode input (optional)", NewDecode: decodePerception, NewDecodeInto: decodePerceptionInto,
		},
		{
			Key: KeySelfAssessmentCalibrated, Topic: "", Type: "ghost/msg/CalibratedSelfAssessment", QoS: qos.DefaultInput(),
			Kind: engine.InputAssessment, Role: "calibrated self-assessment input (optional, disabled while empty; " + CalibratedTopic +
				" by convention; when set, the Loop decides on it instead of the self-assessment input)",
			NewDecode: decodeCalibrated, Optional: true, Replaces: KeySelfAssessment,
		},
		{
			Key: KeyActionEvidence, Topic: "/decisions/evidence", Type: "ghost/msg/ActionEvidence", QoS: qos.DefaultInput(),
			Kind: engine.InputEvidence, Role: "evidence the executors returned (acknowledgements, vehicle state)", NewDecode: decodeEvidence,
		},
		ParameterEventInput(),
		TransitionEventInput(),
	}
}

func decodeEvidence() DecodeFunc {
	var m ros2msg.ActionEvidence
	return func(data []byte, arrivalNs int64) (engine.Event, error) {
		if err := m.UnmarshalCDR(data); err != nil {
			return nil, err
		}
		return engine.EvidenceEvent{ArrivalNs: arrivalNs, Items: EvidenceFromWire(m.Items)}, nil
	}
}

// EvidenceMessage converts an evidence batch to its message.
func EvidenceMessage(ev engine.EvidenceEvent) ros2msg.ActionEvidence {
	return ros2msg.ActionEvidence{Items: EvidenceToWire(ev.Items)}
}

func decodeBelief() DecodeFunc {
	return func(data []byte, arrivalNs int64) (engine.Event, error) {
		b, err := ros2msg.DecodeBelief(data, nil)
		if err != nil {
			return nil, err
		}
		return engine.BeliefEvent{ArrivalNs: arrivalNs, Belief: b}, nil
	}
}

func decodeBeliefInto() DecodeIntoFunc {
	var strs ros2msg.StringCache // the goal's metadata repeats
	return func(data []byte, arrivalNs int64, s *Scratch, out *Decoded) error {
		var cov func(int) []float64
		if s != nil {
			cov = s.Floats
		}
		b, err := ros2msg.DecodeBeliefCached(data, cov, &strs)
		if err != nil {
			return err
		}
		out.kind, out.belief = decodedBelief, engine.BeliefEvent{ArrivalNs: arrivalNs, Belief: b}
		if s != nil && s.pool != nil && len(b.Covariance) == decisions.CovarianceLen {
			out.belief.Donor = s.pool
		}
		return nil
	}
}

func decodeAssessmentInto() DecodeIntoFunc {
	var sa ros2msg.BeliefSelfAssessment
	var strs ros2msg.StringCache // the thresholds hash repeats
	var memo decisions.TextMemo  // and most standard deviations
	return func(data []byte, arrivalNs int64, _ *Scratch, out *Decoded) error {
		if err := sa.UnmarshalCDRCached(data, &strs); err != nil {
			return err
		}
		out.kind = decodedAssessment
		out.assessment = engine.AssessmentEvent{ArrivalNs: arrivalNs, Assessment: ros2msg.SelfAssessmentFromWire(&sa)}
		out.assessment.Assessment.SealWith(&memo) // as decodeAssessment
		return nil
	}
}

func decodePerceptionInto() DecodeIntoFunc {
	var pm ros2msg.PerceptionMode
	return func(data []byte, arrivalNs int64, _ *Scratch, out *Decoded) error {
		if err := pm.UnmarshalCDR(data); err != nil {
			return err
		}
		out.kind, out.perception = decodedPerception, engine.PerceptionEvent{ArrivalNs: arrivalNs, Report: ros2msg.PerceptionFromWire(&pm)}
		return nil
	}
}

func decodeAssessment() DecodeFunc {
	var sa ros2msg.BeliefSelfAssessment
	var memo decisions.TextMemo // the standard deviations repeat
	return func(data []byte, arrivalNs int64) (engine.Event, error) {
		if err := sa.UnmarshalCDR(data); err != nil {
			return nil, err
		}
		// Sealed here, once: the chain check, the rationale binding and the
		// provenance check then share this hash (and a decoder running on
		// another goroutine takes the work off the Loop's).
		a := ros2msg.SelfAssessmentFromWire(&sa)
		a.SealWith(&memo)
		return engine.AssessmentEvent{ArrivalNs: arrivalNs, Assessment: a}, nil
	}
}

func decodeCalibrated() DecodeFunc {
	var ca ros2msg.CalibratedSelfAssessment
	var memo decisions.TextMemo
	return func(data []byte, arrivalNs int64) (engine.Event, error) {
		if err := ca.UnmarshalCDR(data); err != nil {
			return nil, err
		}
		a, c := ros2msg.CalibratedFromWire(&ca)
		a.SealWith(&memo) // as decodeAssessment does
		return engine.AssessmentEvent{ArrivalNs: arrivalNs, Assessment: a, Calibration: &c}, nil
	}
}

func decodePerception() DecodeFunc {
	var pm ros2msg.PerceptionMode
	return func(data []byte, arrivalNs int64) (engine.Event, error) {
		if err := pm.UnmarshalCDR(data); err != nil {
			return nil, err
		}
		return engine.PerceptionEvent{ArrivalNs: arrivalNs, Report: ros2msg.PerceptionFromWire(&pm)}, nil
	}
}

// Topics names every topic of a session by its key: each input's Key and
// the outputs' KeyDecisions and KeyDiagnostics.
type Topics map[string]string

// DefaultTopics returns the default topic of every input of DefaultInputs
// and of the outputs.
func DefaultTopics() Topics {
	t := Topics{KeyDecisions: "/decisions", KeyDiagnostics: "/diagnostics", KeyActions: "/decisions/actions", KeySeal: "/decisions/seal"}
	for _, in := range DefaultInputs() {
		t[in.Key] = in.Topic
	}
	return t
}

// Decisions returns the decisions topic.
func (t Topics) Decisions() string { return t[KeyDecisions] }

// Actions returns the action receipts topic.
func (t Topics) Actions() string { return t[KeyActions] }

// Seal returns the recording seals topic.
func (t Topics) Seal() string { return t[KeySeal] }

// Apply returns a copy of inputs with each Topic replaced by t's topic for
// its Key, where t names one.
func (t Topics) Apply(inputs []InputSpec) []InputSpec {
	out := append([]InputSpec(nil), inputs...)
	for i := range out {
		if topic, ok := t[out[i].Key]; ok && topic != "" {
			out[i].Topic = topic
		}
	}
	return out
}

// ErrTopics is matched by the error CheckTopics returns.
var ErrTopics = errors.New("invalid topics")

// CheckTopics rejects inputs whose keys repeat or are empty, an input
// without a decoder, an input that replaces a missing or optional one, and
// two roles on one topic (an input on the decisions topic, or two inputs on
// one topic), naming the keys and the topic. Disabled inputs claim no
// topic.
func CheckTopics(inputs []InputSpec, outputs Topics) error {
	owner := map[string]string{}
	claim := func(key, topic string) error {
		if topic == "" {
			return fmt.Errorf("%w: topics.%s is empty", ErrTopics, key)
		}
		if other, ok := owner[topic]; ok {
			return fmt.Errorf("%w: topics.%s and topics.%s are both %q: each topic has one role", ErrTopics, other, key, topic)
		}
		owner[topic] = key
		return nil
	}
	keys := map[string]bool{}
	for _, in := range inputs {
		if in.Key == "" || keys[in.Key] {
			return fmt.Errorf("%w: input key %q is empty or repeated", ErrTopics, in.Key)
		}
		keys[in.Key] = true
		if in.NewDecode == nil {
			return fmt.Errorf("%w: input %q has no decoder", ErrTopics, in.Key)
		}
		if in.Disabled() {
			continue
		}
		if err := claim(in.Key, in.Topic); err != nil {
			return err
		}
	}
	for _, in := range inputs {
		if in.Replaces == "" || in.Disabled() {
			continue
		}
		i := slices.IndexFunc(inputs, func(o InputSpec) bool { return o.Key == in.Replaces })
		if i < 0 || inputs[i].Disabled() || inputs[i].Replaces != "" {
			return fmt.Errorf("%w: input %q replaces %q, which is not an enabled input of its own", ErrTopics, in.Key, in.Replaces)
		}
	}
	for _, key := range []string{KeyDecisions, KeyDiagnostics, KeyActions} {
		if topic, ok := outputs[key]; ok {
			if err := claim(key, topic); err != nil {
				return err
			}
		}
	}
	return nil
}

// Decoder turns serialized messages of a session's inputs into Loop events.
// It keeps decoding scratch, so it is not safe for concurrent use: one per
// goroutine. What it returns shares nothing with its scratch (a belief's
// covariance and goal are freshly allocated by the codec), so events may be
// kept.
type Decoder struct {
	topics []string
	decode []DecodeFunc
	into   []DecodeIntoFunc // nil where the input has no NewDecodeInto
}

// NewDecoder returns a decoder for the inputs that are not Disabled.
func NewDecoder(inputs []InputSpec) *Decoder {
	d := &Decoder{}
	for _, in := range inputs {
		if in.Disabled() {
			continue
		}
		d.topics = append(d.topics, in.Topic)
		d.decode = append(d.decode, in.NewDecode())
		var into DecodeIntoFunc
		if in.NewDecodeInto != nil {
			into = in.NewDecodeInto()
		}
		d.into = append(d.into, into)
	}
	return d
}

// DecodeInto is Decode into out, by value, with a belief's covariance taken
// from s: the event is valid until s is reset, and only a Loop (which
// copies what it keeps) may be stepped with it. out holds no event for a
// message on another topic or one that does not decode.
func (d *Decoder) DecodeInto(topic string, arrivalNs int64, data []byte, s *Scratch, out *Decoded) error {
	out.kind = decodedNone
	for i, t := range d.topics {
		if t != topic {
			continue
		}
		var err error
		if d.into[i] != nil {
			err = d.into[i](data, arrivalNs, s, out)
		} else {
			var ev engine.Event
			if ev, err = d.decode[i](data, arrivalNs); err == nil {
				out.set(ev)
			}
		}
		if err != nil {
			out.kind = decodedNone
			return corrupt(topic, err)
		}
		return nil
	}
	return nil
}

// Decode returns the event for a message on one of the input topics, and
// nil, nil for a message on another topic. A message that does not decode
// gives a *CorruptError naming the topic and byte offset.
func (d *Decoder) Decode(topic string, arrivalNs int64, data []byte) (engine.Event, error) {
	for i, t := range d.topics {
		if t == topic {
			ev, err := d.decode[i](data, arrivalNs)
			if err != nil {
				return nil, corrupt(topic, err)
			}
			return ev, nil
		}
	}
	return nil, nil
}

func corrupt(topic string, err error) error {
	off := -1
	var de *ros2msg.DecodeError
	if errors.As(err, &de) {
		off = de.Offset
	}
	return &CorruptError{Topic: topic, Offset: off, Err: err}
}
