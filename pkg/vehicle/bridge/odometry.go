package bridge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/vehicle/mapping"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// Source reads one kind of vehicle's topics and maps them to ghost
// messages: *PX4 and *OdometrySource.
type Source interface {
	// Subscriptions are the topics to read, with their types and QoS.
	Subscriptions() []Subscription
	// Handle maps one serialized message of one of those topics; it
	// returns the ghost messages to publish, record and decide (none for a
	// status or battery update). An error rejects the message alone.
	// arrivalNs is when the message arrived (the receive time live, the
	// log time in a recording): PX4's time base changes are sized by it.
	Handle(topic string, data []byte, arrivalNs int64) ([]Message, error)
}

// ROS 2 types of the odometry source.
const (
	TypeOdometry     = "nav_msgs/msg/Odometry"
	TypeBatteryState = "sensor_msgs/msg/BatteryState"
)

// ErrDefinitions is matched by the errors of loading message definitions.
var ErrDefinitions = errors.New("message definitions not found")

// OdometryDefinitions are the decoding plans of nav_msgs/Odometry and
// sensor_msgs/BatteryState.
type OdometryDefinitions struct {
	Odometry, Battery *dynamic.Plan
}

// maxDefinitionBytes bounds what is read of one .msg file; the largest
// of the packages read is a few kilobytes.
const maxDefinitionBytes = 1 << 20

