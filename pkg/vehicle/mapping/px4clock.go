package mapping

import (
	"math"
	"time"
)

// PX4's clock can change its time base under a running node. Over
// uXRCE-DDS the client shifts timestamp and timestamp_sample into the
// agent's time once its time synchronisation converges (boot time becomes
// Unix time, decades ahead), and back to boot time when it resets the
// synchroniser ("time jump detected"). Taken as they come, the first change
// throws belief stamps decades ahead and the second makes every later
// sample "go back", so nothing is decided for the rest of the flight.
//
// The rule, applied to every PX4 stream with one offset: a mapped stamp is
// the PX4 stamp plus the offset (0 at first). An estimator sample whose
// mapped stamp goes back more than TimeBaseBackStep from the newest
// estimator stamp, or runs ahead of where the arrival clock says it should
// be by more than TimeBaseForwardStep, changes the time base: the offset is
// moved so that the sample continues the stamps where the arrival time
// places it (the newest stamp plus the arrival time elapsed since, or plus
// 1 µs when no arrival time is known). Only the estimator stream decides,
// because it is the dense one (50 to 100 Hz): a late status or battery
// sample after a change is refused as stale once, never taken for a change.
// Small steps of a synchroniser (under the bounds) pass through: forward
// they are harmless, backward they are refused as not increasing, as
// before.

// The bounds of a PX4 time-base change.
const (
	// TimeBaseBackStep is how far an estimator stamp may go back before it
	// counts as a new time base rather than a late or repeated sample.
	TimeBaseBackStep = time.Second
	// TimeBaseForwardStep is how far an estimator stamp may run ahead of
	// the arrival clock before it counts as a new time base. It is large
	// because a paused simulation clock stops the arrival clock while PX4's
	// keeps running; a change of time base moves stamps by decades.
	TimeBaseForwardStep = time.Hour
)

// ArrivalUnknown is the arrival time of a sample whose arrival is not known
// (a flight log, whose stamps share one clock).
const ArrivalUnknown int64 = math.MinInt64

// TimeBaseChange describes the newest change of PX4's time base.
type TimeBaseChange struct {
	// FromNs is the newest mapped estimator stamp before the change, RawNs
	// the PX4 stamp (ns) of the sample that changed it, and ToNs where that
	// sample was placed.
	FromNs, RawNs, ToNs int64
	// OffsetNs is the offset added to PX4 stamps from then on.
	OffsetNs int64
}

// px4Clock maps PX4 stamps onto one monotonic time base.
type px4Clock struct {
	arrival, lastArr int64 // arrival of the sample being mapped; of the newest estimator sample
	hasArr, lastHas  bool  // whether each is known
	offset           int64
	seen             bool  // an estimator stamp was mapped
	lastNs           int64 // the newest mapped estimator stamp
	changes          uint64
	last             TimeBaseChange
}

// setArrival records the arrival time of the next sample.
func (c *px4Clock) setArrival(ns int64) {
	c.arrival, c.hasArr = ns, ns != ArrivalUnknown
}

// mapped adds the offset to a PX4 stamp in ns; ok is false on overflow or a
// negative result.
func (c *px4Clock) mapped(ns int64) (int64, bool) {
	m := ns + c.offset
	if (c.offset > 0 && m < ns) || (c.offset < 0 && m > ns) || m < 0 {
		return 0, false
	}
	return m, true
}

// estimator maps an estimator sample's stamp, changing the time base when
// the stamp leaves the bounds.
func (c *px4Clock) estimator(ns int64) int64 {
	m, ok := c.mapped(ns)
	if !c.seen {
		if !ok {
			c.offset, m = 0, ns
		}
		c.seen, c.lastNs, c.lastArr, c.lastHas = true, m, c.arrival, c.hasArr
		return m
	}
	want := c.lastNs + 1000
	if c.hasArr && c.lastHas && c.arrival-c.lastArr > 1000 {
		if want = c.lastNs + (c.arrival - c.lastArr); want < c.lastNs {
			want = math.MaxInt64 // overflow
		}
	}
	if !ok || m < c.lastNs-int64(TimeBaseBackStep) || m-want > int64(TimeBaseForwardStep) {
		c.changes++
		c.last = TimeBaseChange{FromNs: c.lastNs, RawNs: ns, ToNs: want, OffsetNs: want - ns}
		c.offset, m = want-ns, want
	}
	if m > c.lastNs {
		c.lastNs = m
	}
	c.lastArr, c.lastHas = c.arrival, c.hasArr
	return m
}
