package audit

import (
	"fmt"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// audit renders the verdict on one recorded decision; rd is the Loop's
// decision for its stamp, nil when the Loop has none.
func (v *verifier) audit(p recorded, rd *redecision) {
	r := p.r
	d := r.Decision
	res := DecisionAudit{
		LogTimeNs: p.logTime, Stamp: r.BeliefStampSimNs, Kind: d.Kind, KindName: d.Kind.String(),
		Reason: d.Reason, PolicyID: r.PolicyID,
	}
	var problems decisionProblems
	if v.lastStamp >= 0 && r.BeliefStampSimNs <= v.lastStamp {
		problems.add(FindingStampProblem, "", "", fmt.Sprintf("stamp %d not after the previous decision's %d", r.BeliefStampSimNs, v.lastStamp))
		v.report.StampProblems++
		v.report.find(FindingStampProblem, 1)
	}
	hashes := v.chain.find(r.BeliefStampSimNs)
	res.Chain = v.chainVerdict(&r, &hashes, &problems)
	res.Rerun = v.rerunVerdict(&r, rd, res.Chain, &problems)
	v.record(&res, &r, &hashes, &problems)
}

// chainVerdict checks the hash chain (ADR-0022) of r against every
// recorded assessment of its stamp, hashes.
func (v *verifier) chainVerdict(r *decisions.Rationale, hashes *chainHashes, problems *decisionProblems) ChainStatus {
	switch {
	case r.SelfAssessmentSHA256 == "":
		return ChainNoAssessmentClaimed
	case hashes.count() == 0:
		cause := ""
		if v.chain.any && r.BeliefStampSimNs < v.chain.oldest {
			cause = CauseRecordingStartedLate
		}
		problems.add(FindingAssessmentMissing, cause, "", fmt.Sprintf("no self-assessment with stamp %d in the recording", r.BeliefStampSimNs))
		return ChainAssessmentMissing
	}
	for k := range hashes.count() {
		if hashes.at(k).is(r.SelfAssessmentSHA256) {
			return ChainVerified
		}
	}
	problems.add(FindingChainBroken, "", "", fmt.Sprintf("self_assessment_sha256 %s, but the assessment with stamp %d hashes to %s",
		r.SelfAssessmentSHA256, r.BeliefStampSimNs, hashes.first.hex()))
	return ChainBroken
}

// rerunVerdict compares r with the Loop's own decision for its stamp, rd
// (nil when the Loop has none); chain is r's chain verdict.
func (v *verifier) rerunVerdict(r *decisions.Rationale, rd *redecision, chain ChainStatus, problems *decisionProblems) RerunStatus {
	switch {
	case v.candidateFor(r.PolicyID) == nil:
		if v.supplied(r.PolicyID) {
			problems.add(FindingUnknownPolicy, "", "", fmt.Sprintf("policy %q differs from the recording's first decision's: decision not re-run", r.PolicyID))
		} else {
			problems.add(FindingUnknownPolicy, CausePolicyNotSupplied, capText(r.PolicyID, 80), fmt.Sprintf("policy %q was not supplied: decision not re-run", r.PolicyID))
		}
		return RerunUnknownPolicy
	case chain == ChainBroken || chain == ChainAssessmentMissing:
		return RerunNoContext
	case rd == nil:
		cause := ""
		if v.haveBelief && r.BeliefStampSimNs < v.oldestBelief {
			cause = CauseRecordingStartedLate
		}
		problems.add(FindingNoContext, cause, "", fmt.Sprintf("the Loop, fed the recording, did not decide belief %d (belief missing or rejected)", r.BeliefStampSimNs))
		return RerunNoContext
	case !sameRationale(&rd.r, r):
		problems.add(FindingDiverged, "", "", fmt.Sprintf("re-run gives %s (assessment %s), recorded %s (assessment %s)",
			rd.r.Decision, shortHash(rd.r.SelfAssessmentSHA256), r.Decision, shortHash(r.SelfAssessmentSHA256)))
		return RerunDiverged
	}
	if chain == ChainNoAssessmentClaimed {
		v.report.WithoutAssessment[rd.without.String()]++
	}
	return RerunMatched
}

// record counts the verdict res on r in the report, hands it to the action
// audit and OnAudit, and advances the newest audited stamp.
func (v *verifier) record(res *DecisionAudit, r *decisions.Rationale, hashes *chainHashes, problems *decisionProblems) {
	if len(problems.texts) > 0 {
		res.Problem = capText(strings.Join(problems.texts, "; "), 1000)
		problems.count(&v.report, res)
	}
	res.ClaimedSHA256 = r.SelfAssessmentSHA256
	if hashes.count() > 0 && v.opts.OnAudit != nil {
		res.RecomputedSHA256 = hashes.at(hashes.count() - 1).hex() // only OnAudit reads it
	}
	v.report.count(res, r, v.opts.MaxProblems)
	v.acts.remember(r.BeliefStampSimNs, decidedVerdict{kind: r.Decision.Kind,
		ok: (res.Chain == ChainVerified || res.Chain == ChainNoAssessmentClaimed) && res.Rerun == RerunMatched}, v.opts.MaxHeld)
	defer v.traceWaiting(false)
	if v.opts.OnAudit != nil {
		v.opts.OnAudit(*res)
	}
	if r.BeliefStampSimNs > v.lastStamp {
		v.lastStamp = r.BeliefStampSimNs
	}
}

// decisionProblems are what is wrong with one decision, each with its
// finding and cause.
type decisionProblems struct {
	texts  []string
	causes []problemCause
}

type problemCause struct {
	f              Finding
	cause, subject string
}

// add records one problem; cause and subject as for AuditReport.cause.
func (p *decisionProblems) add(f Finding, cause, subject, text string) {
	p.texts = append(p.texts, text)
	p.causes = append(p.causes, problemCause{f, cause, subject})
}

// count counts the problems of the audited decision res under their
// causes, res describing them.
func (p *decisionProblems) count(r *AuditReport, res *DecisionAudit) {
	for _, c := range p.causes {
		r.cause(c.f, c.cause, c.subject, res.Describe)
	}
}

// sameRationale compares two rationales field by field.
func sameRationale(a, b *decisions.Rationale) bool { return *a == *b }

func shortHash(h string) string {
	if h == "" {
		return "none"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
