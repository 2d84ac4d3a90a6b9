package runner

import (
	"fmt"
	"io"
	"sync"

	"github.com/ghost-robotics/ghost/pkg/decisions"
)

// MemorySink records every published decision in order; for tests and for
// callers that inspect what was published. It is safe for concurrent use.
// After Close, Publish fails with ErrSinkClosed.
type MemorySink struct {
	mu      sync.Mutex
	records []decisions.Record
	closed  bool
}

// Publish records d and r.
func (s *MemorySink) Publish(d decisions.Decision, r decisions.Rationale) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("memory sink: publish %s: %w", d, ErrSinkClosed)
	}
	s.records = append(s.records, decisions.Record{Decision: d, Rationale: r})
	return nil
}

// Records returns a copy of what was published, in order.
func (s *MemorySink) Records() []decisions.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]decisions.Record(nil), s.records...)
}

// Close makes later publishes fail; it never fails itself.
func (s *MemorySink) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}

// FuncSink adapts a function to a Sink.
type FuncSink func(d decisions.Decision, r decisions.Rationale) error

// Publish calls f.
func (f FuncSink) Publish(d decisions.Decision, r decisions.Rationale) error { return f(d, r) }

// JSONLinesSink writes each rationale's canonical JSON record (the form the
// reference records on /decisions) followed by "\n", one Write per decision.
// It is not safe for concurrent use. Close stops it; it does not close the
// writer, which the caller owns.
type JSONLinesSink struct {
	w      io.Writer
	buf    []byte
	closed bool
}

// NewJSONLinesSink returns a sink writing to w.
func NewJSONLinesSink(w io.Writer) *JSONLinesSink {
	return &JSONLinesSink{w: w, buf: make([]byte, 0, 256)}
}

// Publish writes r's canonical JSON line; write errors wrap ErrTransport.
func (s *JSONLinesSink) Publish(d decisions.Decision, r decisions.Rationale) error {
	if s.closed {
		return fmt.Errorf("json lines sink: publish %s: %w", d, ErrSinkClosed)
	}
	s.buf = append(r.AppendCanonicalJSON(s.buf[:0]), '\n')
	if _, err := s.w.Write(s.buf); err != nil {
		return fmt.Errorf("json lines sink: write %s: %w: %w", d, ErrTransport, err)
	}
	return nil
}

// Close makes later publishes fail with ErrSinkClosed.
func (s *JSONLinesSink) Close() error {
	s.closed = true
	return nil
}
