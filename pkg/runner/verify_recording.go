package runner

import (
	"errors"
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/rosbridge"
)

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Topics are the topic names (default DefaultTopics()).
	Topics Topics
	// Audit configures the Auditor.
	Audit AuditOptions
	// Total, ProgressEvery and OnProgress report progress as in Replay.
	Total         uint64
	ProgressEvery uint64
	OnProgress    func(Progress)
	// OnCorrupt, if set, is called for every message that does not decode;
	// it is skipped and counted in the report's inputs.
	OnCorrupt func(error)
}

// Verify runs the audit over every message of src (a recording in log-time
// order) and returns the report. A damaged source is audited up to the
// damage; the report is returned with the source's error.
func Verify(src Source, opts VerifyOptions) (*AuditReport, error) {
	if opts.Topics == (Topics{}) {
		opts.Topics = DefaultTopics()
	}
	every := opts.ProgressEvery
	if every == 0 {
		every = 65536
	}
	t := opts.Topics
	a := NewAuditor(opts.Audit)
	var (
		vs       rosbridge.VehicleState
		sa       rosbridge.BeliefSelfAssessment
		pm       rosbridge.PerceptionMode
		dr       rosbridge.DecisionRationale
		messages uint64
	)
	corruptMsg := func(m *rosbridge.Message, err error) {
		a.report.Inputs["corrupt"]++
		if opts.OnCorrupt != nil {
			opts.OnCorrupt(fmt.Errorf("log time %d, sequence %d: %w", m.LogTime, m.Sequence, corrupt(m.Topic, err)))
		}
	}
	progress := func(done bool) {
		if opts.OnProgress != nil {
			opts.OnProgress(Progress{Messages: messages, Total: opts.Total, LogTimeNs: a.now, Decisions: a.report.Decisions, Done: done})
		}
	}
	for {
		m, err := src.Next()
		if err != nil {
			r := a.Finish()
			progress(true)
			if errors.Is(err, io.EOF) {
				return r, nil
			}
			return r, fmt.Errorf("verify: recording read up to the damage: %w", err)
		}
		messages++
		logTime := int64(m.LogTime)
		switch m.Topic {
		case t.State:
			if err := vs.UnmarshalCDR(m.Data); err != nil {
				corruptMsg(&m, err)
				continue
			}
			b, err := rosbridge.BeliefFromWire(&vs)
			if err != nil {
				corruptMsg(&m, err)
				continue
			}
			a.Belief(logTime, &b)
		case t.SelfAssessment:
			if err := sa.UnmarshalCDR(m.Data); err != nil {
				corruptMsg(&m, err)
				continue
			}
			s := rosbridge.SelfAssessmentFromWire(&sa)
			a.Assessment(logTime, &s)
		case t.PerceptionMode:
			if err := pm.UnmarshalCDR(m.Data); err != nil {
				corruptMsg(&m, err)
				continue
			}
			a.Perception(logTime, rosbridge.PerceptionFromWire(&pm))
		case t.Decisions:
			if err := dr.UnmarshalCDR(m.Data); err != nil {
				corruptMsg(&m, err)
				continue
			}
			a.Decision(logTime, rosbridge.RationaleFromWire(&dr))
		default:
			a.report.Inputs["other"]++
		}
		if messages%every == 0 {
			progress(false)
		}
	}
}
