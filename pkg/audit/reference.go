package audit

import (
	"errors"
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/audit/pyref"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// ReferenceRecording is how to audit a recording written by the Python
// reference (JSON messages named after its classes): the Loop's inputs, the
// decisions topic and the Format.
type ReferenceRecording struct {
	Inputs         []session.InputSpec
	DecisionsTopic string
	Format         Format
	// Ignored counts the channels no role reads (fusion results,
	// actuations, predictions...), by topic.
	Ignored []string
}

// ErrNoDecisionsChannel is returned when a reference recording has no
// channel of the reference's DecisionRationale.
var ErrNoDecisionsChannel = errors.New("no decisions channel")

// NewReferenceRecording maps the channels of a Python reference recording
// (pyref.Detect) to an audit. Each role is found by its schema name, on
// whatever topic it was recorded.
//
// The reference records, for every belief stamp, the raw assessment on
// /self_assessment and, when its calibration stage (ADR-0027) ran, the
// calibrated record holding that raw assessment with its envelope on
// /self_assessment/calibrated, right after. Where calibrated records exist
// they are the Loop's assessment input (the context the reference decided
// on); the chain check hashes the raw /self_assessment messages, as the
// reference's trace does.
func NewReferenceRecording(channels []pyref.ChannelInfo) (ReferenceRecording, error) {
	topic := map[pyref.Role]string{}
	var rr ReferenceRecording
	for _, c := range channels {
		role := pyref.RoleOf(c)
		if role == pyref.RoleOther {
			rr.Ignored = append(rr.Ignored, c.Topic)
			continue
		}
		if t, ok := topic[role]; ok && t != c.Topic {
			return rr, fmt.Errorf("reference recording: %s recorded on two topics, %s and %s", role, t, c.Topic)
		}
		topic[role] = c.Topic
	}
	rr.DecisionsTopic = topic[pyref.RoleDecision]
	if rr.DecisionsTopic == "" {
		return rr, fmt.Errorf("reference recording: %w", ErrNoDecisionsChannel)
	}
	inputQoS := qos.DefaultInput()
	if t := topic[pyref.RoleBelief]; t != "" {
		rr.Inputs = append(rr.Inputs, session.InputSpec{
			Key: session.KeyState, Topic: t, Type: schemaOf(pyref.RoleBelief), QoS: inputQoS, Kind: engine.InputBelief,
			Role: "belief (reference VehicleState, JSON)", NewDecode: decodeWith(beliefEvent),
		})
	}
	switch {
	case topic[pyref.RoleCalibrated] != "":
		rr.Inputs = append(rr.Inputs, session.InputSpec{
			Key: "self_assessment_calibrated", Topic: topic[pyref.RoleCalibrated], Type: schemaOf(pyref.RoleCalibrated), QoS: inputQoS,
			Kind: engine.InputAssessment, Role: "calibrated self-assessment (reference, JSON)", NewDecode: decodeWith(calibratedEvent),
		})
		rr.Format.ChainTopic = topic[pyref.RoleAssessment]
		rr.Format.NewDecodeChain = func() func([]byte) (decisions.SelfAssessment, error) { return pyref.DecodeAssessment }
	case topic[pyref.RoleAssessment] != "":
		rr.Inputs = append(rr.Inputs, session.InputSpec{
			Key: session.KeySelfAssessment, Topic: topic[pyref.RoleAssessment], Type: schemaOf(pyref.RoleAssessment), QoS: inputQoS,
			Kind: engine.InputAssessment, Role: "self-assessment (reference, JSON)", NewDecode: decodeWith(assessmentEvent),
		})
	}
	if t := topic[pyref.RolePerception]; t != "" {
		rr.Inputs = append(rr.Inputs, session.InputSpec{
			Key: session.KeyPerceptionMode, Topic: t, Type: schemaOf(pyref.RolePerception), QoS: inputQoS, Kind: engine.InputPerception,
			Role: "perception mode (reference, JSON)", NewDecode: decodeWith(perceptionEvent),
		})
	}
	rr.Format.DecisionSchemas = []string{schemaOf(pyref.RoleDecision)}
	rr.Format.NewDecodeDecision = func() func([]byte) (decisions.Rationale, error) { return pyref.DecodeRationale }
	return rr, nil
}

func schemaOf(role pyref.Role) string {
	for _, r := range pyref.Roles() {
		if r.Role == role {
			return r.SchemaName
		}
	}
	return ""
}

// decodeWith adapts a stateless JSON decoder to session.InputSpec.NewDecode.
func decodeWith(f session.DecodeFunc) func() session.DecodeFunc {
	return func() session.DecodeFunc { return f }
}

func beliefEvent(data []byte, arrivalNs int64, _ *session.Scratch, out *session.Decoded) error {
	b, err := pyref.DecodeBelief(data)
	if err != nil {
		return err
	}
	out.Set(engine.BeliefEvent{ArrivalNs: arrivalNs, Belief: b})
	return nil
}

func assessmentEvent(data []byte, arrivalNs int64, _ *session.Scratch, out *session.Decoded) error {
	a, err := pyref.DecodeAssessment(data)
	if err != nil {
		return err
	}
	out.Set(engine.AssessmentEvent{ArrivalNs: arrivalNs, Assessment: a})
	return nil
}

func calibratedEvent(data []byte, arrivalNs int64, _ *session.Scratch, out *session.Decoded) error {
	a, cal, err := pyref.DecodeCalibrated(data)
	if err != nil {
		return err
	}
	out.Set(engine.AssessmentEvent{ArrivalNs: arrivalNs, Assessment: a, Calibration: &cal})
	return nil
}

func perceptionEvent(data []byte, arrivalNs int64, _ *session.Scratch, out *session.Decoded) error {
	p, err := pyref.DecodePerception(data)
	if err != nil {
		return err
	}
	out.Set(engine.PerceptionEvent{ArrivalNs: arrivalNs, Report: p})
	return nil
}

// TraceRecord is the reference's DecisionTraceRecord (ADR-0022) of one
// audited decision, for `verify --format reference`.
func TraceRecord(a DecisionAudit) pyref.TraceRecord {
	return pyref.TraceRecord{
		TimestampNs: a.LogTimeNs, DecisionKind: a.Kind, DecisionReason: a.Reason, PolicyID: a.PolicyID,
		ClaimedAssessmentSHA256: a.ClaimedSHA256, RecomputedAssessmentSHA256: a.RecomputedSHA256,
		ChainStatus: pyref.ChainStatus(a.Chain.String()),
	}
}
