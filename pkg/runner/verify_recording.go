package runner

import (
	"errors"
	"fmt"
	"io"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/ros2msg"
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
	var messages uint64
	progress := func(done bool) {
		if opts.OnProgress != nil {
			opts.OnProgress(Progress{Messages: messages, Total: opts.Total, LogTimeNs: a.now, Decisions: a.report.Decisions, Done: done})
		}
	}
	// Reading and decoding run on the prefetching goroutine; hashing the
	// assessments and the audit itself stay here, in recorded order, which
	// splits the work about evenly between two cores.
	type decodedRecord struct {
		belief     decisions.Belief
		assessment decisions.SelfAssessment
		perception decisions.PerceptionReport
		rationale  decisions.Rationale
		err        error
	}
	var (
		vs ros2msg.VehicleState
		sa ros2msg.BeliefSelfAssessment
		pm ros2msg.PerceptionMode
		dr ros2msg.DecisionRationale
	)
	pf := startPrefetch(src, func(m *bag.Message) (d decodedRecord) {
		switch m.Topic {
		case t.State:
			if d.err = vs.UnmarshalCDR(m.Data); d.err == nil {
				d.belief, d.err = ros2msg.BeliefFromWire(&vs)
			}
		case t.SelfAssessment:
			if d.err = sa.UnmarshalCDR(m.Data); d.err == nil {
				d.assessment = ros2msg.SelfAssessmentFromWire(&sa)
			}
		case t.PerceptionMode:
			if d.err = pm.UnmarshalCDR(m.Data); d.err == nil {
				d.perception = ros2msg.PerceptionFromWire(&pm)
			}
		case t.Decisions:
			if d.err = dr.UnmarshalCDR(m.Data); d.err == nil {
				d.rationale = ros2msg.RationaleFromWire(&dr)
			}
		}
		if d.err != nil {
			d.err = corrupt(m.Topic, d.err)
		}
		return d
	})
	defer pf.stop()
	for {
		b, ok := pf.next()
		if !ok {
			break
		}
		for i := range b.items {
			m, d := &b.items[i].msg, &b.items[i].val
			messages++
			logTime := int64(m.LogTime)
			if d.err != nil {
				a.report.Inputs["corrupt"]++
				if opts.OnCorrupt != nil {
					opts.OnCorrupt(fmt.Errorf("log time %d, sequence %d: %w", m.LogTime, m.Sequence, d.err))
				}
				continue
			}
			switch m.Topic {
			case t.State:
				a.Belief(logTime, &d.belief)
			case t.SelfAssessment:
				a.Assessment(logTime, &d.assessment)
			case t.PerceptionMode:
				a.Perception(logTime, d.perception)
			case t.Decisions:
				a.Decision(logTime, d.rationale)
			default:
				a.report.Inputs["other"]++
			}
			if messages%every == 0 {
				progress(false)
			}
		}
		srcErr := b.err
		pf.release(b)
		if srcErr == nil {
			continue
		}
		r := a.Finish()
		progress(true)
		if errors.Is(srcErr, io.EOF) {
			return r, nil
		}
		return r, fmt.Errorf("verify: recording read up to the damage: %w", srcErr)
	}
	return a.Finish(), errors.New("verify: the reading goroutine stopped early")
}
