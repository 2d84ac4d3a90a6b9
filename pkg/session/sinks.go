package session

import "github.com/ghost-robotics/ghost/pkg/engine"

// FuncSink adapts a function to a Sink.
type FuncSink func(cmd engine.Command) error

// Publish calls f.
func (f FuncSink) Publish(cmd engine.Command) error { return f(cmd) }
