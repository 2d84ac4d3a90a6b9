package honesty

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

// The alignment of the position axes (docs/honesty.md, "Aligning the
// position").
//
// An estimator's position is relative to an origin of its own; the
// simulator's local truth to another. Two ways put them in one frame:
//
//   - The global frame. When the recording holds the simulator's global
//     position and the origin the estimator declares (PX4's ref_lat,
//     ref_lon, ref_alt), the truth is projected into that origin as PX4
//     projects its GNSS fixes: both are then in the estimator's own frame,
//     and the error is the estimate minus the projected truth. Nothing is
//     estimated, and no reset needs following: a reset that moves the
//     origin moves the projection with it, and one that corrects the
//     estimate shows as the error it corrected.
//   - The offset. Otherwise the offset between the frames is measured:
//     the median of estimate minus truth over a window of beliefs. One
//     sample would carry that belief's error into every verdict (the
//     first belief of a flight is often taken before the estimator has
//     settled: before GNSS fusion, or during its height transient); the
//     median of many lets a minority of bad samples move it by no more
//     than the spread of the others. The window starts where the axis
//     settles, at its first claim within the known threshold (the
//     estimator's own word that its error is now small; the transient
//     before it is kept out), holds only such claims, and lasts
//     OffsetWindow. An estimator reset is taken for a move of the
//     estimator's frame: the differences are taken back through the
//     resets between them and the window's start, so each belief's
//     offset is the median moved by the resets in between.
//
// An axis uses the global frame when the recording holds it and, before
// its offset window closes, a belief claiming within the known threshold
// has the global frame around it and agrees with it to within
// datumToleranceM: a larger disagreement is taken for a simulator whose
// global position and simulated GNSS do not share a datum (PX4 1.13's
// Gazebo classic logs its global truth at altitude 0 and its GNSS at
// 488 m), not for an error the estimator made. Verdicts wait, in order,
// until every axis is aligned: at most maxHeld of them.

// datumToleranceM is the largest disagreement between the projected truth
// and an estimate claiming to know the axis that still reads as an error
// rather than as two datums: ten times the widest known threshold in use
// (1 m), far below the hundreds of metres a datum mismatch gives.
const datumToleranceM = 10.0

// maxHeld bounds the verdicts held while an axis' alignment is open (at
// PX4's 100 to 250 Hz, minutes of beliefs: more than a window).
const maxHeld = 1 << 15

// maxWindowSamples bounds the samples of one median.
const maxWindowSamples = 1 << 16

// defaultOffsetWindow is the default Options.OffsetWindow: long enough
// that an estimator's settling transient (seconds) is a minority of it.
const defaultOffsetWindow = 60 * time.Second

// defaultMaxGlobalGap is the default Options.MaxGlobalGap. PX4 logs
// vehicle_global_position_groundtruth at 10 Hz, so a belief's samples may
// lie 100 ms away; over 100 ms a linear interpolation errs by a*T^2/8,
// 4 mm at 3 m/s^2.
const defaultMaxGlobalGap = 150 * time.Millisecond

// window gathers the differences whose median is an offset.
type window struct {
	samples  []float64
	from, to int64
	started  bool
	cumAt    float64 // the cumulated resets at the first sample
}

func (w *window) add(stamp int64, u, cum float64) {
	if !w.started {
		w.from, w.started, w.cumAt = stamp, true, cum
	}
	if len(w.samples) < maxWindowSamples {
		w.samples = append(w.samples, u)
		w.to = stamp
	}
}

