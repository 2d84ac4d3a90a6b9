package qos

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The enum values below are the integers of rmw/types.h (ROS 2 Humble), so a
// profile converts to rmw_qos_profile_t and to rosbag2 metadata by a plain cast.

// Reliability is the rmw reliability policy.
type Reliability uint8

// Reliability policies.
const (
	ReliabilitySystemDefault Reliability = 0 // RMW_QOS_POLICY_RELIABILITY_SYSTEM_DEFAULT
	ReliabilityReliable      Reliability = 1 // RMW_QOS_POLICY_RELIABILITY_RELIABLE
	ReliabilityBestEffort    Reliability = 2 // RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT
	// ReliabilityUnknown appears only in profiles read back from the graph
	// or a recording; it cannot be requested.
	ReliabilityUnknown Reliability = 3 // RMW_QOS_POLICY_RELIABILITY_UNKNOWN
)

// Durability is the rmw durability policy.
type Durability uint8

// Durability policies.
const (
	DurabilitySystemDefault  Durability = 0 // RMW_QOS_POLICY_DURABILITY_SYSTEM_DEFAULT
	DurabilityTransientLocal Durability = 1 // RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL
	DurabilityVolatile       Durability = 2 // RMW_QOS_POLICY_DURABILITY_VOLATILE
	// DurabilityUnknown appears only in profiles read back from the graph
	// or a recording; it cannot be requested.
	DurabilityUnknown Durability = 3 // RMW_QOS_POLICY_DURABILITY_UNKNOWN
)

// History is the rmw history policy.
type History uint8

// History policies.
const (
	HistorySystemDefault History = 0 // RMW_QOS_POLICY_HISTORY_SYSTEM_DEFAULT
	HistoryKeepLast      History = 1 // RMW_QOS_POLICY_HISTORY_KEEP_LAST
	HistoryKeepAll       History = 2 // RMW_QOS_POLICY_HISTORY_KEEP_ALL
	// HistoryUnknown is what rosbag2 Humble records for publishers found in
	// the graph (DDS does not advertise history); it cannot be requested.
	HistoryUnknown History = 3 // RMW_QOS_POLICY_HISTORY_UNKNOWN
)

// Liveliness is the rmw liveliness policy. Value 2 (manual by node) is
// deprecated in rmw and deliberately not offered.
type Liveliness uint8

// Liveliness policies.
const (
	LivelinessSystemDefault Liveliness = 0 // RMW_QOS_POLICY_LIVELINESS_SYSTEM_DEFAULT
	LivelinessAutomatic     Liveliness = 1 // RMW_QOS_POLICY_LIVELINESS_AUTOMATIC
	LivelinessManualByTopic Liveliness = 3 // RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC
	// LivelinessUnknown appears only in profiles read back from the graph
	// or a recording; it cannot be requested.
	LivelinessUnknown Liveliness = 4 // RMW_QOS_POLICY_LIVELINESS_UNKNOWN
)

// ErrInvalid is wrapped by every error about a QoS spelling, value or YAML
// document, so callers can tell bad configuration from I/O failures.
var ErrInvalid = errors.New("invalid QoS")

// Profile is a ROS 2 quality-of-service profile (rmw_qos_profile_t).
// Durations of zero mean the rmw default, which is infinite.
type Profile struct {
	// History is the history policy; Depth applies to HistoryKeepLast.
	History History
	// Depth is the queue depth for HistoryKeepLast.
	Depth uint32
	// Reliability is the reliability policy.
	Reliability Reliability
	// Durability is the durability policy.
	Durability Durability
	// Deadline is the expected maximum period between messages; 0 = infinite.
	Deadline time.Duration
	// Lifespan is how long a message stays valid; 0 = infinite.
	Lifespan time.Duration
	// LivelinessLeaseDuration is the liveliness lease; 0 = infinite.
	LivelinessLeaseDuration time.Duration
	// Liveliness is the liveliness policy.
	Liveliness Liveliness
	// AvoidROSNamespaceConventions disables the ROS topic name mangling.
	AvoidROSNamespaceConventions bool
}

// DefaultInput is the profile the node subscribes its inputs with:
// reliable, volatile, keep last 10 (rclcpp's default profile).
func DefaultInput() Profile {
	return Profile{
		History:     HistoryKeepLast,
		Depth:       10,
		Reliability: ReliabilityReliable,
		Durability:  DurabilityVolatile,
	}
}

