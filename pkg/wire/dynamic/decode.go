package dynamic

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Decode checks data (encapsulation header included) against the plan and
// returns a Message that reads its fields. The Message refers to data,
// which must not change while the Message is in use. A fixed-size message
// decodes without allocating.
func (p *Plan) Decode(data []byte) (Message, error) {
	var m Message
	err := p.DecodeInto(&m, data)
	return m, err
}

// DecodeInto is Decode into a reused Message, which keeps its offset table
// between calls so that decoding allocates nothing once it has grown. On
// error m is left empty.
func (p *Plan) DecodeInto(m *Message, data []byte) error {
	buf := m.buf
	*m = Message{buf: buf}
	r := reader{typ: p.name}
	if len(data) < headerLen {
		return r.fail("", -headerLen, fmt.Errorf("%w: %d bytes, shorter than the 4-byte encapsulation header", ErrEncapsulation, len(data)))
	}
	if data[0] != 0 || data[1] > 1 {
		return r.fail("", -headerLen, fmt.Errorf("%w: representation 0x%02x%02x; only plain CDR (0x0001 little-endian, 0x0000 big-endian) is supported",
			ErrEncapsulation, data[0], data[1]))
	}
	if len(data) > math.MaxInt32 {
		return r.fail("", -headerLen, fmt.Errorf("%w: %d bytes is more than this decoder handles", ErrTrailingBytes, len(data)))
	}
	r.b, r.be = data[headerLen:], data[1] == 0
	if p.fixed {
		if err := p.checkFixed(&r); err != nil {
			return err
		}
		*m = Message{plan: p, body: r.b, be: r.be, pos: p.static, buf: buf}
		return nil
	}
	if cap(buf) < len(p.slots) {
		buf = make([]pos, len(p.slots))
	}
	buf = buf[:len(p.slots)]
	m.buf = buf
	end, _, err := p.walk(&r, 0, buf, -1)
	if err == nil {
		err = r.trailing(end)
	}
	if err != nil {
		return err
	}
	*m = Message{plan: p, body: r.b, be: r.be, pos: buf, buf: buf}
	return nil
}

// checkFixed validates a fixed-size payload: its length, its padding and
// its bools.
func (p *Plan) checkFixed(r *reader) error {
	n := len(r.b)
	if n < p.size {
		field := ""
		for i, s := range p.static {
			if int(s.off)+int(s.n)*p.slots[i].elem.size() > n {
				field = p.slots[i].path
				break
			}
		}
		return r.fail(field, n, fmt.Errorf("%w (%w): payload is %d bytes after the header, the definition needs %d",
			ErrLengthMismatch, ErrTruncated, n, p.size))
	}
	if n > p.size+maxTrailing {
		return r.fail("", p.size, fmt.Errorf("%w (%w): payload is %d bytes after the header, the definition needs %d (and at most %d padding bytes)",
			ErrLengthMismatch, ErrTrailingBytes, n, p.size, maxTrailing))
	}
	if err := r.trailing(p.size); err != nil {
		return err
	}
	for _, i := range p.bools {
		s := p.static[i]
		for j := int32(0); j < s.n; j++ {
			if c := r.b[s.off+j]; c > 1 {
				return r.badBool(p.slots[i].path, p.slots[i].kind == slotArray, int(j), int(s.off+j), c)
			}
		}
	}
	return nil
}

// reader reads the payload after the encapsulation header; offsets are
// counted from there, as alignment is.
type reader struct {
	b   []byte
	be  bool
	typ string
	// slack is how far rmw_fastrtps' size estimate of the fields walked so
	// far runs ahead of their length: the estimate aligns an empty
	// sequence of 8-byte elements as if it had one, and rmw_serialize on
	// Fast DDS (Humble) returns that many bytes, the difference as zeros
	// after the last field.
	slack int
}

// estimate8 moves the size estimate to its next 8-byte boundary, where the
// fields walked end at off and the next 8-byte field starts at next.
func (r *reader) estimate8(off, next int) {
	r.slack = align(off+r.slack, 8) - next
}

// fail builds a decoding error; off is converted to an offset from the
// start of the payload, header included.
func (r *reader) fail(field string, off int, err error) error {
	return &DecodeError{Type: r.typ, Field: field, Offset: off + headerLen, Err: err}
}

func (r *reader) truncated(field string, off, need int) error {
	rem := max(len(r.b)-off, 0)
	return r.fail(field, min(off, len(r.b)), fmt.Errorf("%w: need %d bytes, %d remain", ErrTruncated, need, rem))
}

