package node

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/lifecycle"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// diagState remembers the trouble counts of the previous report, so a
// report is WARN exactly when trouble grew since then.
type diagState struct {
	reported bool
	trouble  troubleCounts
	buf      []byte
	runtime  runtimeFigures
}

// troubleCounts are the counters whose growth makes a report WARN.
type troubleCounts struct {
	sinkFailures      uint64
	rejected          uint64
	malformed         uint64
	provenance        uint64
	stepErrors        uint64
	recordingFailures uint64
	queueDropped      uint64
}

func (n *node) troubleNow(c *session.Counters, st *session.SessionStats) troubleCounts {
	t := troubleCounts{
		rejected:          c.RejectedTotal(),
		malformed:         st.Corrupt(),
		provenance:        c.ProvenanceViolations,
		stepErrors:        st.StepFailures,
		recordingFailures: n.stats.recordingFailures,
		queueDropped:      n.queue.dropped.Load(),
	}
	for _, v := range c.SinkFailuresByKind {
		t.sinkFailures += v
	}
	return t
}

// diagnostics builds the /diagnostics message: one DiagnosticStatus for the
// node with a KeyValue per counter, in a fixed order.
func (n *node) diagnostics(now time.Time) ros2msg.DiagnosticArray {
	c := n.run.Counters()
	st := n.s.Stats()
	status := n.diagnosticsSummary(&c, &st)
	kv := func(k string, v uint64) {
		status.Values = append(status.Values, ros2msg.DiagnosticKeyValue{Key: k, Value: strconv.FormatUint(v, 10)})
	}
	status.Values = append(status.Values, ros2msg.DiagnosticKeyValue{Key: "policy", Value: n.cfg.Policy})
	decisionValues(kv, &c, &st)
	if n.cfg.Lifecycle {
		status.Values = append(status.Values, ros2msg.DiagnosticKeyValue{Key: "lifecycle", Value: lifecycle.Label(n.lc.State())})
		kv("ignored_inactive", st.Inactive)
	}
	n.nodeValues(kv)
	n.clockDiagnostics(kv, &status)
	n.freshnessDiagnostics(n.now(), kv, &status)

	return ros2msg.DiagnosticArray{
		Header: ros2msg.RosHeader{Stamp: ros2msg.RosTimeOf(n.stampTime(now))},
		Status: []ros2msg.DiagnosticStatus{status},
	}
}

// diagnosticsSummary returns the status with its level and message: WARN
// when a trouble counter grew since the last report or the node waits for
// /clock. It remembers this report's trouble counters for the next.
func (n *node) diagnosticsSummary(c *session.Counters, st *session.SessionStats) ros2msg.DiagnosticStatus {
	trouble := n.troubleNow(c, st)
	prev := n.diag.trouble
	n.diag.trouble, n.diag.reported = trouble, true

	status := ros2msg.DiagnosticStatus{
		Level:      ros2msg.DiagnosticStatusOK,
		Name:       n.cfg.NodeName + ": decisions",
		HardwareID: n.cfg.FullyQualifiedName(),
		Message:    fmt.Sprintf("%d decisions, %d without self-assessment", c.DecisionsTotal(), c.WithoutAssessment),
	}
	var grew []string
	for _, g := range []struct {
		what      string
		now, prev uint64
	}{
		{"sink failures", trouble.sinkFailures, prev.sinkFailures},
		{"rejected inputs", trouble.rejected, prev.rejected},
		{"malformed messages", trouble.malformed, prev.malformed},
		{"provenance violations", trouble.provenance, prev.provenance},
		{"step errors", trouble.stepErrors, prev.stepErrors},
		{"recording failures", trouble.recordingFailures, prev.recordingFailures},
		{"inputs dropped on a full queue", trouble.queueDropped, prev.queueDropped},
	} {
		if g.now > g.prev {
			grew = append(grew, fmt.Sprintf("%d %s", g.now-g.prev, g.what))
		}
	}
	if len(grew) > 0 {
		status.Level = ros2msg.DiagnosticStatusWarn
		status.Message += "; since last report: " + strings.Join(grew, ", ")
	}
	if n.rec != nil {
		if err := n.rec.stats().err; err != nil {
			status.Level = ros2msg.DiagnosticStatusError
			status.Message = fmt.Sprintf("recording failed (%v); %s", err, status.Message)
		} else if n.splitErr != nil {
			status.Level = max(status.Level, ros2msg.DiagnosticStatusWarn)
			status.Message = fmt.Sprintf("recording not split, it continues in %s (%v); %s", n.rec.path, n.splitErr, status.Message)
		}
	}
	if n.waitingForClock() {
		status.Level = max(status.Level, ros2msg.DiagnosticStatusWarn)
		status.Message = "waiting for /clock; " + status.Message
	}
	return status
}

