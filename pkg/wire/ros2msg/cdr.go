package ros2msg

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"
)

// The primitives of the CDR codec. The generated code in *_gen.go calls
// them field by field; this file holds everything that does not depend on a
// message definition.
//
// Wire format (plain CDR / XCDR1, as rmw_cyclonedds and rmw_fastrtps write
// it): a 4-byte encapsulation header, then the fields in definition order.
// Each primitive is aligned to its size (at most 8), counted from the first
// byte after the header, with zero padding. Strings are a uint32 length that
// includes the NUL terminator, the bytes, and the NUL. Sequences are a uint32
// count and the elements; fixed arrays only the elements.

// cdrHeaderLen is the length of the encapsulation header; alignment is
// counted from its end.
const cdrHeaderLen = 4

// cdrHeaderLE is the encapsulation header the encoder writes: plain CDR,
// little-endian, options zero.
var cdrHeaderLE = [cdrHeaderLen]byte{0x00, 0x01, 0x00, 0x00}

// cdrMaxTrailing is the number of zero bytes accepted after the last field:
// rmw_cyclonedds pads serialized messages to a multiple of 4. The only other
// run of zeros accepted there is rmw_fastrtps' size estimate (see slack).
const cdrMaxTrailing = 3

var cdrZeros [8]byte

// CDRMessage is implemented by every generated message type (as a
// pointer), so code can handle any of them generically.
type CDRMessage interface {
	// SchemaName returns the ROS 2 type name, "ghost/msg/Decision".
	SchemaName() string
	// CDRSize returns the exact length of MarshalCDR's result.
	CDRSize() int
	// MarshalCDR returns the message serialized with its encapsulation header.
	MarshalCDR() ([]byte, error)
	// AppendCDR appends the serialized message, header included, to buf. On
	// error it returns buf unchanged in length.
	AppendCDR(buf []byte) ([]byte, error)
	// UnmarshalCDR decodes data, header included, into the message. On error
	// the message is left unchanged.
	UnmarshalCDR(data []byte) error
	// Reset sets the message to its defaults (as the NewXxx constructors).
	Reset()
}

// cdrAlign returns off rounded up to a multiple of n (a power of two), for
// offsets counted from the end of the header.
func cdrAlign(off, n int) int { return (off + n - 1) &^ (n - 1) }

// cdrStringEnd returns the offset after a string of n bytes written at off.
func cdrStringEnd(off, n int) int { return cdrAlign(off, 4) + 4 + n + 1 }

// cdrPad appends zero bytes until buf's length past origin is a multiple of
// n (a power of two).
func cdrPad(buf []byte, origin, n int) []byte {
	if p := (origin - len(buf)) & (n - 1); p != 0 {
		buf = append(buf, cdrZeros[:p]...)
	}
	return buf
}

func cdrPutBool(buf []byte, v bool) []byte {
	if v {
		return append(buf, 1)
	}
	return append(buf, 0)
}

func cdrPutU8(buf []byte, v uint8) []byte { return append(buf, v) }

func cdrPutU16(buf []byte, origin int, v uint16) []byte {
	return binary.LittleEndian.AppendUint16(cdrPad(buf, origin, 2), v)
}

func cdrPutU32(buf []byte, origin int, v uint32) []byte {
	return binary.LittleEndian.AppendUint32(cdrPad(buf, origin, 4), v)
}

func cdrPutU64(buf []byte, origin int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(cdrPad(buf, origin, 8), v)
}

// cdrPutF32 writes the value's bits, so a NaN keeps its payload.
func cdrPutF32(buf []byte, origin int, v float32) []byte {
	return cdrPutU32(buf, origin, math.Float32bits(v))
}

// cdrPutF64 writes the value's bits, so a NaN keeps its payload.
func cdrPutF64(buf []byte, origin int, v float64) []byte {
	return cdrPutU64(buf, origin, math.Float64bits(v))
}