func (r *reader) badBool(path string, array bool, i, off int, c byte) error {
	if array {
		path += "[" + strconv.Itoa(i) + "]"
	}
	return r.fail(path, off, fmt.Errorf("%w: byte 0x%02x, want 0 or 1", ErrInvalidBool, c))
}

// trailing accepts up to three zero bytes after end (rmw_cyclonedds pads
// to a multiple of 4), or exactly rmw_fastrtps' slack of zeros.
func (r *reader) trailing(end int) error {
	rest := r.b[end:]
	if len(rest) > maxTrailing && len(rest) != r.slack {
		if r.slack > maxTrailing {
			return r.fail("", end, fmt.Errorf("%w: %d bytes after the last field; rmw_cyclonedds pads with at most %d zero bytes and rmw_fastrtps' size estimate for this message adds exactly %d",
				ErrTrailingBytes, len(rest), maxTrailing, r.slack))
		}
		return r.fail("", end, fmt.Errorf("%w: %d bytes after the last field, at most %d zero padding bytes allowed",
			ErrTrailingBytes, len(rest), maxTrailing))
	}
	for i, c := range rest {
		if c != 0 {
			return r.fail("", end+i, fmt.Errorf("%w: padding byte 0x%02x is not zero", ErrTrailingBytes, c))
		}
	}
	return nil
}

func align(off, n int) int { return (off + n - 1) &^ (n - 1) }

func (r *reader) u16(off int) uint16 {
	if r.be {
		return binary.BigEndian.Uint16(r.b[off:])
	}
	return binary.LittleEndian.Uint16(r.b[off:])
}

func (r *reader) u32(off int) uint32 {
	if r.be {
		return binary.BigEndian.Uint32(r.b[off:])
	}
	return binary.LittleEndian.Uint32(r.b[off:])
}

func (r *reader) u64(off int) uint64 {
	if r.be {
		return binary.BigEndian.Uint64(r.b[off:])
	}
	return binary.LittleEndian.Uint64(r.b[off:])
}

// count reads a sequence count at off (aligned to 4) and checks it against
// the bound and, at minSize bytes per element, against what remains.
func (r *reader) count(path string, off, bound, minSize int) (n, next int, err error) {
	off = align(off, 4)
	if off+4 > len(r.b) {
		return 0, 0, r.truncated(path, off, 4)
	}
	c := r.u32(off)
	if bound > 0 && uint64(c) > uint64(bound) {
		return 0, 0, r.fail(path, off, fmt.Errorf("%w: count %d, bound %d", ErrBound, c, bound))
	}
	rem := len(r.b) - off - 4
	if uint64(c)*uint64(max(minSize, 1)) > uint64(rem) {
		return 0, 0, r.fail(path, off, fmt.Errorf("%w: count %d needs at least %d bytes, %d remain",
			ErrTruncated, c, uint64(c)*uint64(max(minSize, 1)), rem))
	}
	return int(c), off + 4, nil
}

// str validates the string whose length word is at or after off and
// returns the offset of its characters, their number and the offset after
// it.
func (r *reader) str(path string, off, bound int) (start, n, next int, err error) {
	off = align(off, 4)
	if off+4 > len(r.b) {
		return 0, 0, 0, r.truncated(path, off, 4)
	}
	l := r.u32(off)
	start = off + 4
	switch {
	case l == 0:
		return 0, 0, 0, r.fail(path, off, fmt.Errorf("%w: length 0 leaves no room for the NUL terminator", ErrBadString))
	case uint64(l) > uint64(len(r.b)-start):
		return 0, 0, 0, r.fail(path, off, fmt.Errorf("%w: string length %d, %d bytes remain", ErrTruncated, l, len(r.b)-start))
	}
	s := r.b[start : start+int(l)]
	if s[l-1] != 0 {
		return 0, 0, 0, r.fail(path, start+int(l)-1, fmt.Errorf("%w: missing NUL terminator (last byte 0x%02x)", ErrBadString, s[l-1]))
	}
	s = s[:l-1]
	if bound > 0 && len(s) > bound {
		return 0, 0, 0, r.fail(path, off, fmt.Errorf("%w: string of %d bytes, bound %d", ErrBound, len(s), bound))
	}
	if i := bytes.IndexByte(s, 0); i >= 0 {
		return 0, 0, 0, r.fail(path, start+i, fmt.Errorf("%w: NUL byte at index %d", ErrBadString, i))
	}
	return start, len(s), start + int(l), nil
}

