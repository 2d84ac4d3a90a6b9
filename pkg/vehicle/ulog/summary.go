package ulog

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Summary is a whole log read into memory, for tests and command-line
// tools. Unlike the Reader it grows with the log (logged strings,
// parameter changes, dropouts); sample values are not kept.
type Summary struct {
	Header Header
	// Info holds the 'I' values by name; a repeated name keeps the last.
	Info map[string]any
	// MultiInfo holds the 'M' values by name, in log order, with continued
	// pieces joined (strings concatenated, arrays appended). A piece whose
	// element type differs from its predecessor's starts a new value.
	MultiInfo map[string][]any
	// Params holds the 'P' values read before the data section (the first
	// 'A', 'D', 'L' or 'C'); ParamChanges the later ones, in log order.
	Params        map[string]Param
	ParamChanges  []Param
	DefaultParams []DefaultParam
	// Subscriptions in order of msg_id, removed ones included.
	Subscriptions []SubscriptionStats
	Logged        []LogString
	Dropouts      []Dropout
	Formats       int // formats defined
	Syncs         int // valid sync messages
	Messages      int // messages yielded by the reader
	// Problems keeps the first Options.MaxProblems problems;
	// ProblemCounts counts them all by kind.
	Problems      []Problem
	ProblemCounts map[ProblemKind]int
	// Truncated is non-nil when the log ends inside a message.
	Truncated *Truncation
}

// SubscriptionStats is a subscription and what its samples held.
type SubscriptionStats struct {
	MsgID   uint16
	MultiID uint8
	Name    string
	Count   int    // samples delivered
	Skipped int    // samples skipped (see Err and the problems)
	Err     error  // why samples were skipped, if they were
	First   uint64 // timestamp of the first sample, µs (0 without samples)
	Last    uint64 // timestamp of the last sample, µs
	// Monotonic is false when a sample's timestamp was below its
	// predecessor's.
	Monotonic bool
}

// Subscription finds a subscription by name and instance.
func (s *Summary) Subscription(name string, multiID uint8) (SubscriptionStats, bool) {
	for _, st := range s.Subscriptions {
		if st.Name == name && st.MultiID == multiID {
			return st, true
		}
	}
	return SubscriptionStats{}, false
}

type multiPiece struct {
	typ    string // type of the first piece, e.g. "char[40]"
	elem   string // its element type, e.g. "char"
	raw    []byte
	joined bool
}

// ReadAll reads a whole log. It fails only where NewReader or Next fail;
// truncation and problems are reported in the Summary.
func ReadAll(rd io.Reader, opts Options) (*Summary, error) {
	r, err := NewReader(rd, opts)
	if err != nil {
		return nil, err
	}
	s := &Summary{
		Header: r.Header(), Info: map[string]any{}, MultiInfo: map[string][]any{},
		Params: map[string]Param{}, ProblemCounts: map[ProblemKind]int{},
	}
	multi := map[string][]multiPiece{}
	var subs []*Subscription // in the order read
	stats := map[*Subscription]*SubscriptionStats{}
	inData := false
	for m, err := range r.Messages() {
		if err != nil {
			return nil, err
		}
		s.Messages++
		switch m := m.(type) {
		case *Format:
			s.Formats++
		case *Info:
			s.Info[m.Name] = m.Value
		case *MultiInfo:
			elem, _, _ := strings.Cut(m.Type, "[")
			pieces := multi[m.Name]
			if n := len(pieces); m.IsContinued && n > 0 && pieces[n-1].elem == elem {
				pieces[n-1].raw = append(pieces[n-1].raw, m.Raw...)
				pieces[n-1].joined = true
			} else {
				pieces = append(pieces, multiPiece{typ: m.Type, elem: elem, raw: m.Raw})
			}
			multi[m.Name] = pieces
		case *Param:
			if inData {
				s.ParamChanges = append(s.ParamChanges, *m)
			} else {
				s.Params[m.Name] = *m
			}
		case *DefaultParam:
			s.DefaultParams = append(s.DefaultParams, *m)
		case *Subscription:
			inData = true
			subs = append(subs, m)
			stats[m] = &SubscriptionStats{MsgID: m.MsgID, MultiID: m.MultiID, Name: m.Name, Monotonic: true}
		case *Data:
			inData = true
			st := stats[m.Sub]
			if ts, ok := m.Timestamp(); ok && st != nil {
				if m.Sub.Count == 1 {
					st.First = ts
				} else if ts < st.Last {
					st.Monotonic = false
				}
				st.Last = ts
			}
		case *LogString:
			inData = true
			s.Logged = append(s.Logged, *m)
		case *Sync:
			s.Syncs++
		case *Dropout:
			s.Dropouts = append(s.Dropouts, *m)
		}
	}
	s.joinMultiInfo(multi)
	s.finish(r, subs, stats)
	s.Truncated, _ = r.Truncated()
	return s, nil
}

// joinMultiInfo decodes each multi-info value from its pieces: continued
// pieces of one element type were joined into one array while reading.
func (s *Summary) joinMultiInfo(multi map[string][]multiPiece) {
	for name, pieces := range multi {
		for _, p := range pieces {
			typ := p.typ
			if p.joined && p.elem != "char" {
				typ = fmt.Sprintf("%s[%d]", p.elem, len(p.raw)/max(baseKind(p.elem).Size(), 1))
			}
			v, err := DecodeValue(typ, p.raw)
			if err != nil {
				v = p.raw
			}
			s.MultiInfo[name] = append(s.MultiInfo[name], v)
		}
	}
}

// finish takes the subscriptions' counts, in message ID order, and the
// reader's problems and truncation.
func (s *Summary) finish(r *Reader, subs []*Subscription, stats map[*Subscription]*SubscriptionStats) {
	for _, sub := range subs {
		st := stats[sub]
		st.Count, st.Skipped, st.Err = sub.Count, sub.Skipped, sub.Err
		s.Subscriptions = append(s.Subscriptions, *st)
	}
	slices.SortStableFunc(s.Subscriptions, func(a, b SubscriptionStats) int { return cmp.Compare(a.MsgID, b.MsgID) })
	s.Problems = r.Problems()
	for k := ProblemKind(1); k < numProblemKinds; k++ {
		if n := r.ProblemCount(k); n > 0 {
			s.ProblemCounts[k] = n
		}
	}
	s.Truncated, _ = r.Truncated()
}
