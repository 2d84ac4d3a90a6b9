package px4

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrLayoutMismatch is wrapped by *LayoutError: a payload's length or a
// definition's size disagrees with the configured release.
var ErrLayoutMismatch = errors.New("PX4 message layout does not match the release")

// LayoutError reports a payload (or definition) whose size is not the one
// the configured release gives, naming the releases it would fit.
type LayoutError struct {
	// Message is the px4_msgs message name.
	Message string
	// Release is the configured release.
	Release Release
	// Got is the payload length after the encapsulation header (or the
	// definition's size).
	Got int
	// Want is the size the release expects.
	Want int
	// Matches lists the releases whose size fits Got, oldest first.
	Matches []Release
	// Definition is true when a .msg definition, not a payload, mismatched.
	Definition bool
}

// Error implements error.
func (e *LayoutError) Error() string {
	var b strings.Builder
	b.WriteString("px4: ")
	b.WriteString(e.Message)
	if e.Definition {
		b.WriteString(" definition is ")
	} else {
		b.WriteString(" payload is ")
	}
	b.WriteString(strconv.Itoa(e.Got))
	b.WriteString(" bytes; release ")
	b.WriteString(string(e.Release))
	b.WriteString(" expects ")
	b.WriteString(strconv.Itoa(e.Want))
	b.WriteString("; ")
	switch len(e.Matches) {
	case 0:
		b.WriteString("it matches no supported release")
		if info, err := lookup(e.Message); err == nil {
			b.WriteString(" (")
			for i, r := range releases {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s: %d", r, info.sizes[i])
			}
			b.WriteString(")")
		}
		b.WriteString(": check the PX4 firmware and px4_msgs versions")
	case 1:
		b.WriteString("it matches release ")
		b.WriteString(string(e.Matches[0]))
		b.WriteString(": set px4.release")
	default:
		b.WriteString("it matches releases ")
		for i, r := range e.Matches {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(string(r))
		}
		b.WriteString(": set px4.release")
	}
	return b.String()
}

// Unwrap returns ErrLayoutMismatch.
func (e *LayoutError) Unwrap() error { return ErrLayoutMismatch }

// fits reports whether a payload of n bytes carries a message of size
// bytes: exactly, or padded to the next multiple of 4 as DDS
// implementations pad serialized data. The rule is stricter than the
// decoder's "up to three zero bytes" so that layouts two bytes apart (such
// as VehicleStatus of 1.15 and 1.16) are told apart.
func fits(size, n int) bool { return n >= size && n <= (size+3)&^3 }

// ExpectedSize returns the payload size (after the encapsulation header,
// without padding) of message in release rel.
func ExpectedSize(message string, rel Release) (int, bool) {
	info, err := lookup(message)
	i := rel.index()
	if err != nil || i < 0 {
		return 0, false
	}
	return info.sizes[i], true
}

// CheckLength checks a payload length (after the 4-byte encapsulation
// header) against the size release rel gives message, and on mismatch
// returns a *LayoutError naming the releases the length fits. Known
// ambiguity: a 1.14 VehicleCommand (54 bytes) padded to 56 fits 1.15 and
// 1.16 too.
func CheckLength(message string, rel Release, payloadLen int) error {
	info, err := lookup(message)
	if err != nil {
		return err
	}
	i := rel.index()
	if i < 0 {
		return fmt.Errorf("px4: check %s: %w %q", message, ErrUnknownRelease, rel)
	}
	return checkSize(info, rel, info.sizes[i], payloadLen, false)
}

func checkSize(info *messageInfo, rel Release, want, got int, definition bool) error {
	ok := fits(want, got)
	if definition {
		ok = want == got
	}
	if ok {
		return nil
	}
	e := &LayoutError{Message: info.name, Release: rel, Got: got, Want: want, Definition: definition}
	for i, r := range releases {
		if fits(info.sizes[i], got) && (!definition || info.sizes[i] == got) {
			e.Matches = append(e.Matches, r)
		}
	}
	return e
}
