// Package decisions holds the belief-to-action contracts of ADR-0021 (and the
// belief self-assessment of ADR-0020 they rest on): the closed catalog of
// decision kinds, assessment levels and thresholds, the self-assessment and its
// classifier, the decision context, the decision and its rationale, canonical
// JSON and SHA-256 identical to the Python reference, the Policy interface,
// and the reference policy uncertainty_aware_reference_v1.
//
// Its values are plain comparable structs with no hidden fields, and it
// uses no unsafe. Hashing an assessment once and sharing the hash
// (pkg/engine's AssessmentHash), and the memo that writes repeated canonical
// text faster, live beside the code that needs them; the writers here are
// the reference they are tested against.
//
// The package is pure: it performs no I/O, reads no clock, draws no random
// numbers, starts no goroutines and never iterates over a map where order could
// leak into output. Given the same inputs every function returns the same
// bytes, which is what lets a recording be audited bit for bit. Transports,
// recordings and session state live in other packages that import this one;
// this package imports nothing of the project.
package decisions
