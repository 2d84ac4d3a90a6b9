package audit

import (
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
)

// reusingSource serves msgs through one reused Data buffer, as a recording
// reader does, then err (or io.EOF). It fills the previous message's bytes
// with 0xa5 first, so that whoever kept Data past the next call reads
// garbage even when the buffer had to grow.
type reusingSource struct {
	msgs []bag.Message
	err  error
	buf  []byte
}

func (s *reusingSource) Next() (bag.Message, error) {
	for i := range s.buf {
		s.buf[i] = 0xa5
	}
	if len(s.msgs) == 0 {
		if s.err != nil {
			return bag.Message{}, s.err
		}
		return bag.Message{}, io.EOF
	}
	m := s.msgs[0]
	s.msgs = s.msgs[1:]
	s.buf = append(s.buf[:0], m.Data...)
	m.Data = s.buf
	return m, nil
}

func TestReorder(t *testing.T) {
	msg := func(logTime uint64, tag string) bag.Message {
		return bag.Message{Topic: "/t", LogTime: logTime, Data: []byte(tag)}
	}
	damage := errors.New("recording stopped at byte 99")
	tests := []struct {
		name   string
		in     []bag.Message
		err    error
		want   []string // tags in served order
		beyond uint64
	}{
		{"in order", []bag.Message{msg(1, "a"), msg(2, "b"), msg(3, "c")}, nil, []string{"a", "b", "c"}, 0},
		{"swapped within the window", []bag.Message{msg(10, "b"), msg(5, "a"), msg(20, "d"), msg(15, "c")}, nil, []string{"a", "b", "c", "d"}, 0},
		{"equal log times keep read order", []bag.Message{msg(5, "x"), msg(5, "y"), msg(4, "w"), msg(5, "z")}, nil, []string{"w", "x", "y", "z"}, 0},
		{"beyond the window: served as read, counted",
			[]bag.Message{msg(100, "a"), msg(200, "b"), msg(3000, "c"), msg(150, "late"), msg(3100, "d")}, nil,
			[]string{"a", "b", "late", "c", "d"}, 1},
		{"damage after the messages", []bag.Message{msg(2, "b"), msg(1, "a")}, damage, []string{"a", "b"}, 0},
		{"empty", nil, nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Reorder(&reusingSource{msgs: tt.in, err: tt.err}, 1000)
			var got []string
			var end error
			for {
				m, err := r.Next()
				if err != nil {
					end = err
					break
				}
				got = append(got, string(m.Data))
			}
			want := tt.err
			if want == nil {
				want = io.EOF
			}
			if !slices.Equal(got, tt.want) || !errors.Is(end, want) || r.OutOfWindow() != tt.beyond {
				t.Fatalf("served %q, end %v, out of window %d; want %q, %v, %d", got, end, r.OutOfWindow(), tt.want, want, tt.beyond)
			}
			if _, err := r.Next(); !errors.Is(err, want) {
				t.Fatalf("after the end: %v", err)
			}
		})
	}
}

// shuffleWithin moves each message by a random log-time distance below
// window, as a recorder's concurrent writers do.
func shuffleWithin(msgs []bag.Message, window time.Duration, seed uint64) []bag.Message {
	rng := rand.New(rand.NewPCG(seed, 1))
	type keyed struct {
		k float64
		m bag.Message
	}
	ks := make([]keyed, len(msgs))
	for i, m := range msgs {
		ks[i] = keyed{float64(m.LogTime) + rng.Float64()*float64(window), m}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		switch {
		case a.k < b.k:
			return -1
		case a.k > b.k:
			return 1
		}
		return 0
	})
	out := make([]bag.Message, len(ks))
	for i := range ks {
		out[i] = ks[i].m
	}
	return out
}

func TestReplayOfAnUnorderedRecordingWithReorder(t *testing.T) {
	msgs := drainSource(t, simSource(t, 5*time.Second, 50))
	want, _, err := replayBytes(t, &sliceSource{msgs: msgs}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	shuffled := shuffleWithin(msgs, 300*time.Millisecond, 7)
	if slices.EqualFunc(shuffled, msgs, func(a, b bag.Message) bool { return a.LogTime == b.LogTime }) {
		t.Fatal("the shuffle changed nothing")
	}
	// Read as it is, the disorder loses beliefs and assessments as late.
	_, plain, err := replayBytes(t, &sliceSource{msgs: shuffled}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Counters.RejectedTotal() == 0 {
		t.Fatal("the shuffled recording replays without a rejection: the test shows nothing")
	}
	// Reordered, it decides exactly as the ordered recording.
	r := Reorder(&reusingSource{msgs: shuffled}, DefaultReorderWindow)
	got, res, err := replayBytes(t, r, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gd, wd := recordedDecisions(t, got), recordedDecisions(t, want)
	if !slices.Equal(gd, wd) || res.Counters.RejectedTotal() != 0 || r.OutOfWindow() != 0 {
		t.Fatalf("%d decisions (want %d), %d rejected, %d out of window", len(gd), len(wd), res.Counters.RejectedTotal(), r.OutOfWindow())
	}
}

func BenchmarkReorder(b *testing.B) {
	msgs := make([]bag.Message, 10000)
	for i := range msgs {
		msgs[i] = bag.Message{Topic: "/t", LogTime: uint64(i) * 1e6, Data: []byte(strconv.Itoa(i))}
	}
	shuffled := shuffleWithin(msgs, 50*time.Millisecond, 1)
	b.ReportAllocs()
	for b.Loop() {
		r := Reorder(&reusingSource{msgs: shuffled}, DefaultReorderWindow)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

// channelSource is a reusingSource that knows its channels, as a reader.
type channelSource struct {
	reusingSource
	chans []bag.Channel
}

func (s *channelSource) Channels() []bag.Channel { return s.chans }

// TestReorderKeepsChannels: a replay of a sorted source copies a type
// ghost does not know with the schema the source recorded, as it does
// reading the source itself (an unindexed recording of a vehicle's own
// topics is sorted before it is replayed).
func TestReorderKeepsChannels(t *testing.T) {
	const topic, schema, text = "/fmu/out/vehicle_thing", "px4_msgs/msg/VehicleThing", "uint64 timestamp\n"
	var msgs []bag.Message
	for i := range 3 {
		msgs = append(msgs, bag.Message{Topic: topic, SchemaName: schema, ChannelID: 7, LogTime: uint64(3-i) * 1e6, Data: []byte{byte(i)}})
	}
	src := &channelSource{reusingSource{msgs: msgs}, []bag.Channel{{ID: 7, Topic: topic, SchemaName: schema, SchemaEncoding: bag.SchemaEncodingROS2Msg, SchemaText: text}}}
	out, _, err := replayBytes(t, Reorder(src, DefaultReorderWindow), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := openBytes(t, out)
	defer r.Close()
	i := slices.IndexFunc(r.Channels(), func(c bag.Channel) bool { return c.Topic == topic })
	if i < 0 || r.Channels()[i].SchemaName != schema || r.Channels()[i].SchemaText != text {
		t.Fatalf("the output's channels %+v: want %s with the recorded schema", r.Channels(), topic)
	}
}
