package ulog

import (
	"errors"
	"fmt"
	"strconv"
)

// Errors of the reader. Callers branch on them with errors.Is.
var (
	// ErrNotULog is returned by NewReader when the input does not start with
	// the ULog magic bytes.
	ErrNotULog = errors.New("not a ULog file")
	// ErrTruncated is matched by a header too short to read and by every
	// *Truncation: the log ends inside a message.
	ErrTruncated = errors.New("ULog truncated")
	// ErrIncompatible is matched by *IncompatError: the log sets an
	// incompatible flag bit this reader does not know, so its content may
	// not mean what this reader would take it to mean.
	ErrIncompatible = errors.New("unknown incompatible flag bit")
	// ErrBadFlagBits is returned by NewReader when the first message is a
	// flag bits message too short to hold the flags it must carry.
	ErrBadFlagBits = errors.New("malformed flag bits message")
	// ErrBadFormat is matched by *FormatError: a format definition does not
	// parse or cannot be laid out.
	ErrBadFormat = errors.New("bad format definition")
)

// IncompatError names the first unknown bit set in incompat_flags.
type IncompatError struct {
	Byte int // index into incompat_flags, 0..7
	Bit  int // bit within that byte, 0..7
}

// Error names the bit.
func (e *IncompatError) Error() string {
	return fmt.Sprintf("ulog: incompat_flags[%d] bit %d is set and unknown to this reader: refusing to parse", e.Byte, e.Bit)
}

// Is reports whether target is ErrIncompatible.
func (e *IncompatError) Is(target error) bool { return target == ErrIncompatible }

// FormatError says why a format definition was rejected or could not be
// resolved. Field is empty when the problem is not with one field.
type FormatError struct {
	Format string
	Field  string
	Reason string
}

// Error names the format, the field and the reason.
func (e *FormatError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("ulog: format %s: %s", clip(e.Format), e.Reason)
	}
	return fmt.Sprintf("ulog: format %s field %s: %s", clip(e.Format), clip(e.Field), e.Reason)
}

// Is reports whether target is ErrBadFormat.
func (e *FormatError) Is(target error) bool { return target == ErrBadFormat }

// Truncation reports a log that ends inside a message. Everything before
// Offset was read; the unfinished message is discarded, as the
// specification asks. It is an error value so callers may return it, but
// the reader itself ends cleanly (io.EOF) after a truncation.
type Truncation struct {
	Offset int64 // file offset where the unfinished message starts
	Want   int   // bytes that message needs, header included (3 if its header is cut)
	Have   int   // bytes present
}

// Error says where the log ends.
func (t *Truncation) Error() string {
	return fmt.Sprintf("ulog: log ends inside the message at offset %d (%d of %d bytes)", t.Offset, t.Have, t.Want)
}

// Is reports whether target is ErrTruncated.
func (t *Truncation) Is(target error) bool { return target == ErrTruncated }

// clip quotes s for an error message, capped so hostile input cannot make
// messages long.
func clip(s string) string {
	const limit = 64
	if len(s) > limit {
		return strconv.Quote(s[:limit]) + "..."
	}
	return strconv.Quote(s)
}

// ProblemKind classifies a problem the reader counted and stepped over.
type ProblemKind uint8

// The problem kinds. The package documentation says what is skipped for each.
const (
	ProblemUnknownType           ProblemKind = iota + 1 // unknown message type: skipped
	ProblemMalformed                                    // a known message too short or with an invalid value: skipped
	ProblemBadFormat                                    // an 'F' that does not parse: ignored
	ProblemDuplicateFormat                              // a second, different 'F' for a name: ignored, the first stays
	ProblemUnresolved                                   // a subscription whose format cannot be resolved: its data skipped
	ProblemDuplicateSubscription                        // a different 'A' for a msg_id in use: that msg_id's data skipped
	ProblemUnknownMsgID                                 // a 'D' for a msg_id never subscribed (or removed): skipped
	ProblemDataSize                                     // a 'D' whose length does not fit its format: that message skipped
	ProblemLimit                                        // an Options limit reached: the message skipped
	ProblemAppended                                     // an appended-data offset cut a message or pointed backwards
	numProblemKinds
)

var problemNames = [numProblemKinds]string{
	"", "unknown_type", "malformed", "bad_format", "duplicate_format", "unresolved",
	"duplicate_subscription", "unknown_msg_id", "data_size", "limit", "appended",
}

// String returns a snake_case name, e.g. "unknown_msg_id".
func (k ProblemKind) String() string {
	if k == 0 || k >= numProblemKinds {
		return "problem(" + strconv.Itoa(int(k)) + ")"
	}
	return problemNames[k]
}

// Problem is one counted problem: what, where (the message's file offset
// and type byte) and a one-line detail.
type Problem struct {
	Kind   ProblemKind
	Offset int64
	Type   byte
	Detail string
}

// String formats the problem as one line.
func (p Problem) String() string {
	return fmt.Sprintf("%s at offset %d (type %s): %s", p.Kind, p.Offset, typeName(p.Type), p.Detail)
}
