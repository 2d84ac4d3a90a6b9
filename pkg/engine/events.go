package engine

import (
	"fmt"
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// Event is one input to Loop.Step. The set is closed (the marker method is
// unexported): BeliefEvent, AssessmentEvent, PerceptionEvent, TickEvent,
// EndEvent, EvidenceEvent, ParameterEvent and LifecycleEvent, passed by
// value.
//
// Every event carries its arrival time in ns: the receive time in live
// operation, the log time in replay, a synthetic time in the simulator. It is
// the Loop's only notion of time.
type Event interface {
	// Arrival returns the event's arrival time in ns.
	Arrival() int64
	isEvent()
}

// BeliefEvent delivers a belief (VehicleState). The Loop copies the
// Covariance of a belief it keeps, so the caller may reuse that storage
// once Step returns (the session's decoders do), unless Donor is set;
// Mission.Goal is kept by reference: callers must not modify it after Step.
type BeliefEvent struct {
	ArrivalNs int64
	Belief    decisions.Belief
	// Donor, when set, is the pool Belief.Covariance was drawn from, and
	// the storage is handed over: a Loop that keeps the belief keeps that
	// storage instead of a copy and gives it back to Donor once it forgets
	// the belief. The caller must not touch the storage after Step, nor
	// step a second Loop with the event (the session's Decoded.DropDonor).
	Donor *CovariancePool
}

// AssessmentEvent delivers the self-assessment of one belief stamp and,
// when a calibration stage adjusted it (ADR-0027), its calibration
// envelope: the context then carries both, the rationale's hash still
// covers the raw assessment only.
type AssessmentEvent struct {
	ArrivalNs   int64
	Assessment  decisions.SelfAssessment
	Calibration *decisions.Calibration
	// Hash is Assessment's hash when the decoder made it
	// (HashAssessment); nil, or a hash of other content, and the Loop
	// hashes the assessment itself when it admits it.
	Hash *AssessmentHash
}

// PerceptionEvent delivers a perception mode report.
type PerceptionEvent struct {
	ArrivalNs int64
	Report    decisions.PerceptionReport
}

// TickEvent says that time has passed without input; hosts send it when
// inputs pause so that waiting beliefs reach their assessment timeout.
type TickEvent struct {
	ArrivalNs int64
}

// EndEvent ends the stream: every pending belief is decided, with its
// assessment when it has one. The Loop stays usable afterwards.
type EndEvent struct {
	ArrivalNs int64
}

// Arrival returns the arrival time in ns.
func (e BeliefEvent) Arrival() int64 { return e.ArrivalNs }

// Arrival returns the arrival time in ns.
func (e AssessmentEvent) Arrival() int64 { return e.ArrivalNs }

// Arrival returns the arrival time in ns.
func (e PerceptionEvent) Arrival() int64 { return e.ArrivalNs }

// Arrival returns the arrival time in ns.
func (e TickEvent) Arrival() int64 { return e.ArrivalNs }

// Arrival returns the arrival time in ns.
func (e EndEvent) Arrival() int64 { return e.ArrivalNs }

func (BeliefEvent) isEvent()     {}
func (AssessmentEvent) isEvent() {}
func (PerceptionEvent) isEvent() {}
func (TickEvent) isEvent()       {}
func (EndEvent) isEvent()        {}

// Output is what one Step produced. Step overwrites it and reuses its slices,
// so a caller that keeps one Output across steps allocates nothing in the
// steady state. Everything in it, including the assessments and perception
// reports the Commands' contexts point to, is valid until the next Step with
// the same Output; use Command.Clone to keep a command longer.
type Output struct {
	// Commands are the decisions to publish, in increasing stamp order.
	Commands []Command
	// Rejections are the inputs (or held inputs) the step refused or dropped.
	Rejections []Rejection
	// Duplicates are identical repeats, accepted as no-ops.
	Duplicates []Duplicate
	// Actions are what the step asks the Runner to do about actions:
	// execute, retry, record an outcome; in order.
	Actions []ActionCommand
	// ActiveAction is the id of the outstanding action after the step, 0
	// when none: an execute or retry for any other id is stale.
	ActiveAction uint64

	// Backing storage for the contexts' pointers.
	assessments  []decisions.SelfAssessment
	calibrations []decisions.Calibration
	perceptions  []decisions.PerceptionReport
	evidence     []Evidence
	// actionStates is what every context of the step sees of the actions
	// (Loop.actionStates), when haveActionStates.
	actionStates     decisions.ActionStates
	haveActionStates bool
}

// Reset empties o, keeping its storage.
func (o *Output) Reset() {
	o.Commands = o.Commands[:0]
	o.Rejections = o.Rejections[:0]
	o.Duplicates = o.Duplicates[:0]
	o.assessments = o.assessments[:0]
	o.calibrations = o.calibrations[:0]
	o.perceptions = o.perceptions[:0]
	o.Actions = o.Actions[:0]
	o.ActiveAction = 0
	o.evidence = o.evidence[:0]
	o.haveActionStates = false
}

// keepEvidence copies ev into o, so the action commands may point into it
// whatever the caller does with its batch.
func (o *Output) keepEvidence(ev []Evidence) []Evidence {
	n := len(o.evidence)
	o.evidence = append(o.evidence, ev...)
	return o.evidence[n:len(o.evidence):len(o.evidence)]
}

// keepAssessment stores a in o and returns a pointer that stays valid until
// the next Reset; growing the storage leaves earlier pointers on the old,
// unchanged array.
func (o *Output) keepAssessment(a *decisions.SelfAssessment) *decisions.SelfAssessment {
	o.assessments = append(o.assessments, *a)
	return &o.assessments[len(o.assessments)-1]
}

func (o *Output) keepCalibration(c *decisions.Calibration) *decisions.Calibration {
	o.calibrations = append(o.calibrations, *c)
	return &o.calibrations[len(o.calibrations)-1]
}

func (o *Output) keepPerception(p decisions.PerceptionReport) *decisions.PerceptionReport {
	o.perceptions = append(o.perceptions, p)
	return &o.perceptions[len(o.perceptions)-1]
}

// Command tells the host (the session's Runner) to publish one decision.
// It carries everything needed to check the decision's provenance
// (Provenance): the context the policy saw, the decision, its rationale and
// the id of the policy that decided.
type Command struct {
	Context   decisions.Context
	Decision  decisions.Decision
	Rationale decisions.Rationale
	// PolicyID is the id of the policy that produced Decision.
	PolicyID string
	// WithoutAssessment says why the context has no self-assessment;
	// WithoutNone when it has one.
	WithoutAssessment WithoutReason

	// assessmentHash is the hash the Loop bound into the rationale, with
	// the content it was computed from; Provenance takes it only for that
	// very content.
	assessmentHash *AssessmentHash
}

// Clone returns a copy of c whose context owns its assessment, perception
// report, calibration and action states, so it outlives the Output it came
// from.
func (c Command) Clone() Command {
	if c.Context.SelfAssessment != nil {
		a := *c.Context.SelfAssessment
		c.Context.SelfAssessment = &a
	}
	if c.Context.Perception != nil {
		p := *c.Context.Perception
		c.Context.Perception = &p
	}
	if c.Context.Calibration != nil {
		k := *c.Context.Calibration
		c.Context.Calibration = &k
	}
	if c.Context.Actions != nil {
		s := *c.Context.Actions
		c.Context.Actions = &s
	}
	return c
}

// WithoutReason says why a belief was decided without its self-assessment.
type WithoutReason uint8

// Reasons for deciding without a self-assessment, in the order the join rules
// test them.
const (
	// WithoutNone: the context has its self-assessment.
	WithoutNone WithoutReason = iota
	// WithoutNewerAssessment: an assessment of a newer stamp arrived; the
	// assessor publishes in stamp order, so this one will not come.
	WithoutNewerAssessment
	// WithoutTimeout: the belief waited LoopOptions.AssessmentTimeout.
	WithoutTimeout
	// WithoutBufferFull: the pending-beliefs buffer overflowed; the oldest
	// belief is decided first.
	WithoutBufferFull
	// WithoutEndOfStream: the stream ended.
	WithoutEndOfStream
)

// NumWithoutReasons is the number of WithoutReason values, WithoutNone included.
const NumWithoutReasons = 5

var withoutNames = [NumWithoutReasons]string{"none", "newer_assessment", "timeout", "buffer_full", "end_of_stream"}

// String returns the reason's snake_case name.
func (w WithoutReason) String() string {
	if int(w) < len(withoutNames) {
		return withoutNames[w]
	}
	return fmt.Sprintf("without_reason(%d)", uint8(w))
}

// InputKind names the kinds of input.
type InputKind uint8

// The input kinds.
const (
	InputBelief InputKind = iota
	InputAssessment
	InputPerception
	// InputEvidence: evidence an executor returned (EvidenceEvent).
	InputEvidence
	// InputParameters: parameter changes (ParameterEvent).
	InputParameters
	// InputLifecycle: lifecycle transitions (LifecycleEvent).
	InputLifecycle
)

var inputNames = [...]string{"belief", "assessment", "perception", "evidence", "parameters", "lifecycle"}

// String returns "belief", "assessment", "perception", "evidence",
// "parameters" or "lifecycle".
func (k InputKind) String() string {
	if int(k) < len(inputNames) {
		return inputNames[k]
	}
	return fmt.Sprintf("input(%d)", uint8(k))
}

// RejectReason says why an input was refused or dropped. Every reason is
// counted by the Runner.
type RejectReason uint8

// Rejection reasons.
const (
	// RejectInvalidBelief: the belief failed Validate.
	RejectInvalidBelief RejectReason = iota
	// RejectInvalidAssessment: the assessment failed Validate.
	RejectInvalidAssessment
	// RejectInvalidPerception: the perception report failed Validate.
	RejectInvalidPerception
	// RejectConflictingBelief: a belief repeats a known stamp with different
	// content; the first one stands.
	RejectConflictingBelief
	// RejectConflictingAssessment: an assessment repeats a known stamp with
	// different content; the first one stands.
	RejectConflictingAssessment
	// RejectConflictingPerception: a perception report repeats a known stamp
	// with a different mode; the first one stands.
	RejectConflictingPerception
	// RejectLateBelief: the belief's stamp is not newer than the last
	// decided stamp.
	RejectLateBelief
	// RejectLateAssessment: the assessment's stamp was already decided (or
	// passed); the assessment timeout is too short for this system.
	RejectLateAssessment
	// RejectLatePerception: the report arrived after a decision it would
	// have changed (or that the Loop no longer remembers).
	RejectLatePerception
	// RejectStalePerception: the report is older than one already used for
	// every decision it could apply to; it changes nothing.
	RejectStalePerception
	// RejectAssessmentBufferFull: the buffer of assessments waiting for their
	// belief overflowed; the oldest stamp was dropped.
	RejectAssessmentBufferFull
	// RejectPerceptionBufferFull: the perception history overflowed; the
	// oldest report was dropped.
	RejectPerceptionBufferFull
	// RejectUnmatchedAssessment: decisions passed the stamp of a held
	// assessment whose belief never arrived; it was dropped.
	RejectUnmatchedAssessment
	// RejectImplausibleBelief: the belief's stamp is implausibly far ahead
	// of the stream (LoopOptions.MaxStampLead).
	RejectImplausibleBelief
	// RejectImplausibleAssessment: the assessment's stamp is implausibly far
	// ahead of the stream (LoopOptions.MaxStampLead).
	RejectImplausibleAssessment
)

// NumRejectReasons is the number of RejectReason values.
const NumRejectReasons = 15

var rejectNames = [NumRejectReasons]string{
	"invalid_belief", "invalid_assessment", "invalid_perception",
	"conflicting_belief", "conflicting_assessment", "conflicting_perception",
	"late_belief", "late_assessment", "late_perception", "stale_perception",
	"assessment_buffer_full", "perception_buffer_full", "unmatched_assessment",
	"implausible_belief_stamp", "implausible_assessment_stamp",
}

// String returns the reason's snake_case name.
func (r RejectReason) String() string {
	if int(r) < len(rejectNames) {
		return rejectNames[r]
	}
	return fmt.Sprintf("reject_reason(%d)", uint8(r))
}

// Input returns the kind of input the reason is about.
func (r RejectReason) Input() InputKind {
	switch r {
	case RejectInvalidBelief, RejectConflictingBelief, RejectLateBelief, RejectImplausibleBelief:
		return InputBelief
	case RejectInvalidPerception, RejectConflictingPerception, RejectLatePerception,
		RejectStalePerception, RejectPerceptionBufferFull:
		return InputPerception
	default:
		return InputAssessment
	}
}

// Rejection reports one refused or dropped input.
type Rejection struct {
	Reason RejectReason
	// Stamp is the input's own stamp (belief stamp, assessed belief stamp or
	// perception stamp), as received.
	Stamp int64
	// Detail names the field and value at fault and what happened.
	Detail string
}

// String reads "<reason>@<stamp>: <detail>".
func (r Rejection) String() string {
	return r.Reason.String() + "@" + strconv.FormatInt(r.Stamp, 10) + ": " + r.Detail
}

// Duplicate reports an identical repeat of an input, accepted as a no-op.
type Duplicate struct {
	Input InputKind
	Stamp int64
}

// ArrivalOf returns the arrival time of an event the Loop takes, and false
// for any other (nil, a pointer, a foreign type). It is the one list of the
// Loop's events: the Loop's clock and its host's advance by it. Times
// are read per type, not through the interface, so ev does not escape and
// an event converted to Event at the call stays on the caller's stack.
func ArrivalOf(ev Event) (int64, bool) {
	switch e := ev.(type) {
	case BeliefEvent:
		return e.ArrivalNs, true
	case AssessmentEvent:
		return e.ArrivalNs, true
	case PerceptionEvent:
		return e.ArrivalNs, true
	case TickEvent:
		return e.ArrivalNs, true
	case EndEvent:
		return e.ArrivalNs, true
	case EvidenceEvent:
		return e.ArrivalNs, true
	case ParameterEvent:
		return e.ArrivalNs, true
	case LifecycleEvent:
		return e.ArrivalNs, true
	}
	return 0, false
}
