package engine

import (
	"fmt"
	"math"
)

// Stamp plausibility, in one place.
//
// Decisions are emitted in stamp order, so one accepted stamp far in the
// future (a flipped byte, a sentinel such as 2^63-2) would make every later
// input late: one bad message would silence the node. The Loop therefore
// admits a belief or an assessment only when its stamp is at most
// MaxStampLead ahead of the reference, the newest stamp admitted so far,
// plus the arrival time elapsed since that stamp was admitted (a stream that
// paused for a minute resumes a minute later). A stamp further ahead is
// rejected (implausible_belief_stamp, implausible_assessment_stamp) and
// changes nothing.
//
// A genuine jump (a simulator restarted ahead, a pause longer than the
// window while simulated time runs faster than arrival time) is followed by
// more inputs like it, a corrupt stamp is not: after stampJumpInputs
// consecutive implausible inputs that agree with each other, the last one
// is admitted and becomes the reference (the ones before it stay rejected).
//
// The first input has no reference. Until two admitted inputs agree (a
// belief and its own assessment do, and so do two consecutive beliefs), the
// stream is not anchored: inputs are admitted, but no belief is released by
// the assessment timeout or by a newer assessment, since either could rest
// on a stamp nothing corroborates yet. The first agreement anchors the
// stream at the newest of the agreeing stamps; admitted beliefs and
// assessments implausibly ahead of it (by MaxStampLead plus the arrival
// time since the stream began) are dropped as implausible at that moment,
// before anything was decided. The end of the stream and a full pending
// buffer still release beliefs; a decision taken before the anchor anchors
// the stream at its stamp.
//
// Two stamps agree when they differ by at most MaxStampLead plus the arrival
// time between them. Perception reports are not checked: the as-of join uses
// a report only for stamps at or after it, so a future report waits, in the
// bounded perception history, without affecting anything.

// stampJumpInputs is how many consecutive, mutually agreeing implausible
// inputs make a jump of the stream believable; the last of them is
// admitted. Two would let a pair of corrupted messages through (a belief and
// its assessment share their corruption when the publisher's stamp source
// is wrong, which is then a genuine jump); three is the smallest count no
// single corrupted message pair reaches.
const stampJumpInputs = 3

// plausibility is the outcome of the stamp check of an otherwise admissible
// belief or assessment.
type plausibility uint8

const (
	stampPlausible   plausibility = iota // admit
	stampImplausible                     // reject, count towards a jump
	stampJump                            // admit: a confirmed jump re-anchors the stream
)

// jumpTracker remembers the latest run of consecutive implausible inputs
// that agree with each other.
type jumpTracker struct {
	stamp, arrival int64
	count          int // 0: no run
}

// anchorPlan is what a step does to the stream's anchor: computed before
// the step's decisions, applied in commit.
type anchorPlan struct {
	// ok: the stream is anchored after this step (already, or by it).
	ok bool
	// anchors: this step anchors the stream at stamp, arrival.
	anchors        bool
	stamp, arrival int64
	// keepUpTo: admitted stamps above it are dropped as implausible when
	// the step anchors the stream; math.MaxInt64 otherwise.
	keepUpTo int64
}

// addSat returns a + b for a, b >= 0, saturated at math.MaxInt64.
func addSat(a, b uint64) uint64 {
	if s := a + b; s >= a && s <= math.MaxInt64 {
		return s
	}
	return math.MaxInt64
}

// agree reports whether stamps s and r, arrived at t and u, differ by at
// most lead plus the arrival time between them.
func agree(s, t, r, u int64, lead uint64) bool {
	return absDiff(s, r) <= addSat(lead, absDiff(t, u))
}

func absDiff(a, b int64) uint64 {
	if a >= b {
		return uint64(a) - uint64(b)
	}
	return uint64(b) - uint64(a)
}

// checkStamp classifies the stamp s of an otherwise admissible belief or
// assessment arriving at now.
func (l *Loop) checkStamp(s, now int64) plausibility {
	if !l.anchored || s <= l.refStamp {
		return stampPlausible
	}
	if uint64(s)-uint64(l.refStamp) <= addSat(l.maxLead, uint64(now)-uint64(l.refArrival)) {
		return stampPlausible
	}
	if j := &l.jump; j.count > 0 && j.count+1 >= stampJumpInputs && agree(s, now, j.stamp, j.arrival, l.maxLead) {
		return stampJump
	}
	return stampImplausible
}

