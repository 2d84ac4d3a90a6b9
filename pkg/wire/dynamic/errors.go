package dynamic

import (
	"errors"
	"strconv"

	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Sentinel errors. Every *DecodeError, *FieldError and *PlanError wraps one
// of them; test with errors.Is. The wire-level ones are the generated
// codec's own (package ros2msg), so a caller tells a truncated payload the
// same way whichever decoder read it.
var (
	// ErrTruncated: the data ends before the message does, or a length or
	// count announces more bytes than remain.
	ErrTruncated = ros2msg.ErrCDRTruncated
	// ErrTrailingBytes: bytes follow the last field that are not up to three
	// zero padding bytes.
	ErrTrailingBytes = ros2msg.ErrCDRTrailingBytes
	// ErrEncapsulation: the 4-byte encapsulation header is missing or names
	// a representation other than plain CDR.
	ErrEncapsulation = ros2msg.ErrCDREncapsulation
	// ErrLengthMismatch: the payload length of a fixed-size message differs
	// from the size its definition gives. Such errors also wrap
	// ErrTruncated or ErrTrailingBytes.
	ErrLengthMismatch = errors.New("payload length does not match the definition")
	// ErrInvalidBool: a bool byte other than 0 or 1.
	ErrInvalidBool = ros2msg.ErrCDRInvalidBool
	// ErrBadString: a string of length 0, without its NUL terminator, or
	// with a NUL inside it.
	ErrBadString = ros2msg.ErrCDRBadString
	// ErrBound: a bounded sequence or string exceeds its bound.
	ErrBound = ros2msg.ErrCDRBound
	// ErrUnknownField: a path names no field of the message.
	ErrUnknownField = errors.New("unknown field")
	// ErrKind: a field was read or written as a type it cannot hold
	// (a string as a number, a negative integer as unsigned, ...).
	ErrKind = errors.New("wrong field kind")
	// ErrIndex: an array index is out of range.
	ErrIndex = errors.New("index out of range")
	// ErrPlan: a definition cannot be compiled (missing dependency, cycle,
	// unsupported type, too large).
	ErrPlan = errors.New("cannot compile definition")
)

// maxErrText caps the length of user-controlled text (paths) in messages.
const maxErrText = 120

func capText(s string) string {
	if len(s) <= maxErrText {
		return s
	}
	return s[:maxErrText] + "..."
}

// DecodeError describes why a payload could not be decoded: the generated
// codec's own type, so errors.As finds the field and offset whichever
// decoder read the payload.
type DecodeError = ros2msg.DecodeError

// FieldError reports a path that cannot be resolved, read or written.
type FieldError struct {
	// Type is the full name of the message.
	Type string
	// Path is the field path as given.
	Path string
	// Err is one of the sentinel errors, wrapped with details.
	Err error
}

// Error implements error.
func (e *FieldError) Error() string {
	return "cdr: " + e.Type + " field " + strconv.Quote(capText(e.Path)) + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *FieldError) Unwrap() error { return e.Err }

// PlanError reports a definition that cannot be compiled.
type PlanError struct {
	// Type is the full name of the message being compiled.
	Type string
	// Msg says what is wrong.
	Msg string
}

// Error implements error.
func (e *PlanError) Error() string { return "cdr: compile " + e.Type + ": " + e.Msg }

// Unwrap returns ErrPlan.
func (e *PlanError) Unwrap() error { return ErrPlan }
