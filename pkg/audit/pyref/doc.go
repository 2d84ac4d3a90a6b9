// Package pyref reads the recordings of the Python reference implementation
// (project_ghost) and writes its decision trace report shape, so that the
// audit can verify a reference recording and existing scripts can read the
// result. It is a format layer: it decodes payloads and formats reports;
// the audit engine reads the file, joins, re-runs policies and judges.
//
// # The reference format
//
// The reference writes MCAP files with header library "project_ghost" and
// an empty profile. Every topic has one schema whose name is the Python
// class path (for example
// "project_ghost.core.uncertainty.self_assessment.BeliefSelfAssessment"),
// with an empty schema encoding and no schema data, and one channel with
// message encoding "json". A payload is json.dumps(to_json_safe(obj),
// sort_keys=True, ensure_ascii=False, separators=(",", ":")): dataclasses
// become objects with every field, enums their values, None null, numpy
// arrays {"__array": nested lists, "__dtype": "float64"}, floats Python's
// repr. Log time equals publish time equals the message's stamp in ns of
// simulation time.
//
// # What is mapped
//
// Detect recognises such a file; RoleOf maps a channel to the role the
// audit reads it for (schema name first, topic when there is none):
//
//	/state/nav                   VehicleState              -> decisions.Belief
//	/self_assessment             BeliefSelfAssessment      -> decisions.SelfAssessment
//	/self_assessment/calibrated  CalibratedSelfAssessment  -> raw assessment + decisions.Calibration
//	/decisions                   DecisionRationale         -> decisions.Rationale
//	/perception/mode             PerceptionModeChanged     -> decisions.PerceptionReport
//
// A self-assessment holds no arrays, so ghost's canonical JSON of a decoded
// assessment is byte-identical to the payload the reference wrote, and its
// SHA-256 is the hash the reference recomputes in its chain check.
// Null maps to ghost's "none": NaN for a std, battery or yaw, "" for a
// rationale that claims no assessment, -1 for a mission not started or a
// calibration without observed outcome.
//
// # What is ignored
//
// Channels of other roles (/fusion/results, /actuations,
// /predictions/forward, /predictions/outcomes, anything unknown) are not
// parsed: the caller counts them. Inside a payload, members without a ghost
// counterpart are not read (a belief's position, twists, acceleration,
// biases, sensor health and wall stamp; a perception event's previous mode,
// reason and producers), and unknown members are ignored, as the
// reference's own decoder ignores them; when a member repeats, the last one
// counts, as in Python.
//
// Decoding is strict where the reference's hash would otherwise differ
// from ghost's: NaN and Infinity literals and integer literals in the float
// fields of an assessment are refused rather than silently normalised.
// Decoders check form, not contract rules: call Validate on the result.
// They never panic; every error is a *DecodeError naming the field and the
// byte offset.
//
// # The trace report
//
// TraceReport and WriteTraceReport reproduce the reference's ADR-0022
// DecisionTraceReport document byte for byte (sorted keys, two-space
// indentation, trailing newline).
//
// The package performs no I/O besides writing a report to the writer it is
// given, reads no clock and never lets map order reach its output.
package pyref