// cdrPutString writes s; bound is the maximum length of a string<=N, 0 for
// none. The error is for the caller to attach the field name to.
func cdrPutString(buf []byte, origin int, s string, bound int) ([]byte, error) {
	if bound > 0 && len(s) > bound {
		return buf, fmt.Errorf("%w: string of %d bytes, bound %d", ErrCDRBound, len(s), bound)
	}
	if uint64(len(s)) >= math.MaxUint32 {
		return buf, fmt.Errorf("%w: string of %d bytes does not fit a CDR length", ErrCDRBound, len(s))
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return buf, fmt.Errorf("%w: NUL byte at index %d", ErrCDRBadString, i)
	}
	buf = cdrPutU32(buf, origin, uint32(len(s)+1))
	buf = append(buf, s...)
	return append(buf, 0), nil
}

// cdrPutCount writes a sequence count; bound is the N of T[<=N], 0 for none.
func cdrPutCount(buf []byte, origin, n, bound int) ([]byte, error) {
	if bound > 0 && n > bound {
		return buf, fmt.Errorf("%w: %d elements, bound %d", ErrCDRBound, n, bound)
	}
	if uint64(n) > math.MaxUint32 {
		return buf, fmt.Errorf("%w: %d elements do not fit a CDR count", ErrCDRBound, n)
	}
	return cdrPutU32(buf, origin, uint32(n)), nil
}

// cdrDecoder reads one message. Errors are sticky: after the first one every
// read returns a zero value, and the generated code returns as soon as it
// checks, prefixing the field path on its way out.
type cdrDecoder struct {
	data []byte
	off  int // absolute offset in data
	be   bool
	typ  string
	err  *DecodeError
	// strs, when set, supplies strings seen before (StringCache).
	strs *StringCache
	// slack is how far rmw_fastrtps' size estimate of the fields read so
	// far runs ahead of their length. rmw_serialize on Fast DDS (Humble)
	// returns a buffer as long as that estimate, which aligns an empty
	// sequence of 8-byte elements as if it had one; the serializer itself
	// does not, so the difference is zeros after the last field.
	slack int
}

// start checks the encapsulation header.
func (d *cdrDecoder) start(data []byte, typ string) bool {
	d.data, d.typ, d.off = data, typ, 0
	if len(data) < cdrHeaderLen {
		d.fail("", 0, fmt.Errorf("%w: %d bytes, shorter than the 4-byte encapsulation header", ErrCDRTruncated, len(data)))
		return false
	}
	if data[0] != 0 || data[1] > 1 {
		d.fail("", 0, encapsulationErr(uint16(data[0])<<8|uint16(data[1])))
		return false
	}
	// The options bytes (2 and 3) carry nothing for plain CDR and are ignored.
	d.be = data[1] == 0
	d.off = cdrHeaderLen
	return true
}

// finish checks what follows the last field and returns the decoding error.
func (d *cdrDecoder) finish() error {
	if d.err != nil {
		return d.err
	}
	rest := d.data[d.off:]
	if len(rest) > cdrMaxTrailing && len(rest) != d.slack {
		d.fail("", d.off, trailingErr(len(rest), d.slack))
		return d.err
	}
	for i, c := range rest {
		if c != 0 {
			d.fail("", d.off+i, fmt.Errorf("%w: padding byte 0x%02x is not zero", ErrCDRTrailingBytes, c))
			return d.err
		}
	}
	return nil
}

// trailingErr describes n bytes after the last field that neither
// middleware writes; estimate is rmw_fastrtps' slack for the message.
func trailingErr(n, estimate int) error {
	if estimate > cdrMaxTrailing {
		return fmt.Errorf("%w: %d bytes after the last field; rmw_cyclonedds pads with at most %d zero bytes and rmw_fastrtps' size estimate for this message adds exactly %d",
			ErrCDRTrailingBytes, n, cdrMaxTrailing, estimate)
	}
	return fmt.Errorf("%w: %d bytes after the last field, at most %d zero padding bytes allowed",
		ErrCDRTrailingBytes, n, cdrMaxTrailing)
}

