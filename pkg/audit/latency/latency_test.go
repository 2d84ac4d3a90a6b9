package latency

import (
	"math"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

var topics = Topics{State: "/state/nav", Assessment: "/self_assessment", Decisions: "/decisions", Actions: "/decisions/actions"}

func cdr(t testing.TB, m interface{ MarshalCDR() ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The messages of one stamp, with log times on the node's clock and
// publish times on the wall clock (µs).
type rec struct {
	topic    string
	stamp    int64
	log, pub uint64
	event    uint8 // receipts
	attempt  uint8
}

func message(t testing.TB, r rec) bag.Message {
	m := bag.Message{Topic: r.topic, LogTime: r.log * 1000, PublishTime: r.pub * 1000}
	switch r.topic {
	case topics.State:
		v := ros2msg.NewVehicleState()
		v.StampSimNs = r.stamp
		m.Data = cdr(t, &v)
	case topics.Assessment:
		a := ros2msg.NewBeliefSelfAssessment()
		a.BeliefStampSimNs = r.stamp
		m.Data = cdr(t, &a)
	case topics.Decisions:
		d := ros2msg.NewDecisionRationale()
		d.Decision.DecisionStampSimNs, d.BeliefStampSimNs = r.stamp, r.stamp
		m.Data = cdr(t, &d)
	case topics.Actions:
		a := ros2msg.NewActionReceipt()
		a.DecisionStampSimNs, a.Event, a.Attempt = r.stamp, r.event, r.attempt
		m.Data = cdr(t, &a)
	default:
		m.Data = []byte{1, 2, 3}
	}
	return m
}

func TestMeasure(t *testing.T) {
	us := time.Microsecond
	tests := []struct {
		name string
		recs []rec
		want Report
	}{
		{"the later of belief and assessment starts the clock", []rec{
			{topics.State, 10, 100, 100, 0, 0},
			{topics.Assessment, 10, 105, 105, 0, 0},
			{topics.Decisions, 10, 105, 108, 0, 0},
			{topics.Actions, 10, 105, 110, eventSent, 1},
			{topics.Actions, 10, 1105, 1110, eventSent, 2}, // a retry is not the command's latency
		}, Report{WallClock: true, Decisions: Stats{1, 3 * us, 3 * us, 3 * us}, Commands: Stats{1, 5 * us, 5 * us, 5 * us}}},
		{"sim time: log times on the node's clock, publish times on the wall's", []rec{
			{topics.State, 20, 7, 500, 0, 0},
			{topics.Assessment, 20, 7, 501, 0, 0},
			{topics.Decisions, 20, 7, 503, 0, 0},
			{topics.State, 30, 8, 600, 0, 0},
			{topics.Assessment, 30, 8, 600, 0, 0},
			{topics.Decisions, 30, 8, 610, 0, 0},
		}, Report{WallClock: true, Decisions: Stats{2, 2 * us, 10 * us, 10 * us}}},
		{"a replay (publish = log) measures nothing", []rec{
			{topics.State, 10, 100, 100, 0, 0},
			{topics.Decisions, 10, 100, 100, 0, 0},
		}, Report{}},
		{"a decision whose inputs the recording lacks", []rec{
			{topics.Decisions, 10, 100, 101, 0, 0},
			{topics.Actions, 10, 100, 102, eventSent, 1},
		}, Report{WallClock: true, Unmatched: 2}},
		{"other topics are ignored", []rec{
			{"/diagnostics", 0, 1, 2, 0, 0},
		}, Report{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New(topics)
			for _, r := range tc.recs {
				if err := m.Add(message(t, r)); err != nil {
					t.Fatal(err)
				}
			}
			if got := m.Report(); got != tc.want {
				t.Errorf("report\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

func TestUndecodable(t *testing.T) {
	m := New(topics)
	for _, topic := range []string{topics.State, topics.Assessment, topics.Decisions, topics.Actions} {
		if err := m.Add(bag.Message{Topic: topic, Data: []byte{0, 1, 0, 0, 9}}); err == nil {
			t.Errorf("%s: a truncated message was taken", topic)
		}
	}
	if r := m.Report(); r.Undecodable != 4 {
		t.Errorf("undecodable %d, want 4", r.Undecodable)
	}
}

// Nearest rank: of 1..100 µs, p50 is 50, p99 99, max 100.
func TestPercentiles(t *testing.T) {
	d := make([]time.Duration, 100)
	for i := range d {
		d[i] = time.Duration(100-i) * time.Microsecond
	}
	got := summarise(d)
	want := Stats{N: 100, P50: 50 * time.Microsecond, P99: 99 * time.Microsecond, Max: 100 * time.Microsecond}
	if got != want {
		t.Errorf("%+v, want %+v", got, want)
	}
	if one := summarise([]time.Duration{7}); one != (Stats{1, 7, 7, 7}) {
		t.Errorf("one value: %+v", one)
	}
}

func FuzzAdd(f *testing.F) {
	for _, r := range []rec{{topics.State, 1, 1, 2, 0, 0}, {topics.Decisions, 1, 1, 3, 0, 0}, {topics.Actions, 1, 1, 4, 0, 1}} {
		m := message(f, r)
		f.Add(uint8(0), m.Data, m.LogTime, m.PublishTime)
	}
	names := []string{topics.State, topics.Assessment, topics.Decisions, topics.Actions}
	f.Fuzz(func(t *testing.T, topic uint8, data []byte, log, pub uint64) {
		m := New(topics)
		msg := bag.Message{Topic: names[int(topic)%len(names)], Data: data, LogTime: log, PublishTime: pub}
		for range 2 { // a second message of the same stamp must not panic either
			_ = m.Add(msg)
		}
		r := m.Report()
		if r.Decisions.P50 < 0 || r.Commands.Max < 0 || r.Decisions.N > 2 {
			t.Errorf("report %+v", r)
		}
	})
}

// TestFarApartPublishTimes: publish times far apart (an output stamped more
// than 2^63 ns after its input, or before it) give no negative latency:
// the difference saturates instead of wrapping around.
func TestFarApartPublishTimes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in, out uint64
		want    time.Duration
	}{
		{"an output 2^63 ns after its input", 1, 1<<63 + 2, time.Duration(math.MaxInt64)},
		{"an output at the end of the range", 1, math.MaxUint64, time.Duration(math.MaxInt64)},
		{"an output before its input", math.MaxUint64, 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(topics)
			state := message(t, rec{topic: topics.State, stamp: 10})
			state.LogTime, state.PublishTime = 1, tc.in
			dec := message(t, rec{topic: topics.Decisions, stamp: 10})
			dec.LogTime, dec.PublishTime = 2, tc.out
			for _, msg := range []bag.Message{state, dec} {
				if err := m.Add(msg); err != nil {
					t.Fatal(err)
				}
			}
			r := m.Report()
			if r.Decisions.N != 1 || r.Decisions.Max != tc.want || r.Decisions.P50 < 0 {
				t.Fatalf("%+v, want one latency of %v", r.Decisions, tc.want)
			}
		})
	}
}
