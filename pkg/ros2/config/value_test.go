package config

import (
	"math"
	"testing"
)

// One case table for both ways a value is written: as a -p value and as a
// params file scalar. Both must type it identically.
var valueCases = []struct {
	text string // as written
	typ  Type
	b    bool
	i    int64
	d    float64
	s    string
}{
	{text: "true", typ: TypeBool, b: true},
	{text: "False", typ: TypeBool, b: false},
	{text: "on", typ: TypeBool, b: true},
	{text: "NO", typ: TypeBool, b: false},
	{text: "y", typ: TypeBool, b: true},
	{text: "3", typ: TypeInteger, i: 3},
	{text: "-42", typ: TypeInteger, i: -42},
	{text: "+7", typ: TypeInteger, i: 7},
	{text: "0x10", typ: TypeInteger, i: 16},
	{text: "010", typ: TypeInteger, i: 8}, // strtoll base 0: octal
	{text: "3.0", typ: TypeDouble, d: 3},
	{text: "0.1", typ: TypeDouble, d: 0.1},
	{text: "1e3", typ: TypeDouble, d: 1000},
	{text: "-2.5e-3", typ: TypeDouble, d: -0.0025},
	{text: ".inf", typ: TypeDouble, d: math.Inf(1)},
	{text: "-.Inf", typ: TypeDouble, d: math.Inf(-1)},
	{text: "'3'", typ: TypeString, s: "3"},
	{text: `"true"`, typ: TypeString, s: "true"},
	{text: "!!str 5", typ: TypeString, s: "5"},
	{text: "x", typ: TypeString, s: "x"},
	{text: "/state/nav", typ: TypeString, s: "/state/nav"},
	{text: "keep_last", typ: TypeString, s: "keep_last"},
	{text: "~", typ: TypeString, s: "~"},
	{text: "null", typ: TypeString, s: "null"},
	{text: "1e999", typ: TypeString, s: "1e999"}, // strtod overflows: a string, as in rcl
	{text: "12abc", typ: TypeString, s: "12abc"},
}

func checkValue(t *testing.T, got value, want struct {
	text string
	typ  Type
	b    bool
	i    int64
	d    float64
	s    string
}) {
	t.Helper()
	if got.typ != want.typ {
		t.Fatalf("%q typed %v, want %v", want.text, got.typ, want.typ)
	}
	switch want.typ {
	case TypeBool:
		if got.b != want.b {
			t.Errorf("%q = %v, want %v", want.text, got.b, want.b)
		}
	case TypeInteger:
		if got.i != want.i {
			t.Errorf("%q = %d, want %d", want.text, got.i, want.i)
		}
	case TypeDouble:
		if got.d != want.d {
			t.Errorf("%q = %v, want %v", want.text, got.d, want.d)
		}
	case TypeString:
		if got.s != want.s {
			t.Errorf("%q = %q, want %q", want.text, got.s, want.s)
		}
	}
}

func TestParseValue(t *testing.T) {
	for _, tc := range valueCases {
		t.Run(tc.text, func(t *testing.T) {
			v, err := parseValue(tc.text)
			if err != nil {
				t.Fatalf("parseValue(%q): %v", tc.text, err)
			}
			checkValue(t, v, tc)
		})
	}
}

func TestParamsFileScalarTyping(t *testing.T) {
	for _, tc := range valueCases {
		t.Run(tc.text, func(t *testing.T) {
			doc := "/**:\n  ros__parameters:\n    p: " + tc.text + "\n"
			sections, err := parseParamsYAML([]byte(doc))
			if err != nil {
				t.Fatalf("parseParamsYAML: %v", err)
			}
			if len(sections) != 1 || len(sections[0].params) != 1 {
				t.Fatalf("sections = %+v, want one parameter", sections)
			}
			checkValue(t, sections[0].params[0].val, tc)
		})
	}
}

func TestParseValueNaN(t *testing.T) {
	for _, text := range []string{".nan", ".NaN", "nan"} {
		v, err := parseValue(text)
		if err != nil || v.typ != TypeDouble || !math.IsNaN(v.d) {
			t.Errorf("parseValue(%q) = %+v, %v; want a NaN double", text, v, err)
		}
	}
}

func TestParseValueRejects(t *testing.T) {
	for _, text := range []string{"[1, 2]", "- a", "{a: 1}", "a: b", "[unclosed"} {
		if v, err := parseValue(text); err == nil {
			t.Errorf("parseValue(%q) = %+v, want an error", text, v)
		}
	}
}

func TestConvert(t *testing.T) {
	tests := []struct {
		in   value
		to   Type
		ok   bool
		want float64
	}{
		{value{typ: TypeInteger, i: 2}, TypeDouble, true, 2},
		{value{typ: TypeDouble, d: 2}, TypeInteger, false, 0},
		{value{typ: TypeBool, b: true}, TypeInteger, false, 0},
		{value{typ: TypeString, s: "1"}, TypeDouble, false, 0},
		{value{typ: TypeInteger, i: 1}, TypeBool, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.in.typ.String()+"->"+tt.to.String(), func(t *testing.T) {
			got, err := convert(tt.in, tt.to)
			if (err == nil) != tt.ok {
				t.Fatalf("convert = %+v, %v; want ok=%v", got, err, tt.ok)
			}
			if tt.ok && got.d != tt.want {
				t.Errorf("convert = %v, want %v", got.d, tt.want)
			}
		})
	}
}

func TestFormatDoubleReadsBackAsDouble(t *testing.T) {
	for _, d := range []float64{0.1, 1, 2.0, 100000, 1e21, 0.05, 1e-7, math.Inf(1)} {
		s := formatDouble(d)
		v, err := parseValue(s)
		if err != nil || v.typ != TypeDouble || v.d != d {
			t.Errorf("formatDouble(%v) = %q reads back as %+v, %v", d, s, v, err)
		}
	}
}
