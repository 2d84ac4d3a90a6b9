package pyref

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrDecode is matched (errors.Is) by every failure to decode a payload, so
// the audit can tell an unreadable message from its own failures.
var ErrDecode = errors.New("cannot decode reference payload")

// ErrReport is matched by every refusal to write a trace report whose
// content breaks the reference's own invariants.
var ErrReport = errors.New("invalid reference trace report")

// DecodeError says where a payload could not be read: the channel (when
// known), the reference class, the field path, the byte offset in the
// payload and why.
type DecodeError struct {
	// Topic is the channel's topic; empty unless the payload came through Decode.
	Topic string
	// Schema is the reference class, e.g. "BeliefSelfAssessment".
	Schema string
	// Field is the dotted path of the field, e.g.
	// "thresholds_used.position_known_std_m" or "nav.covariance_15x15[3][4]";
	// empty for a payload that is not JSON at all.
	Field string
	// Offset is the byte offset in the payload of the offending value (or
	// of the syntax error).
	Offset int
	// Value is the offending text, capped in length; empty for syntax errors.
	Value string
	// Reason says what is wrong.
	Reason string
	// Err is an underlying error (a contract parse failure), or nil.
	Err error
}

// Error reads "<topic>: <Schema>.<field> = <value> at byte <n>: <reason>".
func (e *DecodeError) Error() string {
	var b strings.Builder
	if e.Topic != "" {
		b.WriteString(e.Topic)
		b.WriteString(": ")
	}
	b.WriteString(e.Schema)
	if e.Field != "" {
		b.WriteByte('.')
		b.WriteString(e.Field)
	}
	if e.Value != "" {
		b.WriteString(" = ")
		b.WriteString(e.Value)
	}
	b.WriteString(" at byte ")
	b.WriteString(strconv.Itoa(e.Offset))
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Is reports ErrDecode as a match.
func (e *DecodeError) Is(target error) bool { return target == ErrDecode }

// Unwrap returns the underlying error, if any.
func (e *DecodeError) Unwrap() error { return e.Err }

// maxValueLen caps the offending text quoted in an error.
const maxValueLen = 48

// excerpt returns s capped at maxValueLen bytes on a rune boundary.
func excerpt(s string) string {
	if len(s) <= maxValueLen {
		return s
	}
	cut := maxValueLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