// estimate8 moves the size estimate to its next 8-byte boundary, where the
// bytes read are at the absolute offset off: the estimate aligns 8-byte
// fields on its own running length, which differs from theirs by slack.
func (d *cdrDecoder) estimate8(off int) {
	d.slack = cdrAlign(d.off-cdrHeaderLen+d.slack, 8) - (off - cdrHeaderLen)
}

// count8 reads the count of a sequence of 8-byte primitives. An empty one
// moves the size estimate (see slack) but not the bytes read.
func (d *cdrDecoder) count8(field string, bound int) int {
	n := d.count(field, bound, 8)
	if n == 0 && d.err == nil {
		d.estimate8(d.off)
	}
	return n
}

func (d *cdrDecoder) fail(field string, off int, err error) {
	if d.err == nil {
		d.err = &DecodeError{Type: d.typ, Field: field, Offset: off, Err: err}
	}
}

// prefix prepends a parent field to the path of the pending error.
func (d *cdrDecoder) prefix(parent string) {
	d.err.Field = joinPath(parent, d.err.Field)
}

// truncated records that n bytes were needed at off.
func (d *cdrDecoder) truncated(field string, off, n int) {
	rem := max(len(d.data)-off, 0)
	d.fail(field, min(off, len(d.data)), fmt.Errorf("%w: need %d bytes, %d remain", ErrCDRTruncated, n, rem))
}

// aligned returns the absolute offset of the next n-aligned position.
func (d *cdrDecoder) aligned(n int) int {
	return d.off + ((cdrHeaderLen - d.off) & (n - 1))
}

func (d *cdrDecoder) boolean(field string) bool {
	if d.err != nil {
		return false
	}
	if d.off >= len(d.data) {
		d.truncated(field, d.off, 1)
		return false
	}
	b := d.data[d.off]
	if b > 1 {
		d.fail(field, d.off, fmt.Errorf("%w: byte 0x%02x, want 0 or 1", ErrCDRInvalidBool, b))
		return false
	}
	d.off++
	return b == 1
}

func (d *cdrDecoder) u8(field string) uint8 {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.data) {
		d.truncated(field, d.off, 1)
		return 0
	}
	d.off++
	return d.data[d.off-1]
}

func (d *cdrDecoder) u16(field string) uint16 {
	if d.err != nil {
		return 0
	}
	off := d.aligned(2)
	if off+2 > len(d.data) {
		d.truncated(field, off, 2)
		return 0
	}
	d.off = off + 2
	if d.be {
		return binary.BigEndian.Uint16(d.data[off:])
	}
	return binary.LittleEndian.Uint16(d.data[off:])
}

func (d *cdrDecoder) u32(field string) uint32 {
	if d.err != nil {
		return 0
	}
	off := d.aligned(4)
	if off+4 > len(d.data) {
		d.truncated(field, off, 4)
		return 0
	}
	d.off = off + 4
	if d.be {
		return binary.BigEndian.Uint32(d.data[off:])
	}
	return binary.LittleEndian.Uint32(d.data[off:])
}

func (d *cdrDecoder) u64(field string) uint64 {
	if d.err != nil {
		return 0
	}
	off := d.aligned(8)
	if off+8 > len(d.data) {
		d.truncated(field, off, 8)
		return 0
	}
	if d.slack != 0 {
		d.estimate8(off)
	}
	d.off = off + 8
	if d.be {
		return binary.BigEndian.Uint64(d.data[off:])
	}
	return binary.LittleEndian.Uint64(d.data[off:])
}

func (d *cdrDecoder) f32(field string) float32 { return math.Float32frombits(d.u32(field)) }

func (d *cdrDecoder) f64(field string) float64 { return math.Float64frombits(d.u64(field)) }

