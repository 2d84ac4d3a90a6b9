package pyref

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/ghost-robotics/ghost/internal/timediff"
	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// TraceSchemaVersion is the envelope version of the reference's decision
// trace report; TraceAnalysisVersion the version written on the report and
// on every record.
const (
	TraceSchemaVersion   = "1"
	TraceAnalysisVersion = 1
)

// ChainStatus is the ADR-0022 verdict on one decision's chain to its
// self-assessment.
type ChainStatus string

// The four verdicts, spelled as the reference writes them.
const (
	// StatusVerified: the rationale's hash equals the recomputed hash of the
	// assessment recorded for its stamp.
	StatusVerified ChainStatus = "verified"
	// StatusBroken: an assessment was recorded for the stamp, its hash differs.
	StatusBroken ChainStatus = "broken"
	// StatusAssessmentMissing: the rationale claims a hash, no assessment has its stamp.
	StatusAssessmentMissing ChainStatus = "assessment_missing"
	// StatusNoAssessmentClaimed: the rationale claims no assessment (a legitimate case).
	StatusNoAssessmentClaimed ChainStatus = "no_assessment_claimed"
)

// Valid reports whether s is one of the four verdicts.
func (s ChainStatus) Valid() bool {
	switch s {
	case StatusVerified, StatusBroken, StatusAssessmentMissing, StatusNoAssessmentClaimed:
		return true
	}
	return false
}

// TraceRecord is the reference's DecisionTraceRecord: one per /decisions
// message, in log-time order. Its analysis_version is always written as
// TraceAnalysisVersion.
type TraceRecord struct {
	TimestampNs    int64
	DecisionKind   decisions.Kind
	DecisionReason string
	PolicyID       string
	// ClaimedAssessmentSHA256 is the rationale's hash; "" (written null)
	// when it claims none.
	ClaimedAssessmentSHA256 string
	// RecomputedAssessmentSHA256 is the hash of the assessment found for
	// the stamp; "" (written null) when none was looked up or found.
	RecomputedAssessmentSHA256 string
	ChainStatus                ChainStatus
}

// TraceReport is the reference's DecisionTraceReport (ADR-0022), the
// "trace" of the {"schema_version": "1", "trace": ...} document that
// scripts written for the reference read. Its analysis_version is always
// written as TraceAnalysisVersion.
type TraceReport struct {
	// SourceMCAPSHA256 is the SHA-256 of the whole recording file.
	SourceMCAPSHA256         string
	TotalDecisions           int
	VerifiedCount            int
	BrokenCount              int
	AssessmentMissingCount   int
	NoAssessmentClaimedCount int
	// PerDecisionKindCounts counts records by kind name; written with
	// sorted keys.
	PerDecisionKindCounts map[string]int
	// PerPolicyIDCounts counts records by policy id; written with sorted keys.
	PerPolicyIDCounts map[string]int
	// TimestampFirstNs, TimestampLastNs and TimestampSpanNs are the
	// smallest and largest record stamp and their difference; nil (null)
	// without records.
	TimestampFirstNs *int64
	TimestampLastNs  *int64
	TimestampSpanNs  *int64
	Records          []TraceRecord
}

// NewTraceReport derives every count, tally and stamp of the report from
// the records, as the reference does in the same pass; records are kept in
// the given order (log-time order of /decisions).
func NewTraceReport(sourceMCAPSHA256 string, records []TraceRecord) TraceReport {
	t := TraceReport{
		SourceMCAPSHA256:      sourceMCAPSHA256,
		TotalDecisions:        len(records),
		PerDecisionKindCounts: map[string]int{},
		PerPolicyIDCounts:     map[string]int{},
		Records:               slices.Clone(records),
	}
	if t.Records == nil {
		t.Records = []TraceRecord{}
	}
	for i, r := range records {
		switch r.ChainStatus {
		case StatusVerified:
			t.VerifiedCount++
		case StatusBroken:
			t.BrokenCount++
		case StatusAssessmentMissing:
			t.AssessmentMissingCount++
		case StatusNoAssessmentClaimed:
			t.NoAssessmentClaimedCount++
		}
		t.PerDecisionKindCounts[r.DecisionKind.String()]++
		t.PerPolicyIDCounts[r.PolicyID]++
		if i == 0 {
			first, last := r.TimestampNs, r.TimestampNs
			t.TimestampFirstNs, t.TimestampLastNs = &first, &last
			continue
		}
		*t.TimestampFirstNs = min(*t.TimestampFirstNs, r.TimestampNs)
		*t.TimestampLastNs = max(*t.TimestampLastNs, r.TimestampNs)
	}
	if len(records) > 0 {
		span := timediff.Sub(*t.TimestampLastNs, *t.TimestampFirstNs)
		t.TimestampSpanNs = &span
	}
	return t
}

