package decisions

import (
	"errors"
	"fmt"
)

// ErrInvalid is matched (errors.Is) by every validation failure of this
// package, so callers can tell rejected input from other failures.
var ErrInvalid = errors.New("invalid")

// ValidationError says which field of which contract holds which unacceptable
// value, and why. Its Error text is "<type>.<field> = <value>: <reason>".
type ValidationError struct {
	Type   string // contract name, e.g. "Decision"
	Field  string // field name as in the .msg files, e.g. "reason"
	Value  string // the offending value, formatted for humans
	Reason string // what rule it breaks
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s.%s = %s: %s", e.Type, e.Field, e.Value, e.Reason)
}

// Is reports ErrInvalid as a match.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

func invalid(typ, field string, value any, reason string) error {
	var v string
	switch x := value.(type) {
	case string:
		v = fmt.Sprintf("%q", x)
	case float64:
		v = string(appendPyFloat(nil, x))
	default:
		v = fmt.Sprint(x)
	}
	return &ValidationError{Type: typ, Field: field, Value: v, Reason: reason}
}