// DefaultDecisions is the profile `/decisions` is published with:
// reliable, transient local, keep last 100, so a late-joining recorder or
// auditor still receives the most recent decisions.
func DefaultDecisions() Profile {
	return Profile{
		History:     HistoryKeepLast,
		Depth:       100,
		Reliability: ReliabilityReliable,
		Durability:  DurabilityTransientLocal,
	}
}

// String returns the ROS 2 parameter spelling, or "Reliability(n)" for
// values outside the enum.
func (r Reliability) String() string {
	switch r {
	case ReliabilitySystemDefault:
		return "system_default"
	case ReliabilityReliable:
		return "reliable"
	case ReliabilityBestEffort:
		return "best_effort"
	case ReliabilityUnknown:
		return "unknown"
	}
	return "Reliability(" + strconv.Itoa(int(r)) + ")"
}

// ParseReliability parses "system_default", "reliable" or "best_effort",
// the ROS 2 parameter spellings ("unknown" is not one).
func ParseReliability(s string) (Reliability, error) {
	for _, r := range []Reliability{ReliabilitySystemDefault, ReliabilityReliable, ReliabilityBestEffort} {
		if s == r.String() {
			return r, nil
		}
	}
	return 0, fmt.Errorf("%w: reliability %q: want system_default, reliable or best_effort", ErrInvalid, s)
}

// String returns the ROS 2 parameter spelling, or "Durability(n)" for values
// outside the enum.
func (d Durability) String() string {
	switch d {
	case DurabilitySystemDefault:
		return "system_default"
	case DurabilityTransientLocal:
		return "transient_local"
	case DurabilityVolatile:
		return "volatile"
	case DurabilityUnknown:
		return "unknown"
	}
	return "Durability(" + strconv.Itoa(int(d)) + ")"
}

// ParseDurability parses "system_default", "transient_local" or "volatile".
func ParseDurability(s string) (Durability, error) {
	for _, d := range []Durability{DurabilitySystemDefault, DurabilityTransientLocal, DurabilityVolatile} {
		if s == d.String() {
			return d, nil
		}
	}
	return 0, fmt.Errorf("%w: durability %q: want system_default, transient_local or volatile", ErrInvalid, s)
}

// String returns the ROS 2 parameter spelling, or "History(n)" for values
// outside the enum.
func (h History) String() string {
	switch h {
	case HistorySystemDefault:
		return "system_default"
	case HistoryKeepLast:
		return "keep_last"
	case HistoryKeepAll:
		return "keep_all"
	case HistoryUnknown:
		return "unknown"
	}
	return "History(" + strconv.Itoa(int(h)) + ")"
}

// ParseHistory parses "system_default", "keep_last" or "keep_all".
func ParseHistory(s string) (History, error) {
	for _, h := range []History{HistorySystemDefault, HistoryKeepLast, HistoryKeepAll} {
		if s == h.String() {
			return h, nil
		}
	}
	return 0, fmt.Errorf("%w: history %q: want system_default, keep_last or keep_all", ErrInvalid, s)
}

// String returns the ROS 2 parameter spelling, or "Liveliness(n)" for values
// outside the enum.
func (l Liveliness) String() string {
	switch l {
	case LivelinessSystemDefault:
		return "system_default"
	case LivelinessAutomatic:
		return "automatic"
	case LivelinessManualByTopic:
		return "manual_by_topic"
	case LivelinessUnknown:
		return "unknown"
	}
	return "Liveliness(" + strconv.Itoa(int(l)) + ")"
}

// ParseLiveliness parses "system_default", "automatic" or "manual_by_topic".
func ParseLiveliness(s string) (Liveliness, error) {
	for _, l := range []Liveliness{LivelinessSystemDefault, LivelinessAutomatic, LivelinessManualByTopic} {
		if s == l.String() {
			return l, nil
		}
	}
	return 0, fmt.Errorf("%w: liveliness %q: want system_default, automatic or manual_by_topic", ErrInvalid, s)
}

