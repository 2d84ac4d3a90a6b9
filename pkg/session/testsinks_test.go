package session

import (
	"fmt"
	"io"
	"sync"

	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
)

// The sinks the tests register: one discards what it is given, two keep
// it (decisions, action receipts), one writes the reference's JSON lines
// (the golden form).

// nullSink accepts and discards every decision.
type nullSink struct{}

func (nullSink) Publish(engine.Command) error { return nil }

// record is one published decision with its rationale.
type record struct {
	Decision  decisions.Decision
	Rationale decisions.Rationale
}

// memorySink records every published decision in order. It is safe for
// concurrent use. After Close, Publish fails with ErrSinkClosed.
type memorySink struct {
	mu      sync.Mutex
	records []record
	closed  bool
}

// Publish records the command's decision and rationale.
func (s *memorySink) Publish(cmd engine.Command) error {
	d, r := cmd.Decision, cmd.Rationale
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("memory sink: publish %s: %w", d, ErrSinkClosed)
	}
	s.records = append(s.records, record{Decision: d, Rationale: r})
	return nil
}

// Records returns a copy of what was published, in order.
func (s *memorySink) Records() []record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]record(nil), s.records...)
}

// Close makes later publishes fail; it never fails itself.
func (s *memorySink) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}

// jsonLinesSink writes each rationale's canonical JSON record (the form the
// reference records on /decisions) followed by "\n", one Write per decision.
// It is not safe for concurrent use. Close stops it; it does not close the
// writer, which the caller owns.
type jsonLinesSink struct {
	w      io.Writer
	buf    []byte
	closed bool
}

// newJSONLinesSink returns a sink writing to w.
func newJSONLinesSink(w io.Writer) *jsonLinesSink {
	return &jsonLinesSink{w: w, buf: make([]byte, 0, 256)}
}

// Publish writes r's canonical JSON line; write errors wrap ErrTransport.
func (s *jsonLinesSink) Publish(cmd engine.Command) error {
	d, r := cmd.Decision, cmd.Rationale
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
func (s *jsonLinesSink) Close() error {
	s.closed = true
	return nil
}

// memoryActionSink keeps every receipt in order. It is safe for concurrent
// use.
type memoryActionSink struct {
	mu       sync.Mutex
	receipts []ActionReceipt
}

// PublishReceipt keeps a copy of rc.
func (s *memoryActionSink) PublishReceipt(rc ActionReceipt) error {
	rc.Evidence = append([]engine.Evidence(nil), rc.Evidence...)
	s.mu.Lock()
	s.receipts = append(s.receipts, rc)
	s.mu.Unlock()
	return nil
}

// Receipts returns a copy of the receipts, in order.
func (s *memoryActionSink) Receipts() []ActionReceipt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ActionReceipt(nil), s.receipts...)
}