// LoadOdometryDefinitions reads the definitions from the installed ROS 2
// packages of an AMENT_PREFIX_PATH value (first prefix that has a package
// wins, as in overlays).
func LoadOdometryDefinitions(amentPrefixPath string) (OdometryDefinitions, error) {
	set := msg.NewSet()
	for _, pkg := range []string{"builtin_interfaces", "std_msgs", "geometry_msgs", "nav_msgs", "sensor_msgs"} {
		dir := ""
		for prefix := range strings.SplitSeq(amentPrefixPath, string(os.PathListSeparator)) {
			cand := filepath.Join(prefix, "share", pkg, "msg")
			if st, err := os.Stat(cand); prefix != "" && err == nil && st.IsDir() {
				dir = cand
				break
			}
		}
		if dir == "" {
			return OdometryDefinitions{}, fmt.Errorf("bridge: %s %w in AMENT_PREFIX_PATH: source a ROS 2 installation", pkg, ErrDefinitions)
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.msg"))
		if err != nil {
			return OdometryDefinitions{}, err
		}
		for _, f := range files {
			text, err := limitedfile.ReadFile(f, maxDefinitionBytes)
			if err != nil {
				return OdometryDefinitions{}, fmt.Errorf("bridge: %w", err)
			}
			if err := set.Add(pkg, strings.TrimSuffix(filepath.Base(f), ".msg"), string(text)); err != nil {
				return OdometryDefinitions{}, fmt.Errorf("bridge: %s: %w", f, err)
			}
		}
	}
	var d OdometryDefinitions
	var err error
	if d.Odometry, err = dynamic.CompileSet(set, TypeOdometry); err != nil {
		return d, fmt.Errorf("bridge: %w", err)
	}
	if d.Battery, err = dynamic.CompileSet(set, TypeBatteryState); err != nil {
		return d, fmt.Errorf("bridge: %w", err)
	}
	return d, nil
}

// OdometrySource reads nav_msgs/Odometry (robot_localization, MAVROS,
// ArduPilot bridges) and, optionally, sensor_msgs/BatteryState. Odometry
// carries no armed state or flight mode: beliefs say disarmed, mode init,
// with mapping.FlagNoStatus (docs/inputs.md).
type OdometrySource struct {
	b                   *Bridge
	defs                OdometryDefinitions
	topic, batteryTopic string
	odom, bat           dynamic.Message
}

// NewOdometry returns the odometry source over b; batteryTopic may be "".
func NewOdometry(b *Bridge, defs OdometryDefinitions, topic, batteryTopic string) (*OdometrySource, error) {
	if defs.Odometry == nil || (batteryTopic != "" && defs.Battery == nil) {
		return nil, fmt.Errorf("bridge: odometry: %w", ErrDefinitions)
	}
	if topic == "" || topic == batteryTopic {
		return nil, fmt.Errorf("bridge: odometry topic %q and battery topic %q: want two distinct topics (battery may be empty)", topic, batteryTopic)
	}
	return &OdometrySource{b: b, defs: defs, topic: topic, batteryTopic: batteryTopic}, nil
}

// Subscriptions are the odometry topic (and the battery topic), with the
// sensor-data QoS (best effort, volatile, depth 5) that MAVROS and
// ArduPilot publish with and that also matches reliable publishers.
func (s *OdometrySource) Subscriptions() []Subscription {
	q := sensorQoS(px4.SubscribeQoS)
	subs := []Subscription{{Topic: s.topic, Type: TypeOdometry, QoS: q}}
	if s.batteryTopic != "" {
		subs = append(subs, Subscription{Topic: s.batteryTopic, Type: TypeBatteryState, QoS: q})
	}
	return subs
}

// Handle maps one Odometry (a belief and its assessment) or BatteryState.
func (s *OdometrySource) Handle(topic string, data []byte, _ int64) ([]Message, error) {
	switch topic {
	case s.topic:
		if err := s.defs.Odometry.DecodeInto(&s.odom, data); err != nil {
			return nil, fmt.Errorf("bridge: %s: %w", topic, err)
		}
		o, err := s.readOdometry()
		if err != nil {
			return nil, fmt.Errorf("bridge: %s: %w", topic, err)
		}
		return s.b.Odometry(&o)
	case s.batteryTopic:
		if topic == "" {
			break
		}
		if err := s.defs.Battery.DecodeInto(&s.bat, data); err != nil {
			return nil, fmt.Errorf("bridge: %s: %w", topic, err)
		}
		b, err := s.readBattery()
		if err != nil {
			return nil, fmt.Errorf("bridge: %s: %w", topic, err)
		}
		return nil, s.b.tracker.SetBattery(b)
	}
	return nil, fmt.Errorf("bridge: %s: %w", topic, ErrUnknownTopic)
}

// fields reads float paths of a decoded message, keeping the first error.
type fields struct {
	m   *dynamic.Message
	err error
}

func (f *fields) float(path string) float64 {
	v, err := f.m.Float64(path)
	if err != nil && f.err == nil {
		f.err = err
	}
	return v
}

func (f *fields) stamp() int64 {
	sec, err := f.m.Int("header.stamp.sec")
	if err != nil && f.err == nil {
		f.err = err
	}
	ns, err := f.m.Uint("header.stamp.nanosec")
	if err != nil && f.err == nil {
		f.err = err
	}
	return sec*1_000_000_000 + int64(ns)
}

func (f *fields) vec(path string) mapping.Vector3 {
	return mapping.Vector3{X: f.float(path + ".x"), Y: f.float(path + ".y"), Z: f.float(path + ".z")}
}

func (f *fields) cov(path string, dst *[36]float64) {
	v, err := f.m.Float64s(path)
	switch {
	case err != nil && f.err == nil:
		f.err = err
	case err == nil && len(v) != 36 && f.err == nil:
		f.err = fmt.Errorf("%s holds %d values, want 36", path, len(v))
	case err == nil:
		copy(dst[:], v)
	}
}

func (s *OdometrySource) readOdometry() (mapping.Odometry, error) {
	f := fields{m: &s.odom}
	o := mapping.Odometry{StampNs: f.stamp()}
	o.FrameID, _ = s.odom.String("header.frame_id")
	o.ChildFrameID, _ = s.odom.String("child_frame_id")
	o.Position = f.vec("pose.pose.position")
	q := f.vec("pose.pose.orientation")
	o.Orientation = mapping.Quaternion{X: q.X, Y: q.Y, Z: q.Z, W: f.float("pose.pose.orientation.w")}
	f.cov("pose.covariance", &o.PoseCovariance)
	o.Linear = f.vec("twist.twist.linear")
	o.Angular = f.vec("twist.twist.angular")
	f.cov("twist.covariance", &o.TwistCovariance)
	return o, f.err
}

func (s *OdometrySource) readBattery() (mapping.BatteryState, error) {
	f := fields{m: &s.bat}
	b := mapping.BatteryState{StampNs: f.stamp(), Voltage: float32(f.float("voltage")), Percentage: float32(f.float("percentage"))}
	present, err := s.bat.Bool("present")
	if err != nil && f.err == nil {
		f.err = err
	}
	b.Present = present
	return b, f.err
}

var _ Source = (*OdometrySource)(nil)
var _ Source = (*PX4)(nil)