// Validate reports what rmw would refuse to create an endpoint with: enum
// values outside the requestable ones (unknown included), a keep-last
// history with depth 0, negative durations.
func (p Profile) Validate() error {
	switch {
	case p.History >= HistoryUnknown:
		return fmt.Errorf("%w: history %d out of range", ErrInvalid, p.History)
	case p.Reliability >= ReliabilityUnknown:
		return fmt.Errorf("%w: reliability %d out of range", ErrInvalid, p.Reliability)
	case p.Durability >= DurabilityUnknown:
		return fmt.Errorf("%w: durability %d out of range", ErrInvalid, p.Durability)
	case p.Liveliness != LivelinessSystemDefault && p.Liveliness != LivelinessAutomatic &&
		p.Liveliness != LivelinessManualByTopic:
		// 2 (manual by node) is deprecated, 4 unknown
		return fmt.Errorf("%w: liveliness %d out of range", ErrInvalid, p.Liveliness)
	case p.History == HistoryKeepLast && p.Depth == 0:
		return fmt.Errorf("%w: history keep_last with depth 0", ErrInvalid)
	case p.Deadline < 0:
		return fmt.Errorf("%w: deadline %v is negative", ErrInvalid, p.Deadline)
	case p.Lifespan < 0:
		return fmt.Errorf("%w: lifespan %v is negative", ErrInvalid, p.Lifespan)
	case p.LivelinessLeaseDuration < 0:
		return fmt.Errorf("%w: liveliness_lease_duration %v is negative", ErrInvalid, p.LivelinessLeaseDuration)
	}
	return nil
}

// rosbag2 Humble writes an infinite duration as the DDS infinite time
// {0x7FFFFFFF s, 0xFFFFFFFF ns}: its reader parses sec and nsec as 32-bit
// unsigned integers and maps exactly this pair (and the other pre-Galactic
// spellings) back to RMW_DURATION_INFINITE.
const (
	infiniteSec  = math.MaxInt32
	infiniteNsec = math.MaxUint32
)

// OfferedProfilesYAML renders profiles as the `offered_qos_profiles`
// channel metadata of a rosbag2 Humble recording: a YAML list of mappings
// with the enums as integers (Humble cannot parse the string spellings) and
// infinite durations as {sec: 2147483647, nsec: 4294967295}. An empty call
// yields "[]", which rosbag2 reads as "no profile known".
func OfferedProfilesYAML(profiles ...Profile) string {
	if len(profiles) == 0 {
		return "[]"
	}
	var b strings.Builder
	for i, p := range profiles {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "- history: %d\n  depth: %d\n  reliability: %d\n  durability: %d\n",
			p.History, p.Depth, p.Reliability, p.Durability)
		writeYAMLDuration(&b, "deadline", p.Deadline)
		writeYAMLDuration(&b, "lifespan", p.Lifespan)
		fmt.Fprintf(&b, "  liveliness: %d\n", p.Liveliness)
		writeYAMLDuration(&b, "liveliness_lease_duration", p.LivelinessLeaseDuration)
		fmt.Fprintf(&b, "  avoid_ros_namespace_conventions: %t", p.AvoidROSNamespaceConventions)
	}
	return b.String()
}

func writeYAMLDuration(b *strings.Builder, key string, d time.Duration) {
	sec, nsec := uint64(infiniteSec), uint64(infiniteNsec)
	if d > 0 {
		sec, nsec = uint64(d/time.Second), uint64(d%time.Second)
	}
	fmt.Fprintf(b, "  %s:\n    sec: %d\n    nsec: %d\n", key, sec, nsec)
}

// yamlQoS mirrors one entry of offered_qos_profiles. Pointers tell a missing
// key from a zero value; the enums are decoded as plain integers because
// every rosbag2 release writes them so.
type yamlQoS struct {
	History                      *uint64       `yaml:"history"`
	Depth                        *uint64       `yaml:"depth"`
	Reliability                  *uint64       `yaml:"reliability"`
	Durability                   *uint64       `yaml:"durability"`
	Deadline                     *yamlDuration `yaml:"deadline"`
	Lifespan                     *yamlDuration `yaml:"lifespan"`
	Liveliness                   *uint64       `yaml:"liveliness"`
	LivelinessLeaseDuration      *yamlDuration `yaml:"liveliness_lease_duration"`
	AvoidROSNamespaceConventions *bool         `yaml:"avoid_ros_namespace_conventions"`
}

type yamlDuration struct {
	Sec  *int64  `yaml:"sec"`
	Nsec *uint64 `yaml:"nsec"`
}

// maxQoSYAML bounds the metadata a reader will parse; a real value is a few
// hundred bytes per publisher.
const maxQoSYAML = 1 << 20

