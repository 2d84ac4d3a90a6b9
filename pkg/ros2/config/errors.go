package config

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Sentinels matched with errors.Is. Every error from this package wraps one
// of them, so callers can tell a typo in a parameter name from a malformed
// file without parsing messages.
var (
	// ErrUnknownParameter: the parameter name is not one the node declares.
	ErrUnknownParameter = errors.New("unknown parameter")
	// ErrWrongType: the value's YAML type does not match the parameter's
	// type (bool, integer, double or string).
	ErrWrongType = errors.New("wrong parameter type")
	// ErrInvalidValue: the value has the right type but is out of range, not
	// one of the allowed spellings, or inconsistent with another parameter.
	ErrInvalidValue = errors.New("invalid parameter value")
	// ErrInvalidArgument: a command-line ROS argument is malformed or
	// unknown (a remap without ":=", a flag missing its value, ...).
	ErrInvalidArgument = errors.New("invalid ROS argument")
	// ErrParamsFile: a params file cannot be read or is not a ROS 2
	// parameter YAML document.
	ErrParamsFile = errors.New("invalid params file")
)

// ParamError reports a problem with one parameter. Its Error text is
// `parameter "<name>" = <value> (<source>): <reason>`; the source says where
// the value came from, e.g. `params file config.yaml, node /**` or
// `argument -p policy:=x`.
type ParamError struct {
	Param  string // dotted parameter name, e.g. "qos.decisions.depth"
	Value  string // the offending value as written (or formatted)
	Source string // where the value came from; "" for defaults or Config fields
	Err    error  // wraps one of the sentinels with the reason
}

func (e *ParamError) Error() string {
	if e.Source == "" {
		return fmt.Sprintf("parameter %s = %s: %s", capQuote(e.Param), capText(e.Value, maxShown), capText(fmt.Sprint(e.Err), maxReason))
	}
	return fmt.Sprintf("parameter %s = %s (%s): %s", capQuote(e.Param), capText(e.Value, maxShown),
		capText(e.Source, maxSource), capText(fmt.Sprint(e.Err), maxReason))
}

// Bounds on each text an error message repeats (a value, where it came
// from, the reason, which may quote the value again), so a megabyte-long
// value gives a one-line message of a few hundred bytes; a source names a
// file, so it may be longer.
const (
	maxShown  = 120
	maxSource = 400
	maxReason = 400
)

// capText shortens s to limit bytes (on a rune boundary), saying how long
// it was, and escapes line breaks so the message stays on one line.
func capText(s string, limit int) string {
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "... (" + strconv.Itoa(len(s)) + " bytes)"
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			// Line breaks, control characters, invalid UTF-8: escaped.
			q := strconv.Quote(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// capQuote is capText of s, quoted.
func capQuote(s string) string {
	if len(s) > maxShown {
		return strconv.Quote(capText(s, maxShown))
	}
	return strconv.Quote(s)
}

// Unwrap returns the reason, which wraps a sentinel.
func (e *ParamError) Unwrap() error { return e.Err }

// ArgError reports a malformed or unknown ROS command-line argument. Its
// Error text is `ROS argument <index> "<arg>": <reason>`.
type ArgError struct {
	Index int    // position in the argument list passed to FromArgs
	Arg   string // the argument (flag and value for two-part arguments)
	Err   error  // wraps ErrInvalidArgument with the reason
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("ROS argument %d %s: %s", e.Index, capQuote(e.Arg), capText(fmt.Sprint(e.Err), maxReason))
}

// Unwrap returns the reason, which wraps ErrInvalidArgument.
func (e *ArgError) Unwrap() error { return e.Err }
