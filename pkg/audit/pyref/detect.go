package pyref

import (
	"errors"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Library is the MCAP header library the reference writes.
const Library = "project_ghost"

// SchemaPrefix starts every schema name the reference writes: the Python
// module path of the message's class.
const SchemaPrefix = "project_ghost."

// MessageEncoding is the channel message encoding of the reference.
const MessageEncoding = "json"

// ChannelInfo is what detection and decoding need to know about one MCAP
// channel and its schema.
type ChannelInfo struct {
	Topic           string
	MessageEncoding string
	SchemaName      string
	SchemaEncoding  string
}

// Role is what a channel's messages mean to the audit.
type Role uint8

// The roles. RoleOther covers every channel the audit does not read
// (fusion results, actuations, predictions, anything unknown): counted by
// the caller, never an error.
const (
	RoleOther Role = iota
	RoleBelief
	RoleAssessment
	RoleCalibrated
	RoleDecision
	RolePerception
)

var roleNames = [...]string{"other", "belief", "assessment", "calibrated", "decision", "perception"}

// String returns the role's lowercase name.
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "role(?)"
}

// RoleSpec is one row of the role table: the topic the reference uses for
// a role and the schema name of the class it writes there.
type RoleSpec struct {
	Role       Role
	Topic      string
	SchemaName string
}

// roles is the table; the reference's channels module fixes the topics,
// MCAPFileSink the schema names (module path and class name).
var roles = [...]RoleSpec{
	{RoleBelief, "/state/nav", "project_ghost.state.messages.VehicleState"},
	{RoleAssessment, "/self_assessment", "project_ghost.core.uncertainty.self_assessment.BeliefSelfAssessment"},
	{RoleCalibrated, "/self_assessment/calibrated", "project_ghost.core.feedback.types.CalibratedSelfAssessment"},
	{RoleDecision, "/decisions", "project_ghost.core.decisions.types.DecisionRationale"},
	{RolePerception, "/perception/mode", "project_ghost.core.uncertainty.mode_events.PerceptionModeChanged"},
}

// Roles returns the role table (a fresh copy).
func Roles() []RoleSpec { return append([]RoleSpec(nil), roles[:]...) }

// RoleOf maps a channel to its role. Only JSON channels have one. The
// schema name decides when it is set (a reference class is recognised on
// any topic); a channel without schema name falls back to its topic; a
// schema name outside the table is RoleOther whatever the topic.
func RoleOf(c ChannelInfo) Role {
	if c.MessageEncoding != MessageEncoding {
		return RoleOther
	}
	for _, r := range roles {
		if c.SchemaName != "" && c.SchemaName == r.SchemaName {
			return r.Role
		}
		if c.SchemaName == "" && c.Topic == r.Topic {
			return r.Role
		}
	}
	return RoleOther
}

// Detect reports whether a recording was written by the reference: its
// profile is empty and either its library is the reference's or one of its
// channels is a JSON channel with a reference schema name (tools that
// rewrite a file replace the library string, not the channels). ghost's own
// recordings (profile "ros2", CDR) are never detected.
func Detect(library, profile string, channels []ChannelInfo) bool {
	if profile != "" {
		return false
	}
	if library == Library {
		return true
	}
	for _, c := range channels {
		if c.MessageEncoding == MessageEncoding && strings.HasPrefix(c.SchemaName, SchemaPrefix) {
			return true
		}
	}
	return false
}

// Message is one decoded message; which fields are set depends on Role.
type Message struct {
	Role Role
	// Belief is set for RoleBelief.
	Belief decisions.Belief
	// Assessment is set for RoleAssessment, and for RoleCalibrated (the raw
	// assessment the calibration adjusted).
	Assessment decisions.SelfAssessment
	// Calibration is set for RoleCalibrated.
	Calibration decisions.Calibration
	// Rationale is set for RoleDecision.
	Rationale decisions.Rationale
	// Perception is set for RolePerception.
	Perception decisions.PerceptionReport
}

// Decode decodes one message of channel c by the channel's role. A channel
// of RoleOther is not parsed: the result has RoleOther and no error. A
// decoding error is a *DecodeError naming the topic.
func Decode(c ChannelInfo, data []byte) (Message, error) {
	m := Message{Role: RoleOf(c)}
	var err error
	switch m.Role {
	case RoleBelief:
		m.Belief, err = DecodeBelief(data)
	case RoleAssessment:
		m.Assessment, err = DecodeAssessment(data)
	case RoleCalibrated:
		m.Assessment, m.Calibration, err = DecodeCalibrated(data)
	case RoleDecision:
		m.Rationale, err = DecodeRationale(data)
	case RolePerception:
		m.Perception, err = DecodePerception(data)
	}
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			de.Topic = c.Topic
		}
		return Message{Role: m.Role}, err
	}
	return m, nil
}
