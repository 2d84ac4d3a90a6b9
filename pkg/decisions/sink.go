package decisions

// Sink receives decisions. Publish takes the decision together with its
// rationale: there is no way to publish a decision alone, so nothing
// downstream can see an action without the record that justifies it.
type Sink interface {
	Publish(d Decision, r Rationale) error
}

// NullSink accepts and discards every decision.
type NullSink struct{}

// Publish discards d and r.
func (NullSink) Publish(Decision, Rationale) error { return nil }

// Record is one published decision with its rationale.
type Record struct {
	Decision  Decision
	Rationale Rationale
}

// RecordingSink keeps every published decision in memory, in order; for tests
// and for callers that inspect what was decided. It is not safe for
// concurrent use.
type RecordingSink struct {
	Records []Record
}

// Publish appends d and r.
func (s *RecordingSink) Publish(d Decision, r Rationale) error {
	s.Records = append(s.Records, Record{d, r})
	return nil
}
