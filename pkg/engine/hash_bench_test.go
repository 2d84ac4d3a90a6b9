package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"testing"

	"github.com/ghost-robotics/ghost/internal/benchratio"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// BenchmarkDecideNewAssessment is a decision on an assessment nobody
// hashed yet, as the decision path makes it: the assessment hashed with a
// TextMemo (as the session's decoder and the Loop's admission do), then
// the decision bound to that hash, against the bare SHA-256 of the same
// canonical text (benchratio). The assessments come in stamp order, 256
// of them, each changing changed of the nine standard deviations of the
// one before: 2 is an estimator holding most variances from one belief to
// the next (about 4 in 5 repeat in the simulated flight and in a PX4
// log), 9 the worst case, every value new.
func BenchmarkDecideNewAssessment(b *testing.B) {
	for _, tc := range newAssessmentCases {
		b.Run(tc.name, func(b *testing.B) {
			as, ctxs, texts := newAssessments(b, 256, tc.changed)
			var memo TextMemo
			p := decisions.ReferencePolicy{}
			i, j := 0, 0
			decide := func() {
				k := i % len(as)
				i++
				h := HashAssessment(&as[k], &memo)
				if _, _, err := decisions.DecideWithRationale(p, ctxs[k], h.Hex()); err != nil {
					b.Fatal(err)
				}
			}
			var sink byte
			raw := func() {
				sum := sha256.Sum256(texts[j%len(texts)])
				j++
				sink ^= sum[0]
			}
			benchratio.Report(b, decide, raw)
			_ = sink
		})
	}
}

// BenchmarkDecideNewAssessmentLeast is the least any implementation of a
// decision with a new assessment must do besides the SHA-256, against that
// SHA-256 (benchratio): write the standard deviations that changed from the
// previous assessment, as Python's repr digits require (strconv's shortest
// formatting), run the policy, and write the hash in hex. It leaves out
// everything else the decision path does (the rest of the text, every
// contract check, the rationale), so the ratio it reports, plus 1, bounds
// from below what DecideNewAssessment can reach on the same inputs.
func BenchmarkDecideNewAssessmentLeast(b *testing.B) {
	for _, tc := range newAssessmentCases {
		b.Run(tc.name, func(b *testing.B) {
			as, ctxs, texts := newAssessments(b, 256, tc.changed)
			changed := make([][]float64, len(as))
			for k := range as {
				prev := as[(k+len(as)-1)%len(as)]
				for i, s := range as[k].Std {
					if math.Float64bits(s) != math.Float64bits(prev.Std[i]) {
						changed[k] = append(changed[k], s)
					}
				}
			}
			p := decisions.ReferencePolicy{}
			var buf []byte
			var sum [32]byte
			var hx [64]byte
			i, j := 0, 0
			least := func() {
				k := i % len(as)
				i++
				buf = buf[:0]
				for _, s := range changed[k] {
					buf = decisions.AppendFloat(buf, s)
				}
				if _, err := p.Decide(ctxs[k]); err != nil {
					b.Fatal(err)
				}
				hex.Encode(hx[:], sum[:])
			}
			raw := func() {
				sum = sha256.Sum256(texts[j%len(texts)])
				j++
			}
			benchratio.Report(b, least, raw)
		})
	}
}

// newAssessmentCases are how many of the nine standard deviations each
// assessment of a benchmark changes from the one before.
var newAssessmentCases = []struct {
	name    string
	changed int
}{{"estimator", 2}, {"all-new", 9}}

// newAssessments returns n assessments in stamp order, each changing
// changed standard deviations of the one before (taking turns over the
// axes), with the contexts they are decided in and their canonical texts.
func newAssessments(b *testing.B, n, changed int) ([]decisions.SelfAssessment, []decisions.Context, [][]byte) {
	std := [9]float64{0.5, 0.2, 0.3, 0.04, 0.05, 0.06, 0.007, 0.008, 0.009}
	cov := make([]float64, decisions.CovarianceLen)
	as := make([]decisions.SelfAssessment, n)
	ctxs := make([]decisions.Context, n)
	texts := make([][]byte, n)
	axis := 0
	for k := range n {
		for range changed {
			std[axis] *= 1 + 1e-3*float64(k%7+1)
			axis = (axis + 1) % len(std)
		}
		for i, s := range std {
			cov[i*decisions.CovarianceDim+i] = s * s
		}
		stamp := int64(k) * 10_000_000
		a, err := decisions.Assess(stamp, cov, testThresholds)
		if err != nil {
			b.Fatal(err)
		}
		as[k] = a
		texts[k] = a.AppendCanonicalJSON(nil)
		ctxs[k] = decisions.Context{BeliefStampSimNs: stamp, SelfAssessment: &as[k],
			Flight:  decisions.FlightStatus{BatteryV: math.NaN(), BatteryPct: math.NaN()},
			Mission: decisions.MissionStatus{StartedSimNs: decisions.NotStarted}}
	}
	return as, ctxs, texts
}
