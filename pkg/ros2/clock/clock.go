package clock

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Topic and TypeName are where and what the simulator publishes; Topic is
// absolute, as rclcpp's TimeSource subscribes it (a remap still applies).
const (
	Topic    = "/clock"
	TypeName = "rosgraph_msgs/msg/Clock"
)

// QoS is rclcpp's ClockQoS: the sensor-data profile with depth 1 (best
// effort, volatile, keep last 1). Only the newest time matters, and a
// reliable subscription would make the simulator wait for a slow node.
func QoS() qos.Profile {
	return qos.Profile{
		History:     qos.HistoryKeepLast,
		Depth:       1,
		Reliability: qos.ReliabilityBestEffort,
		Durability:  qos.DurabilityVolatile,
	}
}

// ErrInvalidTime is wrapped by errors about a /clock message that is not a
// valid ROS time (negative, or nanoseconds out of range).
var ErrInvalidTime = errors.New("invalid /clock time")

// Clock is the node's ROS time. Its methods are safe for concurrent use:
// one goroutine applies /clock messages while loggers read Now.
type Clock struct {
	sim  bool
	wall func() time.Time

	mu sync.Mutex
	// have is set by the first accepted /clock message.
	have bool
	// last is the newest /clock time, ns; offset is added to it for the
	// timeline, growing by the size of every backwards jump.
	last, offset int64
	stats        Stats
}

// Stats are the counters of a sim-time clock, for diagnostics.
type Stats struct {
	// Messages counts accepted /clock messages.
	Messages uint64
	// Rejected counts /clock messages that do not decode or hold an
	// invalid time; they change nothing.
	Rejected uint64
	// JumpsBack counts accepted messages older than the one before.
	JumpsBack uint64
	// Paused counts accepted messages with the same time as the one
	// before (a paused simulator that keeps publishing).
	Paused uint64
}

// Update says what one accepted /clock message did.
type Update struct {
	// First is set for the message that made the clock ready.
	First bool
	// Time is the message's time (ROS time, what Now returns from now on).
	Time time.Time
	// Advanced is how far the timeline moved: 0 when paused or after a
	// jump backwards.
	Advanced time.Duration
	// Back is how far the simulator went backwards, 0 if it did not.
	Back time.Duration
}

// NewWall returns a clock on the wall clock now (time.Now if nil); it is
// always ready.
func NewWall(now func() time.Time) *Clock {
	if now == nil {
		now = time.Now
	}
	return &Clock{wall: now}
}

// NewSim returns a clock that follows /clock; it is not ready until the
// first message.
func NewSim() *Clock { return &Clock{sim: true} }

// Sim reports whether c follows /clock.
func (c *Clock) Sim() bool { return c.sim }

// Ready reports whether c has a time: always for the wall clock, after the
// first accepted /clock message for sim time.
func (c *Clock) Ready() bool {
	if !c.sim {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.have
}

// Now is the ROS time, what message stamps carry: the wall clock, or the
// last /clock time (the Unix epoch before the first, as rclcpp's clock
// reads zero then).
func (c *Clock) Now() time.Time {
	if !c.sim {
		return c.wall()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Unix(0, c.last)
}

// Timeline is the time, in ns, that arrival times and timeouts are measured
// on: the wall clock, or the sim time shifted forward by every backwards
// jump so far, so it never decreases. ok is false before the first /clock
// message.
func (c *Clock) Timeline() (ns int64, ok bool) {
	if !c.sim {
		return c.wall().UnixNano(), true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return satAdd(c.last, c.offset), c.have
}

// satAdd adds non-negative a and b, saturating: a simulator resetting
// from the end of time many times must not wrap the timeline around.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Stats returns the counters so far.
func (c *Clock) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// HandleCDR applies one serialized rosgraph_msgs/msg/Clock. A message that
// does not decode, or holds an invalid time, is counted and changes
// nothing. On a wall clock it is an error.
func (c *Clock) HandleCDR(data []byte) (Update, error) {
	var m ros2msg.RosClock
	if err := m.UnmarshalCDR(data); err != nil {
		c.reject()
		return Update{}, fmt.Errorf("/clock: %w", err)
	}
	return c.Set(m.Clock)
}

// Set applies one /clock time. Negative times (rclcpp refuses them) and
// nanoseconds outside [0, 1e9) are rejected with ErrInvalidTime.
func (c *Clock) Set(t ros2msg.RosTime) (Update, error) {
	if !c.sim {
		return Update{}, errors.New("/clock: the clock follows the wall clock (use_sim_time is false)")
	}
	switch {
	case t.Sec < 0:
		c.reject()
		return Update{}, fmt.Errorf("%w: clock.sec = %d: negative", ErrInvalidTime, t.Sec)
	case t.Nanosec >= 1e9:
		c.reject()
		return Update{}, fmt.Errorf("%w: clock.nanosec = %d: not below 1e9", ErrInvalidTime, t.Nanosec)
	}
	ns := int64(t.Sec)*1e9 + int64(t.Nanosec)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Messages++
	u := Update{Time: time.Unix(0, ns)}
	switch {
	case !c.have:
		c.have, u.First = true, true
	case ns == c.last:
		c.stats.Paused++
	case ns < c.last:
		c.stats.JumpsBack++
		u.Back = time.Duration(c.last - ns)
		c.offset = satAdd(c.offset, c.last-ns)
	default:
		u.Advanced = time.Duration(ns - c.last)
	}
	c.last = ns
	return u, nil
}

func (c *Clock) reject() {
	c.mu.Lock()
	c.stats.Rejected++
	c.mu.Unlock()
}
