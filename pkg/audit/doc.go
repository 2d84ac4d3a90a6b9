// Package audit re-runs and checks recordings, on machines without ROS 2:
//
//   - Replay reads a recording's inputs in log-time order, drives them
//     through a fresh session.Session (the decision path the live node uses,
//     with log times as arrival times) and writes a new recording holding
//     the inputs and the decisions, byte for byte the same for the same
//     input.
//   - Verify is the audit of ADR-0021 and ADR-0022: it re-decides the
//     recording with the host-supplied policies through the same Session,
//     compares every recorded decision bit for bit with the re-decision,
//     checks each rationale's SHA-256 against the recorded
//     self-assessments of its stamp, audits the action receipts and the
//     seals, and returns an AuditReport whose verdict is PASS only when no
//     Finding was made (relaxed ones aside).
//   - Redecide drives a recording's inputs through one Session per policy
//     and hands out their decisions and the recorded ones, for comparisons
//     of policies on the same flight (package whatif).
//   - Reorder sorts an unindexed recording within a log-time window, and
//     ReferenceRecording maps a recording of the Python reference onto the
//     same audit.
//
// Replay and Verify share one pipeline: read a message, decode it through
// the Session's input table (verify also decodes the recorded decisions
// and chain assessments), and step it, in read order, on the reading
// goroutine or with reading and decoding ahead of it. An Observer given to
// Verify sees each message with what the pipeline decoded of it, so the
// report is drawn from the same single read as its audit.
//
// The package reads Sources and writes through a Recorder; it decides
// nothing itself (the Session does) and never trusts a policy, a hash or a
// verdict taken from the recording.
//
// It heads the group of packages that read recordings after the fact:
// report (the HTML audit report), pyref (the Python reference's recording
// and trace formats), honesty (beliefs against a simulator's ground truth)
// and latency (the node's own reaction times). The group may import msg,
// pkg/decisions, pkg/rules, pkg/wire, pkg/bag, pkg/engine, pkg/session,
// pkg/seal, pkg/vehicle/truth and its own members; it must not import
// anything of pkg/ros2, pkg/node, pkg/sim or the rest of pkg/vehicle, so
// that an audit runs on any machine. test/layout checks these rules.
package audit
