package msg

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrSyntax is wrapped by every *ParseError: the text is not a valid ROS 2
// message definition.
var ErrSyntax = errors.New("invalid message definition")

// ParseError reports a line of a .msg text that could not be parsed.
type ParseError struct {
	// Type is the full name of the message being parsed ("ghost/msg/Decision").
	Type string
	// Line is the 1-based line number within the definition's text.
	Line int
	// Text is the offending line as written (without its line break).
	Text string
	// Msg says what is wrong.
	Msg string
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("msg: %s line %d %q: %s", e.Type, e.Line, e.Text, e.Msg)
}

// Unwrap returns ErrSyntax so callers can test with errors.Is.
func (e *ParseError) Unwrap() error { return ErrSyntax }

// ArrayKind says whether and how a field repeats its element type.
type ArrayKind uint8

// Array kinds, as written after the element type.
const (
	NotArray          ArrayKind = iota // T
	FixedArray                         // T[N]: exactly N elements, no count on the wire
	UnboundedSequence                  // T[]: a count, then the elements
	BoundedSequence                    // T[<=N]: a count of at most N, then the elements
)

// String returns the kind's name.
func (k ArrayKind) String() string {
	switch k {
	case NotArray:
		return "scalar"
	case FixedArray:
		return "fixed array"
	case UnboundedSequence:
		return "unbounded sequence"
	case BoundedSequence:
		return "bounded sequence"
	}
	return fmt.Sprintf("ArrayKind(%d)", uint8(k))
}

// primitiveBits maps each primitive type name to the bit size used when
// parsing its literals; 0 for string types.
var primitiveBits = map[string]int{
	"bool": 1, "byte": 8, "char": 8,
	"int8": 8, "uint8": 8, "int16": 16, "uint16": 16,
	"int32": 32, "uint32": 32, "int64": 64, "uint64": 64,
	"float32": 32, "float64": 64,
	"string": 0, "wstring": 0,
}

// IsPrimitive reports whether name is a ROS 2 primitive type name (bool, byte,
// char, the integer and float types, string, wstring).
func IsPrimitive(name string) bool {
	_, ok := primitiveBits[name]
	return ok
}

// Type is the element type of a field or a constant.
type Type struct {
	// Name is the primitive type name ("float64", "string") or the message
	// name ("Goal").
	Name string
	// Package is the message's package ("ghost", "std_msgs"); empty for
	// primitives. A type written without a package resolves to the package of
	// the definition that uses it.
	Package string
	// StringBound is N for "string<=N" and "wstring<=N", 0 when unbounded.
	StringBound int
}

// IsPrimitive reports whether t is a primitive type rather than a message.
func (t Type) IsPrimitive() bool { return t.Package == "" }

// IsString reports whether t is string or wstring, bounded or not.
func (t Type) IsString() bool { return t.Name == "string" || t.Name == "wstring" }

// FullName returns "pkg/msg/Name" for a message type and the primitive name
// otherwise.
func (t Type) FullName() string {
	if t.IsPrimitive() {
		return t.Name
	}
	return t.Package + "/msg/" + t.Name
}

// String returns the type as it would be written with an explicit package:
// "float64", "string<=8", "ghost/Goal".
func (t Type) String() string {
	switch {
	case t.StringBound > 0:
		return t.Name + "<=" + strconv.Itoa(t.StringBound)
	case t.IsPrimitive():
		return t.Name
	}
	return t.Package + "/" + t.Name
}

// Field is one field of a message, in definition order.
type Field struct {
	// Name is the field name as written (snake_case).
	Name string
	// Type is the element type.
	Type Type
	// Array says whether the field is a scalar, fixed array or sequence.
	Array ArrayKind
	// ArrayLen is N of T[N] (the length) or of T[<=N] (the bound); 0 otherwise.
	ArrayLen int
	// HasDefault reports whether the definition gives a default value.
	HasDefault bool
	// Default holds a given default value in canonical text form: one element
	// for a scalar, one per element for an array ("[]" gives none). Booleans
	// are "true"/"false", integers decimal, floats the shortest text that
	// reads back to the same value, strings their unquoted content.
	Default []string
	// Line is the 1-based line of the field in the definition's text.
	Line int
}

