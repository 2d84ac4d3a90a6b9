// Package bridge turns a vehicle's own estimator and status samples (PX4
// over uXRCE-DDS, PX4 ULog flight logs, nav_msgs/Odometry) into ghost
// beliefs and their self-assessments (ADR-0020), as the ghost messages
// VehicleState and BeliefSelfAssessment, ready to publish, record and
// decide. The node publishes and records them before deciding, so every
// recording carries the whole evidence chain and verify works on it
// unchanged.
//
// The mapping itself (frames, covariance, flight status, stamps) lives in
// pkg/vehicle/mapping, once for all sources; this package decodes each
// source's messages into mapping's inputs and encodes what comes out. A flight log's
// ground truth, when it has one, is passed on in package truth's form,
// beside the beliefs and never into them. It must not decide anything.
package bridge

import (
	"errors"
	"fmt"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Sources: the values of the input.source parameter.
const (
	SourceGhost    = "ghost"    // ghost/msg/VehicleState and BeliefSelfAssessment, as published by the vehicle
	SourcePX4      = "px4"      // PX4 topics over uXRCE-DDS (px4_msgs)
	SourceOdometry = "odometry" // nav_msgs/Odometry (and sensor_msgs/BatteryState)
)

// Message is one ghost message the bridge produced. Data is valid until the
// bridge's next call.
type Message struct {
	// Topic is the ghost topic (the state or self-assessment topic).
	Topic string
	// Type is the ROS 2 type, "ghost/msg/VehicleState" or
	// "ghost/msg/BeliefSelfAssessment".
	Type string
	Data []byte
}

// Options configure a Bridge.
type Options struct {
	// StateTopic and AssessmentTopic are where the beliefs and their
	// assessments go (default "/state/nav" and "/self_assessment").
	StateTopic, AssessmentTopic string
	// Thresholds classify every belief (ADR-0020); they must validate.
	Thresholds decisions.Thresholds
}

// Bridge maps one vehicle's samples to ghost messages. It keeps the latest
// status, battery and attitude between samples; it is not safe for
// concurrent use.
type Bridge struct {
	opts    Options
	tracker mapping.Tracker
	vs      ros2msg.VehicleState
	cov     []float64
	sa      ros2msg.BeliefSelfAssessment
	bufs    [2][]byte
	out     [2]Message
	// assessments counts the assessments made; last is the newest belief
	// stamp emitted.
	assessments uint64
	last        int64
	// estimatorFlags, estimatorStates: an estimator_status_flags, an
	// estimator_states arrived, so estimator_status no longer speaks for
	// the estimator's flags, its covariance.
	estimatorFlags, estimatorStates bool
}

// New returns a Bridge.
func New(opts Options) (*Bridge, error) {
	if opts.StateTopic == "" {
		opts.StateTopic = "/state/nav"
	}
	if opts.AssessmentTopic == "" {
		opts.AssessmentTopic = "/self_assessment"
	}
	if err := opts.Thresholds.Validate(); err != nil {
		return nil, fmt.Errorf("bridge: thresholds: %w", err)
	}
	return &Bridge{opts: opts, cov: make([]float64, decisions.CovarianceLen)}, nil
}

// Tracker returns the mapping state, for its counters.
func (b *Bridge) Tracker() *mapping.Tracker { return &b.tracker }

// PX4Odometry maps one vehicle_odometry sample.
func (b *Bridge) PX4Odometry(o mapping.PX4Odometry) ([]Message, error) {
	s, err := b.tracker.PX4Odometry(o)
	if err != nil {
		return nil, err
	}
	return b.emit(&s)
}

// PX4LocalPosition maps one vehicle_local_position sample (with the latest
// attitude).
func (b *Bridge) PX4LocalPosition(p mapping.PX4LocalPosition) ([]Message, error) {
	s, err := b.tracker.PX4LocalPosition(p)
	if err != nil {
		return nil, err
	}
	return b.emit(&s)
}

// Odometry maps one nav_msgs/Odometry sample.
func (b *Bridge) Odometry(o *mapping.Odometry) ([]Message, error) {
	s, err := b.tracker.Odometry(o)
	if err != nil {
		return nil, err
	}
	return b.emit(&s)
}

// emit encodes the state and its assessment.
func (b *Bridge) emit(s *mapping.State) ([]Message, error) {
	belief := s.Belief()
	a, err := decisions.Assess(s.StampNs, belief.Covariance, b.opts.Thresholds)
	if err != nil {
		return nil, fmt.Errorf("bridge: assess belief %d: %w", s.StampNs, err)
	}
	b.vs = ros2msg.BeliefToWire(&belief)
	b.vs.StampWallNs = s.StampNs
	n := &b.vs.Nav
	n.PositionEnuM = s.PositionENU
	n.LinearVelocityWorldMps = s.VelocityENU
	n.AngularVelocityWorldRps = s.AngularVelocityENU
	n.LinearVelocityBodyMps = s.VelocityFLU
	n.AngularVelocityBodyRps = s.AngularVelocityFLU
	n.AccelBodyMps2 = s.AccelFLU
	n.AccelBiasMps2 = s.AccelBias
	n.GyroBiasRps = s.GyroBias
	if b.bufs[0], err = b.vs.AppendCDR(b.bufs[0][:0]); err != nil {
		return nil, fmt.Errorf("bridge: encode belief %d: %w", s.StampNs, err)
	}
	b.sa = ros2msg.SelfAssessmentToWire(&a)
	if b.bufs[1], err = b.sa.AppendCDR(b.bufs[1][:0]); err != nil {
		return nil, fmt.Errorf("bridge: encode assessment %d: %w", s.StampNs, err)
	}
	b.assessments++
	b.last = s.StampNs
	b.out[0] = Message{Topic: b.opts.StateTopic, Type: "ghost/msg/VehicleState", Data: b.bufs[0]}
	b.out[1] = Message{Topic: b.opts.AssessmentTopic, Type: "ghost/msg/BeliefSelfAssessment", Data: b.bufs[1]}
	return b.out[:], nil
}

// lastStamp is the stamp of the newest belief emitted.
func (b *Bridge) lastStamp() int64 { return b.last }

// Assessments returns how many beliefs were assessed (and emitted).
func (b *Bridge) Assessments() uint64 { return b.assessments }

// ErrUnknownTopic is returned for a message on a topic a source does not read.
var ErrUnknownTopic = errors.New("not an input topic of this source")
