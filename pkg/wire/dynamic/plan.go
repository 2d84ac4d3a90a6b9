package dynamic

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ghost-robotics/ghost/msg"
)

// Kind is the wire type of a field's elements.
type Kind uint8

// Element kinds. byte and char decode as KindUint8, as ROS 2 maps both to
// an unsigned octet.
const (
	KindInvalid Kind = iota
	KindBool
	KindUint8
	KindInt8
	KindUint16
	KindInt16
	KindUint32
	KindInt32
	KindUint64
	KindInt64
	KindFloat32
	KindFloat64
	KindString
	KindMessage
)

var kindNames = [...]string{"invalid", "bool", "uint8", "int8", "uint16", "int16", "uint32", "int32",
	"uint64", "int64", "float32", "float64", "string", "message"}

// String returns the ROS 2 spelling of the kind ("float32").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// size is the wire size and alignment of a primitive kind; 0 otherwise.
func (k Kind) size() int {
	switch k {
	case KindBool, KindUint8, KindInt8:
		return 1
	case KindUint16, KindInt16:
		return 2
	case KindUint32, KindInt32, KindFloat32:
		return 4
	case KindUint64, KindInt64, KindFloat64:
		return 8
	}
	return 0
}

func (k Kind) signed() bool {
	return k == KindInt8 || k == KindInt16 || k == KindInt32 || k == KindInt64
}

func (k Kind) unsigned() bool {
	return k == KindUint8 || k == KindUint16 || k == KindUint32 || k == KindUint64
}

func (k Kind) float() bool { return k == KindFloat32 || k == KindFloat64 }

var primitiveKinds = map[string]Kind{
	"bool": KindBool, "byte": KindUint8, "char": KindUint8,
	"uint8": KindUint8, "int8": KindInt8, "uint16": KindUint16, "int16": KindInt16,
	"uint32": KindUint32, "int32": KindInt32, "uint64": KindUint64, "int64": KindInt64,
	"float32": KindFloat32, "float64": KindFloat64, "string": KindString,
}

// slotKind says how a slot sits on the wire.
type slotKind uint8

const (
	slotScalar   slotKind = iota // one primitive
	slotString                   // one string
	slotArray                    // fixed array of primitives: n elements, no count
	slotSeq                      // sequence of primitives: count, elements
	slotStrings                  // fixed array or sequence of strings
	slotMessages                 // sequence of messages
)

// slot is one wire item of the flattened message: nested messages and
// fixed arrays of messages are unrolled into their fields, so a field of a
// fixed-size message is found at a precomputed offset.
type slot struct {
	path     string
	kind     slotKind
	elem     Kind
	seq      bool  // slotStrings: a sequence rather than a fixed array
	n        int   // fixed array length
	bound    int   // sequence bound, 0 when unbounded
	strBound int   // N of string<=N, 0 when unbounded
	sub      *Plan // slotMessages: the element type
}

// pos locates a decoded slot: off is the offset, from the end of the
// encapsulation header, of its first element (string: first character;
// string and message arrays: where the first element's walk starts); n is
// the element count (string: its length without the NUL).
type pos struct{ off, n int32 }

// Plan is a compiled message definition. It is immutable and safe for
// concurrent use.
type Plan struct {
	name    string
	slots   []slot
	index   map[string]int32
	fixed   bool
	size    int
	static  []pos   // fixed plans: the offsets of every slot
	bools   []int32 // fixed plans: the slots holding bools, to validate
	minSize int     // fewest bytes an instance can take (alignment ignored)
}

// Limits that keep compilation and decoding bounded whatever the
// definition: the number of slots of one plan (fixed arrays of messages are
// unrolled), nesting depth (as rosbag2 bounds it), and the byte size of a
// fixed array.
const (
	maxSlots      = 1 << 16
	maxDepth      = 50
	maxArrayBytes = 1 << 30
	headerLen     = 4
	maxTrailing   = 3
	minStringSize = 5 // length word and NUL
)

// emptyField is the member rosidl adds to messages without fields, so that
// they occupy one byte on the wire.
const emptyField = "structure_needs_at_least_one_member"

// Name returns the full name of the message type ("nav_msgs/msg/Odometry").
func (p *Plan) Name() string { return p.name }

