package ros2msg

import (
	"reflect"
	"testing"
)

// fastrtpsEstimate is a test oracle, written from the rules of the size
// function rosidl_typesupport_fastrtps generates (Humble), independent of
// the decoder: it walks a generated Go value field by field. Every field is
// aligned on the estimate's own running length, and a sequence of
// primitives is aligned to its element size whether or not it has
// elements. It returns the estimate counted from the end of the header.
func fastrtpsEstimate(v reflect.Value, off int) int {
	switch v.Kind() {
	case reflect.Pointer:
		return fastrtpsEstimate(v.Elem(), off)
	case reflect.Struct:
		for i := range v.NumField() {
			off = fastrtpsEstimate(v.Field(i), off)
		}
		return off
	case reflect.String:
		return cdrAlign(off, 4) + 4 + v.Len() + 1
	case reflect.Slice:
		off = cdrAlign(off, 4) + 4
		if size, ok := primitiveSize(v.Type().Elem()); ok {
			return cdrAlign(off, size) + v.Len()*size
		}
		for i := range v.Len() {
			off = fastrtpsEstimate(v.Index(i), off)
		}
		return off
	case reflect.Array:
		if size, ok := primitiveSize(v.Type().Elem()); ok && v.Len() > 0 {
			return cdrAlign(off, size) + v.Len()*size
		}
		for i := range v.Len() {
			off = fastrtpsEstimate(v.Index(i), off)
		}
		return off
	}
	size, _ := primitiveSize(v.Type())
	return cdrAlign(off, size) + size
}

func primitiveSize(t reflect.Type) (int, bool) {
	switch t.Kind() {
	case reflect.Bool, reflect.Int8, reflect.Uint8:
		return 1, true
	case reflect.Int16, reflect.Uint16:
		return 2, true
	case reflect.Int32, reflect.Uint32, reflect.Float32:
		return 4, true
	case reflect.Int64, reflect.Uint64, reflect.Float64:
		return 8, true
	}
	return 0, false
}

// fastrtpsSlack is how many bytes rmw_fastrtps' rmw_serialize leaves after
// the last field of m: its estimate less the exact length.
func fastrtpsSlack(m CDRMessage) int {
	return cdrHeaderLen + fastrtpsEstimate(reflect.ValueOf(m), 0) - m.CDRSize()
}

func TestFastRTPSEstimateOracle(t *testing.T) {
	// The oracle itself, on values whose estimate follows from the rules
	// by hand: ParameterValue is type, bool, int64, double, string, then
	// five sequences; the empty int64 and double sequences each cost four
	// bytes of alignment on the estimate, the others none.
	tests := []struct {
		name string
		msg  CDRMessage
		want int
	}{
		{"an empty ParameterValue", &ParameterValue{}, 8},
		{"a double parameter", &Parameter{Name: "assessment_timeout_s", Value: ParameterValue{Type: 3, DoubleValue: 0.2}}, 8},
		{"one int64 element, no alignment lost", &ParameterValue{IntegerArrayValue: []int64{7}}, 4},
		{"a message without 8-byte sequences", &SetParametersResult{Successful: true, Reason: "ok"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fastrtpsSlack(tt.msg); got != tt.want {
				t.Errorf("slack %d, want %d", got, tt.want)
			}
		})
	}
}
