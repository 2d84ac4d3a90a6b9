package ros2msg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/golden"
	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/wire/stdmsgs"
)

// goldenDir returns the shared golden directory or skips the test.
func goldenDir(t testing.TB) string { return golden.Dir(t) }

// goldenNaN is the NaN bit pattern of the golden vectors.
const goldenNaN = 0x7ff8000000000000

// goldenVector is one golden CDR vector with its message built from JSON.
type goldenVector struct {
	Type    string
	Message json.RawMessage
	name    string // "<Type>#<line>", " (rclpy)" for ROS 2's own vectors
	msg     CDRMessage
	cdr     []byte
}

// loadGolden reads every golden CDR vector, message decoded from JSON: the
// shared set's, and ROS 2's own for the types the shared set lacks.
func loadGolden(t testing.TB) []goldenVector {
	t.Helper()
	goldenDir(t) // skips without the shared set
	var out []goldenVector
	for _, g := range golden.CDRVectors(t, msg.Names()) {
		v := goldenVector{Type: g.Type, Message: g.Message, name: g.Name, cdr: g.CDR}
		if v.Type != msg.SchemaName(strings.SplitN(g.Name, "#", 2)[0]) {
			t.Fatalf("%s: type %q", v.name, v.Type)
		}
		var err error
		if v.msg, err = messageFromJSON(v.Type, v.Message); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		out = append(out, v)
	}
	return out
}

// specOf returns the parsed definition of a ghost or standard type.
func specOf(schemaName string) (*msg.Spec, error) {
	if strings.HasPrefix(schemaName, msg.Package+"/") {
		return msg.Definition(schemaName)
	}
	return stdmsgs.Definition(schemaName)
}

// messageFromJSON builds a message from the golden JSON encoding, matching
// JSON keys to the .msg field names (struct fields follow .msg order).
func messageFromJSON(schemaName string, raw json.RawMessage) (CDRMessage, error) {
	m, err := NewCDRMessage(schemaName)
	if err != nil {
		return nil, err
	}
	if err := fillStruct(reflect.ValueOf(m).Elem(), schemaName, raw); err != nil {
		return nil, err
	}
	return m, nil
}

func fillStruct(v reflect.Value, schemaName string, raw json.RawMessage) error {
	spec, err := specOf(schemaName)
	if err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("%s: %w", schemaName, err)
	}
	if len(obj) != len(spec.Fields) || v.NumField() != len(spec.Fields) {
		return fmt.Errorf("%s: JSON has %d keys, .msg %d fields, struct %d fields", schemaName, len(obj), len(spec.Fields), v.NumField())
	}
	for i, f := range spec.Fields {
		fr, ok := obj[f.Name]
		if !ok {
			return fmt.Errorf("%s: JSON lacks field %s", schemaName, f.Name)
		}
		if err := fillValue(v.Field(i), f, fr, f.Array != msg.NotArray); err != nil {
			return fmt.Errorf("%s.%s: %w", schemaName, f.Name, err)
		}
	}
	return nil
}

func fillValue(v reflect.Value, f msg.Field, raw json.RawMessage, array bool) error {
	if array {
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return err
		}
		switch v.Kind() {
		case reflect.Array:
			if len(elems) != v.Len() {
				return fmt.Errorf("%d elements for an array of %d", len(elems), v.Len())
			}
		case reflect.Slice:
			if len(elems) == 0 {
				v.SetZero()
				return nil
			}
			v.Set(reflect.MakeSlice(v.Type(), len(elems), len(elems)))
		default:
			return fmt.Errorf("JSON array for Go kind %s", v.Kind())
		}
		for i, e := range elems {
			if err := fillValue(v.Index(i), f, e, false); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	}
	if !f.Type.IsPrimitive() {
		return fillStruct(v, f.Type.FullName(), raw)
	}
	var x any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return err
	}
	switch v.Kind() {
	case reflect.Bool:
		b, ok := x.(bool)
		if !ok {
			return fmt.Errorf("want a bool, got %s", raw)
		}
		v.SetBool(b)
	case reflect.String:
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s", raw)
		}
		v.SetString(s)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(numberText(x), 10, v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetInt(n)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(numberText(x), 10, v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		var fv float64
		switch s := numberText(x); s {
		case "NaN":
			fv = math.Float64frombits(goldenNaN)
		case "Infinity":
			fv = math.Inf(1)
		case "-Infinity":
			fv = math.Inf(-1)
		case "-0.0":
			fv = math.Copysign(0, -1)
		default:
			var err error
			if fv, err = strconv.ParseFloat(s, v.Type().Bits()); err != nil {
				return err
			}
		}
		v.SetFloat(fv)
	default:
		return fmt.Errorf("unexpected Go kind %s", v.Kind())
	}
	return nil
}

// numberText returns the text of a JSON number or string.
func numberText(x any) string {
	switch x := x.(type) {
	case json.Number:
		return x.String()
	case string:
		return x
	}
	return fmt.Sprint(x)
}

// diffValues compares two values field by field: floats by bits (so NaN
// equals NaN, and -0 differs from +0), nil and empty slices as equal. It
// returns the path of the first difference, or "".
func diffValues(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		return diffValues(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !a.Type().Field(i).IsExported() {
				continue // caches (a seal) are not content
			}
			if d := diffValues(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d != %d", path, a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			if d := diffValues(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Float32, reflect.Float64:
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			return fmt.Sprintf("%s: %v (%#x) != %v (%#x)", path, a.Float(), math.Float64bits(a.Float()), b.Float(), math.Float64bits(b.Float()))
		}
		return ""
	}
	if !a.Equal(b) {
		return fmt.Sprintf("%s: %#v != %#v", path, a.Interface(), b.Interface())
	}
	return ""
}

// diffMessages compares two messages; "" when equal.
func diffMessages(a, b CDRMessage) string {
	if a.SchemaName() != b.SchemaName() {
		return fmt.Sprintf("types %s != %s", a.SchemaName(), b.SchemaName())
	}
	return diffValues(reflect.ValueOf(a), reflect.ValueOf(b), a.SchemaName())
}

// mustHex decodes hex written with spaces for readability.
func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad test hex %q: %v", s, err)
	}
	return b
}
