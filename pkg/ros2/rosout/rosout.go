package rosout

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// Topic and TypeName are where and what rcl publishes log records; Topic is
// absolute, as rcl's.
const (
	Topic    = "/rosout"
	TypeName = "rcl_interfaces/msg/Log"
)

// QoS is rcl's rcl_qos_profile_rosout_default in Humble: reliable,
// transient local, keep last 1000, lifespan 10 s, so a console started
// shortly after the node still gets its recent lines.
func QoS() qos.Profile {
	return qos.Profile{
		History:     qos.HistoryKeepLast,
		Depth:       1000,
		Reliability: qos.ReliabilityReliable,
		Durability:  qos.DurabilityTransientLocal,
		Lifespan:    10 * time.Second,
	}
}

// LevelFatal is the slog level that maps to Log.FATAL; it equals
// config.LevelFatal (`--log-level fatal`).
const LevelFatal = slog.LevelError + 4

// Level maps a slog level to the rcl_interfaces/msg/Log severity: below
// info is DEBUG, then INFO, WARN, ERROR, and FATAL from LevelFatal up.
func Level(l slog.Level) uint8 {
	switch {
	case l < slog.LevelInfo:
		return ros2msg.RosLogDebug
	case l < slog.LevelWarn:
		return ros2msg.RosLogInfo
	case l < slog.LevelError:
		return ros2msg.RosLogWarn
	case l < LevelFatal:
		return ros2msg.RosLogError
	}
	return ros2msg.RosLogFatal
}

// DefaultQueue is the number of records waiting to be published before
// new ones are dropped.
const DefaultQueue = 256

// MaxMsgLen caps the msg field, in bytes: one record must not become a
// megabyte on the network.
const MaxMsgLen = 8 << 10

// Options configure a Handler.
type Options struct {
	// Name is the logger name in every message: the node's, e.g.
	// "decision_node" or "drone1.decision_node".
	Name string
	// Level is the minimum level published (nil: info).
	Level slog.Leveler
	// Queue is the number of records that may wait for the publisher
	// (0: DefaultQueue).
	Queue int
}

// Stats count what became of the records the handler was given.
type Stats struct {
	// Published counts records published.
	Published uint64
	// Dropped counts records not published because the queue was full,
	// the handler was not attached, or the publisher itself logged them.
	Dropped uint64
	// Failed counts records the publisher or the encoder refused.
	Failed uint64
}

// Handler is a slog.Handler that publishes records on /rosout. The zero
// value is not usable; create one with New.
type Handler struct {
	c      *core
	prefix string // preformatted attributes of WithAttrs, " k=v" each
	group  string // the WithGroup prefix of keys, "g." each
}

// core is what every Handler derived from one New shares.
type core struct {
	name  string
	level slog.Leveler
	queue int

	mu       sync.Mutex // guards the fields below and the send on ch
	pub      transport.Publisher
	now      func() time.Time
	ch       chan ros2msg.RosLog
	detached bool
	done     chan struct{}

	published, dropped, failed atomic.Uint64
	// publishing is set while the goroutine is inside Publish, so Handle
	// looks for itself on the stack only then.
	publishing atomic.Bool
}

var _ slog.Handler = (*Handler)(nil)