// ParseOfferedProfiles parses an `offered_qos_profiles` metadata value as
// written by rosbag2 (Foxy to Jazzy) or by OfferedProfilesYAML. The
// "unknown" enum values rosbag2 records for discovered publishers are
// accepted. The empty
// string and "[]" give no profiles. Any of the infinite spellings rosbag2 has
// used ({2147483647, 4294967295}, {2147483647, 2147483647},
// {9223372036854775807, 0}, {9223372036, 854775807}, {0, 0}) gives a zero
// (infinite) duration. Unknown keys are ignored, missing ones are errors.
func ParseOfferedProfiles(s string) ([]Profile, error) {
	if len(s) > maxQoSYAML {
		return nil, fmt.Errorf("%w: offered_qos_profiles of %d bytes exceeds %d", ErrInvalid, len(s), maxQoSYAML)
	}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var raw []yamlQoS
	if err := yaml.Unmarshal([]byte(s), &raw); err != nil {
		return nil, fmt.Errorf("%w: offered_qos_profiles: %w", ErrInvalid, err)
	}
	out := make([]Profile, 0, len(raw))
	for i, r := range raw {
		p, err := r.profile()
		if err != nil {
			return nil, fmt.Errorf("%w: offered_qos_profiles[%d]: %w", ErrInvalid, i, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func (r yamlQoS) profile() (Profile, error) {
	var p Profile
	var err error
	enum := func(key string, v *uint64, max uint64) uint8 {
		if err != nil {
			return 0
		}
		switch {
		case v == nil:
			err = fmt.Errorf("missing %s", key)
		case *v > max:
			err = fmt.Errorf("%s %d out of range", key, *v)
		default:
			return uint8(*v)
		}
		return 0
	}
	p.History = History(enum("history", r.History, uint64(HistoryUnknown)))
	p.Reliability = Reliability(enum("reliability", r.Reliability, uint64(ReliabilityUnknown)))
	p.Durability = Durability(enum("durability", r.Durability, uint64(DurabilityUnknown)))
	p.Liveliness = Liveliness(enum("liveliness", r.Liveliness, uint64(LivelinessUnknown)))
	if err != nil {
		return Profile{}, err
	}
	if p.Liveliness == 2 {
		return Profile{}, errors.New("liveliness 2 (manual_by_node) is not supported")
	}
	switch {
	case r.Depth == nil:
		return Profile{}, errors.New("missing depth")
	case *r.Depth > math.MaxUint32:
		return Profile{}, fmt.Errorf("depth %d out of range", *r.Depth)
	}
	p.Depth = uint32(*r.Depth)
	if r.AvoidROSNamespaceConventions == nil {
		return Profile{}, errors.New("missing avoid_ros_namespace_conventions")
	}
	p.AvoidROSNamespaceConventions = *r.AvoidROSNamespaceConventions
	for _, d := range []struct {
		key string
		src *yamlDuration
		dst *time.Duration
	}{
		{"deadline", r.Deadline, &p.Deadline},
		{"lifespan", r.Lifespan, &p.Lifespan},
		{"liveliness_lease_duration", r.LivelinessLeaseDuration, &p.LivelinessLeaseDuration},
	} {
		v, err := d.src.duration(d.key)
		if err != nil {
			return Profile{}, err
		}
		*d.dst = v
	}
	return p, nil
}

// duration converts a {sec, nsec} pair; infinite spellings and anything too
// large for time.Duration become 0 (infinite), which is what rmw means by a
// duration beyond ~292 years.
func (d *yamlDuration) duration(key string) (time.Duration, error) {
	switch {
	case d == nil:
		return 0, fmt.Errorf("missing %s", key)
	case d.Sec == nil || d.Nsec == nil:
		return 0, fmt.Errorf("%s: missing sec or nsec", key)
	case *d.Sec < 0:
		return 0, fmt.Errorf("%s: sec %d is negative", key, *d.Sec)
	}
	sec, nsec := *d.Sec, *d.Nsec
	switch {
	case sec == infiniteSec && (nsec == infiniteNsec || nsec == math.MaxInt32),
		sec == math.MaxInt64 && nsec == 0,
		sec == 9223372036 && nsec == 854775807:
		return 0, nil
	case nsec >= uint64(time.Second):
		// rmw allows nsec >= 1 s only in the infinite spellings above.
		return 0, fmt.Errorf("%s: nsec %d is not below one second", key, nsec)
	case sec > int64(math.MaxInt64/time.Second)-1:
		return 0, nil
	}
	return time.Duration(sec)*time.Second + time.Duration(nsec), nil
}
