package decisions

import "strconv"

// Decision is what the agent decides to do for one belief stamp
// (Decision.msg). Its stamp equals the belief stamp of the context that
// produced it.
type Decision struct {
	Kind               Kind
	DecisionStampSimNs int64
	// Reason is a stable snake_case identifier: ^[a-z][a-z0-9_]*$, 1 to 64
	// characters.
	Reason        string
	SchemaVersion uint8
}

// Validate checks the kind, stamp >= 0, the reason's form and the schema version.
func (d Decision) Validate() error {
	if !d.Kind.Valid() {
		return invalid("Decision", "kind", uint8(d.Kind), "not in the closed catalog of seven kinds (0 to 6)")
	}
	if d.DecisionStampSimNs < 0 {
		return invalid("Decision", "decision_stamp_sim_ns", d.DecisionStampSimNs, "must be >= 0")
	}
	if !isIdentifier(d.Reason) {
		return invalid("Decision", "reason", d.Reason, "must match ^[a-z][a-z0-9_]*$, 1 to 64 characters")
	}
	if d.SchemaVersion != SchemaVersion {
		return invalid("Decision", "schema_version", d.SchemaVersion, "must be 1")
	}
	return nil
}

// AppendCanonicalJSON appends the canonical JSON of d, kind by name.
func (d Decision) AppendCanonicalJSON(b []byte) []byte {
	b = append(b, `{"decision_stamp_sim_ns":`...)
	b = appendInt(b, d.DecisionStampSimNs)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, d.Kind.String())
	b = append(b, `,"reason":`...)
	b = appendJSONString(b, d.Reason)
	b = append(b, `,"schema_version":`...)
	b = appendUint(b, uint64(d.SchemaVersion))
	return append(b, '}')
}

// String summarises d for logs, e.g. "hold@1500000 (overall_uncertain)".
func (d Decision) String() string {
	return d.Kind.String() + "@" + strconv.FormatInt(d.DecisionStampSimNs, 10) + " (" + d.Reason + ")"
}
