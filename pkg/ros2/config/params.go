package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/rules"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// Parameter describes one declared parameter of the node.
type Parameter struct {
	// Name is the dotted parameter name, e.g. "qos.decisions.depth".
	Name string
	// Type is the parameter's ROS 2 type.
	Type Type
	// Default is the default value in YAML spelling, e.g. "0.1", "true",
	// "keep_last" or "" for the empty string.
	Default string
	// Description says what the parameter does, with its unit.
	Description string
}

// Parameters lists every parameter the node declares, in a stable order.
func Parameters() []Parameter {
	d := Default()
	out := make([]Parameter, len(params))
	for i, p := range params {
		v := p.get(&d)
		def := v.raw
		if v.typ == TypeString {
			def = v.s
		}
		out[i] = Parameter{Name: p.name, Type: p.typ, Default: def, Description: p.doc}
	}
	return out
}

// param binds a parameter name to a Config field. set receives a value
// already converted to typ and rejects what the field cannot hold; check
// holds the range rules Validate applies to the field, however it was set.
type param struct {
	name  string
	typ   Type
	doc   string
	get   func(*Config) value
	set   func(*Config, value) error
	check func(*Config) error
}

var params = buildParams()

var paramIndex = func() map[string]int {
	m := make(map[string]int, len(params))
	for i, p := range params {
		if _, dup := m[p.name]; dup {
			panic("nodeconfig: parameter " + p.name + " declared twice")
		}
		m[p.name] = i
	}
	return m
}()

func lookupParam(name string) (*param, bool) {
	i, ok := paramIndex[name]
	if !ok {
		return nil, false
	}
	return &params[i], true
}

// topicKey names one topic in both the topics.* and qos.* parameters.
type topicKey struct {
	key  string
	role string
	// optional topics may be empty: the input is then disabled.
	optional bool
}

// topicKeys are the inputs of session.DefaultInputs(), then the outputs.
var topicKeys = func() []topicKey {
	var ks []topicKey
	for _, in := range session.DefaultInputs() {
		ks = append(ks, topicKey{in.Key, in.Role + " (" + in.Type + ")", in.Optional})
	}
	return append(ks,
		topicKey{session.KeyDecisions, "decision output (ghost/msg/DecisionRationale)", false},
		topicKey{session.KeyDiagnostics, "diagnostics output (diagnostic_msgs/msg/DiagnosticArray)", false},
		topicKey{session.KeyActions, "action receipts output (ghost/msg/ActionReceipt)", false},
		topicKey{session.KeySeal, "recording seals output (ghost/msg/RecordingSeal, with seal.key_file)", false})
}()

func buildParams() []param {
	var ps []param
	for _, tk := range topicKeys {
		tk := tk
		ps = append(ps, param{
			name: "topics." + tk.key, typ: TypeString,
			doc: "topic of the " + tk.role + "; relative names resolve against the node namespace",
			get: func(c *Config) value { return stringValue(c.Topics[tk.key]) },
			set: func(c *Config, v value) error { c.Topics[tk.key] = v.s; return nil },
			check: func(c *Config) error {
				if tk.optional && c.Topics[tk.key] == "" {
					return nil
				}
				_, err := c.ResolveTopic(c.Topics[tk.key])
				return err
			},
		})
	}
	for _, tk := range topicKeys {
		ps = append(ps, qosParams(tk)...)
	}
	ps = append(ps, decisionParams()...)
	ps = append(ps, outputParams()...)
	ps = append(ps, thresholdParams()...)
	ps = append(ps, inputParams()...)
	ps = append(ps,
		boolParam("lifecycle", "managed lifecycle: start unconfigured and decide only while active (ros2 lifecycle set ... configure, activate); false starts active",
			func(c *Config) *bool { return &c.Lifecycle }),
		boolParam("use_sim_time", "standard ROS 2 parameter; true: arrival times, timeouts and stamps follow /clock, nothing is decided before its first message",
			func(c *Config) *bool { return &c.UseSimTime }),
	)
	return append(ps, executorParams()...)
}

