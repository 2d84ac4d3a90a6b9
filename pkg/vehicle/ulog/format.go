package ulog

import (
	"strconv"
	"strings"
)

// Kind is the binary type of a field.
type Kind uint8

// The field kinds: the specification's basic types, and a nested format.
const (
	KindInvalid Kind = iota
	KindInt8
	KindUint8
	KindInt16
	KindUint16
	KindInt32
	KindUint32
	KindInt64
	KindUint64
	KindFloat32
	KindFloat64
	KindBool
	KindChar
	KindNested
)

var kindInfo = [...]struct {
	name string
	size int
}{
	{"invalid", 0}, {"int8_t", 1}, {"uint8_t", 1}, {"int16_t", 2}, {"uint16_t", 2},
	{"int32_t", 4}, {"uint32_t", 4}, {"int64_t", 8}, {"uint64_t", 8},
	{"float", 4}, {"double", 8}, {"bool", 1}, {"char", 1}, {"nested", 0},
}

// baseKind returns the kind of a basic type name, KindInvalid otherwise.
func baseKind(name string) Kind {
	for k := KindInt8; k <= KindChar; k++ {
		if kindInfo[k].name == name {
			return k
		}
	}
	return KindInvalid
}

// String returns the specification's type name (e.g. "uint16_t").
func (k Kind) String() string {
	if int(k) < len(kindInfo) {
		return kindInfo[k].name
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Size returns the size in bytes of one basic value; 0 for KindNested.
func (k Kind) Size() int {
	if int(k) < len(kindInfo) {
		return kindInfo[k].size
	}
	return 0
}

func (k Kind) signed() bool {
	return k == KindInt8 || k == KindInt16 || k == KindInt32 || k == KindInt64
}
func (k Kind) unsigned() bool {
	return k == KindUint8 || k == KindUint16 || k == KindUint32 || k == KindUint64
}

// Field is one field of a format, in declaration order.
type Field struct {
	Name     string
	TypeName string // as written, without the array suffix: "float", "position_setpoint"
	Kind     Kind
	ArrayLen int     // 0 for a scalar
	Offset   int     // byte offset in the packed layout, once the format is resolved
	Nested   *Format // the nested format (KindNested), once resolved
}

// IsPadding reports whether the field is alignment padding that readers
// must ignore.
func (f *Field) IsPadding() bool { return strings.HasPrefix(f.Name, "_padding") }

func (f *Field) elemSize() int {
	if f.Kind == KindNested {
		if f.Nested == nil {
			return 0
		}
		return f.Nested.size
	}
	return f.Kind.Size()
}

// Format is a message definition from an 'F' message. Offsets, nested
// formats and Size are filled in when the format is first used (resolved);
// formats may name nested formats defined later in the log.
type Format struct {
	Name   string
	Fields []Field

	text     string         // the definition text, to tell a harmless duplicate
	index    map[string]int // non-padding fields by name
	resolved bool
	size     int // packed size, trailing padding included
	minSize  int // size a 'D' may shrink to: without a trailing padding field
	ts       FieldRef
	hasTS    bool
}

func (*Format) ulogMessage() {}

// Resolved reports whether offsets and nested formats are known.
func (f *Format) Resolved() bool { return f.resolved }

// Size returns the packed size in bytes once resolved, 0 before.
func (f *Format) Size() int { return f.size }

// validName reports whether s is a message name the specification allows
// (a-zA-Z0-9_-/, non-empty).
func validName(s string, extra string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}

// parseType splits "float[4]" into ("float", 4); a scalar has length 0.
// minLen is the smallest array length accepted.
func parseType(s string, minLen int) (name string, n int, ok bool) {
	i := strings.IndexByte(s, '[')
	if i < 0 {
		return s, 0, s != ""
	}
	if !strings.HasSuffix(s, "]") || i == 0 {
		return "", 0, false
	}
	digits := s[i+1 : len(s)-1]
	n, err := strconv.Atoi(digits)
	if err != nil || digits[0] == '+' || digits[0] == '-' || n < minLen || n > 65535 {
		return "", 0, false
	}
	return s[:i], n, true
}

// ParseFormat parses the text of an 'F' message, "name:type field;...".
// Nested type names are kept unresolved.
func ParseFormat(text string) (*Format, error) {
	name, body, found := strings.Cut(text, ":")
	if !found {
		return nil, &FormatError{Format: text, Reason: "no ':' after the message name"}
	}
	if !validName(name, "-/") || baseKind(name) != KindInvalid {
		return nil, &FormatError{Format: name, Reason: "invalid message name"}
	}
	f := &Format{Name: name, text: text, index: map[string]int{}}
	for part := range strings.SplitSeq(body, ";") {
		if part == "" {
			continue // the definition ends with ';'
		}
		typ, fname, found := strings.Cut(part, " ")
		if !found || fname == "" || strings.ContainsAny(fname, " []./:") {
			return nil, &FormatError{Format: name, Field: part, Reason: "want \"type name\""}
		}
		tname, n, ok := parseType(typ, 1)
		if !ok {
			return nil, &FormatError{Format: name, Field: fname, Reason: "invalid type " + clip(typ)}
		}
		kind := baseKind(tname)
		if kind == KindInvalid {
			if !validName(tname, "-/") {
				return nil, &FormatError{Format: name, Field: fname, Reason: "invalid type " + clip(typ)}
			}
			kind = KindNested
		}
		fd := Field{Name: fname, TypeName: tname, Kind: kind, ArrayLen: n}
		if !fd.IsPadding() {
			if _, dup := f.index[fname]; dup {
				return nil, &FormatError{Format: name, Field: fname, Reason: "duplicate field name"}
			}
			f.index[fname] = len(f.Fields)
		}
		f.Fields = append(f.Fields, fd)
	}
	if len(f.Fields) == 0 {
		return nil, &FormatError{Format: name, Reason: "no fields"}
	}
	return f, nil
}

// Layout limits: a 'D' message holds at most 65533 bytes, and real PX4
// nesting is two levels deep.
const (
	maxFormatSize = 65535
	maxNesting    = 32
)

// resolve lays out f and, first, every format it nests, looking names up
// in defs. It changes nothing on failure, so a later definition of a
// missing nested format can still make f resolvable.
func resolve(f *Format, defs map[string]*Format, stack []string) error {
	if f.resolved {
		return nil
	}
	if len(stack) >= maxNesting {
		return &FormatError{Format: f.Name, Reason: "nested deeper than " + strconv.Itoa(maxNesting) + " levels"}
	}
	for _, s := range stack {
		if s == f.Name {
			return &FormatError{Format: f.Name, Reason: "recursive nesting through " + clip(stack[0])}
		}
	}
	stack = append(stack, f.Name)
	offsets := make([]int, len(f.Fields))
	nested := make([]*Format, len(f.Fields))
	off := 0
	for i := range f.Fields {
		fd := &f.Fields[i]
		size := fd.Kind.Size()
		if fd.Kind == KindNested {
			n, ok := defs[fd.TypeName]
			if !ok {
				return &FormatError{Format: f.Name, Field: fd.Name, Reason: "unknown type " + clip(fd.TypeName)}
			}
			if err := resolve(n, defs, stack); err != nil {
				return err
			}
			size, nested[i] = n.size, n
		}
		offsets[i] = off
		off += size * max(fd.ArrayLen, 1)
		if off > maxFormatSize {
			return &FormatError{Format: f.Name, Field: fd.Name, Reason: "layout exceeds 65535 bytes"}
		}
	}
	for i := range f.Fields {
		f.Fields[i].Offset, f.Fields[i].Nested = offsets[i], nested[i]
	}
	f.size, f.minSize = off, off
	if last := &f.Fields[len(f.Fields)-1]; last.IsPadding() {
		f.minSize = last.Offset
	}
	f.resolved = true
	f.ts, f.hasTS = f.Field("timestamp")
	f.hasTS = f.hasTS && f.ts.kind == KindUint64 && f.ts.n == 1
	return nil
}

// FieldRef is a precomputed field lookup (see Format.Field); use it with
// the Data methods ending in At. It is tied to the format it came from.
type FieldRef struct {
	f    *Format
	off  int
	kind Kind
	n    int // values addressed: 1, or the length of a whole char array
}

// Kind returns the basic type the reference addresses.
func (r FieldRef) Kind() Kind { return r.kind }

// Field looks up a value by pyulog's naming: "x", "q[0]", "a.b",
// "heartbeats[1].system_id". A char array without an index addresses the
// whole string. Padding fields, whole non-char arrays and whole nested
// values are not addressable. ok is false for an unresolved format.
func (f *Format) Field(name string) (ref FieldRef, ok bool) {
	if !f.resolved {
		return FieldRef{}, false
	}
	cur, off := f, 0
	for {
		seg, rest, more := strings.Cut(name, ".")
		fname, idx := seg, -1
		if i := strings.IndexByte(seg, '['); i >= 0 {
			var n int
			if fname, n, ok = parseType(seg, 0); !ok {
				return FieldRef{}, false
			}
			idx = n
		}
		i, found := cur.index[fname]
		if !found {
			return FieldRef{}, false
		}
		fd := &cur.Fields[i]
		switch {
		case idx >= 0 && (fd.ArrayLen == 0 || idx >= fd.ArrayLen):
			return FieldRef{}, false
		case idx >= 0:
			off += fd.Offset + idx*fd.elemSize()
		default:
			off += fd.Offset
		}
		if fd.Kind == KindNested {
			if !more || (fd.ArrayLen > 0 && idx < 0) {
				return FieldRef{}, false
			}
			cur, name = fd.Nested, rest
			continue
		}
		if more {
			return FieldRef{}, false
		}
		switch {
		case idx >= 0 || fd.ArrayLen == 0:
			return FieldRef{f: f, off: off, kind: fd.Kind, n: 1}, true
		case fd.Kind == KindChar:
			return FieldRef{f: f, off: off, kind: KindChar, n: fd.ArrayLen}, true
		}
		return FieldRef{}, false
	}
}

// FieldNames lists every addressable value of a resolved format in layout
// order, named as Field accepts them; char arrays appear once, as strings.
func (f *Format) FieldNames() []string {
	var out []string
	var walk func(*Format, string)
	walk = func(cur *Format, prefix string) {
		for i := range cur.Fields {
			fd := &cur.Fields[i]
			if fd.IsPadding() {
				continue
			}
			name := prefix + fd.Name
			switch {
			case fd.Kind == KindNested && fd.ArrayLen == 0:
				walk(fd.Nested, name+".")
			case fd.Kind == KindNested:
				for j := range fd.ArrayLen {
					walk(fd.Nested, name+"["+strconv.Itoa(j)+"].")
				}
			case fd.ArrayLen == 0 || fd.Kind == KindChar:
				out = append(out, name)
			default:
				for j := range fd.ArrayLen {
					out = append(out, name+"["+strconv.Itoa(j)+"]")
				}
			}
		}
	}
	if f.resolved {
		walk(f, "")
	}
	return out
}
