package dynamic

import (
	"fmt"
	"math"
	"strconv"
)

// Message is a decoded payload: a view of the bytes it was decoded from
// plus the offsets of its fields. The zero Message is empty: every read
// fails. Reads never modify the Message, so one Message may be read from
// several goroutines.
type Message struct {
	plan *Plan
	body []byte // the payload after the encapsulation header
	be   bool
	pos  []pos // per slot; the plan's static table for fixed plans
	buf  []pos // owned offset table, reused by DecodeInto
}

// Plan returns the plan the message was decoded with; nil when empty.
func (m *Message) Plan() *Plan { return m.plan }

// errEmpty is returned by reads of an empty Message.
var errEmpty = &FieldError{Type: "<empty>", Err: fmt.Errorf("%w: message was not decoded", ErrUnknownField)}

// locate finds the target of r: the offset of its element (or of the
// array's first element, or of a string's characters) and the element
// count (array length, string length, 1 for a scalar).
func (m *Message) locate(r *FieldRef) (off, n int, err error) {
	if m.plan == nil {
		return 0, 0, errEmpty
	}
	if r.plan != m.plan {
		name := "<invalid>"
		if r.plan != nil {
			name = r.plan.name
		}
		return 0, 0, &FieldError{Type: m.plan.name, Err: fmt.Errorf("%w: reference resolved for %s", ErrUnknownField, name)}
	}
	rd := reader{b: m.body, be: m.be, typ: m.plan.name}
	return locateIn(m.plan, &rd, r, m.pos[r.slot])
}

func locateIn(p *Plan, rd *reader, r *FieldRef, at pos) (off, n int, err error) {
	s := &p.slots[r.slot]
	if r.index < 0 || s.kind == slotScalar || s.kind == slotString {
		return int(at.off), int(at.n), nil
	}
	idx := int(r.index)
	if idx >= int(at.n) {
		return 0, 0, &FieldError{Type: p.name, Path: s.path + "[" + strconv.Itoa(idx) + "]",
			Err: fmt.Errorf("%w: index %d, %d elements", ErrIndex, idx, at.n)}
	}
	switch s.kind {
	case slotArray, slotSeq:
		return int(at.off) + idx*s.elem.size(), 1, nil
	case slotStrings:
		o := int(at.off)
		for j := 0; ; j++ {
			start, l, next, err := rd.str(s.path, o, s.strBound)
			if err != nil || j == idx {
				return start, l, err
			}
			o = next
		}
	}
	o := int(at.off)
	for j := 0; j < idx; j++ {
		if o, _, err = s.sub.walk(rd, o, nil, -1); err != nil {
			return 0, 0, err
		}
	}
	_, subAt, err := s.sub.walk(rd, o, nil, int(r.sub.slot))
	if err != nil {
		return 0, 0, err
	}
	return locateIn(s.sub, rd, r.sub, subAt)
}

// target returns the slot that r finally lands in.
func (r *FieldRef) target() (*Plan, *slot, int32) {
	p, ref := r.plan, r
	for ref.sub != nil {
		p, ref = p.slots[ref.slot].sub, ref.sub
	}
	return p, &p.slots[ref.slot], ref.index
}

// element locates a single primitive or string element.
func (m *Message) element(r *FieldRef) (off, n int, err error) {
	if r.plan != nil {
		if p, s, idx := r.target(); idx < 0 && s.kind != slotScalar && s.kind != slotString {
			return 0, 0, &FieldError{Type: p.name, Path: s.path, Err: fmt.Errorf("%w: an array; read its elements by index", ErrKind)}
		}
	}
	return m.locate(r)
}

// raw reads the primitive of kind k at off as its bit pattern, widened.
func (m *Message) raw(off int, k Kind) uint64 {
	rd := reader{b: m.body, be: m.be}
	switch k.size() {
	case 1:
		return uint64(m.body[off])
	case 2:
		return uint64(rd.u16(off))
	case 4:
		return uint64(rd.u32(off))
	}
	return rd.u64(off)
}

// signedValue sign-extends a raw value of kind k.
func signedValue(v uint64, k Kind) int64 {
	switch k {
	case KindInt8:
		return int64(int8(v))
	case KindInt16:
		return int64(int16(v))
	case KindInt32:
		return int64(int32(v))
	}
	return int64(v)
}

func kindErr(r *FieldRef, want string) error {
	p, s, idx := r.target()
	path := s.path
	if idx >= 0 {
		path += "[" + strconv.Itoa(int(idx)) + "]"
	}
	return &FieldError{Type: p.name, Path: path, Err: fmt.Errorf("%w: %s field read as %s", ErrKind, r.kind, want)}
}

// FloatAt reads a numeric field as float64: floats as they are, integers
// converted (exactly up to 2^53).
func (m *Message) FloatAt(r FieldRef) (float64, error) {
	off, _, err := m.element(&r)
	if err != nil {
		return 0, err
	}
	v := m.raw(off, r.kind)
	switch {
	case r.kind == KindFloat32:
		return float64(math.Float32frombits(uint32(v))), nil
	case r.kind == KindFloat64:
		return math.Float64frombits(v), nil
	case r.kind.signed():
		return float64(signedValue(v, r.kind)), nil
	case r.kind.unsigned():
		return float64(v), nil
	}
	return 0, kindErr(&r, "a number")
}

