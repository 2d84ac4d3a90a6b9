package config

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// Node identity defaults; `-r __node:=...` and `-r __ns:=...` change them.
const (
	// DefaultNodeName is the node's name unless remapped.
	DefaultNodeName = "decision_node"
	// DefaultNamespace is the node's namespace unless remapped.
	DefaultNamespace = "/"
)

// Recording compressions accepted by the recording.compression parameter.
const (
	CompressionZstd = "zstd"
	CompressionLZ4  = "lz4"
	CompressionNone = "none"
)

// Config is the node's complete, typed configuration. Field comments give
// the parameter name and its default; config/decision.yaml documents the
// same defaults and a test keeps the two identical.
type Config struct {
	// NodeName is the node's name after `__node` remapping (default
	// "decision_node"). Not a parameter.
	NodeName string
	// Namespace is the node's namespace after `__ns` remapping, absolute
	// (default "/"). Not a parameter.
	Namespace string
	// Remaps are the topic remapping rules (`-r from:=to`) that apply to
	// this node, in command-line order. Not parameters.
	Remaps []Remap
	// LogLevel is the node's log level (parameter log_level, default
	// info); `--log-level`, when given, wins over the parameter.
	LogLevel slog.Level

	// Topics are the topic names as configured (parameters topics.*);
	// relative names resolve against Namespace, see ResolveTopic.
	Topics Topics
	// QoS are the per-topic QoS profiles (parameters qos.<topic>.*).
	QoS QoS

	// Policy is the id of the decision policy (parameter policy, default
	// "uncertainty_aware_reference_v1").
	Policy string
	// PolicyFile is a YAML rule policy (parameter policy_file, default ""):
	// when set, it decides and Policy is ignored.
	PolicyFile string
	// AssessmentTimeout is how long a belief waits for its self-assessment
	// before it is decided without one (parameter assessment_timeout_s,
	// default 0.1 s).
	AssessmentTimeout time.Duration
	// MaxPendingBeliefs bounds the beliefs waiting for an assessment
	// (parameter max_pending_beliefs, default 1024).
	MaxPendingBeliefs int
	// MaxPendingAssessments bounds the assessments waiting for their belief
	// (parameter max_pending_assessments, default 1024).
	MaxPendingAssessments int
	// MaxStampLead is how far ahead of the newest admitted stamp, beyond the
	// receive time elapsed since, a belief or assessment stamp may be before
	// it is rejected as implausible (parameter max_stamp_lead_s, default
	// 10 s; engine.LoopOptions.MaxStampLead).
	MaxStampLead time.Duration
	// Recording configures the optional in-node MCAP recording
	// (parameters recording.*).
	Recording Recording
	// Seal configures the node's recording seals (parameters seal.*).
	Seal Seal
	// DiagnosticsPeriod is the period of the /diagnostics publication
	// (parameter diagnostics_period_s, default 1.0 s).
	DiagnosticsPeriod time.Duration
	// InputTimeout is how long the node waits for a belief input before it
	// reports its inputs stale (parameter input_timeout_s, default 1.0 s):
	// /diagnostics ERROR, an error on /rosout, inputs.* counters.
	InputTimeout time.Duration
	// Thresholds are the assessment thresholds used by the embedded
	// simulator to assess its own beliefs; the node itself only consumes
	// assessments (parameters thresholds.*).
	Thresholds decisions.Thresholds
	// UseSimTime is the standard ROS 2 parameter (default false). When
	// true the node follows /clock for arrival times, timeouts, ticks and
	// the stamps of diagnostics and /rosout, and decides nothing before the
	// first /clock message (pkg/node, pkg/ros2/clock). Decisions carry the
	// belief's stamp either way.
	UseSimTime bool
	// Input is where beliefs come from (parameters input.*, px4.*,
	// odometry.*).
	Input Input
	// Lifecycle makes the node a managed (lifecycle) node: it starts
	// unconfigured and decides only while active (parameter lifecycle,
	// default false: it starts active, as an unmanaged node).
	Lifecycle bool
	// Executors say whether and how decisions act on the vehicle
	// (parameters executors.*); by default nothing is executed.
	Executors Executors
}