// decisionParams are the policy and how long and how much the Loop waits and holds.
func decisionParams() []param {
	return []param{
		stringParam("policy", "id of the decision policy, one of "+strings.Join(decisions.PolicyIDs(), ", "),
			func(c *Config) *string { return &c.Policy },
			func(c *Config) error { _, err := decisions.LookupPolicy(c.Policy); return err }),
		stringParam("policy_file", `YAML rule policy file (see config/policies/); when set it decides and policy is ignored; "" uses policy`,
			func(c *Config) *string { return &c.PolicyFile },
			func(c *Config) error {
				if c.PolicyFile == "" {
					return nil
				}
				_, err := rules.ParseFile(c.PolicyFile)
				return err
			}),
		durationParam("assessment_timeout_s", "seconds a belief waits for its self-assessment before it is decided without one",
			func(c *Config) *time.Duration { return &c.AssessmentTimeout }),
		intParam("max_pending_beliefs", "beliefs held while waiting for their self-assessment; the oldest is decided when full",
			func(c *Config) *int { return &c.MaxPendingBeliefs }, 1, maxPending),
		intParam("max_pending_assessments", "self-assessments held while waiting for their belief; the oldest is dropped when full",
			func(c *Config) *int { return &c.MaxPendingAssessments }, 1, maxPending),
		durationParam("max_stamp_lead_s", "seconds a belief or self-assessment stamp may run ahead of the newest accepted stamp, beyond the receive time elapsed since; further ahead is rejected as implausible",
			func(c *Config) *time.Duration { return &c.MaxStampLead }),
	}
}

// outputParams are the recording, the seals, diagnostics and logging.
func outputParams() []param {
	return []param{
		stringParam("recording.path", `MCAP file the node records its inputs and decisions to; "" disables in-node recording`,
			func(c *Config) *string { return &c.Recording.Path },
			func(c *Config) error {
				if strings.IndexByte(c.Recording.Path, 0) >= 0 {
					return errors.New("contains a NUL byte")
				}
				return nil
			}),
		stringParam("recording.compression", "chunk compression of the recording: zstd, lz4 or none",
			func(c *Config) *string { return &c.Recording.Compression },
			func(c *Config) error {
				switch c.Recording.Compression {
				case CompressionZstd, CompressionLZ4, CompressionNone:
					return nil
				}
				return errors.New("want zstd, lz4 or none")
			}),
		int64Param("recording.chunk_size", "target size in bytes of a recording chunk",
			func(c *Config) *int64 { return &c.Recording.ChunkSize }, 1, maxChunkSize),
		int64Param("recording.max_size_mb", "megabytes (10^6 bytes) after which the recording continues in a new file (NAME_001.mcap, NAME_002.mcap, ...); 0 never splits by size",
			func(c *Config) *int64 { return &c.Recording.MaxSizeMB }, 0, maxRecordingSizeMB),
		int64Param("recording.max_duration_s", "seconds of log time after which the recording continues in a new file (NAME_001.mcap, NAME_002.mcap, ...); 0 never splits by time",
			func(c *Config) *int64 { return &c.Recording.MaxDurationS }, 0, maxRecordingDurationS),
		stringParam("seal.key_file", `PEM file of the node's Ed25519 private key (PKCS#8, openssl genpkey -algorithm ed25519); when set, the node seals every message it takes and publishes on topics.seal, once a second and at shutdown; "" publishes no seals`,
			func(c *Config) *string { return &c.Seal.KeyFile },
			func(c *Config) error {
				if strings.IndexByte(c.Seal.KeyFile, 0) >= 0 {
					return errors.New("contains a NUL byte")
				}
				return nil
			}),
		durationParam("diagnostics_period_s", "seconds between two /diagnostics publications",
			func(c *Config) *time.Duration { return &c.DiagnosticsPeriod }),
		durationParam("input_timeout_s", "seconds without a belief input after which the node reports its inputs stale",
			func(c *Config) *time.Duration { return &c.InputTimeout }),
		enumParam("log_level", "log level of the node: debug, info, warn, error or fatal; --log-level, when given, wins",
			func(c *Config) string { return LevelName(c.LogLevel) },
			func(c *Config, s string) error {
				l, err := ParseLevel(s)
				if err == nil {
					c.LogLevel = l
				}
				return err
			}),
	}
}

