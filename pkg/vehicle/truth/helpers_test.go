package truth

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/vehicle/px4"
	"github.com/ghost-robotics/ghost/pkg/wire/dynamic"
)

// defs returns the px4_msgs fixture definitions of a release.
func defs(t testing.TB, rel px4.Release) *px4.Definitions {
	t.Helper()
	d, err := px4.NewDefinitions(rel, px4fixture.Texts(t, string(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// px4Payload encodes a px4_msgs message with the given fields set (floats,
// uints and bools by their Go type); the others stay zero.
func px4Payload(t testing.TB, d *px4.Definitions, name string, fields map[string]any) []byte {
	t.Helper()
	p, err := d.Plan(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		var err error
		switch v := v.(type) {
		case float64:
			err = w.SetFloat(k, v)
		case int:
			err = w.SetUint(k, uint64(v))
		case bool:
			err = w.SetBool(k, v)
		}
		if err != nil {
			t.Fatalf("%s.%s: %v", name, k, err)
		}
	}
	return w.Bytes()
}

// px4Channel is a recording's channel of a px4_msgs message on topic.
func px4Channel(t testing.TB, d *px4.Definitions, id uint16, topic, name string) bag.Channel {
	t.Helper()
	text, err := d.SchemaText(name)
	if err != nil {
		t.Fatal(err)
	}
	return bag.Channel{ID: id, Topic: topic, SchemaName: px4.Package + "/msg/" + name, SchemaText: text}
}

// ghostChannels are the channels of ghost's form.
func ghostChannels(t testing.TB, resets bool) []bag.Channel {
	t.Helper()
	cs, err := GhostChannels(resets)
	if err != nil {
		t.Fatal(err)
	}
	var out []bag.Channel
	for i, c := range cs {
		out = append(out, bag.Channel{ID: uint16(i + 1), Topic: c.Topic, SchemaName: c.SchemaName, SchemaText: c.SchemaText})
	}
	return out
}

// nedFromENU is the inverse of the estimates' attitude mapping, worked
// out from q_NED<-FRD = q_NED<-ENU * q_ENU<-FLU * q_FLU<-FRD: the tests
// write PX4 quaternions for ENU attitudes they know.
func nedFromENU(q [4]float64) [4]float64 {
	s := math.Sqrt2 / 2
	r := [4]float64{s * (q[0] + q[3]), s * (q[1] + q[2]), s * (q[1] - q[2]), s * (q[0] - q[3])}
	return r
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// sameRotation reports whether two unit quaternions are the same rotation.
func sameRotation(a, b [4]float64, tol float64) bool {
	d := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	return near(math.Abs(d), 1, tol)
}

// ghostGlobalChannels are the channels of ghost's global position and
// estimator origin, numbered from id.
func ghostGlobalChannels(t testing.TB, id uint16) []bag.Channel {
	t.Helper()
	cs, err := GhostGlobalChannels()
	if err != nil {
		t.Fatal(err)
	}
	var out []bag.Channel
	for i, c := range cs {
		out = append(out, bag.Channel{ID: id + uint16(i), Topic: c.Topic, SchemaName: c.SchemaName, SchemaText: c.SchemaText})
	}
	return out
}

// globalText is px4_msgs' VehicleGlobalPosition of release 1.15, which
// the project's px4 package does not know: a recording carries its schema.
func globalText(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(px4fixture.Dir(t, "1.15"), "VehicleGlobalPosition.msg"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// px4GlobalChannel is a recording's channel of VehicleGlobalPosition.
func px4GlobalChannel(t testing.TB, id uint16, topic string) bag.Channel {
	return bag.Channel{ID: id, Topic: topic, SchemaName: px4.Package + "/msg/VehicleGlobalPosition", SchemaText: globalText(t)}
}

// px4GlobalPayload encodes a VehicleGlobalPosition with the given fields.
func px4GlobalPayload(t testing.TB, fields map[string]float64) []byte {
	t.Helper()
	p, err := dynamic.CompileSchema(px4.Package+"/msg/VehicleGlobalPosition", globalText(t))
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		var err error
		if k == "timestamp" || k == "timestamp_sample" {
			err = w.SetUint(k, uint64(v))
		} else {
			err = w.SetFloat(k, v)
		}
		if err != nil {
			t.Fatalf("VehicleGlobalPosition.%s: %v", k, err)
		}
	}
	return w.Bytes()
}
