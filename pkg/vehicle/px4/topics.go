package px4

import (
	"errors"
	"fmt"
	"strings"
)

// The px4_msgs message names ghost uses.
const (
	MsgVehicleOdometry      = "VehicleOdometry"
	MsgVehicleLocalPosition = "VehicleLocalPosition"
	MsgVehicleAttitude      = "VehicleAttitude"
	MsgVehicleStatus        = "VehicleStatus"
	MsgBatteryStatus        = "BatteryStatus"
	MsgVehicleCommand       = "VehicleCommand"
	MsgVehicleCommandAck    = "VehicleCommandAck"
	// The health inputs: the receiver's fix (on vehicle_gps_position), the
	// estimator's flags and the autopilot's failsafe flags.
	MsgSensorGps            = "SensorGps"
	MsgEstimatorStatusFlags = "EstimatorStatusFlags"
	MsgFailsafeFlags        = "FailsafeFlags"
)

// Package is the ROS 2 package of the PX4 messages.
const Package = "px4_msgs"

// ErrUnknownMessage is wrapped by errors about a message this package does
// not know or was not given a definition of.
var ErrUnknownMessage = errors.New("unknown PX4 message")

// messageInfo holds the per-release facts of one message.
type messageInfo struct {
	name  string
	topic string // base topic name
	out   bool   // published by PX4 (/fmu/out); false: read by PX4 (/fmu/in)
	// sizes are the CDR payload sizes (after the encapsulation header,
	// without padding) per release, computed from the px4_msgs definitions
	// of each release branch.
	sizes [len(releases)]int
	// versions are the MESSAGE_VERSION constants per release; a version N
	// above 0 suffixes the topic with "_vN" (PX4 1.16 message versioning).
	versions [len(releases)]int
}

var messages = [...]messageInfo{
	{MsgVehicleOdometry, "vehicle_odometry", true, [3]int{114, 114, 114}, [3]int{0, 0, 0}},
	{MsgVehicleLocalPosition, "vehicle_local_position", true, [3]int{184, 200, 216}, [3]int{0, 0, 0}},
	{MsgVehicleAttitude, "vehicle_attitude", true, [3]int{49, 49, 49}, [3]int{0, 0, 0}},
	{MsgVehicleStatus, "vehicle_status", true, [3]int{71, 82, 80}, [3]int{0, 0, 1}},
	{MsgBatteryStatus, "battery_status", true, [3]int{176, 176, 180}, [3]int{0, 0, 0}},
	{MsgVehicleCommand, "vehicle_command", false, [3]int{54, 56, 56}, [3]int{0, 0, 0}},
	{MsgVehicleCommandAck, "vehicle_command_ack", true, [3]int{23, 25, 25}, [3]int{0, 0, 0}},
	{MsgSensorGps, "vehicle_gps_position", true, [3]int{141, 159, 159}, [3]int{0, 0, 0}},
	{MsgEstimatorStatusFlags, "estimator_status_flags", true, [3]int{94, 90, 98}, [3]int{0, 0, 0}},
	{MsgFailsafeFlags, "failsafe_flags", true, [3]int{85, 85, 86}, [3]int{0, 0, 0}},
}

func lookup(name string) (*messageInfo, error) {
	for i := range messages {
		if messages[i].name == name {
			return &messages[i], nil
		}
	}
	if len(name) > 60 {
		name = name[:60] + "..."
	}
	return nil, fmt.Errorf("px4: %w %q", ErrUnknownMessage, name)
}

// Messages returns the names of the messages this package knows.
func Messages() []string {
	out := make([]string, len(messages))
	for i := range messages {
		out[i] = messages[i].name
	}
	return out
}

// QoS is a ROS 2 QoS profile as plain data, spelled as ROS 2 parameters
// spell the policies ("best_effort", "volatile", "keep_last").
type QoS struct {
	Reliability string
	Durability  string
	History     string
	Depth       int
}

// QoS facts of the PX4 uXRCE-DDS bridge.
var (
	// SubscribeQoS is how ghost subscribes to /fmu/out topics: PX4's
	// writers are best effort, so a reliable reader would match nothing;
	// volatile with depth 5 is the sensor-data profile PX4's guide uses.
	SubscribeQoS = QoS{Reliability: "best_effort", Durability: "volatile", History: "keep_last", Depth: 5}
	// PublishQoS is how ghost writes /fmu/in topics: PX4's readers are best
	// effort and volatile; only the newest command matters.
	PublishQoS = QoS{Reliability: "best_effort", Durability: "volatile", History: "keep_last", Depth: 1}
	// PX4WriterQoS is what PX4 offers on /fmu/out (depth as the client
	// declares it), for matching checks and diagnostics.
	PX4WriterQoS = QoS{Reliability: "best_effort", Durability: "transient_local", History: "keep_last", Depth: 0}
)

// Topic is one PX4 topic ghost uses.
type Topic struct {
	// Message is the px4_msgs message name ("VehicleStatus").
	Message string
	// Name is the full topic name ("/uav_1/fmu/out/vehicle_status_v1").
	Name string
	// Out is true for topics PX4 publishes (ghost subscribes), false for
	// topics PX4 reads (ghost publishes).
	Out bool
	// QoS is the profile ghost uses on the topic.
	QoS QoS
}

// TopicName returns the full topic name of message for a release under
// namespace ("", "uav_1" or "/uav_1"): "/uav_1/fmu/out/vehicle_status_v1".
func TopicName(message string, rel Release, namespace string) (string, error) {
	info, err := lookup(message)
	if err != nil {
		return "", err
	}
	i := rel.index()
	if i < 0 {
		return "", fmt.Errorf("px4: topic of %s: %w %q", message, ErrUnknownRelease, rel)
	}
	return topicName(info, info.versions[i], namespace)
}

func topicName(info *messageInfo, version int, namespace string) (string, error) {
	ns, err := normalizeNamespace(namespace)
	if err != nil {
		return "", err
	}
	dir := "/fmu/in/"
	if info.out {
		dir = "/fmu/out/"
	}
	name := ns + dir + info.topic
	if version > 0 {
		name += fmt.Sprintf("_v%d", version)
	}
	return name, nil
}

// Topics returns every topic of a release under namespace, in the order
// of Messages.
func Topics(rel Release, namespace string) ([]Topic, error) {
	out := make([]Topic, 0, len(messages))
	for i := range messages {
		name, err := TopicName(messages[i].name, rel, namespace)
		if err != nil {
			return nil, err
		}
		q := PublishQoS
		if messages[i].out {
			q = SubscribeQoS
		}
		out = append(out, Topic{Message: messages[i].name, Name: name, Out: messages[i].out, QoS: q})
	}
	return out, nil
}

// normalizeNamespace turns "uav_1", "/uav_1/" or "/a/b" into "/uav_1" or
// "/a/b", and "" or "/" into "". Each segment must be a valid ROS 2 name
// token.
func normalizeNamespace(ns string) (string, error) {
	t := strings.Trim(ns, "/")
	if t == "" {
		return "", nil
	}
	for seg := range strings.SplitSeq(t, "/") {
		if !validToken(seg) {
			if len(ns) > 60 {
				ns = ns[:60] + "..."
			}
			return "", fmt.Errorf("px4: invalid namespace %q: segments must be letters, digits and '_', not starting with a digit", ns)
		}
	}
	return "/" + t, nil
}

func validToken(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