// thresholdParams are the self-assessment thresholds of the simulator and of the node's own assessment.
func thresholdParams() []param {
	return []param{
		doubleParam("thresholds.position_known_std_m", "self-assessment by the simulator and, for input.source px4 or odometry, by the node: position std (m) at or below which an axis is KNOWN",
			func(c *Config) *float64 { return &c.Thresholds.PositionKnownStdM }),
		doubleParam("thresholds.position_unknown_std_m", "self-assessment by the simulator and, for input.source px4 or odometry, by the node: position std (m) at or above which an axis is UNKNOWN",
			func(c *Config) *float64 { return &c.Thresholds.PositionUnknownStdM }),
		doubleParam("thresholds.velocity_known_std_mps", "self-assessment by the simulator and, for input.source px4 or odometry, by the node: velocity std (m/s) at or below which an axis is KNOWN",
			func(c *Config) *float64 { return &c.Thresholds.VelocityKnownStdMps }),
		doubleParam("thresholds.velocity_unknown_std_mps", "self-assessment by the simulator and, for input.source px4 or odometry, by the node: velocity std (m/s) at or above which an axis is UNKNOWN",
			func(c *Config) *float64 { return &c.Thresholds.VelocityUnknownStdMps }),
		doubleParam("thresholds.orientation_known_std_rad", "self-assessment by the simulator and, for input.source px4 or odometry, by the node: orientation std (rad) at or below which an axis is KNOWN",
			func(c *Config) *float64 { return &c.Thresholds.OrientationKnownStdRad }),
		doubleParam("thresholds.orientation_unknown_std_rad", "self-assessment by the simulator and, for input.source px4 or odometry, by the node: orientation std (rad) at or above which an axis is UNKNOWN",
			func(c *Config) *float64 { return &c.Thresholds.OrientationUnknownStdRad }),
	}
}

// inputParams say where beliefs come from.
func inputParams() []param {
	return []param{
		stringParam("input.source", "where beliefs come from: ghost (VehicleState and BeliefSelfAssessment), px4 (PX4 over uXRCE-DDS) or odometry (nav_msgs/Odometry); px4 and odometry are assessed in the node",
			func(c *Config) *string { return &c.Input.Source },
			func(c *Config) error {
				switch c.Input.Source {
				case SourceGhost, SourcePX4, SourceOdometry:
					return nil
				}
				return errors.New("want ghost, px4 or odometry")
			}),
		stringParam("px4.namespace", `namespace of the PX4 topics: "" for /fmu/..., /uav_1 for /uav_1/fmu/...`,
			func(c *Config) *string { return &c.Input.PX4Namespace },
			func(c *Config) error {
				if n := c.Input.PX4Namespace; n != "" && (n[0] != '/' || strings.HasSuffix(n, "/")) {
					return errors.New(`want "" or an absolute name without a trailing slash, e.g. /uav_1`)
				}
				return nil
			}),
		stringParam("px4.position", "PX4 estimator topic that makes beliefs: odometry (vehicle_odometry) or local_position (vehicle_local_position + vehicle_attitude)",
			func(c *Config) *string { return &c.Input.PX4Position },
			func(c *Config) error {
				if p := c.Input.PX4Position; p != "odometry" && p != "local_position" {
					return errors.New("want odometry or local_position")
				}
				return nil
			}),
		stringParam("px4.release", `PX4 release whose px4_msgs layouts are expected: "" accepts the installed px4_msgs, or 1.14, 1.15, 1.16`,
			func(c *Config) *string { return &c.Input.PX4Release },
			func(c *Config) error {
				switch c.Input.PX4Release {
				case "", "1.14", "1.15", "1.16":
					return nil
				}
				return errors.New(`want "", 1.14, 1.15 or 1.16`)
			}),
		stringParam("odometry.topic", "nav_msgs/Odometry topic of input.source odometry",
			func(c *Config) *string { return &c.Input.OdometryTopic },
			func(c *Config) error { _, err := c.ResolveTopic(c.Input.OdometryTopic); return err }),
		stringParam("odometry.battery_topic", `optional sensor_msgs/BatteryState topic of input.source odometry; "" for none`,
			func(c *Config) *string { return &c.Input.BatteryTopic },
			func(c *Config) error {
				if c.Input.BatteryTopic == "" {
					return nil
				}
				_, err := c.ResolveTopic(c.Input.BatteryTopic)
				return err
			}),
	}
}

