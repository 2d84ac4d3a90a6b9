package rosout

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

var at = time.Unix(1700000000, 250)

// attached returns a logger publishing through a fake transport.
func attached(t *testing.T, level slog.Level) (*slog.Logger, *Handler, *transport.FakeTransport) {
	t.Helper()
	ft := transport.NewFakeTransport()
	p, err := ft.Advertise(Topic, TypeName, QoS())
	if err != nil {
		t.Fatal(err)
	}
	h := New(Options{Name: "drone1.decision_node", Level: level})
	if err := h.Attach(p, func() time.Time { return at }); err != nil {
		t.Fatal(err)
	}
	return slog.New(h), h, ft
}

// decoded decodes what was published on /rosout with the project codec.
func decoded(t *testing.T, ft *transport.FakeTransport) []ros2msg.RosLog {
	t.Helper()
	var out []ros2msg.RosLog
	for _, data := range ft.Published(Topic) {
		var m ros2msg.RosLog
		if err := m.UnmarshalCDR(data); err != nil {
			t.Fatalf("published Log does not decode: %v", err)
		}
		out = append(out, m)
	}
	return out
}

func TestLevelMapping(t *testing.T) {
	if LevelFatal != config.LevelFatal {
		t.Errorf("LevelFatal %v, --log-level fatal is %v", LevelFatal, config.LevelFatal)
	}
	for _, tt := range []struct {
		in   slog.Level
		want uint8
	}{
		{slog.LevelDebug - 4, 10}, {slog.LevelDebug, 10}, {slog.LevelInfo - 1, 10},
		{slog.LevelInfo, 20}, {slog.LevelInfo + 1, 20},
		{slog.LevelWarn, 30}, {slog.LevelError, 40}, {slog.LevelError + 3, 40},
		{slog.LevelError + 4, 50}, {slog.LevelError + 100, 50},
	} {
		if got := Level(tt.in); got != tt.want {
			t.Errorf("Level(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// Every field of a published record, decoded back, and the level filter.
func TestPublishedFields(t *testing.T) {
	for _, tt := range []struct {
		level slog.Level
		want  []uint8 // levels published of debug, info, warn, error, fatal
	}{
		{slog.LevelDebug, []uint8{10, 20, 30, 40, 50}},
		{slog.LevelInfo, []uint8{20, 30, 40, 50}},
		{slog.LevelWarn, []uint8{30, 40, 50}},
		{slog.LevelError, []uint8{40, 50}},
		{LevelFatal, []uint8{50}},
	} {
		t.Run(tt.level.String(), func(t *testing.T) {
			log, h, ft := attached(t, tt.level)
			log.Debug("d")
			log.Info("i", "k", 1)
			log.Warn("w")
			log.Error("e")
			log.Log(context.Background(), LevelFatal, "f")
			h.Detach()
			msgs := decoded(t, ft)
			var got []uint8
			for _, m := range msgs {
				got = append(got, m.Level)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("levels published %v, want %v", got, tt.want)
			}
			m := msgs[0]
			if m.Name != "drone1.decision_node" || m.Stamp != (ros2msg.RosTime{Sec: 1700000000, Nanosec: 250}) {
				t.Errorf("name %q stamp %+v", m.Name, m.Stamp)
			}
			if !strings.HasSuffix(m.File, "rosout_test.go") || !strings.HasSuffix(m.Function, "TestPublishedFields.func1") || m.Line == 0 {
				t.Errorf("source %s %s:%d", m.Function, m.File, m.Line)
			}
			if st := h.Stats(); st.Published != uint64(len(tt.want)) || st.Dropped != 0 || st.Failed != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// Attributes, groups and awkward values end up in msg as key=value, and
// nothing a caller logs makes the record unencodable.
func TestMessageText(t *testing.T) {
	log, h, ft := attached(t, slog.LevelDebug)
	log.With("node", "/decision_node").WithGroup("g").Info("ready", "n", 3, slog.Group("sub", "a", "x y"), "empty", "")
	log.Info("nul\x00inside", "v", "a\x00b", "bad", "\xff")
	log.Info(strings.Repeat("x", 2*MaxMsgLen))
	h.Detach()
	msgs := decoded(t, ft)
	if len(msgs) != 3 {
		t.Fatalf("%d messages", len(msgs))
	}
	if want := `ready node=/decision_node g.n=3 g.sub.a="x y" g.empty=""`; msgs[0].Msg != want {
		t.Errorf("msg %q, want %q", msgs[0].Msg, want)
	}
	if want := `nul\x00inside v="a\x00b" bad="\xff"`; msgs[1].Msg != want {
		t.Errorf("msg %q, want %q", msgs[1].Msg, want)
	}
	if n := len(msgs[2].Msg); n > MaxMsgLen || !strings.HasSuffix(msgs[2].Msg, "…") {
		t.Errorf("long message: %d bytes, suffix %q", n, msgs[2].Msg[n-4:])
	}
}

// Records before Attach and after Detach are dropped and counted.
func TestDetachedDrops(t *testing.T) {
	h := New(Options{Name: "n"})
	log := slog.New(h)
	log.Info("before")
	ft := transport.NewFakeTransport()
	p, _ := ft.Advertise(Topic, TypeName, QoS())
	if err := h.Attach(p, time.Now); err != nil {
		t.Fatal(err)
	}
	if err := h.Attach(p, time.Now); !errors.Is(err, ErrAttached) {
		t.Errorf("second Attach: %v", err)
	}
	log.Info("during")
	h.Detach()
	h.Detach()
	log.Info("after")
	if err := h.Attach(p, time.Now); !errors.Is(err, ErrAttached) {
		t.Errorf("Attach after Detach: %v", err)
	}
	msgs := decoded(t, ft)
	if len(msgs) != 1 || msgs[0].Msg != "during" {
		t.Fatalf("published %+v", msgs)
	}
	if st := h.Stats(); st != (Stats{Published: 1, Dropped: 2}) {
		t.Errorf("stats %+v", st)
	}
}

func TestPublishErrorsAreCounted(t *testing.T) {
	ft := transport.NewFakeTransport()
	p, _ := ft.Advertise(Topic, TypeName, QoS())
	p.(*transport.FakePublisher).FailWith(errors.New("rmw says no"))
	var stderr bytes.Buffer
	h := New(Options{Name: "n"})
	if err := h.Attach(p, time.Now); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewMultiHandler(slog.NewTextHandler(&stderr, nil), h))
	log.Info("one")
	log.Warn("two")
	h.Detach()
	if st := h.Stats(); st != (Stats{Failed: 2}) {
		t.Errorf("stats %+v", st)
	}
	if strings.Count(stderr.String(), "\n") != 2 || strings.Contains(stderr.String(), "rmw says no") {
		t.Errorf("stderr got %q; failures must be counted, not logged", stderr.String())
	}
}

// blockingPublisher holds every Publish until released.
type blockingPublisher struct {
	release chan struct{}
	mu      sync.Mutex
	n       int
}

func (b *blockingPublisher) Publish([]byte) error {
	<-b.release
	b.mu.Lock()
	b.n++
	b.mu.Unlock()
	return nil
}

// A stuck publisher never stalls the caller: records beyond the queue are
// dropped and counted.
func TestNeverBlocks(t *testing.T) {
	bp := &blockingPublisher{release: make(chan struct{})}
	h := New(Options{Name: "n", Queue: 4})
	if err := h.Attach(bp, time.Now); err != nil {
		t.Fatal(err)
	}
	log := slog.New(h)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 100; i++ {
			log.Info("x")
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("logging blocked on a stuck publisher")
	}
	close(bp.release)
	h.Detach()
	st := h.Stats()
	// One record may be inside Publish and four in the queue.
	if st.Published+st.Dropped != 100 || st.Published > 5 || st.Published < 4 {
		t.Errorf("stats %+v", st)
	}
}

// loggingPublisher logs through the handler it publishes for.
type loggingPublisher struct {
	log *slog.Logger
	n   int
}

func (l *loggingPublisher) Publish([]byte) error {
	l.n++
	l.log.Info("published one")
	return nil
}

// A publisher that logs through the handler does not start a loop: its
// records are dropped.
func TestNoRecursion(t *testing.T) {
	h := New(Options{Name: "n"})
	lp := &loggingPublisher{log: slog.New(h)}
	if err := h.Attach(lp, time.Now); err != nil {
		t.Fatal(err)
	}
	lp.log.Info("first")
	// Wait, while attached, until the first record is published and the
	// record its publisher logged is accounted for: dropped by the guard,
	// or published too (a loop, which the checks below catch).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if st := h.Stats(); st.Published >= 1 && st.Published+st.Dropped >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first record was not published within 10 s: stats %+v", h.Stats())
		}
	}
	h.Detach()
	if lp.n != 1 {
		t.Errorf("published %d records, want 1", lp.n)
	}
	if st := h.Stats(); st != (Stats{Published: 1, Dropped: 1}) {
		t.Errorf("stats %+v", st)
	}
}

func TestQoS(t *testing.T) {
	q := QoS()
	r, err := transport.RMW(q)
	if err != nil {
		t.Fatal(err)
	}
	// rcl_qos_profile_rosout_default (rcl/logging_rosout.h, Humble).
	want := transport.RMWProfile{History: 1, Depth: 1000, Reliability: 1, Durability: 1, Lifespan: 10 * time.Second}
	if r != want {
		t.Errorf("rmw profile %+v, want %+v", r, want)
	}
}

func TestConcurrentLogging(t *testing.T) {
	log, h, ft := attached(t, slog.LevelInfo)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				log.Info("x", "i", i)
			}
		}()
	}
	wg.Wait()
	h.Detach()
	st := h.Stats()
	if st.Published+st.Dropped != 80 || uint64(len(ft.Published(Topic))) != st.Published {
		t.Errorf("stats %+v, %d published", st, len(ft.Published(Topic)))
	}
}

func BenchmarkHandle(b *testing.B) {
	// A stuck publisher: the benchmark measures Handle, not Publish.
	bp := &blockingPublisher{release: make(chan struct{})}
	h := New(Options{Name: "n", Queue: 1})
	if err := h.Attach(bp, time.Now); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { close(bp.release); h.Detach() })
	log := slog.New(h)
	b.ReportAllocs()
	for b.Loop() {
		log.Info("input rejected", "reason", "late_belief", "stamp", 12345)
	}
}
