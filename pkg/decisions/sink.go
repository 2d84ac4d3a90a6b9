package decisions

// Sink receives decisions. Publish takes the decision together with its
// rationale: there is no way to publish a decision alone, so nothing
// downstream can see an action without the record that justifies it.
type Sink interface {
	Publish(d Decision, r Rationale) error
}
