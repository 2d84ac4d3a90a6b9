package msg

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		fields    []Field
		constants []Constant
	}{
		{
			name: "comments and blank lines only",
			text: "# nothing here\n\n   # indented comment\n",
		},
		{
			name: "primitive fields",
			text: "bool a\nbyte b\nchar c\nint8 d\nuint8 e\nint16 f\nuint16 g\nint32 h\nuint32 i\nint64 j\nuint64 k\nfloat32 l\nfloat64 m\nstring n\nwstring o\n",
			fields: []Field{
				{Name: "a", Type: Type{Name: "bool"}, Line: 1},
				{Name: "b", Type: Type{Name: "byte"}, Line: 2},
				{Name: "c", Type: Type{Name: "char"}, Line: 3},
				{Name: "d", Type: Type{Name: "int8"}, Line: 4},
				{Name: "e", Type: Type{Name: "uint8"}, Line: 5},
				{Name: "f", Type: Type{Name: "int16"}, Line: 6},
				{Name: "g", Type: Type{Name: "uint16"}, Line: 7},
				{Name: "h", Type: Type{Name: "int32"}, Line: 8},
				{Name: "i", Type: Type{Name: "uint32"}, Line: 9},
				{Name: "j", Type: Type{Name: "int64"}, Line: 10},
				{Name: "k", Type: Type{Name: "uint64"}, Line: 11},
				{Name: "l", Type: Type{Name: "float32"}, Line: 12},
				{Name: "m", Type: Type{Name: "float64"}, Line: 13},
				{Name: "n", Type: Type{Name: "string"}, Line: 14},
				{Name: "o", Type: Type{Name: "wstring"}, Line: 15},
			},
		},
		{
			name: "arrays, sequences, bounded strings and nested types",
			text: "float64[3] p\nGoal[<=1] g\nfloat64[] cov\nstring<=8 s\nstring<=4[2] ss\nstd_msgs/Header header # for timestamp\nbuiltin_interfaces/Time[] stamps\n",
			fields: []Field{
				{Name: "p", Type: Type{Name: "float64"}, Array: FixedArray, ArrayLen: 3, Line: 1},
				{Name: "g", Type: Type{Name: "Goal", Package: "ghost"}, Array: BoundedSequence, ArrayLen: 1, Line: 2},
				{Name: "cov", Type: Type{Name: "float64"}, Array: UnboundedSequence, Line: 3},
				{Name: "s", Type: Type{Name: "string", StringBound: 8}, Line: 4},
				{Name: "ss", Type: Type{Name: "string", StringBound: 4}, Array: FixedArray, ArrayLen: 2, Line: 5},
				{Name: "header", Type: Type{Name: "Header", Package: "std_msgs"}, Line: 6},
				{Name: "stamps", Type: Type{Name: "Time", Package: "builtin_interfaces"}, Array: UnboundedSequence, Line: 7},
			},
		},
		{
			name: "constants with spaces, comments and canonical values",
			text: "uint8 KIND_PROCEED=0\nint8 NEG = -128 # min\nbyte OK=0\nfloat64 PI=3.14159\nfloat32 BIG=1e10\nbool YES=True\nstring GREETING=\"hi # there\"\nstring BARE=plain text\nint64 MIN=-9223372036854775808\nuint64 MAX=18446744073709551615\n",
			constants: []Constant{
				{Name: "KIND_PROCEED", Type: Type{Name: "uint8"}, Value: "0", Line: 1},
				{Name: "NEG", Type: Type{Name: "int8"}, Value: "-128", Line: 2},
				{Name: "OK", Type: Type{Name: "byte"}, Value: "0", Line: 3},
				{Name: "PI", Type: Type{Name: "float64"}, Value: "3.14159", Line: 4},
				{Name: "BIG", Type: Type{Name: "float32"}, Value: "1e+10", Line: 5},
				{Name: "YES", Type: Type{Name: "bool"}, Value: "true", Line: 6},
				{Name: "GREETING", Type: Type{Name: "string"}, Value: "hi # there", Line: 7},
				{Name: "BARE", Type: Type{Name: "string"}, Value: "plain text", Line: 8},
				{Name: "MIN", Type: Type{Name: "int64"}, Value: "-9223372036854775808", Line: 9},
				{Name: "MAX", Type: Type{Name: "uint64"}, Value: "18446744073709551615", Line: 10},
			},
		},
		{
			name: "defaults",
			text: "uint8 schema_version 1\nfloat64 x  +2.50\nbool flag 0\nstring s 'it\\'s'\nint32[3] xs [1, -2, 3]\nfloat64[] ys []\nstring[<=2] names [\"a,b\", 'c']\n",
			fields: []Field{
				{Name: "schema_version", Type: Type{Name: "uint8"}, HasDefault: true, Default: []string{"1"}, Line: 1},
				{Name: "x", Type: Type{Name: "float64"}, HasDefault: true, Default: []string{"2.5"}, Line: 2},
				{Name: "flag", Type: Type{Name: "bool"}, HasDefault: true, Default: []string{"false"}, Line: 3},
				{Name: "s", Type: Type{Name: "string"}, HasDefault: true, Default: []string{"it's"}, Line: 4},
				{Name: "xs", Type: Type{Name: "int32"}, Array: FixedArray, ArrayLen: 3, HasDefault: true, Default: []string{"1", "-2", "3"}, Line: 5},
				{Name: "ys", Type: Type{Name: "float64"}, Array: UnboundedSequence, HasDefault: true, Default: []string{}, Line: 6},
				{Name: "names", Type: Type{Name: "string"}, Array: BoundedSequence, ArrayLen: 2, HasDefault: true, Default: []string{"a,b", "c"}, Line: 7},
			},
		},
		{
			name: "CRLF line endings and tabs",
			text: "int64\tstamp_sim_ns\r\n\r\nuint8 MODE_A=1\r\n",
			fields: []Field{
				{Name: "stamp_sim_ns", Type: Type{Name: "int64"}, Line: 1},
			},
			constants: []Constant{{Name: "MODE_A", Type: Type{Name: "uint8"}, Value: "1", Line: 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("ghost", "Test", tt.text)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if s.Package != "ghost" || s.Name != "Test" || s.FullName() != "ghost/msg/Test" {
				t.Errorf("names = %q %q %q", s.Package, s.Name, s.FullName())
			}
			if !reflect.DeepEqual(s.Fields, tt.fields) {
				t.Errorf("fields:\n got %+v\nwant %+v", s.Fields, tt.fields)
			}
			if !reflect.DeepEqual(s.Constants, tt.constants) {
				t.Errorf("constants:\n got %+v\nwant %+v", s.Constants, tt.constants)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		name string
		text string
		line int
		want string // substring of the error message
	}{
		{"type only", "float64", 1, "missing name"},
		{"unknown primitive", "# c\nfloat128 x", 2, "invalid message type"},
		{"lowercase message type", "goal g", 1, "invalid message type"},
		{"bad package", "Std_msgs/Header h", 1, "invalid package name"},
		{"three part type", "std_msgs/msg/Header h", 1, "want Name or package/Name"},
		{"field name uppercase", "uint8 Kind", 1, "invalid field name"},
		{"field name double underscore", "uint8 a__b", 1, "invalid field name"},
		{"field name trailing underscore", "uint8 a_", 1, "invalid field name"},
		{"field name with dash", "uint8 a-b", 1, "invalid field name"},
		{"field name starts with digit", "uint8 1a", 1, "invalid field name"},
		{"constant name lowercase", "uint8 kind=1", 1, "invalid constant name"},
		{"constant without value", "uint8 KIND=", 1, "has no value"},
		{"constant out of range", "\n\nuint8 BIG=256", 3, "invalid uint8 value"},
		{"negative unsigned constant", "uint32 NEG=-1", 1, "invalid uint32 value"},
		{"hex integer", "int32 H=0x10", 1, "invalid int32 value"},
		{"float32 overflow", "float32 F=1e39", 1, "invalid float32 value"},
		{"bad bool", "bool B=yes", 1, "invalid bool value"},
		{"array constant", "uint8[2] A=1", 1, "primitive scalar type"},
		{"message constant", "Goal G=1", 1, "primitive scalar type"},
		{"message default", "Goal g 1", 1, "only allowed for primitive types"},
		{"duplicate field", "uint8 a\nuint8 b\nint8 a", 3, "already defined on line 1"},
		{"duplicate constant", "uint8 A=1\nuint8 A=2", 2, "already defined"},
		{"zero fixed array", "uint8[0] a", 1, "out of range"},
		{"zero bound", "uint8[<=0] a", 1, "out of range"},
		{"negative array", "uint8[-1] a", 1, "not a positive decimal"},
		{"unclosed array", "uint8[3 a", 1, "missing ']'"},
		{"huge array", "uint8[99999999999] a", 1, "out of range"},
		{"bad string bound", "string<=x s", 1, "invalid bounded string"},
		{"string default longer than bound", "string<=2 s \"abc\"", 1, "longer than its bound"},
		{"unterminated quote", "string s \"abc", 1, "unterminated"},
		{"fixed array default wrong length", "int32[3] xs [1, 2]", 1, "want exactly 3"},
		{"bounded default too long", "int32[<=1] xs [1, 2]", 1, "more than the bound"},
		{"array default without brackets", "int32[2] xs 1, 2", 1, "enclosed in [ ]"},
		{"array default empty element", "int32[] xs [1,,2]", 1, "empty element"},
		{"array default bad element", "int32[] xs [1, x]", 1, "element 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("ghost", "Test", tt.text)
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("error %v does not wrap ErrSyntax", err)
			}
			if pe.Line != tt.line {
				t.Errorf("line = %d, want %d (%v)", pe.Line, tt.line, err)
			}
			if wantText := strings.Split(tt.text, "\n")[tt.line-1]; pe.Text != wantText {
				t.Errorf("text = %q, want %q", pe.Text, wantText)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestParseInvalidNames(t *testing.T) {
	for _, tt := range []struct{ pkg, name string }{
		{"Ghost", "Decision"}, {"ghost", "decision"}, {"ghost", "Deci_sion"}, {"", "Decision"},
	} {
		if _, err := Parse(tt.pkg, tt.name, "uint8 a\n"); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q, %q) error = %v, want ErrSyntax", tt.pkg, tt.name, err)
		}
	}
}

func TestTypeStrings(t *testing.T) {
	tests := []struct {
		typ        Type
		str, full  string
		prim, strg bool
	}{
		{Type{Name: "float64"}, "float64", "float64", true, false},
		{Type{Name: "string", StringBound: 8}, "string<=8", "string", true, true},
		{Type{Name: "wstring"}, "wstring", "wstring", true, true},
		{Type{Name: "Goal", Package: "ghost"}, "ghost/Goal", "ghost/msg/Goal", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			if got := tt.typ.String(); got != tt.str {
				t.Errorf("String = %q, want %q", got, tt.str)
			}
			if got := tt.typ.FullName(); got != tt.full {
				t.Errorf("FullName = %q, want %q", got, tt.full)
			}
			if tt.typ.IsPrimitive() != tt.prim || tt.typ.IsString() != tt.strg {
				t.Errorf("IsPrimitive/IsString = %v/%v, want %v/%v", tt.typ.IsPrimitive(), tt.typ.IsString(), tt.prim, tt.strg)
			}
		})
	}
	for k, want := range map[ArrayKind]string{NotArray: "scalar", FixedArray: "fixed array",
		UnboundedSequence: "unbounded sequence", BoundedSequence: "bounded sequence", 9: "ArrayKind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("ArrayKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

func TestDependenciesSortedUnique(t *testing.T) {
	s, err := Parse("diagnostic_msgs", "X", "std_msgs/Header h\nKeyValue[] a\nKeyValue b\nbuiltin_interfaces/Time t\nuint8 n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"builtin_interfaces/Time", "diagnostic_msgs/KeyValue", "std_msgs/Header"}
	if got := s.Dependencies(); !reflect.DeepEqual(got, want) {
		t.Errorf("Dependencies = %q, want %q", got, want)
	}
}

func TestCloneIsDeep(t *testing.T) {
	s, err := Parse("ghost", "T", "uint8 A=1\nint32[2] xs [1, 2]\n")
	if err != nil {
		t.Fatal(err)
	}
	c := s.Clone()
	c.Fields[0].Default[0] = "9"
	c.Constants[0].Value = "9"
	c.Fields[0].Name = "changed"
	if s.Fields[0].Default[0] != "1" || s.Constants[0].Value != "1" || s.Fields[0].Name != "xs" {
		t.Errorf("modifying the clone changed the original: %+v", s)
	}
}

func TestSplitComment(t *testing.T) {
	tests := []struct {
		line, code, comment string
		found, bad          bool
	}{
		{"int64 stamp", "int64 stamp", "", false, false},
		{"int64 stamp  # sim time", "int64 stamp  ", " sim time", true, false},
		{"# whole line", "", " whole line", true, false},
		{`string s "a#b" # c`, `string s "a#b" `, " c", true, false},
		{`string s 'it\'s#' #x`, `string s 'it\'s#' `, "x", true, false},
		{`string s "open`, "", "", false, true},
	}
	for _, tt := range tests {
		code, comment, found, err := SplitComment(tt.line)
		if (err != nil) != tt.bad || code != tt.code || comment != tt.comment || found != tt.found {
			t.Errorf("SplitComment(%q) = %q, %q, %v, %v", tt.line, code, comment, found, err)
		}
	}
}
