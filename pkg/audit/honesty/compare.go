package honesty

import (
	"fmt"
	"math"

	"github.com/ghost-robotics/ghost/internal/quat"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/vehicle/truth"
)

// verdict is one belief judged against the truth.
type verdict struct {
	stamp       int64
	hasClaim    bool
	hasDecision bool
	kind        decisions.Kind
	overall     decisions.Level
	level       [9]decisions.Level
	std         [9]float64
	known       [9]float64 // the known threshold of each axis' block
	err         [9]float64 // estimate minus truth; NaN without a verdict
	nees        [3]float64 // NaN without one
	neesSkipped [3]bool    // truth on the whole block, but no usable covariance
	// The position's error waits for the alignment (align.go): diff is
	// the estimate minus the simulator's local truth, less the resets
	// cumulated up to the belief (cum); global is the estimate minus the
	// truth projected into the estimator's origin. NaN where missing.
	diff, cum, global [3]float64
	posCov            [3][3]float64
	hasPosCov         bool
}

// comparer turns beliefs and truth into verdicts and adds them up.
type comparer struct {
	res  *Result
	opts Options
	// cum sums the estimator's reset steps read so far, per axis.
	cum    [3]float64
	origin truth.Origin // the estimator's origin in force; none declared at first
	align  aligner
	// held are the verdicts judged while an axis' alignment is open.
	held           []verdict
	prev           verdict
	hasPrev        bool
	thresholdNoted [9]bool
}

func newComparer(res *Result, opts Options, hasGlobal bool) comparer {
	nan := math.NaN()
	return comparer{res: res, opts: opts, origin: truth.Origin{Lat: nan, Lon: nan, Alt: nan},
		align: aligner{hasGlobal: hasGlobal, windowNs: int64(opts.OffsetWindow)}}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// reset takes an estimator reset: the estimate jumped by its step, which
// the axes aligned by offset take for a move of the estimator's frame.
func (c *comparer) reset(r truth.Reset) {
	rc := &c.res.Alignment.Resets
	for i, d := range r.Delta {
		c.cum[i] += d
	}
	rc.Read++
	if len(rc.First) < 20 {
		rc.First = append(rc.First, Reset{StampNs: r.StampNs, DeltaM: [3]Number{Number(r.Delta[0]), Number(r.Delta[1]), Number(r.Delta[2])}})
	}
}

// declare takes an origin the estimator declared, in force from its stamp.
func (c *comparer) declare(o truth.Origin) {
	oc := &c.res.Alignment.Origin
	c.origin = o
	oc.Declared++
	if len(oc.First) < 20 {
		oc.First = append(oc.First, originOf(o))
	}
}

// verdictOf judges belief e against the truth interpolated at its stamp
// (nil for a stream without truth there).
func (c *comparer) verdictOf(e *entry, tr [truth.NumStreams]*truth.Sample) verdict {
	v := verdict{stamp: e.stamp, hasClaim: e.hasAssessment, hasDecision: e.hasDecision, kind: e.kind}
	nan := math.NaN()
	for i := range v.err {
		v.err[i], v.std[i] = nan, nan
	}
	for i := range v.nees {
		v.nees[i] = nan
	}
	v.diff, v.global, v.cum = [3]float64{nan, nan, nan}, [3]float64{nan, nan, nan}, c.cum
	if e.hasAssessment {
		a := &e.assessment
		v.level, v.std, v.overall = a.AxisLevel, a.Std, a.OverallLevel
		for i := range v.known {
			v.known[i], _ = a.ThresholdsUsed.Block(i / 3)
		}
	}
	if p := tr[truth.StreamPosition]; p != nil {
		for i := range 3 {
			if finite(e.pos[i]) {
				v.diff[i] = e.pos[i] - p.Value[i] - c.cum[i]
			}
		}
	}
	if g := tr[truth.StreamGlobal]; g != nil {
		p := c.origin.ENU(g.Value[0], g.Value[1], g.Value[2])
		for i := range 3 {
			if finite(e.pos[i]) && finite(p[i]) {
				v.global[i] = e.pos[i] - p[i]
			}
		}
	}
	if t := tr[truth.StreamVelocity]; t != nil {
		for i := range 3 {
			if finite(e.vel[i]) {
				v.err[3+i] = e.vel[i] - t.Value[i]
			}
		}
	}
	if t := tr[truth.StreamAttitude]; t != nil {
		if q, ok := unit(e.q); ok {
			rv := quat.RotationVector(quat.Mul(quat.Conj(t.Q), q))
			copy(v.err[6:], rv[:])
		}
	}
	v.posCov, v.hasPosCov = covBlock(e.cov, 0)
	for b := 1; b < 3; b++ {
		v.nees[b], v.neesSkipped[b] = blockNEES(e.cov, b, [3]float64{v.err[3*b], v.err[3*b+1], v.err[3*b+2]})
	}
	return v
}

// blockNEES returns block b's NEES for error ex, NaN without truth on the
// whole block, and whether the covariance was what was missing.
func blockNEES(cov []float64, b int, ex [3]float64) (float64, bool) {
	if !finite(ex[0]) || !finite(ex[1]) || !finite(ex[2]) {
		return math.NaN(), false
	}
	p, ok := covBlock(cov, b)
	if !ok {
		return math.NaN(), true
	}
	if n, ok := nees(p, ex); ok {
		return n, false
	}
	return math.NaN(), true
}

// judged takes a verdict in stamp order: held while a position axis'
// alignment is open, then added with its position errors.
func (c *comparer) judged(v *verdict) {
	if !c.align.open() {
		c.release(v)
		return
	}
	c.align.observe(v)
	c.held = append(c.held, *v)
	if c.align.open() && len(c.held) >= c.opts.maxHeld {
		c.align.finish()
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("%d beliefs waited for the position's alignment: it was settled with what they gave", len(c.held)))
	}
	if !c.align.open() {
		c.flush()
	}
}

