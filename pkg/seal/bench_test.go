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