// New returns a handler that drops records until Attach.
func New(opts Options) *Handler {
	if opts.Level == nil {
		opts.Level = slog.LevelInfo
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	return &Handler{c: &core{name: opts.Name, level: opts.Level, queue: opts.Queue}}
}

// ErrAttached is returned by a second Attach.
var ErrAttached = errors.New("rosout handler already attached")

// Attach starts publishing on p, stamping records with now (the node's
// ROS time). A handler is attached once.
func (h *Handler) Attach(p transport.Publisher, now func() time.Time) error {
	if p == nil || now == nil {
		return errors.New("rosout: attach needs a publisher and a clock")
	}
	c := h.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pub != nil || c.detached {
		return ErrAttached
	}
	c.pub, c.now = p, now
	c.ch = make(chan ros2msg.RosLog, c.queue)
	c.done = make(chan struct{})
	go c.publish(c.ch, p, c.done)
	return nil
}

// Detach publishes the records already queued, then stops: later records
// are dropped and counted. Call it before the transport closes. Detach is
// idempotent.
func (h *Handler) Detach() {
	c := h.c
	c.mu.Lock()
	if c.detached {
		c.mu.Unlock()
		return
	}
	c.detached = true
	ch, done := c.ch, c.done
	if ch != nil {
		close(ch)
	}
	c.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Stats returns the counters so far.
func (h *Handler) Stats() Stats {
	return Stats{Published: h.c.published.Load(), Dropped: h.c.dropped.Load(), Failed: h.c.failed.Load()}
}

// publish runs on its own goroutine until ch is closed and drained. It
// never logs: failures are counted.
func (c *core) publish(ch <-chan ros2msg.RosLog, p transport.Publisher, done chan<- struct{}) {
	defer close(done)
	var buf []byte
	for m := range ch {
		data, err := m.AppendCDR(buf[:0])
		if err == nil {
			buf = data
			c.publishing.Store(true)
			err = p.Publish(data)
			c.publishing.Store(false)
		}
		if err != nil {
			c.failed.Add(1)
			continue
		}
		c.published.Add(1)
	}
}

// Enabled reports whether level reaches the handler's level.
func (h *Handler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= h.c.level.Level()
}

// Handle queues r for publishing; it never blocks and returns nil (a
// dropped record is counted, not an error the logger could only print).
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	c := h.c
	c.mu.Lock()
	now, live := c.now, c.pub != nil && !c.detached
	c.mu.Unlock()
	if !live || c.publishing.Load() && fromPublisher() {
		c.dropped.Add(1)
		return nil
	}
	m := ros2msg.RosLog{
		Stamp: ros2msg.RosTimeOf(now()),
		Level: Level(r.Level),
		Name:  c.name,
		Msg:   h.text(r),
	}
	if r.PC != 0 {
		f, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		m.File, m.Function, m.Line = clean(f.File), clean(f.Function), uint32(max(f.Line, 0))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.detached {
		c.dropped.Add(1)
		return nil
	}
	select {
	case c.ch <- m:
	default:
		c.dropped.Add(1)
	}
	return nil
}

// publishFunc is the name of the publishing goroutine's function.
var publishFunc = runtime.FuncForPC(reflect.ValueOf((*core).publish).Pointer()).Name()

// fromPublisher reports whether the caller runs inside the publishing
// goroutine, i.e. the publisher logged through this handler: publishing
// that record would log again, without end.
func fromPublisher() bool {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for {
		f, more := frames.Next()
		if f.Function == publishFunc {
			return true
		}
		if !more {
			return false
		}
	}
}

// WithAttrs returns a handler that appends attrs to every record's text.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	var b strings.Builder
	b.WriteString(h.prefix)
	for _, a := range attrs {
		appendAttr(&b, h.group, a)
	}
	return &Handler{c: h.c, prefix: b.String(), group: h.group}
}

// WithGroup returns a handler that qualifies later keys with name.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &Handler{c: h.c, prefix: h.prefix, group: h.group + name + "."}
}

// text is the record's message followed by its attributes as key=value,
// as the stderr text handler shows them, capped at MaxMsgLen.
func (h *Handler) text(r slog.Record) string {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.prefix)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.group, a)
		return b.Len() < MaxMsgLen
	})
	return truncate(clean(b.String()), MaxMsgLen)
}

func appendAttr(b *strings.Builder, group string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		g := group
		if a.Key != "" {
			g += a.Key + "."
		}
		for _, ga := range a.Value.Group() {
			appendAttr(b, g, ga)
		}
		return
	}
	b.WriteByte(' ')
	b.WriteString(quote(group + a.Key))
	b.WriteByte('=')
	b.WriteString(quote(a.Value.String()))
}

// quote quotes s when it would not read back as one token.
func quote(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r <= ' ' || r == '=' || r == '"' || r == 0x7f || r == utf8.RuneError {
			return strconv.Quote(s)
		}
	}
	return s
}

// clean makes s a valid CDR string: valid UTF-8 without NUL bytes, which
// would otherwise make the encoder refuse the whole record.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", `\x00`)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