// median of the samples (the mean of the middle two for an even count).
func (w *window) median() float64 {
	s := slices.Clone(w.samples)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// axisAlign is one position axis' alignment as it is found.
type axisAlign struct {
	decided bool
	method  string
	// settled: the axis claimed within the known threshold at settleAt.
	settled  bool
	settleAt int64
	// the offset's windows: from the settling, and from the first belief
	// (used when the axis never settles).
	settledW, firstW window
	offset           float64 // the median, in reset-corrected differences
	w                *window // the window the median came from
	// the global frame's check
	checkDiff  float64
	checkAt    int64
	checked    bool
	noGlobal   string // why the global frame was ruled out
	withoutFrm uint64
}

// aligner aligns the three position axes.
type aligner struct {
	axes      [3]axisAlign
	hasGlobal bool // the recording holds the global position and the origin
	windowNs  int64
}

// observe takes one judged verdict, in stamp order, while an axis is open.
func (a *aligner) observe(v *verdict) {
	for i := range a.axes {
		ax := &a.axes[i]
		if ax.decided {
			continue
		}
		std, known := v.std[i], v.known[i]
		claimsKnown := v.hasClaim && finite(std) && std <= known
		u := v.diff[i]
		if finite(u) && (!ax.firstW.started || v.stamp-ax.firstW.from <= a.windowNs) {
			ax.firstW.add(v.stamp, u, v.cum[i])
		}
		if !ax.settled && claimsKnown {
			ax.settled, ax.settleAt = true, v.stamp
		}
		if !ax.settled {
			continue
		}
		inWindow := v.stamp-ax.settleAt <= a.windowNs
		if inWindow && claimsKnown && finite(u) {
			ax.settledW.add(v.stamp, u, v.cum[i])
		}
		if a.hasGlobal && ax.noGlobal == "" && claimsKnown && finite(v.global[i]) {
			ax.checked, ax.checkDiff, ax.checkAt = true, v.global[i], v.stamp
			if math.Abs(v.global[i]) <= datumToleranceM {
				ax.decided, ax.method = true, MethodGlobal
				continue
			}
			ax.noGlobal = fmt.Sprintf("the global frame was not used: at %.3f s, claiming within the known threshold, the estimate minus the truth projected into its origin was %.4g m: "+
				"beyond %g m, the simulator's global position and its GNSS do not share a datum", float64(v.stamp)/1e9, v.global[i], datumToleranceM)
		}
		if !inWindow {
			a.decideOffset(i)
		}
	}
}

// open reports whether an axis is still to be aligned.
func (a *aligner) open() bool {
	return !a.axes[0].decided || !a.axes[1].decided || !a.axes[2].decided
}

// decideOffset aligns axis i by its offset, or by nothing when no belief
// had a truth.
func (a *aligner) decideOffset(i int) {
	ax := &a.axes[i]
	ax.decided = true
	switch {
	case len(ax.settledW.samples) > 0:
		ax.w = &ax.settledW
	case len(ax.firstW.samples) > 0:
		ax.w = &ax.firstW
	default:
		ax.method = MethodNone
		return
	}
	ax.method, ax.offset = MethodOffset, ax.w.median()
	if a.hasGlobal && ax.noGlobal == "" {
		ax.noGlobal = fmt.Sprintf("the global frame was not used: no belief claiming within the known threshold had it (the estimator's origin declared for the axis and the global position around the stamp) within %s of the axis settling",
			time.Duration(a.windowNs))
		if !ax.settled {
			ax.noGlobal = "the global frame was not used: the axis never claimed within the known threshold, so it was never checked"
		}
	}
}

// finish aligns the axes still open: at the end, or with maxHeld verdicts
// waiting.
func (a *aligner) finish() {
	for i := range a.axes {
		if !a.axes[i].decided {
			a.decideOffset(i)
		}
	}
}

// errorOf returns axis i's error in a verdict, once the axis is aligned;
// NaN when the alignment does not reach the verdict.
func (a *aligner) errorOf(v *verdict, i int) float64 {
	ax := &a.axes[i]
	switch ax.method {
	case MethodGlobal:
		if !finite(v.global[i]) && finite(v.diff[i]) {
			ax.withoutFrm++
		}
		return v.global[i]
	case MethodOffset:
		return v.diff[i] - ax.offset
	}
	return math.NaN()
}

// report writes the alignment into the Result; cum is the cumulated resets
// at the end.
func (a *aligner) report(res *Result, cum [3]float64) {
	for i := range a.axes {
		ax := &a.axes[i]
		out := &AxisAlignment{Method: ax.method, Note: ax.noGlobal}
		switch ax.method {
		case MethodGlobal:
			out.CheckM, out.CheckStampNs = num(ax.checkDiff), ax.checkAt
			out.WithoutFrame = ax.withoutFrm
			out.How = "global frame: truth projected into the estimator's origin"
		case MethodOffset:
			w := ax.w
			out.OffsetM, out.FinalOffsetM = num(ax.offset+w.cumAt), num(ax.offset+cum[i])
			out.WindowStartNs, out.WindowEndNs, out.WindowSamples = w.from, w.to, uint64(len(w.samples))
			out.Settled = w == &ax.settledW
			if ax.checked {
				out.CheckM, out.CheckStampNs = num(ax.checkDiff), ax.checkAt
			}
			where := "the axis' first claim within the known threshold"
			switch {
			case !out.Settled && ax.settled:
				where = "the first belief with truth (no claim within the known threshold had truth)"
			case !out.Settled:
				where = "the first belief with truth (the axis never claimed within the known threshold)"
			}
			out.How = fmt.Sprintf("offset: median of estimate minus truth over %.1f s from %.3f s, %s (%d samples): %.3f m",
				float64(w.to-w.from)/1e9, float64(w.from)/1e9, where, len(w.samples), ax.offset+w.cumAt)
		default:
			out.How = "none: no belief had a position truth"
		}
		res.Alignment.Axes[AxisNames[i]] = out
	}
	res.PositionAlignment = positionAlignment(res)
}

// positionAlignment names the position axes' alignment in one line.
func positionAlignment(res *Result) string {
	byMethod := map[string][]string{}
	var methods []string
	for _, name := range AxisNames[:3] {
		m := res.Alignment.Axes[name].Method
		if len(byMethod[m]) == 0 {
			methods = append(methods, m)
		}
		byMethod[m] = append(byMethod[m], name)
	}
	var parts []string
	for _, m := range methods {
		axes := joinAxes(byMethod[m])
		switch m {
		case MethodGlobal:
			parts = append(parts, axes+" in the global frame (truth projected into the estimator's origin)")
		case MethodOffset:
			parts = append(parts, axes+" by an offset (median of estimate minus truth)")
		default:
			parts = append(parts, axes+" not aligned (no position truth)")
		}
	}
	return "position aligned: " + joinAnd(parts)
}

func joinAxes(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return joinAnd(names)
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " and " + s[len(s)-1]
}

// originOf is a declared origin as the Result gives it.
func originOf(o truth.Origin) Origin {
	out := Origin{StampNs: o.StampNs}
	if o.HasXY() {
		out.Lat, out.Lon = num(o.Lat), num(o.Lon)
	}
	if o.HasZ() {
		out.AltM = num(o.Alt)
	}
	return out
}
