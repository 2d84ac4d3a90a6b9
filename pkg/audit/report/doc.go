// Package report turns a ghost recording into an audit report a person
// understands at a glance: one self-contained HTML file (inline CSS and SVG,
// no scripts, fonts or links outside the file) with a header (recording,
// span and date, policies, audit verdict, input source, action and mode
// summaries), figures on one time axis (the decisions by kind with the
// action trail, escalation marks, battery against the policy's thresholds,
// armed state, flight mode and where it differs from the decision; a
// detail of each crowded stretch; assessment levels, standard deviations
// against their thresholds, perception mode, and marks where a belief was
// decided without an assessment, where inputs were rejected and where the
// audit found a problem), one legend giving each colour one meaning, and
// the tables of decision episodes and actions.
//
// It works in two halves. Collect reads a recording once into a Flight:
// per-time-bucket aggregates whose number is bounded whatever the
// recording's length, and every change of decision kind kept exactly.
// Render writes the HTML of a Flight and an Audit; Figures returns the
// figures as standalone SVG documents.
//
// The package reads recordings and draws; it must not decide, re-run
// policies or judge the hash chain: the audit verdict and the policy's
// thresholds come from the caller as an Audit value. What it derives
// (escalations, mode against decision) it derives from the recording alone,
// by the rules its legend states.
package report