// Input sources: the values of input.source.
const (
	SourceGhost    = "ghost"
	SourcePX4      = "px4"
	SourceOdometry = "odometry"
)

// Input configures the input source.
type Input struct {
	// Source is "ghost" (default: the vehicle publishes ghost/msg
	// VehicleState and BeliefSelfAssessment), "px4" (PX4 over uXRCE-DDS,
	// px4_msgs) or "odometry" (nav_msgs/Odometry). For px4 and odometry the
	// node maps each estimator sample to a belief, assesses it with
	// Thresholds and publishes both on the state and self-assessment topics
	// before deciding (parameter input.source).
	Source string
	// PX4Namespace prefixes the PX4 topics: "" gives /fmu/out/...,
	// "/uav_1" gives /uav_1/fmu/out/... (parameter px4.namespace).
	PX4Namespace string
	// PX4Position is the estimator topic that makes beliefs: "odometry"
	// (vehicle_odometry, default) or "local_position"
	// (vehicle_local_position with vehicle_attitude) (parameter
	// px4.position).
	PX4Position string
	// PX4Release is the PX4 release whose px4_msgs the node expects: "" to
	// accept the installed one, or "1.14", "1.15", "1.16" to insist
	// (parameter px4.release).
	PX4Release string
	// OdometryTopic is the nav_msgs/Odometry topic (parameter
	// odometry.topic, default "/odom").
	OdometryTopic string
	// BatteryTopic is an optional sensor_msgs/BatteryState topic
	// (parameter odometry.battery_topic, default "").
	BatteryTopic string
}

// Topics are topic names by key (session.Topics): one per input of
// session.DefaultInputs() (topics.state, topics.self_assessment, ...) and
// the outputs topics.decisions, topics.diagnostics and topics.actions.
type Topics = session.Topics

// QoS are the QoS profiles by topic key (the keys of Topics; parameters
// qos.<key>.*). Inputs default to their InputSpec's profile; decisions to
// reliable, transient_local, keep_last 100 (and so do action receipts);
// diagnostics to reliable, volatile, keep_last 10.
type QoS map[string]qos.Profile

// Seal configures the node's recording seals (docs/seals.md).
type Seal struct {
	// KeyFile is the PEM file of the node's Ed25519 private key
	// (seal.key_file); "" (the default) publishes no seals. The key is
	// read when the node starts.
	KeyFile string
}

// Recording configures the in-node MCAP recording.
type Recording struct {
	// Path is the MCAP file to write (recording.path); "" (the default)
	// disables in-node recording.
	Path string
	// Compression is the chunk compression: "zstd" (default), "lz4" or
	// "none" (recording.compression).
	Compression string
	// ChunkSize is the target chunk size in bytes (recording.chunk_size,
	// default 786432, rosbag2's).
	ChunkSize int64
	// MaxSizeMB starts a new file once the current one holds this many
	// megabytes (10^6 bytes) written (recording.max_size_mb); 0 (the
	// default) never does.
	MaxSizeMB int64
	// MaxDurationS starts a new file once the current one spans this many
	// seconds of log time (recording.max_duration_s); 0 (the default)
	// never does.
	MaxDurationS int64
}

// Remap is one topic remapping rule, both names as written.
type Remap struct {
	From string
	To   string
}

