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
}

// comparer turns beliefs and truth into verdicts and adds them up.
type comparer struct {
	res  *Result
	opts Options
	// offset is the estimate minus the truth at each position axis'
	// anchor belief, moved by the resets since.
	offset         [3]float64
	anchored       [3]bool
	anchorAt       [3]int64
	prev           verdict
	hasPrev        bool
	thresholdNoted [9]bool
}

func newComparer(res *Result, opts Options) comparer { return comparer{res: res, opts: opts} }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// reset moves the offsets by an estimator reset: the estimate jumped by
// its step, so the same truth now lies that much further from it. A reset
// before an axis' anchor is already in the anchor's offset.
func (c *comparer) reset(r truth.Reset) {
	rc := &c.res.Offsets.Resets
	applied := false
	for i, d := range r.Delta {
		if c.anchored[i] && r.StampNs > c.anchorAt[i] {
			c.offset[i] += d
			applied = true
		}
	}
	if !applied {
		rc.BeforeAnchor++
		return
	}
	rc.Applied++
	if len(rc.First) < 20 {
		rc.First = append(rc.First, Reset{StampNs: r.StampNs, DeltaM: [3]Number{Number(r.Delta[0]), Number(r.Delta[1]), Number(r.Delta[2])}})
	}
}

// verdictOf judges belief e against the truth interpolated at its stamp
// (nil for a stream without truth there).
func (c *comparer) verdictOf(e *entry, tr [truth.NumStreams]*truth.Sample) verdict {
	v := verdict{stamp: e.stamp, hasClaim: e.hasAssessment, hasDecision: e.hasDecision, kind: e.kind}
	for i := range v.err {
		v.err[i], v.std[i] = math.NaN(), math.NaN()
	}
	for i := range v.nees {
		v.nees[i] = math.NaN()
	}
	if e.hasAssessment {
		a := &e.assessment
		v.level, v.std, v.overall = a.AxisLevel, a.Std, a.OverallLevel
		for i := range v.known {
			v.known[i], _ = a.ThresholdsUsed.Block(i / 3)
		}
	}
	if p := tr[truth.StreamPosition]; p != nil {
		c.position(&v, e, p)
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
	for b := range 3 {
		ex := [3]float64{v.err[3*b], v.err[3*b+1], v.err[3*b+2]}
		if !finite(ex[0]) || !finite(ex[1]) || !finite(ex[2]) {
			continue
		}
		if n, ok := nees(e.cov, b, ex); ok {
			v.nees[b] = n
		} else {
			v.neesSkipped[b] = true
		}
	}
	return v
}

// position sets the position errors, taking each axis' offset at the first
// belief with truth there (that belief gets no position verdict: its error
// is zero by construction).
func (c *comparer) position(v *verdict, e *entry, p *truth.Sample) {
	for i := range 3 {
		est := e.pos[i]
		if !finite(est) {
			continue
		}
		if !c.anchored[i] {
			c.offset[i], c.anchored[i], c.anchorAt[i] = est-p.Value[i], true, e.stamp
			c.res.Offsets.Axes[AxisNames[i]] = Offset{ValueM: Number(c.offset[i]), StampNs: e.stamp}
			continue
		}
		v.err[i] = est - p.Value[i] - c.offset[i]
	}
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

// finish adds the last verdict (it held no time: no belief followed) and
// completes the figures.
func (c *comparer) finish() {
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
	for i := range 3 {
		if c.anchored[i] {
			r.Offsets.Final[AxisNames[i]] = Number(c.offset[i])
		}
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

// nees returns e' P^-1 e for block b's 3x3 covariance P of a 15x15
// row-major covariance, through its Cholesky factor; false when P is
// absent, not finite or not positive definite.
func nees(cov []float64, b int, e [3]float64) (float64, bool) {
	if len(cov) != decisions.CovarianceLen {
		return 0, false
	}
	var p [3][3]float64
	for i := range 3 {
		for j := range 3 {
			p[i][j] = cov[(3*b+i)*decisions.CovarianceDim+3*b+j]
			if !finite(p[i][j]) {
				return 0, false
			}
		}
	}
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
