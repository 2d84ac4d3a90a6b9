package session

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinels that sinks wrap their errors in, so the Runner can classify
// failures. An error wrapping none of them counts as a transport failure.
var (
	// ErrEncoding: the decision could not be encoded for this sink.
	ErrEncoding = errors.New("encoding failed")
	// ErrTransport: the encoded decision could not be delivered (network,
	// disk full, ...).
	ErrTransport = errors.New("transport failed")
	// ErrSinkClosed: the sink, or the Runner, is closed.
	ErrSinkClosed = errors.New("sink closed")
)

// FailureKind classifies a sink failure.
type FailureKind uint8

// Failure kinds.
const (
	FailureEncoding FailureKind = iota
	FailureTransport
	FailureClosed
)

// NumFailureKinds is the number of FailureKind values.
const NumFailureKinds = 3

var failureNames = [NumFailureKinds]string{"encoding", "transport", "closed"}

// String returns "encoding", "transport" or "closed".
func (k FailureKind) String() string {
	if int(k) < len(failureNames) {
		return failureNames[k]
	}
	return "failure_kind(" + strconv.Itoa(int(k)) + ")"
}

// sentinel returns the error k stands for.
func (k FailureKind) sentinel() error {
	switch k {
	case FailureEncoding:
		return ErrEncoding
	case FailureClosed:
		return ErrSinkClosed
	default:
		return ErrTransport
	}
}

// SinkError is a classified failure of one sink to publish one decision. It
// matches (errors.Is) the sentinel of its Kind and unwraps to Err.
type SinkError struct {
	SinkID string
	Kind   FailureKind
	Err    error
}

// Error reads "sink <id>: <kind> failure: <err>".
func (e *SinkError) Error() string {
	return fmt.Sprintf("sink %s: %s failure: %v", e.SinkID, e.Kind, e.Err)
}

// Unwrap returns the sink's own error.
func (e *SinkError) Unwrap() error { return e.Err }

// Is matches the sentinel of e.Kind.
func (e *SinkError) Is(target error) bool { return target == e.Kind.sentinel() }

// classify turns what a sink returned into a *SinkError under id: a
// *SinkError keeps its kind, then ErrSinkClosed, ErrEncoding, and anything
// else is a transport failure.
func classify(id string, err error) *SinkError {
	kind := FailureTransport
	var se *SinkError
	switch {
	case errors.As(err, &se):
		kind = se.Kind
	case errors.Is(err, ErrSinkClosed):
		kind = FailureClosed
	case errors.Is(err, ErrEncoding):
		kind = FailureEncoding
	}
	return &SinkError{SinkID: id, Kind: kind, Err: err}
}

// Receipt reports what one sink did with one decision: Err is nil when it
// was published, otherwise a *SinkError.
type Receipt struct {
	SinkID string
	Stamp  int64
	Err    error
}
