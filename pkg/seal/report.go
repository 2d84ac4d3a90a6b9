package seal

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// BreakKind classifies a break.
type BreakKind string

// Break kinds.
const (
	// BreakMalformed: a message on the seal topic is not a valid seal.
	BreakMalformed BreakKind = "malformed_seal"
	// BreakKey: a seal is signed by a key that is not trusted.
	BreakKey BreakKind = "untrusted_key"
	// BreakSignature: a seal's signature does not verify.
	BreakSignature BreakKind = "bad_signature"
	// BreakLink: a seal does not follow the one before it (index, previous
	// digest or sequence numbers): seals were removed, reordered or mixed.
	BreakLink BreakKind = "seal_link"
	// BreakChanged: a topic's messages in an interval are not the sealed
	// ones: one was changed, inserted, dropped or reordered.
	BreakChanged BreakKind = "changed"
	// BreakMissing: messages a seal lists are not in the recording.
	BreakMissing BreakKind = "missing"
	// BreakInserted: a message on a sealed topic lies outside every sealed
	// interval where the recording should hold none.
	BreakInserted BreakKind = "inserted"
	// BreakUnsealed: messages on a topic the audit reads are in no seal, or
	// the recording holds no seal it can trust.
	BreakUnsealed BreakKind = "unsealed"
)

// Break locates one place where the recording is not what its seals say.
type Break struct {
	Kind  BreakKind `json:"kind"`
	Topic string    `json:"topic"`
	// LogTimeNs and Index (0-based, in the order read) locate the message
	// where the break shows: the first message of a broken interval, the
	// inserted message, or the seal.
	LogTimeNs uint64 `json:"log_time_ns"`
	Index     uint64 `json:"index"`
	// Seal is the index of the seal concerned, -1 when none.
	Seal   int64  `json:"seal"`
	Detail string `json:"detail"`
}

func (b *Break) String() string {
	return fmt.Sprintf("%s on %s at message %d (log time %d): %s", b.Kind, b.Topic, b.Index, b.LogTimeNs, b.Detail)
}

// Report is what a Checker found.
type Report struct {
	// Seals counts the messages on the seal topic; KeyIDs are the keys
	// they name, in the order first seen.
	Seals  uint64   `json:"seals"`
	KeyIDs []string `json:"key_ids"`
	// Trusted is set when the seals were checked against trusted keys;
	// without, nothing below is filled and nothing is vouched for.
	Trusted bool `json:"trusted"`
	// FirstSeal and LastSeal are the seal indices of the trusted range, -1
	// when none: the recording holds exactly the sealed messages of every
	// seal from FirstSeal to LastSeal (Checked seals, Messages messages).
	FirstSeal int64  `json:"first_seal"`
	LastSeal  int64  `json:"last_seal"`
	Checked   uint64 `json:"checked_seals"`
	Messages  uint64 `json:"messages"`
	// Final is set when LastSeal is the run's final seal: the recording is
	// whole to the node's shutdown.
	Final bool `json:"final"`
	// Before counts the messages on sealed topics before FirstSeal's
	// interval (a recorder that started late), After those after
	// LastSeal's (a truncated recording, or a node stopped without its
	// final seal): neither is vouched for.
	Before uint64 `json:"uncovered_before"`
	After  uint64 `json:"uncovered_after"`
	// Unsealed counts, by topic, the messages on topics no seal lists.
	Unsealed map[string]uint64 `json:"unsealed"`
	// Breaks counts the breaks found; FirstBreak is the earliest in the
	// recording, nil when there is none.
	Breaks     uint64 `json:"breaks"`
	FirstBreak *Break `json:"first_break"`
}

// OK reports whether the recording holds exactly what its trusted seals say
// (up to its last whole seal).
func (r *Report) OK() bool { return r.Trusted && r.Breaks == 0 }

// Lines returns the report for a person, one line each.
func (r *Report) Lines() []string {
	keys := strings.Join(r.KeyIDs, ", ")
	if keys == "" {
		keys = "none"
	}
	out := []string{fmt.Sprintf("%d seals, keys %s", r.Seals, keys)}
	if !r.Trusted {
		if r.Seals > 0 {
			out = append(out, "seals not checked: no --trust-key given, so nothing they say is trusted")
		}
		return out
	}
	if r.FirstSeal >= 0 {
		end := "the last seal is not final: the recording was cut, or the node stopped without sealing"
		if r.Final {
			end = "the final seal: whole to the node's shutdown"
		}
		out = append(out, fmt.Sprintf("trusted from seal %d to seal %d (%d seals, %d messages); %s", r.FirstSeal, r.LastSeal, r.Checked, r.Messages, end))
	}
	if r.Before > 0 {
		out = append(out, fmt.Sprintf("not covered: %d messages before seal %d's interval (a recorder that started late)", r.Before, r.FirstSeal))
	}
	if r.After > 0 {
		out = append(out, fmt.Sprintf("not covered: %d messages after seal %d's interval (truncated, or no final seal)", r.After, r.LastSeal))
	}
	for _, t := range slices.Sorted(maps.Keys(r.Unsealed)) {
		out = append(out, fmt.Sprintf("unsealed topic %s: %d messages, not vouched for", t, r.Unsealed[t]))
	}
	if r.FirstBreak != nil {
		out = append(out, fmt.Sprintf("%d breaks; the first: %s", r.Breaks, r.FirstBreak))
	}
	return out
}
