package pyref

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

const emptySHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// TestWriteEmptyTraceReport: a recording without decisions. The expected
// text is what Python's json.dumps(sort_keys=True, indent=2,
// ensure_ascii=False) prints for the reference's document: empty dicts as
// {}, an empty list as [], None as null.
func TestWriteEmptyTraceReport(t *testing.T) {
	const want = `{
  "schema_version": "1",
  "trace": {
    "analysis_version": 1,
    "assessment_missing_count": 0,
    "broken_count": 0,
    "no_assessment_claimed_count": 0,
    "per_decision_kind_counts": {},
    "per_policy_id_counts": {},
    "records": [],
    "source_mcap_sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "timestamp_first_ns": null,
    "timestamp_last_ns": null,
    "timestamp_span_ns": null,
    "total_decisions": 0,
    "verified_count": 0
  }
}
`
	var buf bytes.Buffer
	if err := WriteTraceReport(&buf, NewTraceReport(emptySHA, nil)); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestNewTraceReport: counts per status, kind and policy, and the first and
// last stamp as the minimum and maximum (the reference's min/max), not the
// first and last record.
func TestNewTraceReport(t *testing.T) {
	h := strings.Repeat("ab", 32)
	recs := []TraceRecord{
		{TimestampNs: 5, DecisionKind: decisions.KindHold, DecisionReason: "r", PolicyID: "p2", ClaimedAssessmentSHA256: h, RecomputedAssessmentSHA256: h, ChainStatus: StatusVerified},
		{TimestampNs: 3, DecisionKind: decisions.KindProceed, DecisionReason: "r", PolicyID: "p1", ClaimedAssessmentSHA256: h, ChainStatus: StatusAssessmentMissing},
		{TimestampNs: 9, DecisionKind: decisions.KindHold, DecisionReason: "r", PolicyID: "p1", ChainStatus: StatusNoAssessmentClaimed},
		{TimestampNs: 4, DecisionKind: decisions.KindEngageRTL, DecisionReason: "r", PolicyID: "p1", ClaimedAssessmentSHA256: h, RecomputedAssessmentSHA256: emptySHA, ChainStatus: StatusBroken},
	}
	r := NewTraceReport(emptySHA, recs)
	if r.TotalDecisions != 4 || r.VerifiedCount != 1 || r.BrokenCount != 1 || r.AssessmentMissingCount != 1 || r.NoAssessmentClaimedCount != 1 ||
		*r.TimestampFirstNs != 3 || *r.TimestampLastNs != 9 || *r.TimestampSpanNs != 6 ||
		r.PerDecisionKindCounts["hold"] != 2 || r.PerDecisionKindCounts["engage_rtl"] != 1 || len(r.PerDecisionKindCounts) != 3 ||
		r.PerPolicyIDCounts["p1"] != 3 || r.PerPolicyIDCounts["p2"] != 1 {
		t.Errorf("report %+v", r)
	}
	recs[0].TimestampNs = 100
	if r.Records[0].TimestampNs != 5 {
		t.Error("report shares the caller's records")
	}
	var buf bytes.Buffer
	if err := WriteTraceReport(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"\"per_decision_kind_counts\": {\n      \"engage_rtl\": 1,\n      \"hold\": 2,\n      \"proceed\": 1\n    },",
		"\"claimed_assessment_sha256\": null,",
		"\"recomputed_assessment_sha256\": null,\n        \"timestamp_ns\": 3\n      },\n      {",
		"\"timestamp_first_ns\": 3,\n    \"timestamp_last_ns\": 9,\n    \"timestamp_span_ns\": 6,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestTraceStrings: keys sort by code point and strings escape as
// json.dumps(ensure_ascii=False) does: quote, backslash and controls only.
func TestTraceStrings(t *testing.T) {
	r := NewTraceReport(emptySHA, nil)
	r.PerPolicyIDCounts = map[string]int{"é": 1, "a": 2, "Z": 3, "z": 4, "pol\"é\x01\u2028/\x7f\\\n": 5}
	got := string(AppendTraceReport(nil, r))
	want := "\"per_policy_id_counts\": {\n      \"Z\": 3,\n      \"a\": 2,\n      \"pol\\\"é\\u0001\u2028/\x7f\\\\\\n\": 5,\n      \"z\": 4,\n      \"é\": 1\n    },"
	if !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to contain\n%s", got, want)
	}
	if s := string(decisions.AppendJSONString(nil, "a\xffb")); s != "\"a\ufffdb\"" {
		t.Errorf("invalid UTF-8 written as %q", s)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) { w.n++; return 0, errors.New("disk full") }

func TestWriteTraceReportRefuses(t *testing.T) {
	h := strings.Repeat("0", 64)
	good := TraceRecord{TimestampNs: 1, DecisionKind: decisions.KindHold, DecisionReason: "r", PolicyID: "p",
		ClaimedAssessmentSHA256: h, RecomputedAssessmentSHA256: h, ChainStatus: StatusVerified}
	for _, tc := range []struct {
		name  string
		field string
		edit  func(r *TraceReport)
	}{
		{"source hash", "source_mcap_sha256", func(r *TraceReport) { r.SourceMCAPSHA256 = strings.ToUpper(emptySHA) }},
		{"total", "total_decisions", func(r *TraceReport) { r.TotalDecisions = 2 }},
		{"counts", "status counts", func(r *TraceReport) { r.VerifiedCount = 0 }},
		{"stamp", "timestamp_ns", func(r *TraceReport) { r.Records[0].TimestampNs = -1 }},
		{"kind", "decision_kind", func(r *TraceReport) { r.Records[0].DecisionKind = decisions.NumKinds }},
		{"status", "chain_status", func(r *TraceReport) { r.Records[0].ChainStatus = "fine" }},
		{"claimed", "claimed_assessment_sha256", func(r *TraceReport) { r.Records[0].ClaimedAssessmentSHA256 = "abc" }},
		{"recomputed", "recomputed_assessment_sha256", func(r *TraceReport) { r.Records[0].RecomputedAssessmentSHA256 = h + "0" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTraceReport(emptySHA, []TraceRecord{good})
			tc.edit(&r)
			w := &failWriter{}
			err := WriteTraceReport(w, r)
			if !errors.Is(err, ErrReport) || !strings.Contains(err.Error(), tc.field) || w.n != 0 {
				t.Errorf("error %v, %d writes", err, w.n)
			}
		})
	}
	err := WriteTraceReport(&failWriter{}, NewTraceReport(emptySHA, []TraceRecord{good}))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("writer failure: %v", err)
	}
}
