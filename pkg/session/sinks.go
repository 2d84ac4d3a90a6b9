package session

import "github.com/ghost-robotics/ghost/pkg/decisions"

// FuncSink adapts a function to a Sink.
type FuncSink func(d decisions.Decision, r decisions.Rationale) error

// Publish calls f.
func (f FuncSink) Publish(d decisions.Decision, r decisions.Rationale) error { return f(d, r) }
