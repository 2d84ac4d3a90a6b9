package seal

import (
	"cmp"
	"crypto/ed25519"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
	"time"
)

// rec is one recorded message.
type rec struct {
	topic, schema string
	logTime       uint64
	data          []byte
}

func (r rec) clone() rec { r.data = append([]byte(nil), r.data...); return r }

// nodeStream records what a node sealing at 1 s intervals writes in its own
// recording over secs seconds: a belief and an assessment every 20 ms, a
// decision for each, a parameter event (always the same bytes) every 500
// ms, each seal after its interval and the final seal at the end.
func nodeStream(t testing.TB, secs int) []rec {
	t.Helper()
	s, err := NewSealer(testKey(t, "node"))
	if err != nil {
		t.Fatal(err)
	}
	type topic struct {
		id           TopicID
		name, schema string
	}
	mk := func(name, schema string) topic {
		id, err := s.Declare(name, schema)
		if err != nil {
			t.Fatal(err)
		}
		return topic{id, name, schema}
	}
	nav := mk("/state/nav", "ghost/msg/VehicleState")
	sa := mk("/self_assessment", "ghost/msg/BeliefSelfAssessment")
	dec := mk("/decisions", "ghost/msg/DecisionRationale")
	pe := mk("/parameter_events", "rcl_interfaces/msg/ParameterEvent")
	mk("/decisions/evidence", "ghost/msg/ActionEvidence") // sealed, never a message
	var out []rec
	add := func(tp topic, t uint64, data []byte) {
		s.Add(tp.id, int64(t), data)
		out = append(out, rec{tp.name, tp.schema, t, data})
	}
	seal := func(t uint64, final bool) {
		x, err := s.Seal(int64(t), final)
		if err != nil {
			panic(err)
		}
		data, err := x.AppendCDR(nil)
		if err != nil {
			panic(err)
		}
		out = append(out, rec{DefaultTopic, SchemaName, t, data})
	}
	const step = 20_000_000
	for k := uint64(0); k < uint64(secs)*50; k++ {
		t := 1_000_000_000 + k*step
		if k > 0 && k%50 == 0 {
			seal(t-1, false)
		}
		stamp := binary.LittleEndian.AppendUint64([]byte{0, 1, 0, 0}, k)
		add(nav, t, append(slices.Clone(stamp), 1, 2, 3))
		add(sa, t+1, append(slices.Clone(stamp), 4, 5))
		add(dec, t+1, append(slices.Clone(stamp), 6))
		if k%25 == 0 {
			add(pe, t+2, []byte{0, 1, 0, 0, 9, 9, 9, 9})
		}
	}
	seal(1_000_000_000+uint64(secs)*50*step, true)
	return out
}

func check(t testing.TB, stream []rec, complete bool, opts CheckOptions) *Report {
	t.Helper()
	c := NewChecker(opts)
	for _, m := range stream {
		c.Observe(m.topic, m.schema, m.logTime, m.data)
	}
	return c.Finish(complete)
}

func trustNode(t testing.TB) CheckOptions {
	return CheckOptions{TrustKeys: []ed25519.PublicKey{testPub(t, "node")}}
}

// indexOf returns the position of the n-th (0-based) message on topic.
func indexOf(stream []rec, topic string, n int) int {
	for i, m := range stream {
		if m.topic == topic {
			if n == 0 {
				return i
			}
			n--
		}
	}
	panic("no such message")
}