// Constant is a named constant of a message (`uint8 KIND_PROCEED=0`).
type Constant struct {
	// Name is the constant name as written (UPPER_SNAKE_CASE).
	Name string
	// Type is the constant's primitive type.
	Type Type
	// Value is the value in the canonical text form described at Field.Default.
	Value string
	// Line is the 1-based line of the constant in the definition's text.
	Line int
}

// Spec is a parsed message definition.
type Spec struct {
	// Package is the message's package ("ghost").
	Package string
	// Name is the message name ("Decision").
	Name string
	// Constants in definition order.
	Constants []Constant
	// Fields in definition order, which is their order on the wire.
	Fields []Field
}

// FullName returns "pkg/msg/Name", the form rosbag2 and MCAP use for
// schema names.
func (s *Spec) FullName() string { return s.Package + "/msg/" + s.Name }

// Dependencies returns the message types the fields use directly, as
// "pkg/Name", sorted byte-wise and without repetition. This is the order in
// which rosbag2 appends them to a schema text.
func (s *Spec) Dependencies() []string {
	var deps []string
	seen := make(map[string]bool)
	for _, f := range s.Fields {
		if f.Type.IsPrimitive() {
			continue
		}
		d := f.Type.Package + "/" + f.Type.Name
		if !seen[d] {
			seen[d] = true
			deps = append(deps, d)
		}
	}
	slices.Sort(deps)
	return deps
}

// Clone returns a deep copy of s, so callers may modify it freely.
func (s *Spec) Clone() *Spec {
	c := *s
	c.Constants = append([]Constant(nil), s.Constants...)
	c.Fields = make([]Field, len(s.Fields))
	for i, f := range s.Fields {
		f.Default = append([]string(nil), f.Default...)
		c.Fields[i] = f
	}
	return &c
}

// Parse parses the text of the .msg definition of message pkg/name. Types
// written without a package resolve to pkg. The parser is strict: names must
// follow the ROS 2 naming rules, literals must fit their types, array
// defaults must fit their lengths, and names must be unique.
func Parse(pkg, name, text string) (*Spec, error) {
	full := pkg + "/msg/" + name
	if !validPackageName(pkg) {
		return nil, &ParseError{Type: full, Msg: fmt.Sprintf("invalid package name %q", pkg)}
	}
	if !validMessageName(name) {
		return nil, &ParseError{Type: full, Msg: fmt.Sprintf("invalid message name %q", name)}
	}
	s := &Spec{Package: pkg, Name: name}
	names := make(map[string]int)
	for i, raw := range strings.Split(text, "\n") {
		lineNo := i + 1
		fail := func(err error) error {
			return &ParseError{Type: full, Line: lineNo, Text: raw, Msg: err.Error()}
		}
		d, ok, err := parseDecl(raw, pkg)
		if err != nil {
			return nil, fail(err)
		}
		if !ok {
			continue
		}
		if prev, dup := names[d.name]; dup {
			return nil, fail(fmt.Errorf("name %q already defined on line %d", d.name, prev))
		}
		names[d.name] = lineNo
		if value, ok := d.constantValue(); ok {
			c, err := d.constant(value)
			if err != nil {
				return nil, fail(err)
			}
			c.Line = lineNo
			s.Constants = append(s.Constants, c)
			continue
		}
		f, err := d.field()
		if err != nil {
			return nil, fail(err)
		}
		f.Line = lineNo
		s.Fields = append(s.Fields, f)
	}
	return s, nil
}

// decl is one declaration line of a definition: a constant or a field.
type decl struct {
	typeTok string // the type as written
	name    string
	after   string // what follows the name: a default, or "=" and a value
	typ     Type
	arr     ArrayKind
	n       int // the array's length or bound
}