// walk validates the slots of p starting at off, recording their positions
// in out when it is not nil. It stops after slot upto when upto >= 0 and
// returns that slot's position. It returns the offset after the last slot
// walked.
func (p *Plan) walk(r *reader, off int, out []pos, upto int) (int, pos, error) {
	for i := range p.slots {
		at, next, err := r.slot(&p.slots[i], off)
		if err != nil {
			return 0, pos{}, err
		}
		off = next
		if out != nil {
			out[i] = at
		}
		if i == upto {
			return off, at, nil
		}
	}
	return off, pos{}, nil
}

// slot checks the slot s serialized at off and returns where its data is
// and the offset after it.
func (r *reader) slot(s *slot, off int) (pos, int, error) {
	switch s.kind {
	case slotScalar, slotArray:
		return r.fixed(s, off)
	case slotSeq:
		return r.sequence(s, off)
	case slotString:
		start, n, next, err := r.str(s.path, off, s.strBound)
		return pos{off: int32(start), n: int32(n)}, next, err
	case slotStrings:
		return r.strings(s, off)
	case slotMessages:
		return r.messages(s, off)
	}
	return pos{}, off, nil
}

// fixed checks a primitive scalar or fixed array.
func (r *reader) fixed(s *slot, off int) (pos, int, error) {
	sz := s.elem.size()
	n := 1
	if s.kind == slotArray {
		n = s.n
	}
	if sz == 8 && r.slack != 0 {
		r.estimate8(off, align(off, 8))
	}
	off = align(off, sz)
	if n*sz > len(r.b)-off {
		missing := max(len(r.b)-off, 0) / sz
		path := s.path
		if s.kind == slotArray {
			path += "[" + strconv.Itoa(missing) + "]"
		}
		return pos{}, 0, r.truncated(path, off+missing*sz, sz)
	}
	if err := r.checkBools(s, off, n); err != nil {
		return pos{}, 0, err
	}
	return pos{off: int32(off), n: int32(n)}, off + n*sz, nil
}

// sequence checks a sequence of primitives: its count, then its elements.
func (r *reader) sequence(s *slot, off int) (pos, int, error) {
	sz := s.elem.size()
	n, off, err := r.count(s.path, off, s.bound, sz)
	if err != nil {
		return pos{}, 0, err
	}
	if sz == 8 && (n == 0 || r.slack != 0) {
		next8 := off // empty: the estimate moves, the bytes do not
		if n > 0 {
			next8 = align(off, 8)
		}
		r.estimate8(off, next8)
	}
	if n > 0 {
		off = align(off, sz)
		if n*sz > len(r.b)-off {
			return pos{}, 0, r.truncated(s.path, off, n*sz)
		}
		if err := r.checkBools(s, off, n); err != nil {
			return pos{}, 0, err
		}
	}
	return pos{off: int32(off), n: int32(n)}, off + n*sz, nil
}

// strings checks a fixed array or sequence of strings; its position is
// where the first string starts.
func (r *reader) strings(s *slot, off int) (pos, int, error) {
	n := s.n
	if s.seq {
		c, next, err := r.count(s.path, off, s.bound, minStringSize)
		if err != nil {
			return pos{}, 0, err
		}
		n, off = c, next
	}
	at := pos{off: int32(off), n: int32(n)}
	for j := 0; j < n; j++ {
		_, _, next, err := r.str(s.path+"["+strconv.Itoa(j)+"]", off, s.strBound)
		if err != nil {
			return pos{}, 0, err
		}
		off = next
	}
	return at, off, nil
}

// messages checks a sequence of nested messages, each with its own plan.
func (r *reader) messages(s *slot, off int) (pos, int, error) {
	n, off, err := r.count(s.path, off, s.bound, s.sub.minSize)
	if err != nil {
		return pos{}, 0, err
	}
	at := pos{off: int32(off), n: int32(n)}
	for j := 0; j < n; j++ {
		end, _, err := s.sub.walk(r, off, nil, -1)
		if err != nil {
			return pos{}, 0, prefixErr(err, s.path, j, r.typ)
		}
		off = end
	}
	return at, off, nil
}

func (r *reader) checkBools(s *slot, off, n int) error {
	if s.elem != KindBool {
		return nil
	}
	for j, c := range r.b[off : off+n] {
		if c > 1 {
			return r.badBool(s.path, s.kind != slotScalar, j, off+j, c)
		}
	}
	return nil
}

// prefixErr puts the path of a message array element in front of the path
// of an error found inside it, and names the outer type.
func prefixErr(err error, path string, i int, typ string) error {
	if de, ok := err.(*DecodeError); ok {
		field := path + "[" + strconv.Itoa(i) + "]"
		if de.Field != "" {
			field += "." + de.Field
		}
		return &DecodeError{Type: typ, Field: field, Offset: de.Offset, Err: de.Err}
	}
	return err
}