// str reads a string; bound is the N of string<=N, 0 for none.
func (d *cdrDecoder) str(field string, bound int) string {
	n := d.u32(field)
	if d.err != nil {
		return ""
	}
	lenOff, start := d.off-4, d.off
	switch {
	case n == 0:
		d.fail(field, lenOff, fmt.Errorf("%w: length 0 leaves no room for the NUL terminator", ErrCDRBadString))
		return ""
	case uint64(n) > uint64(len(d.data)-start):
		d.fail(field, lenOff, fmt.Errorf("%w: string length %d, %d bytes remain", ErrCDRTruncated, n, len(d.data)-start))
		return ""
	}
	b := d.data[start : start+int(n)]
	if b[n-1] != 0 {
		d.fail(field, start+int(n)-1, fmt.Errorf("%w: missing NUL terminator (last byte 0x%02x)", ErrCDRBadString, b[n-1]))
		return ""
	}
	b = b[:n-1]
	if bound > 0 && len(b) > bound {
		d.fail(field, lenOff, fmt.Errorf("%w: string of %d bytes, bound %d", ErrCDRBound, len(b), bound))
		return ""
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		d.fail(field, start+i, fmt.Errorf("%w: NUL byte at index %d", ErrCDRBadString, i))
		return ""
	}
	d.off = start + int(n)
	if d.strs != nil {
		return d.strs.get(b)
	}
	return string(b)
}

// count reads a sequence count and checks it against the bound (the N of
// T[<=N], 0 for none) and against the bytes that remain, at minSize bytes
// per element at least, before the caller allocates anything.
func (d *cdrDecoder) count(field string, bound, minSize int) int {
	n := d.u32(field)
	if d.err != nil {
		return 0
	}
	if bound > 0 && uint64(n) > uint64(bound) {
		d.fail(field, d.off-4, fmt.Errorf("%w: count %d, bound %d", ErrCDRBound, n, bound))
		return 0
	}
	if rem := len(d.data) - d.off; uint64(n)*uint64(minSize) > uint64(rem) {
		d.fail(field, d.off-4, fmt.Errorf("%w: count %d needs at least %d bytes, %d remain",
			ErrCDRTruncated, n, uint64(n)*uint64(minSize), rem))
		return 0
	}
	return int(n)
}

// take returns the next n*size bytes of an array of primitives, aligned to
// size, or records which element is missing.
func (d *cdrDecoder) take(field string, n, size int) []byte {
	if d.err != nil || n == 0 {
		return nil
	}
	off := d.aligned(size)
	if rem := len(d.data) - off; n*size > rem {
		missing := max(rem, 0) / size
		d.truncated(indexPath(field, missing), off+missing*size, size)
		return nil
	}
	if size == 8 && d.slack != 0 {
		d.estimate8(off)
	}
	d.off = off + n*size
	return d.data[off:d.off]
}

func cdrReadBools(d *cdrDecoder, dst []bool, field string) {
	b := d.take(field, len(dst), 1)
	if b == nil {
		return
	}
	for i, c := range b {
		if c > 1 {
			d.fail(indexPath(field, i), d.off-len(b)+i, fmt.Errorf("%w: byte 0x%02x, want 0 or 1", ErrCDRInvalidBool, c))
			return
		}
		dst[i] = c == 1
	}
}

func cdrRead8[T ~uint8 | ~int8](d *cdrDecoder, dst []T, field string) {
	for i, c := range d.take(field, len(dst), 1) {
		dst[i] = T(c)
	}
}

func cdrRead16[T ~uint16 | ~int16](d *cdrDecoder, dst []T, field string) {
	b := d.take(field, len(dst), 2)
	if b == nil {
		return
	}
	if d.be {
		for i := range dst {
			dst[i] = T(binary.BigEndian.Uint16(b[2*i:]))
		}
		return
	}
	for i := range dst {
		dst[i] = T(binary.LittleEndian.Uint16(b[2*i:]))
	}
}

