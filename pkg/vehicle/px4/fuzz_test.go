package px4

import (
	"errors"
	"testing"

	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// FuzzExtract feeds arbitrary payloads, as every message of every release,
// to the extractions of the messages the executor reads: each is decoded
// and extracted or rejected with a typed error (a layout mismatch or a
// decoding error), never a panic, and always counted. (The estimator's
// messages are the bridge's: FuzzPX4Handle there.)
func FuzzExtract(f *testing.F) {
	var defs []*Definitions
	for _, rel := range Releases() {
		d := fixtureDefs(f, rel)
		defs = append(defs, d)
		for _, name := range Messages() {
			f.Add(encodeMessage(f, d, name, nil))
		}
	}
	f.Add([]byte{0, 1, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range defs {
			before := total(d)
			check := func(err error) {
				var le *LayoutError
				var de *dynamic.DecodeError
				var fe *FieldError
				if err != nil && !errors.As(err, &le) && !errors.As(err, &de) && !errors.As(err, &fe) {
					t.Fatalf("%s: untyped error %v", d.Release(), err)
				}
			}
			_, err := d.Status(data)
			check(err)
			_, err = d.Command(data)
			check(err)
			_, err = d.CommandAck(data)
			check(err)
			if total(d) != before+3 {
				t.Fatalf("%s: %d payloads counted, want 3", d.Release(), total(d)-before)
			}
		}
	})
}

func total(d *Definitions) uint64 {
	var n uint64
	for _, s := range d.Stats() {
		n += s.Decoded + s.LayoutMismatch + s.Malformed
	}
	return n
}