// flush releases the verdicts held.
func (c *comparer) flush() {
	for i := range c.held {
		c.release(&c.held[i])
	}
	c.held = c.held[:0]
}

// release completes a verdict's position errors and NEES and adds it.
func (c *comparer) release(v *verdict) {
	for i := range 3 {
		v.err[i] = c.align.errorOf(v, i)
	}
	if ex := [3]float64{v.err[0], v.err[1], v.err[2]}; finite(ex[0]) && finite(ex[1]) && finite(ex[2]) {
		n, ok := nees(v.posCov, ex)
		switch {
		case ok && v.hasPosCov:
			v.nees[0] = n
		default:
			v.neesSkipped[0] = true
		}
	}
	c.add(v)
}

// add takes a verdict; its time (to the next belief, at most MaxHold) is
// known with the next one, so it is added up then.
func (c *comparer) add(v *verdict) {
	if c.hasPrev {
		c.accumulate(&c.prev, max(min(v.stamp-c.prev.stamp, int64(c.opts.MaxHold)), 0))
	}
	c.prev, c.hasPrev = *v, true
}

// accumulate adds one verdict that held dtNs.
func (c *comparer) accumulate(v *verdict, dtNs int64) {
	r := c.res
	if !v.hasClaim {
		r.Beliefs.WithoutAssessment++
	}
	if !v.hasDecision {
		r.Beliefs.WithoutDecision++
	}
	compared := false
	for i := range v.err {
		if finite(v.err[i]) && v.hasClaim {
			compared = true
			c.axis(v, i, dtNs)
		}
	}
	for b, n := range v.nees {
		switch {
		case finite(n):
			x := r.NEES[BlockNames[b]]
			x.Samples++
			x.sum += n
			if n >= float64(x.Lower) && n <= float64(x.Upper) {
				x.Within++
			}
		case v.neesSkipped[b]:
			r.NEES[BlockNames[b]].Skipped++
		}
	}
	if compared {
		r.Beliefs.Compared++
		if c.opts.OnSample != nil {
			c.opts.OnSample(&Sample{StampNs: v.stamp, Err: v.err, Std: v.std, Level: v.level, HasClaim: true})
		}
	}
	c.consequences(v, dtNs)
}