// parseDecl reads the type and the name of one line; ok is false for a
// line with nothing but blanks or a comment.
func parseDecl(raw, pkg string) (d decl, ok bool, err error) {
	line, err := stripComment(strings.TrimSuffix(raw, "\r"))
	if err != nil {
		return decl{}, false, err
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return decl{}, false, nil
	}
	typeTok, rest, found := cutSpace(line)
	if !found {
		return decl{}, false, fmt.Errorf("missing name after type %q", typeTok)
	}
	d = decl{typeTok: typeTok, name: leadingIdent(rest)}
	if d.name == "" {
		return decl{}, false, fmt.Errorf("missing or invalid name after type %q", typeTok)
	}
	d.after = rest[len(d.name):]
	if d.typ, d.arr, d.n, err = parseType(typeTok, pkg); err != nil {
		return decl{}, false, err
	}
	return d, true, nil
}

// constantValue returns the value text of a constant ("NAME=value"); ok is
// false for a field.
func (d *decl) constantValue() (value string, ok bool) {
	trimmed := strings.TrimLeft(d.after, " \t")
	if !strings.HasPrefix(trimmed, "=") {
		return "", false
	}
	return strings.TrimSpace(trimmed[1:]), true
}

// constant checks the declaration as a constant of the given value.
func (d *decl) constant(value string) (Constant, error) {
	if !validConstantName(d.name) {
		return Constant{}, fmt.Errorf("invalid constant name %q: want UPPER_SNAKE_CASE", d.name)
	}
	if !d.typ.IsPrimitive() || d.arr != NotArray {
		return Constant{}, fmt.Errorf("constant %s must have a primitive scalar type, not %s", d.name, d.typeTok)
	}
	if value == "" {
		return Constant{}, fmt.Errorf("constant %s has no value", d.name)
	}
	v, err := parseLiteral(d.typ, value)
	if err != nil {
		return Constant{}, fmt.Errorf("constant %s: %v", d.name, err)
	}
	return Constant{Name: d.name, Type: d.typ, Value: v}, nil
}

// field checks the declaration as a field, with its default if it gives one.
func (d *decl) field() (Field, error) {
	if !validFieldName(d.name) {
		return Field{}, fmt.Errorf("invalid field name %q: want lower_snake_case", d.name)
	}
	f := Field{Name: d.name, Type: d.typ, Array: d.arr, ArrayLen: d.n}
	if d.after == "" {
		return f, nil
	}
	if d.after[0] != ' ' && d.after[0] != '\t' {
		return Field{}, fmt.Errorf("invalid field name %q", d.name+d.after)
	}
	value := strings.TrimSpace(d.after)
	if !d.typ.IsPrimitive() {
		return Field{}, fmt.Errorf("field %s: default values are only allowed for primitive types, not %s", d.name, d.typeTok)
	}
	f.HasDefault = true
	if d.arr == NotArray {
		v, err := parseLiteral(d.typ, value)
		if err != nil {
			return Field{}, fmt.Errorf("field %s default: %v", d.name, err)
		}
		f.Default = []string{v}
		return f, nil
	}
	var err error
	if f.Default, err = parseArrayLiteral(d.typ, d.arr, d.n, value); err != nil {
		return Field{}, fmt.Errorf("field %s default: %v", d.name, err)
	}
	return f, nil
}

// stripComment removes a '#' comment, ignoring '#' inside quoted strings.
func stripComment(line string) (string, error) {
	code, _, _, err := SplitComment(line)
	return code, err
}

// SplitComment splits a .msg line at its '#' comment, ignoring '#' inside
// quoted strings (string constants and defaults): code before it, the
// comment's text after it, and whether there was one. An unterminated
// quote is an error.
func SplitComment(line string) (code, comment string, found bool, err error) {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return line[:i], line[i+1:], true, nil
		}
	}
	if quote != 0 {
		return "", "", false, fmt.Errorf("unterminated %c quote", quote)
	}
	return line, "", false, nil
}

