package seal

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/bag"
)

// writeSealed writes n messages on two topics, one every 100 ms of log
// time, through a sealing Recorder, and returns the file.
func writeSealed(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	rec, err := bag.NewRecorder(&buf, bag.RecorderOptions{Compression: bag.CompressionNone})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSealer(testKey(t, "node"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRecorder(rec, s, RecorderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddMessageChannel(DefaultTopic, "RecordingSeal"); err == nil {
		t.Fatal("a second channel on the seal topic")
	}
	a, err := r.AddMessageChannel("/state/nav", "VehicleState")
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.AddChannel("/other", "pkg/Other", "int32 x\n")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ch := a
		if i%3 == 2 {
			ch = b
		}
		tm := uint64(5_000_000_000 + i*100_000_000)
		if err := r.Write(ch, tm, tm, []byte{0, 1, 0, 0, byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(a, 0, 0, nil); !errors.Is(err, bag.ErrRecorderClosed) {
		t.Fatalf("write after Close: %v", err)
	}
	return buf.Bytes()
}

func TestRecorder(t *testing.T) {
	data := writeSealed(t, 35)
	if again := writeSealed(t, 35); !bytes.Equal(data, again) {
		t.Fatal("the same writes gave other bytes")
	}
	rd, err := bag.NewReader(bytes.NewReader(data), bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(trustNode(t))
	var seals []Seal
	for {
		m, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		c.Observe(m.Topic, m.SchemaName, m.LogTime, m.Data)
		if m.Topic == DefaultTopic {
			s, err := Decode(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			seals = append(seals, s)
		}
	}
	r := c.Finish(true)
	if !r.OK() || !r.Final || r.Messages != 35 {
		t.Fatalf("report: %v", r.Lines())
	}
	// 35 messages over 3.4 s: intervals opening at 5.0, 6.0, 7.0 and 8.0 s.
	if len(seals) != 4 {
		t.Fatalf("%d seals, want 4", len(seals))
	}
	for i, s := range seals {
		want := uint64(10)
		if i == 3 {
			want = 5
		}
		if s.Count != want || s.FirstTimeNs != int64(5_000_000_000+i*1_000_000_000) || s.SealTimeNs != s.LastTimeNs || s.Final != (i == 3) {
			t.Errorf("seal %d: %d messages, times %d to %d, sealed at %d, final %v", i, s.Count, s.FirstTimeNs, s.LastTimeNs, s.SealTimeNs, s.Final)
		}
		if len(s.Topics) != 2 || s.Topics[0].Topic != "/other" || s.Topics[0].Type != "pkg/msg/Other" {
			t.Errorf("seal %d topics %+v", i, s.Topics)
		}
	}
}