// UintAt reads an integer field as uint64; a negative value is an error.
func (m *Message) UintAt(r FieldRef) (uint64, error) {
	off, _, err := m.element(&r)
	if err != nil {
		return 0, err
	}
	v := m.raw(off, r.kind)
	switch {
	case r.kind.unsigned():
		return v, nil
	case r.kind.signed():
		if s := signedValue(v, r.kind); s >= 0 {
			return uint64(s), nil
		}
		return 0, kindErr(&r, "unsigned (value is negative)")
	}
	return 0, kindErr(&r, "an unsigned integer")
}

// IntAt reads an integer field as int64; an unsigned value above 2^63-1 is
// an error.
func (m *Message) IntAt(r FieldRef) (int64, error) {
	off, _, err := m.element(&r)
	if err != nil {
		return 0, err
	}
	v := m.raw(off, r.kind)
	switch {
	case r.kind.signed():
		return signedValue(v, r.kind), nil
	case r.kind.unsigned():
		if v <= math.MaxInt64 {
			return int64(v), nil
		}
		return 0, kindErr(&r, "int64 (value too large)")
	}
	return 0, kindErr(&r, "an integer")
}

// BoolAt reads a bool field.
func (m *Message) BoolAt(r FieldRef) (bool, error) {
	if r.kind != KindBool && r.plan != nil {
		return false, kindErr(&r, "bool")
	}
	off, _, err := m.element(&r)
	if err != nil {
		return false, err
	}
	return m.body[off] == 1, nil
}

// StringAt reads a string field (or string array element).
func (m *Message) StringAt(r FieldRef) (string, error) {
	if r.kind != KindString && r.plan != nil {
		return "", kindErr(&r, "string")
	}
	off, n, err := m.element(&r)
	if err != nil {
		return "", err
	}
	return string(m.body[off : off+n]), nil
}

// LenAt returns the number of elements of an array or sequence, or the
// byte length of a string.
func (m *Message) LenAt(r FieldRef) (int, error) {
	if r.plan != nil {
		if _, s, idx := r.target(); s.kind == slotScalar || (idx >= 0 && s.elem != KindString) {
			return 0, kindErr(&r, "an array or string")
		}
	}
	_, n, err := m.locate(&r)
	return n, err
}

// Float64sAt appends every element of a numeric array or sequence to dst,
// converted as FloatAt does, and returns the extended slice.
func (m *Message) Float64sAt(r FieldRef, dst []float64) ([]float64, error) {
	if r.plan != nil {
		if _, s, idx := r.target(); idx >= 0 || (s.kind != slotArray && s.kind != slotSeq) || !(s.elem.float() || s.elem.signed() || s.elem.unsigned()) {
			return dst, kindErr(&r, "a numeric array")
		}
	}
	off, n, err := m.locate(&r)
	if err != nil {
		return dst, err
	}
	sz := r.kind.size()
	for i := 0; i < n; i++ {
		v := m.raw(off+i*sz, r.kind)
		switch {
		case r.kind == KindFloat32:
			dst = append(dst, float64(math.Float32frombits(uint32(v))))
		case r.kind == KindFloat64:
			dst = append(dst, math.Float64frombits(v))
		case r.kind.signed():
			dst = append(dst, float64(signedValue(v, r.kind)))
		default:
			dst = append(dst, float64(v))
		}
	}
	return dst, nil
}

// field resolves path against the message's plan.
func (m *Message) field(path string) (FieldRef, error) {
	if m.plan == nil {
		return FieldRef{}, errEmpty
	}
	return m.plan.Field(path)
}

// Float64 reads the numeric field at path (see FloatAt).
func (m *Message) Float64(path string) (float64, error) {
	r, err := m.field(path)
	if err != nil {
		return 0, err
	}
	return m.FloatAt(r)
}

// Uint reads the integer field at path (see UintAt).
func (m *Message) Uint(path string) (uint64, error) {
	r, err := m.field(path)
	if err != nil {
		return 0, err
	}
	return m.UintAt(r)
}

// Int reads the integer field at path (see IntAt).
func (m *Message) Int(path string) (int64, error) {
	r, err := m.field(path)
	if err != nil {
		return 0, err
	}
	return m.IntAt(r)
}

// Bool reads the bool field at path.
func (m *Message) Bool(path string) (bool, error) {
	r, err := m.field(path)
	if err != nil {
		return false, err
	}
	return m.BoolAt(r)
}

// String reads the string at path.
func (m *Message) String(path string) (string, error) {
	r, err := m.field(path)
	if err != nil {
		return "", err
	}
	return m.StringAt(r)
}

// Len returns the length of the array, sequence or string at path.
func (m *Message) Len(path string) (int, error) {
	r, err := m.field(path)
	if err != nil {
		return 0, err
	}
	return m.LenAt(r)
}

// Float64s returns a copy of the numeric array or sequence at path
// ("pose.covariance"), converted to float64.
func (m *Message) Float64s(path string) ([]float64, error) {
	r, err := m.field(path)
	if err != nil {
		return nil, err
	}
	return m.Float64sAt(r, nil)
}
