package mapping

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrRejected is matched (errors.Is) by every rejected input, whatever the
// reason; each reason also has its own sentinel below.
var ErrRejected = errors.New("vehicle input rejected")

// Sentinels for the rejection reasons, matched by errors.Is on a *RejectError.
var (
	ErrStampInvalid       = errors.New("stamp invalid")
	ErrStampNotIncreasing = errors.New("stamp not increasing")
	ErrStale              = errors.New("older than the value held")
	ErrQuaternion         = errors.New("quaternion invalid")
	ErrFrame              = errors.New("frame unsupported")
	ErrNoAttitude         = errors.New("no attitude yet")
	ErrBelief             = errors.New("belief invalid")
	ErrTimeBase           = errors.New("off the current time base")
)

// Reason says why an input was rejected; Counters count rejections by it.
type Reason uint8

// The rejection reasons. NumReasons bounds them (for counter arrays).
const (
	ReasonStampInvalid       Reason = iota // sample time zero, negative or beyond int64 ns
	ReasonStampNotIncreasing               // belief stamp repeats or goes back
	ReasonStale                            // status, battery or attitude older than the one held
	ReasonQuaternion                       // quaternion NaN, infinite, zero or far from unit norm
	ReasonFrame                            // frame unknown or not ENU/FLU where that is required
	ReasonNoAttitude                       // local position before any vehicle_attitude
	ReasonBelief                           // the mapped belief failed decisions' validation
	ReasonTimeBase                         // a stamp off the vehicle's current time base (px4clock.go)
	NumReasons
)

var reasonNames = [NumReasons]string{
	"stamp_invalid", "stamp_not_increasing", "stale", "quaternion_invalid",
	"frame_unsupported", "no_attitude", "belief_invalid", "off_time_base",
}

var reasonErrs = [NumReasons]error{
	ErrStampInvalid, ErrStampNotIncreasing, ErrStale, ErrQuaternion,
	ErrFrame, ErrNoAttitude, ErrBelief, ErrTimeBase,
}

// String returns the reason's snake_case name (a diagnostics key).
func (r Reason) String() string {
	if r < NumReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// RejectError names the rejected input's topic and field, its value (capped
// in length) and the rule it breaks. Its text is
// "<topic>.<field> = <value>: <why>".
type RejectError struct {
	Topic  string // e.g. "vehicle_odometry", "nav_msgs/Odometry"
	Field  string // field name as in the source's .msg, e.g. "q"
	Value  string // the offending value, formatted and capped
	Why    string
	Reason Reason
	// Err is an underlying error (the belief's validation failure), or nil.
	Err error
}

func (e *RejectError) Error() string {
	return fmt.Sprintf("%s.%s = %s: %s", e.Topic, e.Field, e.Value, e.Why)
}

// Is matches ErrRejected and the sentinel of the error's reason.
func (e *RejectError) Is(target error) bool {
	return target == ErrRejected || (e.Reason < NumReasons && target == reasonErrs[e.Reason])
}

// Unwrap returns the underlying error, if any.
func (e *RejectError) Unwrap() error { return e.Err }

// maxValueLen caps the value quoted in an error message.
const maxValueLen = 96

func reject(r Reason, topic, field string, value any, why string) *RejectError {
	v := fmt.Sprint(value)
	if len(v) > maxValueLen {
		n := maxValueLen
		for n > 0 && !utf8.RuneStart(v[n]) {
			n--
		}
		v = v[:n] + "..."
	}
	return &RejectError{Topic: topic, Field: field, Value: v, Why: why, Reason: r}
}
