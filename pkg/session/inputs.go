package session

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
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
	// NewDecode returns the input's decoder, with its own scratch: one per
	// goroutine.
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
			Kind: engine.InputBelief, Role: "belief (VehicleState) input", NewDecode: decodeBelief,
		},
		{
			Key: KeySelfAssessment, Topic: "/self_assessment", Type: "ghost/msg/BeliefSelfAssessment", QoS: qos.DefaultInput(),
			Kind: engine.InputAssessment, Role: "self-assessment input", NewDecode: decodeAssessment,
		},
		{
			Key: KeyPerceptionMode, Topic: "/perception/mode", Type: "ghost/msg/PerceptionMode", QoS: qos.DefaultInput(),
			Kind: engine.InputPerception, Role: "perception mode input (optional)", NewDecode: decodePerception,
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