// Default returns the configuration the node runs with when no parameter is
// set. config/decision.yaml documents exactly these values.
func Default() Config {
	return Config{
		NodeName:              DefaultNodeName,
		Namespace:             DefaultNamespace,
		LogLevel:              slog.LevelInfo,
		Topics:                session.DefaultTopics(),
		QoS:                   defaultQoS(),
		Policy:                decisions.ReferencePolicyID,
		AssessmentTimeout:     100 * time.Millisecond,
		MaxPendingBeliefs:     1024,
		MaxPendingAssessments: 1024,
		MaxStampLead:          engine.DefaultMaxStampLead,
		Recording: Recording{
			Compression: CompressionZstd,
			ChunkSize:   786432,
		},
		DiagnosticsPeriod: time.Second,
		InputTimeout:      time.Second,
		Input:             Input{Source: SourceGhost, PX4Position: "odometry", OdometryTopic: "/odom"},
		Executors:         defaultExecutors(),
		Thresholds: decisions.Thresholds{
			PositionKnownStdM:        0.5,
			PositionUnknownStdM:      2.0,
			VelocityKnownStdMps:      0.2,
			VelocityUnknownStdMps:    1.0,
			OrientationKnownStdRad:   0.05,
			OrientationUnknownStdRad: 0.2,
			SchemaVersion:            decisions.SchemaVersion,
		},
	}
}

func defaultQoS() QoS {
	q := QoS{session.KeyDecisions: qos.DefaultDecisions(), session.KeyDiagnostics: qos.DefaultInput(),
		session.KeyActions: qos.DefaultDecisions(), session.KeySeal: qos.DefaultDecisions()}
	for _, in := range session.DefaultInputs() {
		q[in.Key] = in.QoS
	}
	return q
}

// Clone returns a copy of c that shares no map with it.
func (c Config) Clone() Config {
	c.Topics = maps.Clone(c.Topics)
	c.QoS = maps.Clone(c.QoS)
	c.Remaps = append([]Remap(nil), c.Remaps...)
	return c
}

// Inputs returns the node's enabled inputs (session.Enabled) with their
// configured (unresolved) topics and QoS.
func (c Config) Inputs() []session.InputSpec {
	in := session.Enabled(c.Topics.Apply(session.DefaultInputs()))
	for i := range in {
		if q, ok := c.QoS[in[i].Key]; ok {
			in[i].QoS = q
		}
	}
	return in
}