// cutSpace splits s at its first run of blanks.
func cutSpace(s string) (before, after string, found bool) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, "", false
	}
	return s[:i], strings.TrimLeft(s[i:], " \t"), true
}

// leadingIdent returns the longest prefix of s made of [A-Za-z0-9_].
func leadingIdent(s string) string {
	i := 0
	for i < len(s) && (isLower(s[i]) || isUpper(s[i]) || isDigit(s[i]) || s[i] == '_') {
		i++
	}
	return s[:i]
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// snakeName checks the shared rules of field, constant and package names:
// a first character accepted by first, the rest by rest or '_', no "__" and
// no trailing '_'.
func snakeName(s string, first, rest func(byte) bool) bool {
	if s == "" || !first(s[0]) || strings.Contains(s, "__") || strings.HasSuffix(s, "_") {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !rest(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

func validFieldName(s string) bool {
	return snakeName(s, isLower, func(c byte) bool { return isLower(c) || isDigit(c) })
}

func validPackageName(s string) bool { return validFieldName(s) }

func validConstantName(s string) bool {
	return snakeName(s, isUpper, func(c byte) bool { return isUpper(c) || isDigit(c) })
}

func validMessageName(s string) bool {
	if s == "" || !isUpper(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLower(s[i]) && !isUpper(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// maxArrayLen bounds array lengths and string bounds so that sizes derived
// from them stay far from integer overflow.
const maxArrayLen = math.MaxInt32

// parseType parses a type token such as "float64[3]", "Goal[<=1]",
// "string<=8" or "std_msgs/Header". Unqualified message names resolve to pkg.
func parseType(tok, pkg string) (Type, ArrayKind, int, error) {
	base, arr, n := tok, NotArray, 0
	if i := strings.IndexByte(tok, '['); i >= 0 {
		if !strings.HasSuffix(tok, "]") {
			return Type{}, 0, 0, fmt.Errorf("invalid array type %q: missing ']'", tok)
		}
		base = tok[:i]
		inner := tok[i+1 : len(tok)-1]
		switch {
		case inner == "":
			arr = UnboundedSequence
		case strings.HasPrefix(inner, "<="):
			arr = BoundedSequence
			inner = inner[2:]
		default:
			arr = FixedArray
		}
		if arr != UnboundedSequence {
			v, err := parseLength(inner)
			if err != nil {
				return Type{}, 0, 0, fmt.Errorf("invalid array type %q: %v", tok, err)
			}
			n = v
		}
	}
	t, err := parseBaseType(base, pkg)
	if err != nil {
		return Type{}, 0, 0, err
	}
	return t, arr, n, nil
}

// parseLength parses a positive decimal array length or bound.
func parseLength(s string) (int, error) {
	if s == "" || !isDigit(s[0]) {
		return 0, fmt.Errorf("length %q is not a positive decimal integer", s)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v == 0 || v > maxArrayLen {
		return 0, fmt.Errorf("length %q out of range [1, %d]", s, maxArrayLen)
	}
	return int(v), nil
}

func parseBaseType(base, pkg string) (Type, error) {
	for _, s := range []string{"string<=", "wstring<="} {
		if rest, ok := strings.CutPrefix(base, s); ok {
			n, err := parseLength(rest)
			if err != nil {
				return Type{}, fmt.Errorf("invalid bounded string type %q: %v", base, err)
			}
			return Type{Name: strings.TrimSuffix(s, "<="), StringBound: n}, nil
		}
	}
	if IsPrimitive(base) {
		return Type{Name: base}, nil
	}
	p, name, qualified := strings.Cut(base, "/")
	if !qualified {
		p, name = pkg, base
	}
	if strings.Contains(name, "/") {
		return Type{}, fmt.Errorf("invalid type %q: want Name or package/Name", base)
	}
	if !validPackageName(p) {
		return Type{}, fmt.Errorf("invalid package name %q in type %q", p, base)
	}
	if !validMessageName(name) {
		return Type{}, fmt.Errorf("unknown primitive or invalid message type %q", base)
	}
	return Type{Name: name, Package: p}, nil
}

// parseLiteral validates value as a literal of primitive type t and returns
// its canonical text form.
func parseLiteral(t Type, value string) (string, error) {
	bits := primitiveBits[t.Name]
	switch t.Name {
	case "bool":
		switch strings.ToLower(value) {
		case "true", "1":
			return "true", nil
		case "false", "0":
			return "false", nil
		}
		return "", fmt.Errorf("invalid bool value %q", value)
	case "string", "wstring":
		s, err := unquote(value)
		if err != nil {
			return "", err
		}
		if t.StringBound > 0 && len(s) > t.StringBound {
			return "", fmt.Errorf("string value %q is longer than its bound %d", s, t.StringBound)
		}
		return s, nil
	case "float32", "float64":
		v, err := strconv.ParseFloat(value, bits)
		if err != nil {
			return "", fmt.Errorf("invalid %s value %q", t.Name, value)
		}
		return strconv.FormatFloat(v, 'g', -1, bits), nil
	case "byte", "char", "uint8", "uint16", "uint32", "uint64":
		v, err := strconv.ParseUint(value, 10, bits)
		if err != nil {
			return "", fmt.Errorf("invalid %s value %q", t.Name, value)
		}
		return strconv.FormatUint(v, 10), nil
	default:
		v, err := strconv.ParseInt(value, 10, bits)
		if err != nil {
			return "", fmt.Errorf("invalid %s value %q", t.Name, value)
		}
		return strconv.FormatInt(v, 10), nil
	}
}

// unquote strips matching single or double quotes from a string literal and
// resolves backslash escapes of the quote and of the backslash. An unquoted
// literal is taken as written, as ROS 2 does.
func unquote(value string) (string, error) {
	if value == "" {
		return "", nil
	}
	q := value[0]
	if q != '"' && q != '\'' {
		return value, nil
	}
	if len(value) < 2 || value[len(value)-1] != q {
		return "", fmt.Errorf("unterminated string literal %s", value)
	}
	inner := value[1 : len(value)-1]
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		if c == '\\' && i+1 < len(inner) && (inner[i+1] == q || inner[i+1] == '\\') {
			i++
			c = inner[i]
		} else if c == q {
			return "", fmt.Errorf("unescaped %c inside string literal %s", q, value)
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// parseArrayLiteral parses an array default "[a, b, c]" of element type t.
func parseArrayLiteral(t Type, arr ArrayKind, n int, value string) ([]string, error) {
	if len(value) < 2 || value[0] != '[' || value[len(value)-1] != ']' {
		return nil, fmt.Errorf("array value %q must be enclosed in [ ]", value)
	}
	inner := strings.TrimSpace(value[1 : len(value)-1])
	var elems []string
	if inner != "" {
		start := 0
		var quote byte
		for i := 0; i <= len(inner); i++ {
			if i < len(inner) {
				c := inner[i]
				switch {
				case quote != 0 && c == '\\':
					i++
					continue
				case quote != 0:
					if c == quote {
						quote = 0
					}
					continue
				case c == '"' || c == '\'':
					quote = c
					continue
				case c != ',':
					continue
				}
			}
			if quote != 0 {
				return nil, fmt.Errorf("unterminated string in array value %q", value)
			}
			elem := strings.TrimSpace(inner[start:i])
			if elem == "" {
				return nil, fmt.Errorf("empty element %d in array value %q", len(elems), value)
			}
			v, err := parseLiteral(t, elem)
			if err != nil {
				return nil, fmt.Errorf("element %d: %v", len(elems), err)
			}
			elems = append(elems, v)
			start = i + 1
		}
	}
	switch {
	case arr == FixedArray && len(elems) != n:
		return nil, fmt.Errorf("array value has %d elements, want exactly %d", len(elems), n)
	case arr == BoundedSequence && len(elems) > n:
		return nil, fmt.Errorf("array value has %d elements, more than the bound %d", len(elems), n)
	}
	if elems == nil {
		elems = []string{}
	}
	return elems, nil
}