// Validate applies the invariants the reference enforces before it writes
// a report: a SHA-256 of 64 lowercase hex characters, as many records as
// total_decisions, status counts summing to it, and per record a stamp >=
// 0, a kind of the catalog, a known status and hashes that are empty or 64
// lowercase hex characters.
func (t *TraceReport) Validate() error {
	if !isSHA256Hex(t.SourceMCAPSHA256) {
		return fmt.Errorf("%w: source_mcap_sha256 = %q: must be 64 lowercase hex characters", ErrReport, excerpt(t.SourceMCAPSHA256))
	}
	if t.TotalDecisions != len(t.Records) {
		return fmt.Errorf("%w: total_decisions = %d: must equal the %d records", ErrReport, t.TotalDecisions, len(t.Records))
	}
	if sum := t.VerifiedCount + t.BrokenCount + t.AssessmentMissingCount + t.NoAssessmentClaimedCount; sum != t.TotalDecisions {
		return fmt.Errorf("%w: status counts sum to %d: must equal total_decisions %d", ErrReport, sum, t.TotalDecisions)
	}
	for i, r := range t.Records {
		switch {
		case r.TimestampNs < 0:
			return fmt.Errorf("%w: records[%d].timestamp_ns = %d: must be >= 0", ErrReport, i, r.TimestampNs)
		case !r.DecisionKind.Valid():
			return fmt.Errorf("%w: records[%d].decision_kind = %s: not in the catalog", ErrReport, i, r.DecisionKind)
		case !r.ChainStatus.Valid():
			return fmt.Errorf("%w: records[%d].chain_status = %q: not a chain status", ErrReport, i, excerpt(string(r.ChainStatus)))
		case r.ClaimedAssessmentSHA256 != "" && !isSHA256Hex(r.ClaimedAssessmentSHA256):
			return fmt.Errorf("%w: records[%d].claimed_assessment_sha256 = %q: must be null or 64 lowercase hex characters", ErrReport, i, excerpt(r.ClaimedAssessmentSHA256))
		case r.RecomputedAssessmentSHA256 != "" && !isSHA256Hex(r.RecomputedAssessmentSHA256):
			return fmt.Errorf("%w: records[%d].recomputed_assessment_sha256 = %q: must be null or 64 lowercase hex characters", ErrReport, i, excerpt(r.RecomputedAssessmentSHA256))
		}
	}
	return nil
}

// WriteTraceReport writes t as the reference writes its report: the
// document {"schema_version": "1", "trace": t}, keys sorted at every
// level, two-space indentation, non-ASCII unescaped, a trailing newline,
// byte for byte what Python's json.dumps(sort_keys=True, indent=2,
// ensure_ascii=False) + "\n" gives. An invalid report is refused (see
// Validate) and nothing is written.
func WriteTraceReport(w io.Writer, t TraceReport) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if _, err := w.Write(AppendTraceReport(nil, t)); err != nil {
		return fmt.Errorf("write trace report: %w", err)
	}
	return nil
}

