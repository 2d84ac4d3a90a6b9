// Package report turns a ghost recording into an audit report a person
// understands at a glance: one self-contained HTML file (inline CSS and SVG,
// no scripts, fonts or links outside the file) with a header (recording,
// span, policies, audit verdict, input source), figures on one time axis
// (decisions by kind, assessment levels, standard deviations against their
// thresholds, battery, flight mode, perception mode, and marks where a
// belief was decided without an assessment, where inputs were rejected and
// where the audit found a problem) and the table of decision episodes.
//
// It works in two halves. Collect reads a recording once into a Flight:
// per-time-bucket aggregates whose number is bounded whatever the
// recording's length, and every change of decision kind kept exactly.
// Render writes the HTML of a Flight and an Audit; Figures returns the
// figures as standalone SVG documents.
//
// The package reads recordings and draws; it must not decide, re-run
// policies or judge the hash chain: the audit verdict comes from the caller
// as an Audit value.
package report