func qosParams(tk topicKey) []param {
	prefix := "qos." + tk.key + "."
	get := func(c *Config) qos.Profile { return c.QoS[tk.key] }
	update := func(c *Config, f func(*qos.Profile)) {
		q := c.QoS[tk.key]
		f(&q)
		c.QoS[tk.key] = q
	}
	return []param{
		enumParam(prefix+"reliability", "QoS reliability of the "+tk.role+": reliable, best_effort or system_default",
			func(c *Config) string { return get(c).Reliability.String() },
			func(c *Config, s string) error {
				r, err := qos.ParseReliability(s)
				if err == nil {
					update(c, func(q *qos.Profile) { q.Reliability = r })
				}
				return err
			}),
		enumParam(prefix+"durability", "QoS durability of the "+tk.role+": volatile, transient_local or system_default",
			func(c *Config) string { return get(c).Durability.String() },
			func(c *Config, s string) error {
				d, err := qos.ParseDurability(s)
				if err == nil {
					update(c, func(q *qos.Profile) { q.Durability = d })
				}
				return err
			}),
		enumParam(prefix+"history", "QoS history of the "+tk.role+": keep_last, keep_all or system_default",
			func(c *Config) string { return get(c).History.String() },
			func(c *Config, s string) error {
				h, err := qos.ParseHistory(s)
				if err == nil {
					update(c, func(q *qos.Profile) { q.History = h })
				}
				return err
			}),
		{
			name: prefix + "depth", typ: TypeInteger,
			doc: "QoS queue depth of the " + tk.role + " (used with keep_last)",
			get: func(c *Config) value { return intValue(int64(get(c).Depth)) },
			set: func(c *Config, v value) error {
				if v.i < 0 || v.i > math.MaxUint32 {
					return fmt.Errorf("want 0 to %d", uint32(math.MaxUint32))
				}
				update(c, func(q *qos.Profile) { q.Depth = uint32(v.i) })
				return nil
			},
			check: func(c *Config) error {
				if p := get(c); p.History == qos.HistoryKeepLast && p.Depth == 0 {
					return errors.New("keep_last history needs a depth of at least 1")
				}
				return nil
			},
		},
	}
}

// enumParam is a string parameter whose setter parses a closed set of
// spellings; check re-parses the field so values set directly on a Config
// outside the enum are caught too.
func enumParam(name, doc string, get func(*Config) string, parse func(*Config, string) error) param {
	return param{
		name: name, typ: TypeString, doc: doc,
		get: func(c *Config) value { return stringValue(get(c)) },
		set: func(c *Config, v value) error {
			saved := *c
			if err := parse(c, v.s); err != nil {
				*c = saved
				return err
			}
			return nil
		},
		check: func(c *Config) error {
			probe := *c
			return parse(&probe, get(c))
		},
	}
}

func stringParam(name, doc string, field func(*Config) *string, check func(*Config) error) param {
	return param{
		name: name, typ: TypeString, doc: doc,
		get:   func(c *Config) value { return stringValue(*field(c)) },
		set:   func(c *Config, v value) error { *field(c) = v.s; return nil },
		check: check,
	}
}

func boolParam(name, doc string, field func(*Config) *bool) param {
	return param{
		name: name, typ: TypeBool, doc: doc,
		get: func(c *Config) value { return value{typ: TypeBool, b: *field(c), raw: strconv.FormatBool(*field(c))} },
		set: func(c *Config, v value) error { *field(c) = v.b; return nil },
	}
}

func intParam(name, doc string, field func(*Config) *int, lo, hi int64) param {
	return param{
		name: name, typ: TypeInteger, doc: doc,
		get: func(c *Config) value { return intValue(int64(*field(c))) },
		set: func(c *Config, v value) error {
			if v.i < lo || v.i > hi {
				return fmt.Errorf("want %d to %d", lo, hi)
			}
			*field(c) = int(v.i)
			return nil
		},
		check: func(c *Config) error {
			if n := int64(*field(c)); n < lo || n > hi {
				return fmt.Errorf("want %d to %d", lo, hi)
			}
			return nil
		},
	}
}

