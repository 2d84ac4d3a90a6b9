package rules

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrInvalid is matched (errors.Is) by every rejection of a policy or cases
// file, so callers can tell bad input from I/O failures.
var ErrInvalid = errors.New("invalid rule policy")

// ErrStampOrder is returned by Decide for a context whose stamp is not
// greater than the previous one (or is negative); the state is unchanged.
var ErrStampOrder = errors.New("belief stamps must increase")

// ParseError locates a rejected policy or cases file element. Its text is
// "file:line:column: message"; Column is 1 when the YAML syntax error
// reports only a line.
type ParseError struct {
	File   string
	Line   int
	Column int
	Msg    string
}

// Error returns "file:line:column: message".
func (e *ParseError) Error() string {
	return e.File + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column) + ": " + e.Msg
}

// Is reports ErrInvalid as a match.
func (e *ParseError) Is(target error) bool { return target == ErrInvalid }

// StampError is a context that Decide refused because its stamp does not
// follow the previous one.
type StampError struct {
	Stamp, Previous int64
}

// Error names both stamps.
func (e *StampError) Error() string {
	return fmt.Sprintf("belief stamp %d after %d: %v", e.Stamp, e.Previous, ErrStampOrder)
}

// Unwrap returns ErrStampOrder.
func (e *StampError) Unwrap() error { return ErrStampOrder }

// quote formats a user value for an error message, capped in length so a
// hostile file cannot make a huge message.
func quote(s string) string {
	const max = 40
	if len(s) > max {
		return strconv.Quote(s[:max]) + "..."
	}
	return strconv.Quote(s)
}
