package dynamic

import (
	"errors"
	"testing"

	"github.com/ghost-robotics/ghost/msg"
)

// FuzzDecode feeds arbitrary payloads to plans of every shape (fixed,
// strings, sequences of primitives, strings and messages): decoding must
// fail with a typed error or succeed, and every field of a decoded message
// must then be readable, never a panic.
func FuzzDecode(f *testing.F) {
	schemas := []struct{ name, text string }{
		{"nav_msgs/Odometry", fixtureSchema(f, odomType)},
		{"sensor_msgs/BatteryState", fixtureSchema(f, batteryType)},
		{"test_msgs/Nested", nestedSchema},
		{"test_msgs/Points", pointsSchema},
	}
	var plans []*Plan
	for _, s := range schemas {
		p, err := CompileSchema(s.name, s.text)
		if err != nil {
			f.Fatal(err)
		}
		plans = append(plans, p)
	}
	_, odomDefs := loadSchema(f, "nav_msgs/Odometry", odomType)
	_, batDefs := loadSchema(f, "sensor_msgs/BatteryState", batteryType)
	nestedDefs, err := msg.ParseSchemaText("test_msgs/Nested", nestedSchema)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(encode(f, odomDefs, "nav_msgs/msg/Odometry", odometryValue()))
	f.Add(encode(f, batDefs, "sensor_msgs/msg/BatteryState", map[string]any{"cell_voltage": []any{1.0}, "location": "x"}))
	f.Add(encode(f, nestedDefs, "test_msgs/msg/Nested", nestedValue()))
	f.Add(append([]byte{0, 1, 0, 0}, make([]byte, 56)...))
	f.Add([]byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 1})
	probes := []string{"items[0].vals[0]", "items[0].key", "items[1].on", "tags[0]", "pair[1]", "cell_voltage[0]", "pose.covariance[35]"}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range plans {
			var m Message
			err := p.DecodeInto(&m, data)
			if err != nil {
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("%s: untyped error %v", p.Name(), err)
				}
				continue
			}
			for _, path := range append(p.Paths(), probes...) {
				ref, err := p.Field(path)
				if err != nil {
					continue
				}
				switch ref.Kind() {
				case KindString:
					_, _ = m.StringAt(ref)
				case KindBool:
					_, _ = m.BoolAt(ref)
				default:
					_, _ = m.FloatAt(ref)
					_, _ = m.Float64sAt(ref, nil)
				}
				_, _ = m.LenAt(ref)
			}
		}
	})
}
