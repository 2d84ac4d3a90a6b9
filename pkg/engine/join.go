package engine

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// The join rules, in one place.
//
// Admission (admit*): every input is validated, then either admitted as the
// step's candidate, accepted as an identical repeat (a no-op, counted as a
// duplicate), or rejected. A repeat of a known stamp with different content
// is a conflict; the first input stands and nothing is decided twice. Known
// stamps are those pending or held, and those in the bounded decided memory;
// a stamp older than that memory is simply late.
//
// Release (decideNow): the oldest undecided belief S is decided
//   - with its assessment as soon as both are there;
//   - without one when an assessment of a newer stamp has arrived (the
//     assessor publishes in stamp order, so S's will not come), when S has
//     waited the assessment timeout (newest arrival time minus S's arrival
//     time), when the pending buffer overflows, or at the end of the stream;
//     the reason recorded is the first of these that holds.
//
// A newer belief alone is never a reason, and a belief that is ready never
// overtakes an older pending one: release stops at the first belief that
// must keep waiting.
//
// Perception (asOf): the context carries the latest report with a stamp
// <= S, none when no report precedes S.

// decideNow says whether the oldest undecided belief b is released at time
// now and, if without an assessment, why.
func (l *Loop) decideNow(b *pendingBelief, hasAssessment bool, now, newestAssessment int64, anchored, overCapacity, end bool) (WithoutReason, bool) {
	switch {
	case hasAssessment:
		return WithoutNone, true
	case anchored && newestAssessment > b.key():
		return WithoutNewerAssessment, true
	case anchored && waited(now, b.arrival) >= uint64(l.timeout):
		return WithoutTimeout, true
	case overCapacity:
		return WithoutBufferFull, true
	case end:
		return WithoutEndOfStream, true
	}
	return WithoutNone, false
}

// waited returns now - since for now >= since without overflow, whatever
// the two int64 values.
func waited(now, since int64) uint64 { return uint64(now) - uint64(since) }

// assessmentFor returns the assessment of stamp s that is held or is the
// step's candidate, or nil.
func (l *Loop) assessmentFor(s int64, c *candidate) *heldAssessment {
	if h := l.held.get(s); h != nil {
		return h
	}
	if c.ok && c.kind == InputAssessment && c.assessment.a.BeliefStampSimNs == s {
		return &c.assessment
	}
	return nil
}

// asOf returns the latest perception report with stamp <= s, counting the
// step's candidate report.
func (l *Loop) asOf(s int64, c *candidate) (decisions.PerceptionReport, bool) {
	it := l.history.items()
	i := sort.Search(len(it), func(i int) bool { return it[i].key() > s })
	var r decisions.PerceptionReport
	ok := i > 0
	if ok {
		r = it[i-1].r
	}
	if c.ok && c.kind == InputPerception && c.perception.StampSimNs <= s && (!ok || c.perception.StampSimNs > r.StampSimNs) {
		r, ok = c.perception, true
	}
	return r, ok
}

func reject(out *Output, reason RejectReason, stamp int64, format string, args ...any) {
	out.Rejections = append(out.Rejections, Rejection{Reason: reason, Stamp: stamp, Detail: fmt.Sprintf(format, args...)})
}

func duplicate(out *Output, k InputKind, stamp int64) {
	out.Duplicates = append(out.Duplicates, Duplicate{Input: k, Stamp: stamp})
}

// admitBelief classifies a belief arriving at now; true admits it as the
// step's candidate. A stamp rejected as implausible is noted in c.
func (l *Loop) admitBelief(b *decisions.Belief, now int64, c *candidate, out *Output) bool {
	s := b.StampSimNs
	if err := b.Validate(); err != nil {
		reject(out, RejectInvalidBelief, s, "%s", err.Error())
		return false
	}
	if rec := l.decided.get(s); rec != nil {
		if rec.belief.Equal(b) {
			duplicate(out, InputBelief, s)
		} else {
			reject(out, RejectConflictingBelief, s,
				"VehicleState.stamp_sim_ns = %d repeats a belief already decided (%s) with different content; the first belief stands", s, rec.kind)
		}
		return false
	}
	if s <= l.lastDecided {
		reject(out, RejectLateBelief, s,
			"VehicleState.stamp_sim_ns = %d is not newer than the last decided stamp %d; decisions are emitted in stamp order", s, l.lastDecided)
		return false
	}
	if p := l.pending.get(s); p != nil {
		if p.belief.Equal(b) {
			duplicate(out, InputBelief, s)
		} else {
			reject(out, RejectConflictingBelief, s,
				"VehicleState.stamp_sim_ns = %d repeats a pending belief with different content; the first belief stands", s)
		}
		return false
	}
	return l.admitStamp(RejectImplausibleBelief, "VehicleState.stamp_sim_ns", s, now, c, out)
}

// admitStamp applies the stamp plausibility check to an otherwise
// admissible input.
func (l *Loop) admitStamp(reason RejectReason, field string, s, now int64, c *candidate, out *Output) bool {
	if l.checkStamp(s, now) != stampImplausible {
		return true
	}
	c.implausible, c.rejectedStamp = true, s
	out.Rejections = append(out.Rejections, Rejection{reason, s, implausibleDetail(field, s, l.refStamp, l.maxLead)})
	return false
}

