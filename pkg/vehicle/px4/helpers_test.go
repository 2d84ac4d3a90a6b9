package px4

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/ghost-robotics/ghost/internal/px4fixture"
	"github.com/ghost-robotics/ghost/msg"
)

// fixtureTexts reads the test fixtures of a release: field declarations
// and the constants ghost uses, per px4_msgs release branch.
func fixtureTexts(t testing.TB, rel Release) map[string]string {
	t.Helper()
	return px4fixture.Texts(t, string(rel))
}

func fixtureDefs(t testing.TB, rel Release) *Definitions {
	t.Helper()
	d, err := NewDefinitions(rel, fixtureTexts(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testValue is the deterministic value the tests give a field element:
// derived from its name alone, so the same field holds the same value in
// every release and expectations can be computed without the decoder.
func testValue(typ, name string) any {
	h := fnv.New64a()
	h.Write([]byte(name))
	x := h.Sum64()
	switch typ {
	case "bool":
		return x%2 == 1
	case "float32":
		return float32(int64(x%20001)-10000) / 8
	case "float64":
		return float64(int64(x%2000001)-1000000) / 1024
	case "int8":
		return int64(int8(x))
	case "int16":
		return int64(int16(x))
	case "int32":
		return int64(int32(x))
	case "int64":
		return int64(x)
	case "uint8":
		return uint64(uint8(x))
	case "uint16":
		return uint64(uint16(x))
	case "uint32":
		return uint64(uint32(x))
	}
	return x // uint64
}

// encodeFixed is a test-only CDR encoder for fixed-size definitions
// (primitives and fixed arrays of primitives), written from the wire rules
// independently of package dynamic. value gives each element, named
// "field" or "field[i]".
func encodeFixed(t testing.TB, spec *msg.Spec, value func(typ, name string) any) []byte {
	t.Helper()
	buf := []byte{0, 1, 0, 0}
	pad := func(n int) {
		for (len(buf)-4)%n != 0 {
			buf = append(buf, 0)
		}
	}
	le := binary.LittleEndian
	put := func(typ string, v any) {
		switch typ {
		case "bool":
			if v.(bool) {
				buf = append(buf, 1)
			} else {
				buf = append(buf, 0)
			}
		case "uint8", "int8", "byte", "char":
			buf = append(buf, byte(toU64(v)))
		case "uint16", "int16":
			pad(2)
			buf = le.AppendUint16(buf, uint16(toU64(v)))
		case "uint32", "int32":
			pad(4)
			buf = le.AppendUint32(buf, uint32(toU64(v)))
		case "uint64", "int64":
			pad(8)
			buf = le.AppendUint64(buf, toU64(v))
		case "float32":
			pad(4)
			buf = le.AppendUint32(buf, math.Float32bits(v.(float32)))
		case "float64":
			pad(8)
			buf = le.AppendUint64(buf, math.Float64bits(v.(float64)))
		default:
			t.Fatalf("test encoder: type %s", typ)
		}
	}
	for _, f := range spec.Fields {
		switch f.Array {
		case msg.NotArray:
			put(f.Type.Name, value(f.Type.Name, f.Name))
		case msg.FixedArray:
			for i := range f.ArrayLen {
				put(f.Type.Name, value(f.Type.Name, f.Name+"["+strconv.Itoa(i)+"]"))
			}
		default:
			t.Fatalf("test encoder: %s is not fixed-size", f.Name)
		}
	}
	return buf
}

func toU64(v any) uint64 {
	switch x := v.(type) {
	case int64:
		return uint64(x)
	case uint64:
		return x
	case int:
		return uint64(x)
	}
	return 0
}

// encodeMessage encodes message of d's release with testValue, overridden
// by the given values.
func encodeMessage(t testing.TB, d *Definitions, message string, over map[string]any) []byte {
	t.Helper()
	spec, err := d.Spec(message)
	if err != nil {
		t.Fatal(err)
	}
	return encodeFixed(t, spec, func(typ, name string) any {
		if v, ok := over[name]; ok {
			return v
		}
		return testValue(typ, name)
	})
}

// u8, u16 and u32 give the expected extracted value of a field.
func u8(name string) uint8   { return uint8(testValue("uint8", name).(uint64)) }
func u16(name string) uint16 { return uint16(testValue("uint16", name).(uint64)) }
func u32(name string) uint32 { return uint32(testValue("uint32", name).(uint64)) }

// mapFields is Fields over a map, standing in for a ULog data message.
type mapFields map[string]any

func (m mapFields) Float(name string) (float64, bool) {
	switch v := m[name].(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case uint64:
		return float64(v), true
	case int64:
		return float64(v), true
	}
	return 0, false
}

func (m mapFields) Uint(name string) (uint64, bool) {
	switch v := m[name].(type) {
	case uint64:
		return v, true
	case int64:
		return uint64(v), v >= 0
	}
	return 0, false
}

func (m mapFields) Int(name string) (int64, bool) {
	switch v := m[name].(type) {
	case int64:
		return v, true
	case uint64:
		return int64(v), v <= math.MaxInt64
	}
	return 0, false
}

func (m mapFields) Bool(name string) (bool, bool) {
	v, ok := m[name].(bool)
	return v, ok
}

// The fixture package lists the messages this package reads or writes.
func TestFixtureMessages(t *testing.T) {
	got, want := append([]string(nil), px4fixture.Messages...), Messages()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("px4fixture.Messages %v, px4.Messages() %v", got, want)
	}
}