// FixedSize returns the exact payload size after the encapsulation header
// (without trailing padding) and true when every instance of the message
// has the same size, so callers can check a payload's length against the
// definition before decoding it.
func (p *Plan) FixedSize() (int, bool) { return p.size, p.fixed }

// MinSize returns the fewest payload bytes (after the header) an instance
// can take, alignment padding not counted.
func (p *Plan) MinSize() int { return p.minSize }

// Paths returns the path of every wire item in wire order: scalars,
// strings and arrays by their own path ("pose.covariance"), fields of fixed
// arrays of messages per element ("points[1].x"), and sequences of messages
// as one entry. Fields inside sequence elements are addressed as
// "path[i].field".
func (p *Plan) Paths() []string {
	out := make([]string, len(p.slots))
	for i := range p.slots {
		out[i] = p.slots[i].path
	}
	return out
}

// Compile builds the plan of message root. deps must hold every message
// type root uses, directly or not; extra definitions are ignored.
func Compile(root *msg.Spec, deps ...*msg.Spec) (*Plan, error) {
	if root == nil {
		return nil, &PlanError{Type: "<nil>", Msg: "no definition"}
	}
	defs := make(map[string]*msg.Spec, len(deps)+1)
	for _, d := range deps {
		if d != nil {
			defs[d.FullName()] = d
		}
	}
	defs[root.FullName()] = root
	c := &compiler{defs: defs, plans: make(map[string]*Plan), busy: make(map[string]bool)}
	return c.plan(root.FullName(), 0)
}

// CompileSchema builds the plan of type name ("pkg/msg/Name" or
// "pkg/Name") from a complete rosbag2 schema text (encoding "ros2msg"):
// the type's definition followed by its dependencies, each after a line of
// '=' and a "MSG: pkg/Name" line.
func CompileSchema(name, schema string) (*Plan, error) {
	defs, err := msg.ParseSchemaText(name, schema)
	if err != nil {
		return nil, fmt.Errorf("cdr: compile %s: %w", capText(name), err)
	}
	full := fullName(name)
	root, ok := defs[full]
	if !ok {
		return nil, &PlanError{Type: capText(name), Msg: "schema text does not define it"}
	}
	deps := make([]*msg.Spec, 0, len(defs))
	for _, d := range defs {
		deps = append(deps, d)
	}
	return Compile(root, deps...)
}

// CompileSet builds the plan of type name from the definitions of set.
func CompileSet(set *msg.Set, name string) (*Plan, error) {
	root, err := set.Definition(name)
	if err != nil {
		return nil, fmt.Errorf("cdr: compile %s: %w", capText(name), err)
	}
	names := set.Names()
	deps := make([]*msg.Spec, 0, len(names))
	for _, n := range names {
		d, err := set.Definition(n)
		if err != nil {
			return nil, fmt.Errorf("cdr: compile %s: %w", capText(name), err)
		}
		deps = append(deps, d)
	}
	return Compile(root, deps...)
}

// fullName turns "pkg/Name" into "pkg/msg/Name".
func fullName(name string) string {
	if strings.Contains(name, "/msg/") {
		return name
	}
	if p, n, ok := strings.Cut(name, "/"); ok {
		return p + "/msg/" + n
	}
	return name
}

type compiler struct {
	defs  map[string]*msg.Spec
	plans map[string]*Plan // element plans, shared
	busy  map[string]bool  // plans being compiled, to catch cycles
}

func (c *compiler) plan(full string, depth int) (*Plan, error) {
	if p, ok := c.plans[full]; ok {
		return p, nil
	}
	if c.busy[full] || depth > maxDepth {
		return nil, &PlanError{Type: full, Msg: "type contains itself or is nested too deeply"}
	}
	spec, ok := c.defs[full]
	if !ok {
		return nil, &PlanError{Type: full, Msg: "definition not given"}
	}
	c.busy[full] = true
	defer delete(c.busy, full)
	p := &Plan{name: full, index: make(map[string]int32)}
	if err := c.flatten(p, spec, "", depth, nil); err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	c.plans[full] = p
	return p, nil
}