func cdrRead32[T ~uint32 | ~int32](d *cdrDecoder, dst []T, field string) {
	b := d.take(field, len(dst), 4)
	if b == nil {
		return
	}
	if d.be {
		for i := range dst {
			dst[i] = T(binary.BigEndian.Uint32(b[4*i:]))
		}
		return
	}
	for i := range dst {
		dst[i] = T(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

func cdrRead64[T ~uint64 | ~int64](d *cdrDecoder, dst []T, field string) {
	b := d.take(field, len(dst), 8)
	if b == nil {
		return
	}
	if d.be {
		for i := range dst {
			dst[i] = T(binary.BigEndian.Uint64(b[8*i:]))
		}
		return
	}
	for i := range dst {
		dst[i] = T(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

func cdrReadF32s(d *cdrDecoder, dst []float32, field string) {
	b := d.take(field, len(dst), 4)
	if b == nil {
		return
	}
	for i := range dst {
		v := binary.LittleEndian.Uint32(b[4*i:])
		if d.be {
			v = binary.BigEndian.Uint32(b[4*i:])
		}
		dst[i] = math.Float32frombits(v)
	}
}

func cdrReadF64s(d *cdrDecoder, dst []float64, field string) {
	b := d.take(field, len(dst), 8)
	if b == nil {
		return
	}
	if !d.be && hostLittleEndian && len(dst) > 0 {
		// The wire's bytes are the host's: one copy, bit for bit (a
		// belief's covariance is 225 of them).
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 8*len(dst)), b)
		return
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if d.be {
		order = binary.BigEndian
	}
	for i := range dst {
		dst[i] = math.Float64frombits(order.Uint64(b[8*i:]))
	}
}

// hostLittleEndian is whether float64s in memory have the byte order of
// little-endian CDR.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func cdrPutBools(buf []byte, vs []bool) []byte {
	for _, v := range vs {
		buf = cdrPutBool(buf, v)
	}
	return buf
}

func cdrPut8s[T ~uint8 | ~int8](buf []byte, vs []T) []byte {
	for _, v := range vs {
		buf = append(buf, uint8(v))
	}
	return buf
}

func cdrPut16s[T ~uint16 | ~int16](buf []byte, origin int, vs []T) []byte {
	if len(vs) == 0 {
		return buf
	}
	buf = cdrPad(buf, origin, 2)
	for _, v := range vs {
		buf = binary.LittleEndian.AppendUint16(buf, uint16(v))
	}
	return buf
}

func cdrPut32s[T ~uint32 | ~int32](buf []byte, origin int, vs []T) []byte {
	if len(vs) == 0 {
		return buf
	}
	buf = cdrPad(buf, origin, 4)
	for _, v := range vs {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
	}
	return buf
}

func cdrPut64s[T ~uint64 | ~int64](buf []byte, origin int, vs []T) []byte {
	if len(vs) == 0 {
		return buf
	}
	buf = cdrPad(buf, origin, 8)
	for _, v := range vs {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
	}
	return buf
}

func cdrPutF32s(buf []byte, origin int, vs []float32) []byte {
	if len(vs) == 0 {
		return buf
	}
	buf = cdrPad(buf, origin, 4)
	for _, v := range vs {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
	}
	return buf
}

func cdrPutF64s(buf []byte, origin int, vs []float64) []byte {
	if len(vs) == 0 {
		return buf
	}
	buf = cdrPad(buf, origin, 8)
	for _, v := range vs {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	return buf
}

// NewCDRMessage returns a new message, with the defaults of its definition,
// for a schema name such as "ghost/msg/Decision" or
// "diagnostic_msgs/msg/DiagnosticArray".
func NewCDRMessage(schemaName string) (CDRMessage, error) {
	if m := newCDRMessage(schemaName); m != nil {
		return m, nil
	}
	return nil, fmt.Errorf("cdr: no codec for message type %q", schemaName)
}

// CDRSchemaNames returns the schema names NewCDRMessage knows, sorted.
func CDRSchemaNames() []string { return append([]string(nil), cdrSchemaNames...) }
