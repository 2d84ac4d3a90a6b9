package decisions

import "math"

// The consistency of a self-assessment with its own content: what the
// reference tolerates (so hashes and decisions stay identical to it) but
// an auditor would want to see. The tests use it to hold the classifier to
// it; no production code reports it.

// Inconsistency is something a self-assessment claims that its own content
// contradicts, but that the reference accepts (so hashes and decisions stay
// identical to it).
type Inconsistency struct {
	Field  string // .msg field name
	Detail string // what disagrees with what
}

// Consistency lists what the reference tolerates but an auditor should see:
// an axis level that does not follow from its std and the thresholds, a block
// or overall level that is not the worst of its parts, a thresholds_sha256
// that is not the hash of thresholds_used, covariance_available disagreeing
// with the presence of standard deviations (false while some std is given;
// true with every std none is what a covariance of non-finite or negative
// diagonal entries produces, so it is not reported). The list is empty for anything
// Assess produced. Call it on a valid assessment.
func (a *SelfAssessment) Consistency() []Inconsistency {
	var out []Inconsistency
	for i, std := range a.Std {
		known, unknown := a.ThresholdsUsed.Block(i / 3)
		if want := classify(std, known, unknown); want != a.AxisLevel[i] {
			out = append(out, Inconsistency{levelField(i),
				"claims " + a.AxisLevel[i].String() + " but " + stdField(i) + " " + FormatFloat(std) + " classifies as " + want.String()})
		}
	}
	for b := 0; b < 3; b++ {
		if w := Worst(a.AxisLevel[3*b], a.AxisLevel[3*b+1], a.AxisLevel[3*b+2]); w != a.BlockLevel[b] {
			out = append(out, Inconsistency{blockNames[b] + "_overall_level",
				"claims " + a.BlockLevel[b].String() + " but the worst of its axes is " + w.String()})
		}
	}
	if w := Worst(a.BlockLevel[:]...); w != a.OverallLevel {
		out = append(out, Inconsistency{"overall_level",
			"claims " + a.OverallLevel.String() + " but the worst of its blocks is " + w.String()})
	}
	if h := a.ThresholdsUsed.SHA256(); h != a.ThresholdsSHA256 {
		out = append(out, Inconsistency{"thresholds_sha256", "claims " + a.ThresholdsSHA256 + " but thresholds_used hashes to " + h})
	}
	anyStd := false
	for _, s := range a.Std {
		if !math.IsNaN(s) {
			anyStd = true
		}
	}
	if anyStd && !a.CovarianceAvailable {
		out = append(out, Inconsistency{"covariance_available", "false, yet standard deviations are present"})
	}
	return out
}
