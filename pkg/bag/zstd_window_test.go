package bag

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"
)

// The small-window encoder of the usual chunks must give the bytes the
// default encoder gives: recordings stay byte-identical to earlier ones.
func TestSmallWindowZstdGivesTheSameBytes(t *testing.T) {
	def, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := [][]byte{[]byte("belief "), []byte("assessment "), {0, 0, 0, 0, 0, 0, 0, 0}, []byte("\x3f\xf0\x00\x00")}
	var src []byte
	for len(src) < zstdSmallWindow+4096 {
		if rng.IntN(4) == 0 {
			src = append(src, byte(rng.Uint32()))
			continue
		}
		src = append(src, words[rng.IntN(len(words))]...)
	}
	var c compressor
	for _, n := range []int{1, 100, 1024, 1025, 4096, 128 << 10, 1 << 20, 1<<20 + 12345, zstdSmallWindow - 1, zstdSmallWindow, zstdSmallWindow + 1} {
		got, _, err := c.compress(mcap.CompressionZSTD, src[:n], nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := def.EncodeAll(src[:n], nil); !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: %d compressed bytes differ from the default encoder's %d", n, len(got), len(want))
		}
	}
	if c.zstdSmall == nil || c.zstd == nil {
		t.Fatal("both encoders should have been used")
	}
}
