package px4

import (
	"testing"

	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// BenchmarkLocalPositionRef decodes a 1.16 VehicleLocalPosition, the
// highest-rate input, and reads the fields ghost maps through precompiled
// FieldRefs, the fastest path (the bridge reads them by name:
// BenchmarkPX4HandleLocalPosition there).
func BenchmarkLocalPositionRef(b *testing.B) {
	d := fixtureDefs(b, Release116)
	data := encodeMessage(b, d, MsgVehicleLocalPosition, nil)
	p, err := d.Plan(MsgVehicleLocalPosition)
	if err != nil {
		b.Fatal(err)
	}
	var refs []dynamic.FieldRef
	for _, name := range []string{"x", "y", "z", "vx", "vy", "vz", "eph", "epv", "evh", "evv"} {
		r, err := p.Field(name)
		if err != nil {
			b.Fatal(err)
		}
		refs = append(refs, r)
	}
	var m dynamic.Message
	b.ReportAllocs()
	for b.Loop() {
		if err := d.DecodeInto(MsgVehicleLocalPosition, &m, data); err != nil {
			b.Fatal(err)
		}
		for _, r := range refs {
			if _, err := m.FloatAt(r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
