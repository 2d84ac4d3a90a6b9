package ulog

import (
	"bytes"
	"math"
)

// Data is a 'D' message: one sample of a subscription. Bytes is the
// sample as logged (it may lack a trailing padding field). The reader
// reuses the Data and its Bytes for the next message: use Clone to keep one.
//
// Values are read by field name (Format.Field's naming) or, cheaper in a
// loop, through a FieldRef computed once per format. Every accessor returns
// ok=false rather than panic when the name is unknown, the kind does not
// convert, or the bytes are missing.
type Data struct {
	Sub   *Subscription
	Bytes []byte
}

// Name returns the subscription's format name.
func (d *Data) Name() string {
	if d.Sub == nil {
		return ""
	}
	return d.Sub.Name
}

// MultiID returns the subscription's instance.
func (d *Data) MultiID() uint8 {
	if d.Sub == nil {
		return 0
	}
	return d.Sub.MultiID
}

// Format returns the sample's resolved format (nil for a Data not made by
// a Reader).
func (d *Data) Format() *Format {
	if d.Sub == nil {
		return nil
	}
	return d.Sub.Format
}

// Clone returns a copy that stays valid after the reader moves on.
func (d *Data) Clone() *Data {
	return &Data{Sub: d.Sub, Bytes: bytes.Clone(d.Bytes)}
}

// Timestamp returns the uint64 "timestamp" field, in µs since boot.
func (d *Data) Timestamp() (uint64, bool) {
	f := d.Format()
	if f == nil || !f.hasTS {
		return 0, false
	}
	return d.UintAt(f.ts)
}

func (d *Data) ref(name string) FieldRef {
	if f := d.Format(); f != nil {
		ref, _ := f.Field(name)
		return ref
	}
	return FieldRef{}
}

// raw returns the bytes of the value ref addresses, nil when ref is not
// from this sample's format or the bytes are absent.
func (d *Data) raw(ref FieldRef) []byte {
	if ref.f == nil || ref.f != d.Format() {
		return nil
	}
	end := ref.off + ref.kind.Size()*ref.n
	if ref.off < 0 || end > len(d.Bytes) {
		return nil
	}
	return d.Bytes[ref.off:end]
}

// Float returns a numeric or bool field as float64.
func (d *Data) Float(name string) (float64, bool) { return d.FloatAt(d.ref(name)) }

// Int returns an integer or bool field as int64 (not a float, and not a
// uint64 above math.MaxInt64).
func (d *Data) Int(name string) (int64, bool) { return d.IntAt(d.ref(name)) }

// Uint returns an integer or bool field as uint64 (not a negative one).
func (d *Data) Uint(name string) (uint64, bool) { return d.UintAt(d.ref(name)) }

// Bool returns a bool or integer field as bool (non-zero is true).
func (d *Data) Bool(name string) (bool, bool) { return d.BoolAt(d.ref(name)) }

// String returns a char field or whole char array, up to its first NUL.
func (d *Data) String(name string) (string, bool) { return d.StringAt(d.ref(name)) }

// scalar loads the single value ref addresses.
func (d *Data) scalar(ref FieldRef) (uint64, bool) {
	if ref.n != 1 {
		return 0, false
	}
	b := d.raw(ref)
	if b == nil {
		return 0, false
	}
	return load(b, ref.kind), true
}

// FloatAt is Float through a precomputed reference.
func (d *Data) FloatAt(ref FieldRef) (float64, bool) {
	u, ok := d.scalar(ref)
	switch {
	case !ok || ref.kind == KindChar:
		return 0, false
	case ref.kind == KindFloat32 || ref.kind == KindFloat64:
		return toFloat(u, ref.kind), true
	case ref.kind.signed():
		return float64(signExtend(u, ref.kind)), true
	case ref.kind == KindBool:
		return float64(min(u, 1)), true
	}
	return float64(u), true
}

// IntAt is Int through a precomputed reference.
func (d *Data) IntAt(ref FieldRef) (int64, bool) {
	u, ok := d.scalar(ref)
	switch {
	case !ok:
		return 0, false
	case ref.kind.signed():
		return signExtend(u, ref.kind), true
	case ref.kind == KindBool:
		return int64(min(u, 1)), true
	case ref.kind.unsigned() && u <= math.MaxInt64:
		return int64(u), true
	}
	return 0, false
}

// UintAt is Uint through a precomputed reference.
func (d *Data) UintAt(ref FieldRef) (uint64, bool) {
	u, ok := d.scalar(ref)
	switch {
	case !ok:
		return 0, false
	case ref.kind.unsigned():
		return u, true
	case ref.kind == KindBool:
		return min(u, 1), true
	case ref.kind.signed() && signExtend(u, ref.kind) >= 0:
		return u, true
	}
	return 0, false
}

// BoolAt is Bool through a precomputed reference.
func (d *Data) BoolAt(ref FieldRef) (bool, bool) {
	u, ok := d.scalar(ref)
	if !ok || !(ref.kind == KindBool || ref.kind.signed() || ref.kind.unsigned()) {
		return false, false
	}
	return u != 0, true
}

// StringAt is String through a precomputed reference.
func (d *Data) StringAt(ref FieldRef) (string, bool) {
	b := d.raw(ref)
	if b == nil || ref.kind != KindChar {
		return "", false
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b), true
}
