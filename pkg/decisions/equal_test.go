package decisions

import (
	"math"
	"reflect"
	"testing"
)

// TestEqualCoversEveryField changes each exported field of an assessment in
// turn: Equal must then tell the copy from the original, as its hash does.
// A field added to SelfAssessment but not to Equal fails here.
func TestEqualCoversEveryField(t *testing.T) {
	base := validAssessment(t, 42, LevelKnown)
	typ := reflect.TypeFor[SelfAssessment]()
	if typ.NumField() != 9 {
		t.Fatalf("SelfAssessment has %d fields; this test and Equal know 9", typ.NumField())
	}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			if !f.IsExported() {
				t.Fatalf("unexported field %s: a contract value is plain", f.Name)
			}
			a := base
			if !nudge(reflect.ValueOf(&a).Elem().Field(i)) {
				t.Fatalf("no way to change a %s field", f.Type)
			}
			if a.Equal(&base) || base.Equal(&a) {
				t.Fatalf("Equal ignores %s", f.Name)
			}
			if a.SHA256() == base.SHA256() {
				t.Fatalf("the hash ignores %s", f.Name)
			}
		})
	}
}

// nudge changes v to another value of its type (the first element of an
// array, the first field of a struct), bit for bit.
func nudge(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint8:
		v.SetUint(v.Uint() ^ 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Float64:
		v.SetFloat(math.Float64frombits(math.Float64bits(v.Float()) ^ 1))
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Array:
		return v.Len() > 0 && nudge(v.Index(0))
	case reflect.Struct:
		return v.NumField() > 0 && nudge(v.Field(0))
	default:
		return false
	}
	return true
}

// TestEqualAndDoubleEquals: a copy is == to its original (no hidden state),
// and Equal differs from == exactly where canonical JSON does: 0.0 against
// -0.0, and a none std (NaN) against itself.
func TestEqualAndDoubleEquals(t *testing.T) {
	a := validAssessment(t, 7, LevelUncertain)
	b := a
	if a != b || !a.Equal(&b) {
		t.Fatal("a copy differs from its original")
	}
	for _, tc := range []struct {
		name        string
		x, y        float64
		equal, same bool // Equal, ==
	}{
		{"zero and negative zero", 0, math.Copysign(0, -1), false, true},
		{"none and none", math.NaN(), math.NaN(), true, false},
		{"two payloads of none", math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0x7ff8000000000002), false, false},
		{"equal values", 0.25, 0.25, true, true},
		{"different values", 0.25, 0.5, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y := a, a
			x.Std[1], y.Std[1] = tc.x, tc.y
			if got := x.Equal(&y); got != tc.equal {
				t.Errorf("Equal = %v, want %v", got, tc.equal)
			}
			if got := x == y; got != tc.same {
				t.Errorf("== is %v, want %v", got, tc.same)
			}
			if sameText := string(x.AppendCanonicalJSON(nil)) == string(y.AppendCanonicalJSON(nil)); tc.equal && !sameText {
				t.Error("Equal values with different canonical JSON")
			}
		})
	}
}