// flatten appends the slots of spec's fields, with paths under prefix.
// stack holds the types being unrolled, to reject a type nested in itself.
func (c *compiler) flatten(p *Plan, spec *msg.Spec, prefix string, depth int, stack []string) error {
	if depth > maxDepth || len(stack) > maxDepth {
		return &PlanError{Type: p.name, Msg: fmt.Sprintf("types nested deeper than %d", maxDepth)}
	}
	for _, s := range stack {
		if s == spec.FullName() {
			return &PlanError{Type: p.name, Msg: spec.FullName() + " contains itself"}
		}
	}
	stack = append(stack, spec.FullName())
	fields := spec.Fields
	if len(fields) == 0 {
		fields = []msg.Field{{Name: emptyField, Type: msg.Type{Name: "uint8"}}}
	}
	for _, f := range fields {
		path := prefix + f.Name
		if f.Type.IsPrimitive() {
			if err := p.addPrimitive(path, f); err != nil {
				return err
			}
			continue
		}
		dep := f.Type.FullName()
		depSpec, ok := c.defs[dep]
		if !ok {
			return &PlanError{Type: p.name, Msg: fmt.Sprintf("field %s: definition of %s not given", path, dep)}
		}
		switch f.Array {
		case msg.NotArray:
			if err := c.flatten(p, depSpec, path+".", depth+1, stack); err != nil {
				return err
			}
		case msg.FixedArray:
			for i := 0; i < f.ArrayLen; i++ {
				if err := c.flatten(p, depSpec, path+"["+strconv.Itoa(i)+"].", depth+1, stack); err != nil {
					return err
				}
			}
		default:
			sub, err := c.plan(dep, depth+1)
			if err != nil {
				return err
			}
			bound := 0
			if f.Array == msg.BoundedSequence {
				bound = f.ArrayLen
			}
			if err := p.add(slot{path: path, kind: slotMessages, elem: KindMessage, bound: bound, sub: sub}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Plan) addPrimitive(path string, f msg.Field) error {
	k, ok := primitiveKinds[f.Type.Name]
	if !ok {
		return &PlanError{Type: p.name, Msg: fmt.Sprintf("field %s: type %s is not supported", path, f.Type.Name)}
	}
	s := slot{path: path, elem: k, strBound: f.Type.StringBound}
	str := k == KindString
	switch f.Array {
	case msg.NotArray:
		s.kind = slotScalar
		if str {
			s.kind = slotString
		}
	case msg.FixedArray:
		s.kind, s.n = slotArray, f.ArrayLen
		if str {
			s.kind = slotStrings
		} else if int64(f.ArrayLen)*int64(k.size()) > maxArrayBytes {
			return &PlanError{Type: p.name, Msg: fmt.Sprintf("field %s: fixed array of %d elements is too large", path, f.ArrayLen)}
		}
	default:
		s.kind = slotSeq
		if str {
			s.kind, s.seq = slotStrings, true
		}
		if f.Array == msg.BoundedSequence {
			s.bound = f.ArrayLen
		}
	}
	return p.add(s)
}

func (p *Plan) add(s slot) error {
	if len(p.slots) >= maxSlots {
		return &PlanError{Type: p.name, Msg: fmt.Sprintf("more than %d fields once fixed arrays of messages are unrolled", maxSlots)}
	}
	p.index[s.path] = int32(len(p.slots))
	p.slots = append(p.slots, s)
	return nil
}

// finish computes the static layout of fixed-size plans and the minimum
// size of every plan.
func (p *Plan) finish() error {
	p.fixed = true
	var minSize int64
	for i := range p.slots {
		s := &p.slots[i]
		switch s.kind {
		case slotScalar:
			minSize += int64(s.elem.size())
		case slotArray:
			minSize += int64(s.n) * int64(s.elem.size())
		case slotString:
			minSize += minStringSize
			p.fixed = false
		case slotStrings:
			if s.seq {
				minSize += 4
			} else {
				minSize += int64(s.n) * minStringSize
			}
			p.fixed = false
		default:
			minSize += 4
			p.fixed = false
		}
	}
	p.minSize = int(min(minSize, math.MaxInt32))
	if !p.fixed {
		return nil
	}
	p.static = make([]pos, len(p.slots))
	off := int64(0)
	for i := range p.slots {
		s := &p.slots[i]
		sz := int64(s.elem.size())
		off = (off + sz - 1) &^ (sz - 1)
		n := int64(1)
		if s.kind == slotArray {
			n = int64(s.n)
		}
		p.static[i] = pos{off: int32(off), n: int32(n)}
		off += n * sz
		if off > math.MaxInt32-headerLen-maxTrailing {
			return &PlanError{Type: p.name, Msg: "message is larger than 2 GiB"}
		}
		if s.elem == KindBool {
			p.bools = append(p.bools, int32(i))
		}
	}
	p.size = int(off)
	return nil
}

// FieldRef is a resolved field path, for reading the same field from many
// messages of one plan without parsing the path again. The zero FieldRef
// is invalid.
type FieldRef struct {
	plan  *Plan
	sub   *FieldRef // the field inside element index of a message sequence
	slot  int32
	index int32 // element index; -1 for the whole field
	kind  Kind
}

// Kind returns the kind of the field's elements (KindMessage for a whole
// sequence of messages).
func (r FieldRef) Kind() Kind { return r.kind }

// Valid reports whether r was resolved by Plan.Field.
func (r FieldRef) Valid() bool { return r.plan != nil }

// Field resolves a path: "a.b.c" for nested fields, "a[3]" for an array
// element, "a[3].b" for a field of a message array element. A path naming a
// whole array reads its length and elements (Message.LenAt,
// Message.Float64sAt).
func (p *Plan) Field(path string) (FieldRef, error) {
	if i, ok := p.index[path]; ok {
		return FieldRef{plan: p, slot: i, index: -1, kind: p.slots[i].elem}, nil
	}
	for i := 0; i < len(path); i++ {
		if path[i] != '[' {
			continue
		}
		si, ok := p.index[path[:i]]
		if !ok {
			continue
		}
		s := &p.slots[si]
		if s.kind == slotScalar || s.kind == slotString {
			return FieldRef{}, p.fieldErr(path, ErrKind, "not an array")
		}
		j := strings.IndexByte(path[i:], ']')
		if j < 0 {
			return FieldRef{}, p.fieldErr(path, ErrUnknownField, "missing ']'")
		}
		idx, ok := parseIndex(path[i+1 : i+j])
		if !ok {
			return FieldRef{}, p.fieldErr(path, ErrUnknownField, "index is not a decimal number")
		}
		if (s.kind == slotArray || (s.kind == slotStrings && !s.seq)) && idx >= s.n {
			return FieldRef{}, p.fieldErr(path, ErrIndex, fmt.Sprintf("index %d, array of %d", idx, s.n))
		}
		if s.bound > 0 && idx >= s.bound {
			return FieldRef{}, p.fieldErr(path, ErrIndex, fmt.Sprintf("index %d, bound %d", idx, s.bound))
		}
		rest := path[i+j+1:]
		if s.kind != slotMessages {
			if rest != "" {
				return FieldRef{}, p.fieldErr(path, ErrUnknownField, "")
			}
			return FieldRef{plan: p, slot: si, index: int32(idx), kind: s.elem}, nil
		}
		if len(rest) < 2 || rest[0] != '.' {
			return FieldRef{}, p.fieldErr(path, ErrKind, "a message element has no value of its own; name one of its fields")
		}
		sub, err := s.sub.Field(rest[1:])
		if err != nil {
			return FieldRef{}, p.fieldErr(path, unwrapSentinel(err), err.Error())
		}
		return FieldRef{plan: p, slot: si, index: int32(idx), sub: &sub, kind: sub.kind}, nil
	}
	return FieldRef{}, p.fieldErr(path, ErrUnknownField, "")
}

// parseIndex parses a non-negative decimal index below 2^31.
func parseIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func (p *Plan) fieldErr(path string, sentinel error, detail string) error {
	if detail == "" {
		return &FieldError{Type: p.name, Path: path, Err: sentinel}
	}
	return &FieldError{Type: p.name, Path: path, Err: fmt.Errorf("%w: %s", sentinel, detail)}
}

// unwrapSentinel returns the sentinel a nested error wraps.
func unwrapSentinel(err error) error {
	for _, s := range []error{ErrIndex, ErrKind, ErrUnknownField} {
		if errors.Is(err, s) {
			return s
		}
	}
	return ErrUnknownField
}
