package ros2msg

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors of the CDR codec. Every *DecodeError and *EncodeError wraps
// exactly one of them; test with errors.Is.
var (
	// ErrCDRTruncated: the data ends before the message does, or a length or
	// count announces more bytes than remain.
	ErrCDRTruncated = errors.New("truncated data")
	// ErrCDRTrailingBytes: bytes follow the last field that are not up to three
	// zero padding bytes.
	ErrCDRTrailingBytes = errors.New("trailing bytes")
	// ErrCDREncapsulation: the 4-byte encapsulation header names a
	// representation other than plain CDR (little- or big-endian).
	ErrCDREncapsulation = errors.New("unsupported encapsulation")
	// ErrCDRInvalidBool: a bool byte other than 0 or 1.
	ErrCDRInvalidBool = errors.New("invalid bool")
	// ErrCDRBadString: a string of length 0, without its NUL terminator, or with
	// a NUL inside it, which C-based ROS 2 stacks would silently truncate.
	ErrCDRBadString = errors.New("malformed string")
	// ErrCDRBound: a bounded sequence or string exceeds its bound, or a length
	// does not fit the uint32 of the wire format.
	ErrCDRBound = errors.New("bound exceeded")
)

// DecodeError describes why a CDR buffer could not be decoded.
type DecodeError struct {
	// Type is the schema name of the message being decoded
	// ("ghost/msg/VehicleState").
	Type string
	// Field is the path of the field being read, such as
	// "nav.covariance_15x15[3]" or "mission.current_goal[0].metadata_json";
	// empty for the encapsulation header and for trailing bytes.
	Field string
	// Offset is the byte offset in the buffer, counted from its first byte
	// (the encapsulation header), where the problem was found.
	Offset int
	// Err is one of the sentinel errors, possibly wrapped with details.
	Err error
}

// Error implements error.
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("cdr: decode ")
	b.WriteString(e.Type)
	if e.Field != "" {
		b.WriteString(" field ")
		b.WriteString(e.Field)
	}
	b.WriteString(" at offset ")
	b.WriteString(strconv.Itoa(e.Offset))
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// EncodeError describes why a message could not be encoded.
type EncodeError struct {
	// Type is the schema name of the message being encoded.
	Type string
	// Field is the path of the offending field, as in DecodeError.
	Field string
	// Err is one of the sentinel errors, possibly wrapped with details.
	Err error
}

// Error implements error.
func (e *EncodeError) Error() string {
	return "cdr: encode " + e.Type + " field " + e.Field + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *EncodeError) Unwrap() error { return e.Err }

// fieldError carries an encoding error up through nested messages, which
// prepend their field names, until the top-level message turns it into an
// *EncodeError.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }

// joinPath prepends parent to a field path: "nav" + "covariance[3]" gives
// "nav.covariance[3]", "goals[0]" + "x" gives "goals[0].x".
func joinPath(parent, child string) string {
	if child == "" {
		return parent
	}
	return parent + "." + child
}

// indexPath returns "name[i]".
func indexPath(name string, i int) string {
	return name + "[" + strconv.Itoa(i) + "]"
}

// encodeFieldErr wraps err for field.
func encodeFieldErr(field string, err error) error {
	return &fieldError{field: field, err: err}
}

// prefixEncodeErr prepends parent to the path of a nested encoding error.
func prefixEncodeErr(parent string, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return &fieldError{field: joinPath(parent, fe.field), err: fe.err}
	}
	return &fieldError{field: parent, err: err}
}

// toEncodeError turns a nested encoding error into the public type.
func toEncodeError(typ string, err error) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		return &EncodeError{Type: typ, Field: fe.field, Err: fe.err}
	}
	return &EncodeError{Type: typ, Err: err}
}

// encapsulationName names the representation identifiers of the DDS-XTypes
// specification (table 60), for error messages.
func encapsulationName(kind uint16) string {
	switch kind {
	case 0x0000:
		return "CDR_BE"
	case 0x0001:
		return "CDR_LE"
	case 0x0002:
		return "PL_CDR_BE"
	case 0x0003:
		return "PL_CDR_LE"
	case 0x0006:
		return "CDR2_BE"
	case 0x0007:
		return "CDR2_LE"
	case 0x0008:
		return "D_CDR2_BE"
	case 0x0009:
		return "D_CDR2_LE"
	case 0x000a:
		return "PL_CDR2_BE"
	case 0x000b:
		return "PL_CDR2_LE"
	case 0x0004:
		return "XML"
	}
	return "unknown"
}

func encapsulationErr(kind uint16) error {
	return fmt.Errorf("%w: representation 0x%04x (%s); only CDR_LE (0x0001) and CDR_BE (0x0000) are supported",
		ErrCDREncapsulation, kind, encapsulationName(kind))
}
