package clock

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

func clockCDR(t testing.TB, sec int32, nsec uint32) []byte {
	t.Helper()
	m := ros2msg.RosClock{Clock: ros2msg.RosTime{Sec: sec, Nanosec: nsec}}
	data, err := m.MarshalCDR()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestWall(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 5, time.UTC)
	c := NewWall(func() time.Time { return at })
	if c.Sim() || !c.Ready() {
		t.Fatalf("wall clock: Sim %v Ready %v", c.Sim(), c.Ready())
	}
	if got := c.Now(); !got.Equal(at) {
		t.Errorf("Now = %v, want %v", got, at)
	}
	if ns, ok := c.Timeline(); !ok || ns != at.UnixNano() {
		t.Errorf("Timeline = %d %v, want %d", ns, ok, at.UnixNano())
	}
	if _, err := c.Set(ros2msg.RosTime{Sec: 1}); err == nil {
		t.Error("a wall clock accepted a /clock time")
	}
	if got := c.Now(); !got.Equal(at) {
		t.Errorf("Now after a refused /clock = %v", got)
	}
}

// A sequence of /clock messages: what each does to the ROS time, the
// timeline and the counters.
func TestSimSequence(t *testing.T) {
	type step struct {
		sec      int32
		nsec     uint32
		garbage  bool
		wantErr  error
		first    bool
		advanced time.Duration
		back     time.Duration
		now      int64 // ns, ROS time after the step
		timeline int64 // ns
	}
	steps := []step{
		{sec: 10, first: true, now: 10e9, timeline: 10e9},
		{sec: 10, nsec: 5e8, advanced: 5e8, now: 10.5e9, timeline: 10.5e9},
		{sec: 10, nsec: 5e8, now: 10.5e9, timeline: 10.5e9},                           // paused
		{sec: 2, back: 8.5e9, now: 2e9, timeline: 10.5e9},                             // reset: timeline holds
		{sec: 3, advanced: 1e9, now: 3e9, timeline: 11.5e9},                           // and advances with /clock
		{sec: -1, wantErr: ErrInvalidTime, now: 3e9, timeline: 11.5e9},                // rejected, nothing changes
		{sec: 4, nsec: 1e9, wantErr: ErrInvalidTime, now: 3e9, timeline: 11.5e9},      // nanoseconds out of range
		{garbage: true, wantErr: ros2msg.ErrCDRTruncated, now: 3e9, timeline: 11.5e9}, // does not decode
		{sec: 1, back: 2e9, now: 1e9, timeline: 11.5e9},                               // a second reset
		{sec: 1, nsec: 1, advanced: 1, now: 1e9 + 1, timeline: 11.5e9 + 1},            // one nanosecond
	}
	c := NewSim()
	if !c.Sim() || c.Ready() {
		t.Fatalf("new sim clock: Sim %v Ready %v", c.Sim(), c.Ready())
	}
	if _, ok := c.Timeline(); ok {
		t.Fatal("Timeline ok before the first /clock")
	}
	if got := c.Now(); got.UnixNano() != 0 {
		t.Fatalf("Now before the first /clock = %v, want the epoch", got)
	}
	for i, s := range steps {
		data := clockCDR(t, s.sec, s.nsec)
		if s.garbage {
			data = data[:6]
		}
		u, err := c.HandleCDR(data)
		switch {
		case s.wantErr != nil && !errors.Is(err, s.wantErr):
			t.Fatalf("step %d: err %v, want %v", i, err, s.wantErr)
		case s.wantErr == nil && err != nil:
			t.Fatalf("step %d: %v", i, err)
		case s.wantErr == nil && (u.First != s.first || u.Advanced != s.advanced || u.Back != s.back || u.Time.UnixNano() != s.now):
			t.Errorf("step %d: update %+v, want first %v advanced %v back %v time %d", i, u, s.first, s.advanced, s.back, s.now)
		}
		if got := c.Now().UnixNano(); got != s.now {
			t.Errorf("step %d: Now = %d, want %d", i, got, s.now)
		}
		if ns, ok := c.Timeline(); !ok || ns != s.timeline {
			t.Errorf("step %d: Timeline = %d %v, want %d", i, ns, ok, s.timeline)
		}
	}
	want := Stats{Messages: 7, Rejected: 3, JumpsBack: 2, Paused: 1}
	if got := c.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

// Resets from the end of ROS time many times saturate the timeline instead
// of wrapping it around.
func TestTimelineSaturates(t *testing.T) {
	c := NewSim()
	prev := int64(-1)
	for i := 0; i < 10; i++ {
		for _, sec := range []int32{math.MaxInt32, 0} {
			if _, err := c.Set(ros2msg.RosTime{Sec: sec, Nanosec: 999999999}); err != nil {
				t.Fatal(err)
			}
			ns, _ := c.Timeline()
			if ns < prev {
				t.Fatalf("timeline went from %d to %d", prev, ns)
			}
			prev = ns
		}
	}
	if prev != math.MaxInt64 {
		t.Errorf("timeline = %d, want saturated", prev)
	}
}

func TestQoS(t *testing.T) {
	q := QoS()
	want := qos.Profile{History: qos.HistoryKeepLast, Depth: 1, Reliability: qos.ReliabilityBestEffort, Durability: qos.DurabilityVolatile}
	if q != want {
		t.Errorf("QoS = %+v, want %+v", q, want)
	}
	if err := q.Validate(); err != nil {
		t.Error(err)
	}
}

// The clock is read by loggers while /clock is applied.
func TestConcurrentUse(t *testing.T) {
	c := NewSim()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 1000; i++ {
			_ = c.Now()
			_, _ = c.Timeline()
		}
	}()
	for i := int32(0); i < 1000; i++ {
		if _, err := c.Set(ros2msg.RosTime{Sec: i}); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if c.Stats().Messages != 1000 {
		t.Errorf("messages %d", c.Stats().Messages)
	}
}

// Whatever arrives on /clock, the timeline never decreases and Now is the
// last accepted time.
func FuzzHandleCDR(f *testing.F) {
	f.Add(clockCDR(f, 10, 0), clockCDR(f, 2, 5))
	f.Add(clockCDR(f, 0, 0), clockCDR(f, 0, 0))
	f.Add(clockCDR(f, math.MaxInt32, 999999999), clockCDR(f, 0, 1))
	f.Add(clockCDR(f, -1, 0), []byte{0, 1, 0, 0, 1})
	f.Add([]byte{0, 1, 0, 0}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		c := NewSim()
		prev := int64(-1)
		for _, data := range [][]byte{a, b, a} {
			before := c.Now()
			u, err := c.HandleCDR(data)
			if err != nil {
				if !c.Now().Equal(before) {
					t.Fatalf("a rejected message changed Now from %v to %v", before, c.Now())
				}
				continue
			}
			if !c.Now().Equal(u.Time) {
				t.Fatalf("Now %v, update %v", c.Now(), u.Time)
			}
			ns, ok := c.Timeline()
			if !ok || ns < prev || ns < u.Time.UnixNano() {
				t.Fatalf("timeline %d (ok %v) after %d, time %v", ns, ok, prev, u.Time)
			}
			prev = ns
		}
	})
}
