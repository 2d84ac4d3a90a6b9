package session

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/engine"
	"github.com/ghost-robotics/ghost/pkg/wire/ros2msg"
)

// bytesSink keeps what it was handed: a copy of the bytes, and the storage
// itself, to tell one encoding from two equal ones.
type bytesSink struct {
	got     [][]byte
	storage []*byte
	err     error
	closed  int
}

func (s *bytesSink) PublishEncoded(_ engine.Command, data []byte) error {
	s.got = append(s.got, slices.Clone(data))
	s.storage = append(s.storage, &data[0])
	return s.err
}

func (s *bytesSink) Close() error { s.closed++; return nil }

// wantCDR is cmd's rationale encoded on its own.
func wantCDR(t *testing.T, cmd engine.Command) []byte {
	t.Helper()
	m := ros2msg.RationaleToWire(&cmd.Rationale)
	data, err := m.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRunnerEncodesOnce publishes decisions to two EncodedSinks beside two
// plain ones: each decision is encoded once, both encoded sinks get the
// same storage holding the rationale's CDR, and a failing encoded sink
// does not stop the other.
func TestRunnerEncodesOnce(t *testing.T) {
	r := NewRunner(RunnerOptions{})
	ros, rec := &bytesSink{err: errors.New("middleware gone")}, &bytesSink{}
	mem := &memorySink{}
	plain := 0
	mustRegister(t, r, "memory", mem)
	if err := r.RegisterEncoded("ros", ros); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, r, "func", FuncSink(func(engine.Command) error { plain++; return nil }))
	if err := r.RegisterEncoded("recording", rec); err != nil {
		t.Fatal(err)
	}
	cmds := []engine.Command{commandFor(t, 1, known, true), commandFor(t, 2, uncertain, true), commandFor(t, 3, known, false)}
	for i, cmd := range cmds {
		res := r.Execute(cmd)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		ids := []string{}
		for _, rc := range res.Receipts {
			ids = append(ids, rc.SinkID)
			if (rc.Err != nil) != (rc.SinkID == "ros") || rc.Err != nil && !errors.Is(rc.Err, ErrTransport) {
				t.Errorf("decision %d, sink %s: %v", i, rc.SinkID, rc.Err)
			}
		}
		if !slices.Equal(ids, []string{"memory", "ros", "func", "recording"}) {
			t.Errorf("receipts for %v", ids)
		}
		want := wantCDR(t, cmd)
		if string(ros.got[i]) != string(want) || string(rec.got[i]) != string(want) {
			t.Errorf("decision %d: sinks got %x and %x, want %x", i, ros.got[i], rec.got[i], want)
		}
		if ros.storage[i] != rec.storage[i] {
			t.Errorf("decision %d: the sinks were handed two encodings", i)
		}
	}
	if r.cdr.encodes != uint64(len(cmds)) {
		t.Errorf("%d encodings for %d decisions", r.cdr.encodes, len(cmds))
	}
	if plain != len(cmds) || len(mem.Records()) != len(cmds) {
		t.Errorf("plain sinks got %d and %d decisions, want %d", plain, len(mem.Records()), len(cmds))
	}
	if err := r.Close(); err != nil || ros.closed != 1 || rec.closed != 1 {
		t.Errorf("Close: %v; encoded sinks closed %d and %d times", err, ros.closed, rec.closed)
	}
	if res := r.Execute(cmds[0]); !errors.Is(res.Errors(), ErrSinkClosed) || len(rec.got) != len(cmds) {
		t.Errorf("after Close: %v, %d publishes", res.Errors(), len(rec.got))
	}
}

// TestRunnerEncodesOnlyForEncodedSinks: a Runner whose sinks take values
// (verify's) encodes nothing.
func TestRunnerEncodesOnlyForEncodedSinks(t *testing.T) {
	r := NewRunner(RunnerOptions{})
	mustRegister(t, r, "memory", &memorySink{})
	if res := r.Execute(commandFor(t, 1, known, true)); res.Errors() != nil {
		t.Fatal(res.Errors())
	}
	if r.cdr.encodes != 0 {
		t.Errorf("%d encodings without an encoded sink", r.cdr.encodes)
	}
}

func TestRegisterEncoded(t *testing.T) {
	r := NewRunner(RunnerOptions{})
	mustRegister(t, r, "a", &memorySink{})
	if err := r.RegisterEncoded("b", &bytesSink{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   string
		sink EncodedSink
		want string
	}{
		{"", &bytesSink{}, "empty sink id"},
		{"a", &bytesSink{}, `"a": id already registered`},
		{"b", &bytesSink{}, `"b": id already registered`},
		{"c", nil, "nil sink"},
	} {
		if err := r.RegisterEncoded(tc.id, tc.sink); !errors.Is(err, ErrRunner) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RegisterEncoded(%q): %v, want %q", tc.id, err, tc.want)
		}
	}
	if err := r.Register("b", &memorySink{}); err == nil {
		t.Error("Register took an id an encoded sink holds")
	}
}

// TestRationaleCDREncodingFailure: a rationale the codec refuses is an
// encoding failure naming the decision.
func TestRationaleCDREncodingFailure(t *testing.T) {
	var c rationaleCDR
	cmd := commandFor(t, 4, known, true)
	cmd.Rationale.PolicyID = "policy\x00" // a NUL byte: no CDR string holds it
	if _, err := c.encode(&cmd); !errors.Is(err, ErrEncoding) || !strings.Contains(err.Error(), cmd.Decision.String()) {
		t.Errorf("encode: %v, want ErrEncoding naming %s", err, cmd.Decision)
	}
}