// planAnchor says whether the step with candidate c, at now, leaves the
// stream anchored, and how it anchors it.
func (l *Loop) planAnchor(c *candidate, now int64) anchorPlan {
	if l.anchored {
		return anchorPlan{ok: true, keepUpTo: math.MaxInt64}
	}
	s, ok := c.stamp()
	if !ok {
		return anchorPlan{keepUpTo: math.MaxInt64}
	}
	newest, found := s, false
	for _, p := range l.pending.items() {
		if agree(s, now, p.key(), p.arrival, l.maxLead) {
			newest, found = max(newest, p.key()), true
		}
	}
	for _, h := range l.held.items() {
		if agree(s, now, h.key(), h.arrival, l.maxLead) {
			newest, found = max(newest, h.key()), true
		}
	}
	if !found {
		return anchorPlan{keepUpTo: math.MaxInt64}
	}
	first := l.firstArrival
	if !l.started {
		first = now
	}
	keep := addSat(uint64(newest), addSat(l.maxLead, uint64(now)-uint64(first)))
	return anchorPlan{ok: true, anchors: true, stamp: newest, arrival: now, keepUpTo: int64(keep)}
}

// stamp returns the stamp of an admitted belief or assessment candidate.
func (c *candidate) stamp() (int64, bool) {
	switch {
	case !c.ok:
		return 0, false
	case c.kind == InputBelief:
		return c.belief.key(), true
	case c.kind == InputAssessment:
		return c.assessment.a.BeliefStampSimNs, true
	}
	return 0, false
}

// commitStamps applies the step's plausibility outcome: the reference and
// the jump tracker follow the admitted or rejected stamp, and an anchoring
// step drops what is implausibly ahead of its anchor.
func (l *Loop) commitStamps(now int64, c *candidate, a anchorPlan, out *Output) {
	if c.implausible {
		s := c.rejectedStamp
		if j := &l.jump; j.count > 0 && agree(s, now, j.stamp, j.arrival, l.maxLead) {
			j.count++
			j.stamp, j.arrival = max(j.stamp, s), now
		} else {
			l.jump = jumpTracker{stamp: s, arrival: now, count: 1}
		}
		return
	}
	if a.anchors {
		l.anchored, l.refStamp, l.refArrival = true, a.stamp, a.arrival
		l.dropImplausible(a.keepUpTo, out)
	}
	if !l.anchored && l.lastDecided >= 0 {
		// Decided before any agreement (end of stream, full buffer).
		l.anchored, l.refStamp, l.refArrival = true, l.lastDecided, now
	}
	if s, ok := c.stamp(); ok {
		l.jump = jumpTracker{}
		if l.anchored && s > l.refStamp {
			l.refStamp, l.refArrival = s, now
		}
	}
}

// dropImplausible drops the pending beliefs and held assessments with a
// stamp above keepUpTo (the newest ones).
func (l *Loop) dropImplausible(keepUpTo int64, out *Output) {
	if keepUpTo == math.MaxInt64 {
		return
	}
	i, _ := l.pending.search(keepUpTo + 1)
	for _, p := range l.pending.items()[i:] {
		out.Rejections = append(out.Rejections, Rejection{RejectImplausibleBelief, p.key(), implausibleDetail("VehicleState.stamp_sim_ns", p.key(), l.refStamp, l.maxLead)})
		l.releaseCovariance(p.belief.Covariance)
	}
	l.pending.dropBack(l.pending.len() - i)
	j, _ := l.held.search(keepUpTo + 1)
	for _, h := range l.held.items()[j:] {
		out.Rejections = append(out.Rejections, Rejection{RejectImplausibleAssessment, h.key(), implausibleDetail("BeliefSelfAssessment.belief_stamp_sim_ns", h.key(), l.refStamp, l.maxLead)})
	}
	l.held.dropBack(l.held.len() - j)
	l.newestAssessment = -1
	if l.held.len() > 0 {
		l.newestAssessment = l.held.items()[l.held.len()-1].key()
	}
}

func implausibleDetail(field string, s, ref int64, lead uint64) string {
	return fmt.Sprintf("%s = %d is implausibly far ahead of the stream: more than MaxStampLead (%d ns) plus the arrival time elapsed after stamp %d; rejected",
		field, s, lead, ref)
}