func TestCheckerHostile(t *testing.T) {
	const secs = 5
	tests := []struct {
		name     string
		edit     func(s []rec) []rec
		opts     func(o *CheckOptions)
		complete bool
		kind     BreakKind // "" when the recording must pass
		topic    string
	}{
		{name: "as recorded", complete: true},
		{name: "inserted belief", complete: true, kind: BreakChanged, topic: "/state/nav", edit: func(s []rec) []rec {
			i := indexOf(s, "/state/nav", 120)
			forged := s[i].clone()
			forged.data[len(forged.data)-1] ^= 0x40
			return slices.Insert(s, i+1, forged)
		}},
		{name: "dropped assessment", complete: true, kind: BreakChanged, topic: "/self_assessment", edit: func(s []rec) []rec {
			return slices.Delete(s, indexOf(s, "/self_assessment", 77), indexOf(s, "/self_assessment", 77)+1)
		}},
		{name: "changed decision", complete: true, kind: BreakChanged, topic: "/decisions", edit: func(s []rec) []rec {
			i := indexOf(s, "/decisions", 180)
			s[i] = s[i].clone()
			s[i].data[5] ^= 1
			return s
		}},
		{name: "changed first belief of the run", complete: true, kind: BreakChanged, topic: "/state/nav", edit: func(s []rec) []rec {
			i := indexOf(s, "/state/nav", 0)
			s[i] = s[i].clone()
			s[i].data[6] ^= 1
			return s
		}},
		{name: "reordered beliefs", complete: true, kind: BreakChanged, topic: "/state/nav", edit: func(s []rec) []rec {
			i, j := indexOf(s, "/state/nav", 60), indexOf(s, "/state/nav", 61)
			s[i].data, s[j].data = s[j].data, s[i].data
			return s
		}},
		{name: "belief moved to another interval", complete: true, kind: BreakChanged, topic: "/state/nav", edit: func(s []rec) []rec {
			i, j := indexOf(s, "/state/nav", 99), indexOf(s, "/state/nav", 100)
			s[i].data, s[j].data = s[j].data, s[i].data
			return s
		}},
		{name: "forged parameter event", complete: true, kind: BreakChanged, topic: "/parameter_events", edit: func(s []rec) []rec {
			i := indexOf(s, "/parameter_events", 4)
			return slices.Insert(s, i+1, rec{"/parameter_events", "rcl_interfaces/msg/ParameterEvent", s[i].logTime + 5, []byte{0, 1, 0, 0, 6, 6}})
		}},
		{name: "forged evidence", complete: true, kind: BreakInserted, topic: "/decisions/evidence", edit: forgedEvidence},
		{name: "forged evidence in a truncated recording", complete: false, kind: BreakInserted, topic: "/decisions/evidence", edit: func(s []rec) []rec {
			return forgedEvidence(s)[:len(s)*4/5]
		}},
		{name: "a recorder's own interleaving of topics", complete: true, edit: func(s []rec) []rec {
			// Per topic order kept, topics interleaved otherwise.
			slices.SortStableFunc(s, func(a, b rec) int { return strings.Compare(a.topic, b.topic) })
			return s
		}},
		{name: "another recorder: seals logged before their last messages, cut", complete: false, edit: func(s []rec) []rec {
			for i := range s {
				if s[i].topic == DefaultTopic {
					s[i].logTime -= 30_000_000
				}
			}
			slices.SortStableFunc(s, func(a, b rec) int { return cmp.Compare(a.logTime, b.logTime) })
			return s[:len(s)*3/5]
		}, opts: func(o *CheckOptions) { o.Skew = time.Second }},
		{name: "padded by rmw_cyclonedds", complete: true, edit: func(s []rec) []rec {
			for i := range s {
				if s[i].topic != DefaultTopic {
					s[i].data = append(slices.Clone(s[i].data), make([]byte, (4-len(s[i].data)%4)%4)...)
				}
			}
			return s
		}},
		{name: "wrong key", complete: true, kind: BreakKey, topic: DefaultTopic, opts: func(o *CheckOptions) {
			o.TrustKeys = []ed25519.PublicKey{testPub(t, "other")}
		}},
		{name: "forged seal signature", complete: true, kind: BreakSignature, topic: DefaultTopic, edit: func(s []rec) []rec {
			i := indexOf(s, DefaultTopic, 2)
			s[i] = s[i].clone()
			s[i].data[len(s[i].data)-1] ^= 1
			return s
		}},
		{name: "seal removed", complete: true, kind: BreakLink, topic: DefaultTopic, edit: func(s []rec) []rec {
			i := indexOf(s, DefaultTopic, 1)
			return slices.Delete(s, i, i+1)
		}},
		{name: "seals swapped", complete: true, kind: BreakLink, topic: DefaultTopic, edit: func(s []rec) []rec {
			i, j := indexOf(s, DefaultTopic, 1), indexOf(s, DefaultTopic, 2)
			s[i], s[j] = s[j], s[i]
			return s
		}},
		{name: "appended after the final seal", complete: true, kind: BreakInserted, topic: "/decisions", edit: func(s []rec) []rec {
			last := s[indexOf(s, "/decisions", 249)].clone()
			last.logTime += 1e9
			return append(s, last)
		}},
		{name: "truncated", complete: false, edit: func(s []rec) []rec { return s[:len(s)*3/5] }},
		{name: "stopped without a final seal", complete: true, edit: func(s []rec) []rec { return s[:indexOf(s, DefaultTopic, 3)+30] }},
		{name: "late recorder", complete: true, edit: func(s []rec) []rec { return lateStart(s, 1_000_000_000+2_500_000_000) }},
		{name: "late recorder, holding seal 0", complete: true, kind: BreakChanged, topic: "/state/nav", edit: func(s []rec) []rec {
			return lateStart(s, 1_000_000_000+300_000_000)
		}},
		{name: "late recorder, a message changed", complete: true, kind: BreakChanged, topic: "/state/nav", edit: func(s []rec) []rec {
			s = lateStart(s, 1_000_000_000+2_500_000_000)
			i := indexOf(s, "/state/nav", 100)
			s[i] = s[i].clone()
			s[i].data[len(s[i].data)-1] = 77
			return s
		}},
		{name: "late recorder, a message before the first whole seal logged after it", complete: true, kind: BreakInserted,
			topic: "/parameter_events", edit: func(s []rec) []rec {
				s = lateStart(s, 1_000_000_000+2_500_000_000)
				// Messages before a topic's first whole block are a late
				// recorder's, unless logged after the first whole seal.
				i := indexOf(s, "/parameter_events", 1)
				return slices.Insert(s, i, rec{"/parameter_events", "rcl_interfaces/msg/ParameterEvent", 5_200_000_000, []byte{0, 1, 0, 0, 5}})
			}},
		{name: "unsealed topic the audit reads", complete: true, kind: BreakUnsealed, topic: "/perception/mode", edit: perception},
		{name: "unsealed topic the audit does not read", complete: true, edit: perception, opts: func(o *CheckOptions) {
			o.Reads = func(topic string) bool { return topic != "/perception/mode" }
		}},
		{name: "no seal", complete: true, kind: BreakUnsealed, edit: func(s []rec) []rec {
			return slices.DeleteFunc(s, func(m rec) bool { return m.topic == DefaultTopic })
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := nodeStream(t, secs)
			if tc.edit != nil {
				s = tc.edit(s)
			}
			opts := trustNode(t)
			if tc.opts != nil {
				tc.opts(&opts)
			}
			r := check(t, s, tc.complete, opts)
			if tc.kind == "" {
				if !r.OK() {
					t.Fatalf("failed: %v", r.Lines())
				}
				return
			}
			if r.OK() || r.FirstBreak == nil {
				t.Fatalf("passed: %v", r.Lines())
			}
			if r.FirstBreak.Kind != tc.kind || tc.topic != "" && r.FirstBreak.Topic != tc.topic {
				t.Fatalf("first break %v, want %s on %s (%v)", r.FirstBreak, tc.kind, tc.topic, r.Lines())
			}
		})
	}
}

