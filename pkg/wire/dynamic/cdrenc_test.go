package dynamic

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/ghost-robotics/ghost/msg"
)

// testEncoder is a test-only CDR encoder written independently of the
// plan: it walks msg.Spec definitions directly, so the decoder is checked
// against a second reading of the wire rules. Values are a tree:
// map[string]any for messages, []any for arrays and sequences, Go numbers,
// bools and strings for primitives; a field missing from its map is zero.
type testEncoder struct {
	defs map[string]*msg.Spec
	buf  []byte
	be   bool
}

func newTestEncoder(defs map[string]*msg.Spec) *testEncoder {
	return &testEncoder{defs: defs, buf: []byte{0, 1, 0, 0}}
}

func (e *testEncoder) pad(n int) {
	for (len(e.buf)-4)%n != 0 {
		e.buf = append(e.buf, 0)
	}
}

func (e *testEncoder) order() binary.AppendByteOrder {
	if e.be {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func (e *testEncoder) message(name string, v map[string]any) error {
	spec, ok := e.defs[name]
	if !ok {
		return fmt.Errorf("no definition of %s", name)
	}
	if len(spec.Fields) == 0 {
		e.buf = append(e.buf, 0)
		return nil
	}
	for _, f := range spec.Fields {
		if err := e.field(f, v[f.Name]); err != nil {
			return fmt.Errorf("%s.%s: %w", name, f.Name, err)
		}
	}
	return nil
}

func (e *testEncoder) field(f msg.Field, v any) error {
	if f.Array == msg.NotArray {
		return e.element(f.Type, v)
	}
	elems, _ := v.([]any)
	if f.Array == msg.FixedArray {
		if elems == nil {
			elems = make([]any, f.ArrayLen)
		}
		if len(elems) != f.ArrayLen {
			return fmt.Errorf("%d elements for an array of %d", len(elems), f.ArrayLen)
		}
	} else {
		e.pad(4)
		e.buf = e.order().AppendUint32(e.buf, uint32(len(elems)))
	}
	for _, el := range elems {
		if err := e.element(f.Type, el); err != nil {
			return err
		}
	}
	return nil
}

func (e *testEncoder) element(t msg.Type, v any) error {
	if !t.IsPrimitive() {
		m, _ := v.(map[string]any)
		return e.message(t.FullName(), m)
	}
	o := e.order()
	switch t.Name {
	case "string":
		s, _ := v.(string)
		e.pad(4)
		e.buf = o.AppendUint32(e.buf, uint32(len(s)+1))
		e.buf = append(append(e.buf, s...), 0)
	case "bool":
		b, _ := v.(bool)
		if b {
			e.buf = append(e.buf, 1)
		} else {
			e.buf = append(e.buf, 0)
		}
	case "byte", "char", "uint8", "int8":
		e.buf = append(e.buf, byte(asInt(v)))
	case "uint16", "int16":
		e.pad(2)
		e.buf = o.AppendUint16(e.buf, uint16(asInt(v)))
	case "uint32", "int32":
		e.pad(4)
		e.buf = o.AppendUint32(e.buf, uint32(asInt(v)))
	case "uint64", "int64":
		e.pad(8)
		e.buf = o.AppendUint64(e.buf, asInt(v))
	case "float32":
		e.pad(4)
		e.buf = o.AppendUint32(e.buf, math.Float32bits(float32(asFloat(v))))
	case "float64":
		e.pad(8)
		e.buf = o.AppendUint64(e.buf, math.Float64bits(asFloat(v)))
	default:
		return fmt.Errorf("type %s not supported by the test encoder", t.Name)
	}
	return nil
}

func asInt(v any) uint64 {
	switch x := v.(type) {
	case int:
		return uint64(x)
	case int64:
		return uint64(x)
	case uint64:
		return x
	case float64:
		return uint64(int64(x))
	}
	return 0
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int:
		return float64(x)
	}
	return 0
}

// fixtureSchema returns the rosbag2-shaped schema text of the fixture type
// typ ("nav_msgs/Odometry"), made by msg.Set.SchemaText from the field
// lines in testdata/msgs, as the recorder makes a recording's.
func fixtureSchema(t testing.TB, typ string) string {
	t.Helper()
	set := msg.NewSet()
	if err := set.AddFS(os.DirFS("testdata/msgs")); err != nil {
		t.Fatal(err)
	}
	text, err := set.SchemaText(typ)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// loadSchema returns the schema text of the fixture type typ as the type
// name and its definitions.
func loadSchema(t testing.TB, name, typ string) (string, map[string]*msg.Spec) {
	t.Helper()
	text := fixtureSchema(t, typ)
	defs, err := msg.ParseSchemaText(name, text)
	if err != nil {
		t.Fatal(err)
	}
	return text, defs
}

// encode serializes v as type name with the test encoder.
func encode(t testing.TB, defs map[string]*msg.Spec, name string, v map[string]any) []byte {
	t.Helper()
	e := newTestEncoder(defs)
	if err := e.message(name, v); err != nil {
		t.Fatal(err)
	}
	return e.buf
}