// AppendTraceReport appends the bytes WriteTraceReport writes, without
// validating t.
func AppendTraceReport(b []byte, t TraceReport) []byte {
	b = append(b, "{\n  \"schema_version\": "...)
	b = decisions.AppendJSONString(b, TraceSchemaVersion)
	b = append(b, ",\n  \"trace\": {\n    \"analysis_version\": "...)
	b = strconv.AppendInt(b, TraceAnalysisVersion, 10)
	b = appendIntMember(b, "assessment_missing_count", int64(t.AssessmentMissingCount))
	b = appendIntMember(b, "broken_count", int64(t.BrokenCount))
	b = appendIntMember(b, "no_assessment_claimed_count", int64(t.NoAssessmentClaimedCount))
	b = appendCounts(b, "per_decision_kind_counts", t.PerDecisionKindCounts)
	b = appendCounts(b, "per_policy_id_counts", t.PerPolicyIDCounts)
	b = append(b, ",\n    \"records\": "...)
	if len(t.Records) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, '[')
		for i, r := range t.Records {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRecord(b, r)
		}
		b = append(b, "\n    ]"...)
	}
	b = append(b, ",\n    \"source_mcap_sha256\": "...)
	b = decisions.AppendJSONString(b, t.SourceMCAPSHA256)
	b = appendOptIntMember(b, "timestamp_first_ns", t.TimestampFirstNs)
	b = appendOptIntMember(b, "timestamp_last_ns", t.TimestampLastNs)
	b = appendOptIntMember(b, "timestamp_span_ns", t.TimestampSpanNs)
	b = appendIntMember(b, "total_decisions", int64(t.TotalDecisions))
	b = appendIntMember(b, "verified_count", int64(t.VerifiedCount))
	return append(b, "\n  }\n}\n"...)
}

// appendRecord writes one record at indentation level 3 (keys sorted).
func appendRecord(b []byte, r TraceRecord) []byte {
	const in = "\n        \""
	b = append(b, "\n      {"...)
	b = append(b, in+"analysis_version\": "...)
	b = strconv.AppendInt(b, TraceAnalysisVersion, 10)
	b = append(b, ","+in+"chain_status\": "...)
	b = decisions.AppendJSONString(b, string(r.ChainStatus))
	b = append(b, ","+in+"claimed_assessment_sha256\": "...)
	b = appendOptString(b, r.ClaimedAssessmentSHA256)
	b = append(b, ","+in+"decision_kind\": "...)
	b = decisions.AppendJSONString(b, r.DecisionKind.String())
	b = append(b, ","+in+"decision_reason\": "...)
	b = decisions.AppendJSONString(b, r.DecisionReason)
	b = append(b, ","+in+"policy_id\": "...)
	b = decisions.AppendJSONString(b, r.PolicyID)
	b = append(b, ","+in+"recomputed_assessment_sha256\": "...)
	b = appendOptString(b, r.RecomputedAssessmentSHA256)
	b = append(b, ","+in+"timestamp_ns\": "...)
	b = strconv.AppendInt(b, r.TimestampNs, 10)
	return append(b, "\n      }"...)
}

// appendIntMember writes ,\n    "<key>": <v> (a member of "trace").
func appendIntMember(b []byte, key string, v int64) []byte {
	b = append(b, ",\n    \""...)
	b = append(b, key...)
	b = append(b, "\": "...)
	return strconv.AppendInt(b, v, 10)
}

func appendOptIntMember(b []byte, key string, v *int64) []byte {
	if v == nil {
		b = append(b, ",\n    \""...)
		b = append(b, key...)
		return append(b, "\": null"...)
	}
	return appendIntMember(b, key, *v)
}

// appendCounts writes a tally as an object with keys sorted by code point
// (byte order of UTF-8 is code point order); Python prints an empty dict as {}.
func appendCounts(b []byte, key string, m map[string]int) []byte {
	b = append(b, ",\n    \""...)
	b = append(b, key...)
	b = append(b, "\": "...)
	if len(m) == 0 {
		return append(b, "{}"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n      "...)
		b = decisions.AppendJSONString(b, k)
		b = append(b, ": "...)
		b = strconv.AppendInt(b, int64(m[k]), 10)
	}
	return append(b, "\n    }"...)
}

func appendOptString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return decisions.AppendJSONString(b, s)
}

// isSHA256Hex reports whether s is 64 lowercase hexadecimal characters.
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
