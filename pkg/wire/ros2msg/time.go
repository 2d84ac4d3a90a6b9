package ros2msg

import "time"

// RosTimeOf converts t to builtin_interfaces/Time, whose int32 seconds end
// in 2038: times before the epoch give zero, times after the end saturate.
func RosTimeOf(t time.Time) RosTime {
	ns := t.UnixNano()
	switch {
	case ns < 0:
		return RosTime{}
	case ns/1e9 > 1<<31-1:
		return RosTime{Sec: 1<<31 - 1, Nanosec: 999999999}
	}
	return RosTime{Sec: int32(ns / 1e9), Nanosec: uint32(ns % 1e9)}
}