// decisionValues reports the session's counters: what was decided, refused
// and received.
func decisionValues(kv func(string, uint64), c *session.Counters, st *session.SessionStats) {
	kv("contexts_assembled", c.ContextsAssembled)
	kv("decisions", c.DecisionsTotal())
	for k, v := range c.Decisions {
		kv("decisions."+decisions.Kind(k).String(), v)
	}
	kv("without_assessment", c.WithoutAssessment)
	for w := engine.WithoutReason(1); w < engine.NumWithoutReasons; w++ {
		kv("without_assessment."+w.String(), c.WithoutAssessmentBy[w])
	}
	kv("rejected", c.RejectedTotal())
	for r, v := range c.Rejected {
		kv("rejected."+engine.RejectReason(r).String(), v)
	}
	kv("duplicates", c.Duplicates)
	kv("provenance_violations", c.ProvenanceViolations)
	kv("receipts_ok", c.ReceiptsOK)
	for _, s := range c.SinkFailures {
		kv("sink_failures."+s.SinkID, s.Count)
	}
	for k, v := range c.SinkFailuresByKind {
		kv("sink_failures."+session.FailureKind(k).String(), v)
	}
	for _, in := range st.Inputs {
		kv("received."+in.Key, in.Messages)
	}
	for _, in := range st.Inputs {
		kv("malformed."+in.Key, in.Corrupt)
	}
	kv("step_errors", st.StepFailures)
}

// nodeValues reports the node's own state: the vehicle bridge, the Loop's
// buffers and the recording.
func (n *node) nodeValues(kv func(string, uint64)) {
	if v := n.vehicle; v != nil {
		c := v.bridge.Tracker().Counters()
		kv("vehicle.beliefs", c.Beliefs)
		kv("vehicle.rejected", v.rejected)
		kv("vehicle.time_base_changes", c.TimeBaseChanges)
	}
	sizes := n.s.Loop().Sizes()
	kv("input_queue.high_water", uint64(n.queue.highWater))
	kv("input_queue.dropped", n.queue.dropped.Load())
	if v := n.vehicle; v != nil {
		for _, sub := range v.subs {
			kv("input_queue.dropped."+sub.Topic, n.queue.droppedOf(sub.Topic))
		}
	}
	kv("pending_beliefs", uint64(sizes.PendingBeliefs))
	kv("held_assessments", uint64(sizes.HeldAssessments))
	if n.rec != nil {
		st := n.rec.stats()
		kv("recording.messages", st.messages)
		kv("recording.bytes", st.bytes)
		kv("recording.files", uint64(st.files))
		kv("recording.failures", n.stats.recordingFailures)
		restarted := uint64(0)
		if n.restartedAfter != "" {
			restarted = 1
		}
		kv("recording.restarted", restarted)
	}
	kv("diagnostics_errors", n.stats.diagnosticsErrors)
	n.diag.runtime.values(kv)
}

// publishDiagnostics publishes one report; a failure is counted and logged
// but does not stop the node.
func (n *node) publishDiagnostics(now time.Time) {
	m := n.diagnostics(now)
	data, err := m.AppendCDR(n.diag.buf[:0])
	if err == nil {
		n.diag.buf = data
		err = n.diagPub.Publish(data)
	}
	if err != nil {
		n.stats.diagnosticsErrors++
		n.warn("diagnostics", "cannot publish diagnostics", "err", err)
	}
}