// LoadPolicy returns the policy the configuration names: the rule policy
// of PolicyFile when set, else the built-in policy with the id Policy.
func (c Config) LoadPolicy() (decisions.Policy, error) {
	if c.PolicyFile != "" {
		p, err := rules.ParseFile(c.PolicyFile)
		if err != nil {
			return nil, &ParamError{Param: "policy_file", Value: fmt.Sprintf("%q", c.PolicyFile), Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
		}
		return p, nil
	}
	p, err := decisions.LookupPolicy(c.Policy)
	if err != nil {
		return nil, &ParamError{Param: "policy", Value: fmt.Sprintf("%q", c.Policy), Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
	}
	return p, nil
}

// Deadlines is the time the action deadlines count in: PX4's own, as the
// belief stamps tell it, with input.source px4 (PX4's clock slows with a
// simulator slower than real time, and its answers with it); arrival time
// otherwise.
func (c Config) Deadlines() engine.DeadlineClock {
	if c.Input.Source == SourcePX4 {
		return engine.DeadlinesVehicle
	}
	return engine.DeadlinesArrival
}

// SessionOptions maps the configuration onto the decision session's
// options: the inputs on their resolved topics, the policy, the timeout and
// the buffer bounds, the time the action deadlines count in (Deadlines).
// It is the one path from configuration to session, for the node and for
// replay and verify alike.
func (c Config) SessionOptions() (session.SessionOptions, error) {
	policy, err := c.LoadPolicy()
	if err != nil {
		return session.SessionOptions{}, err
	}
	t, err := c.ResolvedTopics()
	if err != nil {
		return session.SessionOptions{}, err
	}
	so := session.SessionOptions{
		Inputs: t.Apply(c.Inputs()),
		Loop: engine.LoopOptions{
			Policy:                policy,
			AssessmentTimeout:     c.AssessmentTimeout,
			MaxPendingBeliefs:     c.MaxPendingBeliefs,
			MaxPendingAssessments: c.MaxPendingAssessments,
			MaxStampLead:          c.MaxStampLead,
			Node:                  c.FullyQualifiedName(),
		},
		Lifecycle: c.Lifecycle,
	}
	so.Loop.Actions.Deadlines = c.Deadlines()
	// The executor re-checks recorded evidence; the live node swaps in one
	// that sends (Executors.NewExecutor).
	if err := c.Executors.apply(&so); err != nil {
		return session.SessionOptions{}, err
	}
	return so, nil
}

// Limits on sizes, chosen so a typo cannot make the node allocate without
// bound; real configurations sit far below them.
const (
	maxPending   = 1 << 20
	maxChunkSize = 1 << 30
	// A recording split beyond these bounds is no longer split: about
	// a terabyte and a year.
	maxRecordingSizeMB    = 1 << 20
	maxRecordingDurationS = 366 * 24 * 3600
)

// Validate checks every field and reports the first problem as a
// *ParamError naming the parameter and its value.
func (c Config) Validate() error {
	if err := validateNodeName(c.NodeName); err != nil {
		return &ParamError{Param: "__node", Value: fmt.Sprintf("%q", c.NodeName), Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
	}
	if err := validateNamespace(c.Namespace); err != nil {
		return &ParamError{Param: "__ns", Value: fmt.Sprintf("%q", c.Namespace), Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
	}
	for _, r := range c.Remaps {
		for _, n := range []string{r.From, r.To} {
			if _, err := c.expand(n); err != nil {
				return &ParamError{Param: "remap", Value: fmt.Sprintf("%q", r.From+":="+r.To), Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
			}
		}
	}
	for _, p := range params {
		if p.check == nil {
			continue
		}
		if err := p.check(&c); err != nil {
			return &ParamError{Param: p.name, Value: p.get(&c).String(), Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
		}
	}
	// The per-parameter checks above name the field; this catches what no
	// parameter sets (liveliness, durations) on a Config built in code.
	for _, tk := range topicKeys {
		if q := c.QoS[tk.key]; q.Validate() != nil {
			return &ParamError{Param: "qos." + tk.key, Value: fmt.Sprintf("%+v", q), Err: fmt.Errorf("%w: %w", ErrInvalidValue, q.Validate())}
		}
	}
	resolved, err := c.ResolvedTopics()
	if err != nil {
		return err
	}
	if err := session.CheckTopics(resolved.Apply(session.DefaultInputs()), resolved); err != nil {
		return &ParamError{Param: "topics", Value: "", Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
	}
	// The vehicle sources make the raw assessments themselves; nothing
	// there would calibrate them.
	if t := c.Topics[session.KeySelfAssessmentCalibrated]; t != "" && c.Input.Source != SourceGhost {
		return &ParamError{Param: "topics." + session.KeySelfAssessmentCalibrated, Value: fmt.Sprintf("%q", t),
			Err: fmt.Errorf("%w: the calibrated input needs input.source ghost, not %q", ErrInvalidValue, c.Input.Source)}
	}
	if err := c.Thresholds.Validate(); err != nil {
		pe := &ParamError{Param: "thresholds", Value: "?", Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
		if ve := (*decisions.ValidationError)(nil); errors.As(err, &ve) {
			pe.Param, pe.Value = "thresholds."+ve.Field, ve.Value
			pe.Err = fmt.Errorf("%w: %s", ErrInvalidValue, ve.Reason)
		}
		return pe
	}
	return nil
}

// LoggerName is the node's logger name as rcl derives it from the fully
// qualified name: "decision_node", or "drone1.decision_node" in /drone1.
func (c Config) LoggerName() string {
	fqn := c.FullyQualifiedName()
	b := []byte(fqn[1:])
	for i := range b {
		if b[i] == '/' {
			b[i] = '.'
		}
	}
	return string(b)
}

// FullyQualifiedName is the node's namespace and name, e.g.
// "/decision_node" or "/drone1/decision_node".
func (c Config) FullyQualifiedName() string {
	if c.Namespace == "/" || c.Namespace == "" {
		return "/" + c.NodeName
	}
	return c.Namespace + "/" + c.NodeName
}
