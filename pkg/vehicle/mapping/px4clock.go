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
// sample "go back", so nothing is decided for the rest of the flight. A
// live PX4 v1.15 SITL flight also showed a single vehicle_local_position
// sample in boot time between samples in Unix time, when the GPS came back.
//
// The rule, applied to every PX4 stream with one offset: a mapped stamp is
// the PX4 stamp plus the offset (0 at first). The estimator stream, the
// dense one (50 to 100 Hz), watches the time base: an estimator sample whose
// mapped stamp goes back more than TimeBaseBackStep from the newest
// estimator stamp, or runs ahead of where the arrival clock says it should
// be by more than TimeBaseForwardStep, is off the time base. It is refused
// (ReasonTimeBase), and becomes the candidate of a new time base: the offset
// that places it where the arrival time says (the newest stamp plus the
// arrival time elapsed since, or plus 1 µs when no arrival time is known).
// TimeBaseConfirm consecutive samples that agree with the candidate change
// the time base; a sample on the current one drops the candidate. So a lone
// sample on another base is refused and changes nothing, and a real change
// costs the first samples after it.
//
// Status, battery and attitude samples are mapped with the current offset
// and refused (ReasonTimeBase) when they land off the estimator's time by
// the same bounds, before they are held: a sample on another base must not
// become the stamp every later sample is compared with. Small steps of a
// synchroniser (under the bounds) pass through: forward they are harmless,
// backward they are refused as not increasing or stale, as before.

// The bounds of a PX4 time-base change.
const (
	// TimeBaseBackStep is how far a stamp may go back before it is off the
	// time base rather than a late or repeated sample.
	TimeBaseBackStep = time.Second
	// TimeBaseForwardStep is how far a stamp may run ahead of the arrival
	// clock before it is off the time base. It is large because a paused
	// simulation clock stops the arrival clock while PX4's keeps running; a
	// change of time base moves stamps by decades.
	TimeBaseForwardStep = time.Hour
	// TimeBaseConfirm is how many consecutive estimator samples on a new
	// time base change it.
	TimeBaseConfirm = 3
)

// ArrivalUnknown is the arrival time of a sample whose arrival is not known
// (a flight log, whose stamps share one clock).
const ArrivalUnknown int64 = math.MinInt64

// TimeBaseChange describes the newest change of PX4's time base.
type TimeBaseChange struct {
	// FromNs is the newest mapped estimator stamp before the change, RawNs
	// the PX4 stamp (ns) of the sample that confirmed it, and ToNs where
	// that sample was placed.
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

	// The candidate of a new time base: its offset, how many consecutive
	// samples agreed, and where the newest of them was placed.
	candOffset int64
	candCount  int
	candNs     int64
	candArr    int64
	candHas    bool
}

// setArrival records the arrival time of the next sample.
func (c *px4Clock) setArrival(ns int64) {
	c.arrival, c.hasArr = ns, ns != ArrivalUnknown
}

// mapped adds the offset to a PX4 stamp in ns; ok is false on overflow or a
// negative result.
func (c *px4Clock) mapped(ns, offset int64) (int64, bool) {
	m := ns + offset
	if (offset > 0 && m < ns) || (offset < 0 && m > ns) || m < 0 {
		return 0, false
	}
	return m, true
}

// expected is where the arrival clock places a sample that follows one
// placed at fromNs with arrival fromArr.
func (c *px4Clock) expected(fromNs, fromArr int64, fromHas bool) int64 {
	want := fromNs + 1000
	if c.hasArr && fromHas && c.arrival-fromArr > 1000 {
		if want = fromNs + (c.arrival - fromArr); want < fromNs {
			want = math.MaxInt64 // overflow
		}
	}
	return want
}

// off reports whether m, mapped, lies off the time base whose newest stamp
// is fromNs, followed by want.
func off(m int64, ok bool, fromNs, want int64) bool {
	return !ok || m < fromNs-int64(TimeBaseBackStep) || m-want > int64(TimeBaseForwardStep)
}

// estimator maps an estimator sample's stamp; ok is false for a sample off
// the time base, which is refused.
func (c *px4Clock) estimator(ns int64) (m int64, ok bool) {
	m, inRange := c.mapped(ns, c.offset)
	if !c.seen {
		if !inRange {
			c.offset, m = 0, ns
		}
		c.seen, c.lastNs, c.lastArr, c.lastHas = true, m, c.arrival, c.hasArr
		return m, true
	}
	if !off(m, inRange, c.lastNs, c.expected(c.lastNs, c.lastArr, c.lastHas)) {
		c.candCount = 0
		if m > c.lastNs {
			c.lastNs = m
		}
		c.lastArr, c.lastHas = c.arrival, c.hasArr
		return m, true
	}
	return c.candidate(ns)
}

// candidate takes a sample off the current time base: it starts or extends
// the candidate of a new one, and changes the time base once
// TimeBaseConfirm samples agree.
func (c *px4Clock) candidate(ns int64) (int64, bool) {
	if c.candCount > 0 {
		cm, inRange := c.mapped(ns, c.candOffset)
		if !off(cm, inRange, c.candNs, c.expected(c.candNs, c.candArr, c.candHas)) {
			c.candCount++
			c.candNs, c.candArr, c.candHas = cm, c.arrival, c.hasArr
			if c.candCount < TimeBaseConfirm {
				return 0, false
			}
			c.changes++
			c.last = TimeBaseChange{FromNs: c.lastNs, RawNs: ns, ToNs: cm, OffsetNs: c.candOffset}
			c.offset, c.candCount = c.candOffset, 0
			c.lastNs, c.lastArr, c.lastHas = cm, c.arrival, c.hasArr
			return cm, true
		}
	}
	want := c.expected(c.lastNs, c.lastArr, c.lastHas)
	c.candOffset, c.candCount = want-ns, 1
	c.candNs, c.candArr, c.candHas = want, c.arrival, c.hasArr
	return 0, false
}

// aux maps a status, battery or attitude stamp; ok is false when it lies
// off the estimator's time base.
func (c *px4Clock) aux(ns int64) (int64, bool) {
	m, inRange := c.mapped(ns, c.offset)
	if !c.seen {
		return m, inRange
	}
	return m, !off(m, inRange, c.lastNs, c.expected(c.lastNs, c.lastArr, c.lastHas))
}
