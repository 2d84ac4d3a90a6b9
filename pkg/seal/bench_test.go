package seal

import (
	"testing"
)

// BenchmarkSealerAdd is sealing's cost per message: one leaf over a
// 600-byte payload (a VehicleState with its covariance is about 2 KB, a
// rationale 150 bytes) and one fold.
func BenchmarkSealerAdd(b *testing.B) {
	s, err := NewSealer(testKey(b, "node"))
	if err != nil {
		b.Fatal(err)
	}
	id, err := s.Declare("/state/nav", "ghost/msg/VehicleState")
	if err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 600)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Add(id, int64(i), payload)
	}
}

// BenchmarkSeal makes and signs one seal of a dozen topics.
func BenchmarkSeal(b *testing.B) {
	s, err := NewSealer(testKey(b, "node"))
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range []string{"/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i", "/j", "/k", "/l"} {
		if _, err := s.Declare(t, "ghost/msg/Goal"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Add(TopicID(i%12), int64(i), []byte{0, 1, 0, 0})
		if _, err := s.Seal(int64(i), false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSealerAddStamp seals what one belief stamp gives in a replay: a
// VehicleState with its covariance (2,200 bytes), its self-assessment (223)
// and the decision's rationale (154), on the node's topics, whose leaf
// prefixes are 59, 73 and 64 bytes long.
func BenchmarkSealerAddStamp(b *testing.B) {
	s, err := NewSealer(testKey(b, "node"))
	if err != nil {
		b.Fatal(err)
	}
	type msg struct {
		id   TopicID
		data []byte
	}
	var msgs []msg
	for _, m := range []struct {
		topic, typ string
		size       int
	}{
		{"/state/nav", "ghost/msg/VehicleState", 2200},
		{"/self_assessment", "ghost/msg/BeliefSelfAssessment", 223},
		{"/decisions", "ghost/msg/DecisionRationale", 154},
	} {
		id, err := s.Declare(m.topic, m.typ)
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, msg{id, make([]byte, m.size)})
	}
	var n int64
	for _, m := range msgs {
		n += int64(len(m.data))
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for _, m := range msgs {
			s.Add(m.id, int64(i), m.data)
		}
	}
}