func int64Param(name, doc string, field func(*Config) *int64, lo, hi int64) param {
	return param{
		name: name, typ: TypeInteger, doc: doc,
		get: func(c *Config) value { return intValue(*field(c)) },
		set: func(c *Config, v value) error {
			if v.i < lo || v.i > hi {
				return fmt.Errorf("want %d to %d", lo, hi)
			}
			*field(c) = v.i
			return nil
		},
		check: func(c *Config) error {
			if n := *field(c); n < lo || n > hi {
				return fmt.Errorf("want %d to %d", lo, hi)
			}
			return nil
		},
	}
}

// doubleParam has no check of its own: the thresholds it is used for are
// validated together (known < unknown) by decisions.Thresholds.Validate.
func doubleParam(name, doc string, field func(*Config) *float64) param {
	return param{
		name: name, typ: TypeDouble, doc: doc,
		get: func(c *Config) value { return doubleValue(*field(c)) },
		set: func(c *Config, v value) error { *field(c) = v.d; return nil },
	}
}

// maxDurationSeconds keeps a seconds parameter inside time.Duration.
const maxDurationSeconds = float64(math.MaxInt64/int64(time.Second)) - 1

// durationParam is a double in seconds, the ROS convention, held as a
// time.Duration rounded to the nanosecond.
func durationParam(name, doc string, field func(*Config) *time.Duration) param {
	positive := func(d time.Duration) error {
		if d <= 0 {
			return errors.New("must be > 0")
		}
		return nil
	}
	return param{
		name: name, typ: TypeDouble, doc: doc,
		get: func(c *Config) value { return doubleValue(field(c).Seconds()) },
		set: func(c *Config, v value) error {
			if math.IsNaN(v.d) || v.d <= 0 || v.d > maxDurationSeconds {
				return fmt.Errorf("want seconds > 0 and <= %.0f", maxDurationSeconds)
			}
			d := time.Duration(math.Round(v.d * 1e9))
			if err := positive(d); err != nil {
				return fmt.Errorf("%w after rounding to nanoseconds", err)
			}
			*field(c) = d
			return nil
		},
		check: func(c *Config) error { return positive(*field(c)) },
	}
}

func stringValue(s string) value { return value{typ: TypeString, s: s, raw: s} }

func intValue(i int64) value { return value{typ: TypeInteger, i: i, raw: strconv.FormatInt(i, 10)} }

func doubleValue(d float64) value { return value{typ: TypeDouble, d: d, raw: formatDouble(d)} }

// formatDouble spells d so that it reads back as a double, never as an
// integer: 1 is "1.0", 0.1 is "0.1", infinity ".inf".
func formatDouble(d float64) string {
	switch {
	case math.IsNaN(d):
		return ".nan"
	case math.IsInf(d, 1):
		return ".inf"
	case math.IsInf(d, -1):
		return "-.inf"
	}
	s := strconv.FormatFloat(d, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// apply sets the named parameter from v, typed as written; source says
// where v came from, for errors now and, through sources (may be nil), for
// errors Validate finds later.
func (c *Config) apply(name string, v value, source string, sources map[string]string) error {
	p, ok := lookupParam(name)
	if !ok {
		return &ParamError{Param: name, Value: v.String(), Source: source,
			Err: fmt.Errorf("%w (see config/decision.yaml for the declared parameters)", ErrUnknownParameter)}
	}
	if v.typ == typeArray {
		return &ParamError{Param: name, Value: v.raw, Source: source, Err: fmt.Errorf("%w: %w", ErrWrongType, errArray)}
	}
	cv, err := convert(v, p.typ)
	if err != nil {
		return &ParamError{Param: name, Value: v.String(), Source: source, Err: err}
	}
	if err := p.set(c, cv); err != nil {
		return &ParamError{Param: name, Value: v.String(), Source: source, Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
	}
	if sources != nil {
		sources[name] = source
	}
	return nil
}

// validateWithSources runs Validate and, when the failing parameter was set
// from a file or an argument, says which.
func (c *Config) validateWithSources(sources map[string]string) error {
	err := c.Validate()
	var pe *ParamError
	if errors.As(err, &pe) && pe.Source == "" {
		pe.Source = sources[pe.Param]
	}
	return err
}
