package dynamic

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Writer encodes a fixed-size message field by field, by name, so that a
// message ghost publishes is laid out by the same definition it is read
// with. Fields not set are zero. It writes little-endian plain CDR.
type Writer struct {
	plan *Plan
	buf  []byte // header and body
}

// NewWriter returns a Writer for a fixed-size plan (see FixedSize);
// messages with strings or sequences are encoded by generated code.
func (p *Plan) NewWriter() (*Writer, error) {
	if !p.fixed {
		return nil, &PlanError{Type: p.name, Msg: "the Writer encodes fixed-size messages only (this one has strings or sequences)"}
	}
	w := &Writer{plan: p, buf: make([]byte, headerLen+p.size)}
	w.Reset()
	return w, nil
}

// Reset sets every field to zero.
func (w *Writer) Reset() {
	clear(w.buf)
	w.buf[1] = 1 // CDR_LE
}

// Bytes returns a copy of the encoded message, header included.
func (w *Writer) Bytes() []byte { return append([]byte(nil), w.buf...) }

// AppendTo appends the encoded message, header included, to dst.
func (w *Writer) AppendTo(dst []byte) []byte { return append(dst, w.buf...) }

// at resolves path to the body offset of a single element.
func (w *Writer) at(path string) (int, Kind, error) {
	r, err := w.plan.Field(path)
	if err != nil {
		return 0, 0, err
	}
	s := &w.plan.slots[r.slot]
	if r.index < 0 && s.kind == slotArray {
		return 0, 0, kindErr(&r, "a single value; write arrays by element")
	}
	off := int(w.plan.static[r.slot].off)
	if r.index >= 0 {
		off += int(r.index) * s.elem.size()
	}
	return headerLen + off, r.kind, nil
}

func (w *Writer) put(off int, k Kind, v uint64) {
	switch k.size() {
	case 1:
		w.buf[off] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(w.buf[off:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(w.buf[off:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(w.buf[off:], v)
	}
}

func (w *Writer) rangeErr(path string, k Kind, v any) error {
	return &FieldError{Type: w.plan.name, Path: path, Err: fmt.Errorf("%w: %v does not fit %s", ErrKind, v, k)}
}

// SetFloat writes a float32 or float64 field. A finite value beyond the
// float32 range is an error rather than an infinity.
func (w *Writer) SetFloat(path string, v float64) error {
	off, k, err := w.at(path)
	if err != nil {
		return err
	}
	switch k {
	case KindFloat64:
		w.put(off, k, math.Float64bits(v))
	case KindFloat32:
		if !math.IsInf(v, 0) && !math.IsNaN(v) && math.Abs(v) > math.MaxFloat32 {
			return w.rangeErr(path, k, v)
		}
		w.put(off, k, uint64(math.Float32bits(float32(v))))
	default:
		return &FieldError{Type: w.plan.name, Path: path, Err: fmt.Errorf("%w: %s field written as a float", ErrKind, k)}
	}
	return nil
}

// intRange returns the bounds of an integer kind.
func intRange(k Kind) (lo int64, hi uint64) {
	bits := uint(k.size() * 8)
	if k.signed() {
		return -1 << (bits - 1), 1<<(bits-1) - 1
	}
	return 0, math.MaxUint64 >> (64 - bits)
}

// SetUint writes an integer field; v must fit its type.
func (w *Writer) SetUint(path string, v uint64) error {
	off, k, err := w.at(path)
	if err != nil {
		return err
	}
	if !k.signed() && !k.unsigned() {
		return &FieldError{Type: w.plan.name, Path: path, Err: fmt.Errorf("%w: %s field written as an integer", ErrKind, k)}
	}
	if _, hi := intRange(k); v > hi {
		return w.rangeErr(path, k, v)
	}
	w.put(off, k, v)
	return nil
}

// SetInt writes an integer field; v must fit its type.
func (w *Writer) SetInt(path string, v int64) error {
	off, k, err := w.at(path)
	if err != nil {
		return err
	}
	if !k.signed() && !k.unsigned() {
		return &FieldError{Type: w.plan.name, Path: path, Err: fmt.Errorf("%w: %s field written as an integer", ErrKind, k)}
	}
	if lo, hi := intRange(k); v < lo || (v > 0 && uint64(v) > hi) {
		return w.rangeErr(path, k, v)
	}
	w.put(off, k, uint64(v))
	return nil
}

// SetBool writes a bool field.
func (w *Writer) SetBool(path string, v bool) error {
	off, k, err := w.at(path)
	if err != nil {
		return err
	}
	if k != KindBool {
		return &FieldError{Type: w.plan.name, Path: path, Err: fmt.Errorf("%w: %s field written as a bool", ErrKind, k)}
	}
	var b uint64
	if v {
		b = 1
	}
	w.put(off, k, b)
	return nil
}