// lateStart drops what a recorder subscribed at t would not have.
func lateStart(s []rec, t uint64) []rec {
	return slices.DeleteFunc(s, func(m rec) bool { return m.logTime < t })
}

// perception adds messages on a topic the node did not seal.
func perception(s []rec) []rec {
	i := indexOf(s, "/state/nav", 10)
	return slices.Insert(s, i, rec{"/perception/mode", "ghost/msg/PerceptionMode", s[i].logTime, []byte{0, 1, 0, 0, 1}})
}

// TestCheckerRanges: what a passing check says it vouches for.
func TestCheckerRanges(t *testing.T) {
	const secs = 5
	full := nodeStream(t, secs)
	perSeal := uint64((len(full) - secs) / secs)
	tests := []struct {
		name          string
		stream        []rec
		complete      bool
		first, last   int64
		final         bool
		before, after bool
	}{
		{"whole", full, true, 0, secs - 1, true, false, false},
		{"truncated", full[:indexOf(full, DefaultTopic, 2)+10], false, 0, 2, false, false, true},
		{"late", lateStart(slices.Clone(full), 1_000_000_000+1_500_000_000), true, 2, secs - 1, true, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, tc.stream, tc.complete, trustNode(t))
			if !r.OK() {
				t.Fatalf("failed: %v", r.Lines())
			}
			if r.FirstSeal != tc.first || r.LastSeal != tc.last || r.Final != tc.final ||
				(r.Before > 0) != tc.before || (r.After > 0) != tc.after {
				t.Fatalf("got seals %d..%d final %v, before %d, after %d; want %d..%d final %v, before %v, after %v",
					r.FirstSeal, r.LastSeal, r.Final, r.Before, r.After, tc.first, tc.last, tc.final, tc.before, tc.after)
			}
			if r.Checked != uint64(tc.last-tc.first+1) || r.Messages != r.Checked*perSeal {
				t.Fatalf("checked %d seals, %d messages; want %d seals of %d", r.Checked, r.Messages, tc.last-tc.first+1, perSeal)
			}
		})
	}
}

func TestCheckerUntrusted(t *testing.T) {
	r := check(t, nodeStream(t, 3), true, CheckOptions{})
	if r.Trusted || r.OK() || r.Seals != 3 || !slices.Equal(r.KeyIDs, []string{KeyID(testPub(t, "node"))}) {
		t.Fatalf("report %+v", r)
	}
	if lines := r.Lines(); len(lines) != 2 || !strings.Contains(lines[1], "not checked") {
		t.Fatalf("lines %q", lines)
	}
}

// forgedEvidence adds evidence where the node received none.
func forgedEvidence(s []rec) []rec {
	i := indexOf(s, "/state/nav", 130)
	return slices.Insert(s, i, rec{"/decisions/evidence", "ghost/msg/ActionEvidence", s[i].logTime, []byte{0, 1, 0, 0, 1, 0, 0, 0}})
}
