// Package timediff subtracts times in nanoseconds without overflow. The
// times a recording holds (log, publish and stamp times, receipt times)
// may lie anywhere in their type's range; a plain difference of two far
// apart wraps around to the other sign, which turns a long delay into a
// negative one. Here a difference beyond int64's range saturates at its
// bound instead. The package knows no clock and reads none.
package timediff

import "math"

// Sub returns a-b, or math.MaxInt64 or math.MinInt64 when the difference
// lies beyond them.
func Sub(a, b int64) int64 {
	d := a - b
	// Only operands of different signs can overflow, and then the
	// result has b's sign.
	if (a < 0) != (b < 0) && (d < 0) != (a < 0) {
		if a < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return d
}

// SubUnsigned returns a-b for unsigned times (an MCAP log or publish
// time), as Sub does: saturated at int64's bounds.
func SubUnsigned(a, b uint64) int64 {
	if a >= b {
		if d := a - b; d <= math.MaxInt64 {
			return int64(d)
		}
		return math.MaxInt64
	}
	if d := b - a; d <= math.MaxInt64 {
		return -int64(d)
	}
	return math.MinInt64
}

// Add returns a+b, saturated at int64's bounds.
func Add(a, b int64) int64 {
	s := a + b
	if (a < 0) == (b < 0) && (s < 0) != (a < 0) {
		if a < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return s
}

// Abs returns |d|, math.MaxInt64 for math.MinInt64.
func Abs(d int64) int64 {
	switch {
	case d == math.MinInt64:
		return math.MaxInt64
	case d < 0:
		return -d
	}
	return d
}
