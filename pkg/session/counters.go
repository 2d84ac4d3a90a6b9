package session

import (
	"sort"
	"sync"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// Counters is a snapshot of what a Runner has seen, for diagnostics.
type Counters struct {
	// ContextsAssembled counts the Commands executed (one context each),
	// provenance violations included.
	ContextsAssembled uint64
	// Decisions counts the decisions that passed provenance, by kind.
	Decisions [decisions.NumKinds]uint64
	// WithoutAssessment counts the decisions taken without a
	// self-assessment; WithoutAssessmentBy splits them by reason (index
	// WithoutNone stays zero).
	WithoutAssessment   uint64
	WithoutAssessmentBy [engine.NumWithoutReasons]uint64
	// Rejected counts rejected inputs, by reason.
	Rejected [engine.NumRejectReasons]uint64
	// Duplicates counts identical repeats, accepted as no-ops.
	Duplicates uint64
	// ProvenanceViolations counts Commands refused before any write.
	ProvenanceViolations uint64
	// SinkFailures counts failed publishes per sink, sorted by sink id; every
	// registered sink is listed.
	SinkFailures []SinkCount
	// SinkFailuresByKind counts failed publishes by failure kind.
	SinkFailuresByKind [NumFailureKinds]uint64
	// ReceiptsOK counts successful publishes (one per sink per decision).
	ReceiptsOK uint64
	// Actions count the action trail.
	Actions ActionCounts
}

// ActionCounts count what the Runner did about actions.
type ActionCounts struct {
	// Sent and Retried count commands handed to executors; SendErrors the
	// sends that failed at once; Refused the execute and retry commands
	// refused before any executor work (stale or untraceable).
	Sent, Retried, SendErrors, Refused uint64
	// EvidenceAccepted, EvidenceRejected and EvidenceRepeats count
	// evidence batches by provenance verdict.
	EvidenceAccepted, EvidenceRejected, EvidenceRepeats uint64
	// Outcomes count ActionConclude commands by outcome; Failures the
	// failed ones by class.
	Outcomes [NumOutcomes]uint64
	Failures [engine.NumFailureClasses]uint64
	// ReceiptFailures counts receipts an action sink failed to take.
	ReceiptFailures uint64
}

// SinkCount is a count for one sink.
type SinkCount struct {
	SinkID string
	Count  uint64
}

// RejectedTotal returns the number of rejected inputs, all reasons.
func (c *Counters) RejectedTotal() uint64 {
	var n uint64
	for _, v := range c.Rejected {
		n += v
	}
	return n
}

// DecisionsTotal returns the number of decisions that passed provenance.
func (c *Counters) DecisionsTotal() uint64 {
	var n uint64
	for _, v := range c.Decisions {
		n += v
	}
	return n
}

// counters is the live, mutex-guarded state behind Counters; the main
// goroutine updates it once per call, a diagnostics goroutine snapshots it.
type counters struct {
	mu sync.Mutex
	c  Counters
	// perSink is aligned with Runner.sinks (registration order).
	perSink []SinkCount
}

// add applies f to the counters under the lock.
func (k *counters) add(f func(c *Counters)) {
	k.mu.Lock()
	f(&k.c)
	k.mu.Unlock()
}

func (k *counters) snapshot() Counters {
	k.mu.Lock()
	c := k.c
	c.SinkFailures = append([]SinkCount(nil), k.perSink...)
	k.mu.Unlock()
	sort.Slice(c.SinkFailures, func(i, j int) bool { return c.SinkFailures[i].SinkID < c.SinkFailures[j].SinkID })
	return c
}