// admitAssessment classifies an assessment arriving at now; true admits it
// as the step's candidate. A stamp rejected as implausible is noted in c.
func (l *Loop) admitAssessment(h *heldAssessment, now int64, c *candidate, out *Output) bool {
	a := &h.a
	s := a.BeliefStampSimNs
	if err := a.Validate(); err != nil {
		reject(out, RejectInvalidAssessment, s, "%s", err.Error())
		return false
	}
	if h.hasCal {
		if err := h.cal.Validate(); err != nil {
			reject(out, RejectInvalidAssessment, s, "calibration of %d: %s", s, err.Error())
			return false
		}
	}
	if s <= l.lastDecided {
		rec := l.decided.get(s)
		switch {
		case rec != nil && rec.hasAssessment:
			if l.sameAssessment(&rec.assessment, h) {
				duplicate(out, InputAssessment, s)
			} else {
				reject(out, RejectConflictingAssessment, s,
					"BeliefSelfAssessment.belief_stamp_sim_ns = %d repeats the assessment decision %s used (sha256 %s) with different content; the first one stands",
					s, rec.kind, rec.assessment.sha256())
			}
		case rec != nil:
			reject(out, RejectLateAssessment, s,
				"BeliefSelfAssessment.belief_stamp_sim_ns = %d arrived after its belief was decided without it (%s): the assessment timeout %s is too short for this system",
				s, rec.without, l.timeout)
		default:
			reject(out, RejectLateAssessment, s,
				"BeliefSelfAssessment.belief_stamp_sim_ns = %d is not newer than the last decided stamp %d and can never be matched; if its belief was decided without it, the assessment timeout %s is too short for this system",
				s, l.lastDecided, l.timeout)
		}
		return false
	}
	if held := l.held.get(s); held != nil {
		if l.sameAssessment(held, h) {
			duplicate(out, InputAssessment, s)
		} else {
			reject(out, RejectConflictingAssessment, s,
				"BeliefSelfAssessment.belief_stamp_sim_ns = %d repeats a held assessment with different content; the first one stands", s)
		}
		return false
	}
	if !l.admitStamp(RejectImplausibleAssessment, "BeliefSelfAssessment.belief_stamp_sim_ns", s, now, c, out) {
		return false
	}
	// Hashed once, here or by its decoder: the binding, the provenance
	// check and the decided memory share this hash.
	if !h.hash.For(a) {
		h.hash = HashAssessment(a, &l.textMemo)
	}
	return true
}

// sameAssessment compares canonical JSON, the identity a rationale's hash
// binds (so two assessments the hash cannot tell apart are one
// assessment), and the calibration envelopes, which the policy reads.
func (l *Loop) sameAssessment(a, b *heldAssessment) bool {
	l.scratchA = a.a.AppendCanonicalJSON(l.scratchA[:0])
	l.scratchB = b.a.AppendCanonicalJSON(l.scratchB[:0])
	return bytes.Equal(l.scratchA, l.scratchB) && a.hasCal == b.hasCal && (!a.hasCal || a.cal.Equal(&b.cal))
}

// admitPerception classifies a perception report; true admits it as the
// step's candidate.
func (l *Loop) admitPerception(p decisions.PerceptionReport, out *Output) bool {
	s := p.StampSimNs
	if err := p.Validate(); err != nil {
		reject(out, RejectInvalidPerception, s, "%s", err.Error())
		return false
	}
	known := l.history.get(s)
	if known == nil && s <= l.lastDecided {
		known = l.pastPerception.get(s)
	}
	if known != nil {
		l.repeatPerception(known.r, p, out)
		return false
	}
	if s > l.lastDecided {
		return true
	}
	// The oldest decided stamp >= s is the first decision s could apply to;
	// the as-of report grows with the stamp, so if s would not have changed
	// that decision it changes none after it.
	i, _ := l.decided.search(s)
	it := l.decided.items()
	if i == len(it) { // unreachable: the last decided stamp is always remembered
		reject(out, RejectLatePerception, s, "PerceptionMode.stamp_sim_ns = %d is not newer than the last decided stamp %d", s, l.lastDecided)
		return false
	}
	rec := &it[i]
	switch {
	case rec.hasPerception && rec.perception.StampSimNs == s:
		l.repeatPerception(rec.perception, p, out)
	case !rec.hasPerception || rec.perception.StampSimNs < s:
		used := "none"
		if rec.hasPerception {
			used = fmt.Sprintf("%s@%d", rec.perception.Mode, rec.perception.StampSimNs)
		}
		reject(out, RejectLatePerception, s,
			"PerceptionMode.stamp_sim_ns = %d (mode %s) arrived after belief %d was decided with perception %s; it would have applied",
			s, p.Mode, rec.key(), used)
	case s <= l.forgottenUpTo:
		reject(out, RejectLatePerception, s,
			"PerceptionMode.stamp_sim_ns = %d (mode %s) is older than the decisions still remembered (forgotten up to stamp %d); it may have applied to one of them",
			s, p.Mode, l.forgottenUpTo)
	default:
		reject(out, RejectStalePerception, s,
			"PerceptionMode.stamp_sim_ns = %d (mode %s) is older than the report at %d that every decision it could apply to used; it changes nothing",
			s, p.Mode, rec.perception.StampSimNs)
	}
	return false
}

func (l *Loop) repeatPerception(known, p decisions.PerceptionReport, out *Output) {
	if known == p {
		duplicate(out, InputPerception, p.StampSimNs)
		return
	}
	reject(out, RejectConflictingPerception, p.StampSimNs,
		"PerceptionMode.mode = %s at stamp %d repeats a report of mode %s; the first one stands", p.Mode, p.StampSimNs, known.Mode)
}
