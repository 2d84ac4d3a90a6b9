package node

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/decisions"
	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/ros2/transport"
	"github.com/ghost-robotics/ghost/pkg/session"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// eventSink logs what happens to it, in order.
type eventSink struct{ events []string }

func (s *eventSink) Publish(cmd engine.Command) error {
	s.events = append(s.events, "publish "+cmd.Decision.Kind.String())
	return nil
}

func (s *eventSink) Close() error {
	s.events = append(s.events, "close")
	return nil
}

// shutdown decides the pending belief and publishes it before closing each
// sink exactly once.
func TestShutdownOrder(t *testing.T) {
	n, ft := benchNode(t)
	s := &eventSink{}
	if err := n.run.Register("events", s); err != nil {
		t.Fatal(err)
	}
	n.in <- input{kind: 0, data: beliefCDR(t, testBelief(42)), recv: base}
	if err := n.shutdown(); err != nil {
		t.Fatal(err)
	}
	want := []string{"publish " + decisions.KindAbstainUncertain.String(), "close"}
	if len(s.events) != 2 || s.events[0] != want[0] || s.events[1] != want[1] {
		t.Fatalf("sink events %q, want %q", s.events, want)
	}
	if got := len(ft.Published("/decisions")); got != 1 {
		t.Errorf("%d decisions published on the transport, want 1", got)
	}
	if err := n.run.Close(); err != nil || len(s.events) != 2 {
		t.Errorf("a second close reached the sink: %q, %v", s.events, err)
	}
}

func TestROSSinkAfterClose(t *testing.T) {
	ft := transport.NewFakeTransport()
	pub, err := ft.Advertise("/decisions", "ghost/msg/DecisionRationale", qos.DefaultDecisions())
	if err != nil {
		t.Fatal(err)
	}
	s := &rosSink{pub: pub, topic: "/decisions"}
	r := testRationale(t)
	cmd, data := encodedCommand(t, r)
	if err := s.PublishEncoded(cmd, data); err != nil {
		t.Fatal(err)
	}
	var m ros2msg.DecisionRationale
	if err := m.UnmarshalCDR(ft.Published("/decisions")[0]); err != nil || ros2msg.RationaleFromWire(&m) != r {
		t.Fatalf("published %+v, %v; want %+v", m, err, r)
	}
	_ = s.Close()
	if err := s.PublishEncoded(cmd, data); !errors.Is(err, session.ErrSinkClosed) {
		t.Errorf("PublishEncoded after Close = %v, want ErrSinkClosed", err)
	}
	if n := len(ft.Published("/decisions")); n != 1 {
		t.Errorf("%d messages published, want 1 (none after Close)", n)
	}
}

// TestNodeSinksShareOneEncoding checks that the ROS sink, the seal and the
// in-node recording get the very bytes the Runner encoded once: the same
// storage, handed to each in turn.
func TestNodeSinksShareOneEncoding(t *testing.T) {
	ft := transport.NewFakeTransport()
	pub, err := ft.Advertise("/decisions", "ghost/msg/DecisionRationale", qos.DefaultDecisions())
	if err != nil {
		t.Fatal(err)
	}
	var sealed, written []byte
	ros := &rosSink{pub: pub, topic: "/decisions", encoded: func(data []byte) { sealed = data }}
	rec := &recording{path: "r.mcap", decisions: session.NewRecordingSink(func(_ uint64, data []byte) error {
		written = data
		return nil
	}, func() int64 { return 0 })}
	ses, err := session.NewSession(session.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ses.Runner().RegisterEncoded(SinkROS, ros); err != nil {
		t.Fatal(err)
	}
	if err := ses.Runner().RegisterEncoded(SinkRecording, rec); err != nil {
		t.Fatal(err)
	}
	if err := ses.Feed(session.DefaultTopics()[session.KeyState], 1, beliefCDR(t, testBelief(9))); err != nil {
		t.Fatal(err)
	}
	if err := ses.End(2); err != nil {
		t.Fatal(err)
	}
	_, wantData := encodedCommand(t, testRationale(t))
	published := ft.Published("/decisions")
	if len(published) != 1 || string(published[0]) != string(wantData) || string(written) != string(wantData) {
		t.Fatalf("published %x, recorded %x; want %x", published, written, wantData)
	}
	if len(sealed) == 0 || &sealed[0] != &written[0] {
		t.Error("the seal and the recording were handed different encodings")
	}
}

func TestRecordingCloseOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.mcap")
	rec, err := bag.CreateRecording(path, bag.RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := &recording{rec: rec, path: path, inputs: make([]bag.ChannelID, 1)}
	ch, err := rec.AddMessageChannel("/decisions", "ghost/msg/DecisionRationale")
	if err != nil {
		t.Fatal(err)
	}
	s.decisions = session.NewRecordingSink(func(t uint64, data []byte) error { return rec.Write(ch, t, t, data) }, func() int64 { return base.UnixNano() })
	cmd, data := encodedCommand(t, testRationale(t))
	if err := s.PublishEncoded(cmd, data); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if err := s.PublishEncoded(cmd, data); !errors.Is(err, session.ErrSinkClosed) {
		t.Errorf("PublishEncoded after Close = %v", err)
	}
	if err := s.input(0, []byte{0, 1, 0, 0}, base, base); !errors.Is(err, session.ErrSinkClosed) {
		t.Errorf("input after Close = %v", err)
	}
	if st := rec.Stats(); st.Messages != 1 {
		t.Errorf("recorded %d messages, want 1", st.Messages)
	}
}

func testRationale(t *testing.T) decisions.Rationale {
	t.Helper()
	return expected(t, testBelief(9), nil, nil)
}

// encodedCommand returns the command publishing r and r's CDR, as the
// Runner hands them to an EncodedSink.
func encodedCommand(t *testing.T, r decisions.Rationale) (engine.Command, []byte) {
	t.Helper()
	m := ros2msg.RationaleToWire(&r)
	data, err := m.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Command{Decision: r.Decision, Rationale: r}, data
}