// axis adds axis i of a verdict with a claim and a truth.
func (c *comparer) axis(v *verdict, i int, dt int64) {
	ax := c.res.Axes[AxisNames[i]]
	e, known := v.err[i], v.known[i]
	if ax.Samples == 0 {
		ax.KnownThreshold = Number(known)
	} else if known != float64(ax.KnownThreshold) && !c.thresholdNoted[i] {
		c.thresholdNoted[i] = true
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("%s: the known threshold changed during the recording (%g, then %g); each claim is judged against its own",
			AxisNames[i], ax.KnownThreshold, known))
	}
	ax.Samples++
	beyond := math.Abs(e) > known
	lvl := v.level[i]
	l := ax.ByLevel[lvl.String()]
	if l == nil { // a level outside the catalog: counted as unknown
		l = ax.ByLevel["unknown"]
	}
	l.Claims++
	l.ns[0] += dt
	if beyond {
		l.BeyondKnown++
		l.ns[2] += dt
	} else {
		l.WithinKnown++
		l.ns[1] += dt
	}
	if lvl == decisions.LevelKnown {
		ax.KnownClaims++
		ax.ns[0] += dt
		if beyond {
			ax.KnownViolations++
			ax.ns[1] += dt
		}
	} else {
		ax.UnknownClaims++
		ax.ns[2] += dt
		if !beyond {
			ax.UnknownButWithin++
			ax.ns[3] += dt
		}
	}
	if s := v.std[i]; finite(s) && s > 0 {
		n := e / s
		ax.sumNorm2 += n * n
		ax.NormalizedSamples++
		if math.Abs(n) > 3 {
			ax.Beyond3Sigma++
		}
	}
	ax.sumErr2 += e * e
	ax.maxAbs = max(ax.maxAbs, math.Abs(e))
}

// finish aligns what is still open, adds the verdicts held and the last
// one (it held no time: no belief followed) and completes the figures.
func (c *comparer) finish() {
	c.align.finish()
	c.flush()
	c.align.report(c.res, c.cum)
	if c.hasPrev {
		c.accumulate(&c.prev, 0)
		c.hasPrev = false
	}
	r := c.res
	for _, g := range []*Group{r.Consequences.Overconfident, r.Consequences.NeedlessHolds, r.Consequences.NeedlessAbstentions} {
		g.close(c.opts.MaxEpisodes)
		g.settle()
	}
	for _, ax := range r.Axes {
		ax.settle()
		if ax.NormalizedSamples > 0 {
			ax.RMSNormalizedError = num(math.Sqrt(ax.sumNorm2 / float64(ax.NormalizedSamples)))
		}
		if ax.Samples > 0 {
			ax.RMSError = num(math.Sqrt(ax.sumErr2 / float64(ax.Samples)))
			ax.MaxAbsError = num(ax.maxAbs)
		}
	}
	for _, n := range r.NEES {
		if n.Samples == 0 {
			continue
		}
		k := float64(n.Samples)
		n.Mean = num(n.sum / k)
		n.FractionWithin = num(float64(n.Within) / k)
		dof := n.DOF * int(min(n.Samples, 1<<20))
		n.MeanLower = num(ChiSquareQuantile(0.025, dof) / float64(dof/n.DOF))
		n.MeanUpper = num(ChiSquareQuantile(0.975, dof) / float64(dof/n.DOF))
	}
}

// unit returns q normalized, if it is a usable quaternion.
func unit(q [4]float64) ([4]float64, bool) {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !finite(n) || n == 0 {
		return q, false
	}
	return [4]float64{q[0] / n, q[1] / n, q[2] / n, q[3] / n}, true
}

// covBlock returns block b's 3x3 covariance of a 15x15 row-major
// covariance; false when it is absent or not finite.
func covBlock(cov []float64, b int) ([3][3]float64, bool) {
	var p [3][3]float64
	if len(cov) != decisions.CovarianceLen {
		return p, false
	}
	for i := range 3 {
		for j := range 3 {
			p[i][j] = cov[(3*b+i)*decisions.CovarianceDim+3*b+j]
			if !finite(p[i][j]) {
				return p, false
			}
		}
	}
	return p, true
}

// nees returns e' P^-1 e through P's Cholesky factor; false when P is not
// positive definite.
func nees(p [3][3]float64, e [3]float64) (float64, bool) {
	var l [3][3]float64
	for i := range 3 {
		for j := 0; j <= i; j++ {
			s := (p[i][j] + p[j][i]) / 2
			for k := 0; k < j; k++ {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if s <= 0 {
					return 0, false
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	var y [3]float64
	sum := 0.0
	for i := range 3 {
		s := e[i]
		for k := 0; k < i; k++ {
			s -= l[i][k] * y[k]
		}
		y[i] = s / l[i][i]
		sum += y[i] * y[i]
	}
	return sum, finite(sum)
}
