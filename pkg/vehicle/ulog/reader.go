package ulog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
)

// Options bound the memory a reader may use on hostile input. A zero field
// takes its default.
type Options struct {
	// MaxMessageSize skips (as ProblemLimit) messages whose body is larger.
	// Default and upper bound 65535, the largest a ULog message can be.
	MaxMessageSize int
	// MaxFormats is the number of 'F' definitions kept. Default 4096.
	MaxFormats int
	// MaxFormatBytes is the total text of the 'F' definitions kept.
	// Default 4 MiB.
	MaxFormatBytes int
	// MaxSubscriptions is the number of 'A' messages accepted. Default 4096.
	MaxSubscriptions int
	// MaxProblems is how many problems are kept in detail; counts are
	// always exact. Default 64.
	MaxProblems int
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	o.MaxMessageSize = min(o.MaxMessageSize, math.MaxUint16)
	def(&o.MaxMessageSize, math.MaxUint16)
	def(&o.MaxFormats, 4096)
	def(&o.MaxFormatBytes, 4<<20)
	def(&o.MaxSubscriptions, 4096)
	def(&o.MaxProblems, 64)
	return o
}

// Header is the file header and the flag bits message.
type Header struct {
	Version   uint8
	StartTime uint64 // µs since boot when logging started
	// HasFlags is false for version 1 logs without a flag bits message.
	HasFlags        bool
	CompatFlags     [8]byte
	IncompatFlags   [8]byte
	AppendedOffsets [3]uint64
}

// ulogMagic is the file magic, before the version byte.
var ulogMagic = []byte{0x55, 0x4c, 0x6f, 0x67, 0x01, 0x12, 0x35}

const (
	headerSize   = 16
	flagBitsSize = 40
	maxNameLen   = 255 // longest subscription name kept
)

// Reader reads a ULog stream message by message, holding only the
// definitions and the current message.
type Reader struct {
	br   *bufio.Reader
	opts Options
	hdr  Header

	pos      int64 // file offset of the next unread byte
	cur      int64 // file offset of the message being read
	last     int64 // file offset of the last message returned
	buf      []byte
	err      error // sticky: io.EOF at the end, or the read error
	trunc    *Truncation
	appended []int64 // appended-data offsets still ahead, ascending

	formats    map[string]*Format
	formatText int
	subs       map[uint16]*Subscription
	nsubs      int
	data       Data

	problems []Problem
	counts   [numProblemKinds]int
}

// NewReader reads the header and the flag bits message. It fails on a
// stream that is not a ULog (ErrNotULog), ends inside the header
// (ErrTruncated), has a malformed flag bits message (ErrBadFlagBits) or sets
// an unknown incompatible flag (*IncompatError). A stream that ends inside
// the flag bits message is not an error: Next then reports the truncation.
func NewReader(rd io.Reader, opts Options) (*Reader, error) {
	r := &Reader{
		br:      bufio.NewReader(rd), // messages larger than its buffer are read through it
		opts:    opts.withDefaults(),
		formats: map[string]*Format{},
		subs:    map[uint16]*Subscription{},
	}
	var h [headerSize]byte
	if n, err := io.ReadFull(r.br, h[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("ulog: header: %d of %d bytes: %w", n, headerSize, ErrTruncated)
		}
		return nil, fmt.Errorf("ulog: reading header: %w", err)
	}
	if !bytes.Equal(h[:7], ulogMagic) {
		return nil, fmt.Errorf("ulog: magic % x: %w", h[:7], ErrNotULog)
	}
	r.hdr.Version = h[7]
	r.hdr.StartTime = binary.LittleEndian.Uint64(h[8:])
	r.pos = headerSize
	p, err := r.br.Peek(3)
	if len(p) < 3 || p[2] != 'B' {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("ulog: reading offset %d: %w", r.pos, err)
		}
		return r, nil // no flag bits (version 1), or Next reports the end
	}
	body, err := r.readMessage(math.MaxUint16) // never skipped: it says whether the log is readable
	if err == io.EOF {
		r.err = err
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	body = body[3:]
	if len(body) < flagBitsSize {
		return nil, fmt.Errorf("ulog: flag bits message of %d bytes, want at least %d: %w", len(body), flagBitsSize, ErrBadFlagBits)
	}
	r.hdr.HasFlags = true
	copy(r.hdr.CompatFlags[:], body[0:8])
	copy(r.hdr.IncompatFlags[:], body[8:16])
	for i := range r.hdr.AppendedOffsets {
		r.hdr.AppendedOffsets[i] = binary.LittleEndian.Uint64(body[16+8*i:])
	}
	for i, b := range r.hdr.IncompatFlags {
		if i == 0 {
			b &^= 1 // DATA_APPENDED, handled
		}
		if b != 0 {
			return nil, &IncompatError{Byte: i, Bit: bitIndex(b)}
		}
	}
	if r.hdr.IncompatFlags[0]&1 != 0 {
		for _, off := range r.hdr.AppendedOffsets {
			if off != 0 && off <= math.MaxInt64 {
				r.appended = append(r.appended, int64(off))
			}
		}
		slices.Sort(r.appended)
		r.appended = slices.Compact(r.appended)
	}
	return r, nil
}

func bitIndex(b byte) int {
	for i := range 8 {
		if b&(1<<i) != 0 {
			return i
		}
	}
	return -1
}

// Header returns the file header and flag bits.
func (r *Reader) Header() Header { return r.hdr }

// Truncated reports whether the log ended inside a message, and where.
func (r *Reader) Truncated() (*Truncation, bool) { return r.trunc, r.trunc != nil }

// Offset returns the file offset of the last message returned.
func (r *Reader) Offset() int64 { return r.last }

// Problems returns the first Options.MaxProblems problems, in log order.
func (r *Reader) Problems() []Problem { return slices.Clone(r.problems) }

// ProblemCount returns how many problems of kind k were counted.
func (r *Reader) ProblemCount(k ProblemKind) int {
	if k >= numProblemKinds {
		return 0
	}
	return r.counts[k]
}

// Format returns the format defined under name, resolving it first; ok is
// false when it is not defined or cannot be resolved.
func (r *Reader) Format(name string) (*Format, bool) {
	f, ok := r.formats[name]
	if !ok || resolve(f, r.formats, nil) != nil {
		return nil, false
	}
	return f, true
}

// Subscriptions returns the current subscriptions, by msg_id.
func (r *Reader) Subscriptions() []*Subscription {
	out := make([]*Subscription, 0, len(r.subs))
	for _, s := range r.subs {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Subscription) int { return int(a.MsgID) - int(b.MsgID) })
	return out
}

// Messages iterates over Next: every message, then, if reading failed, a
// final nil message with the error. Truncation ends it cleanly.
func (r *Reader) Messages() iter.Seq2[Message, error] {
	return func(yield func(Message, error) bool) {
		for {
			m, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(m, err) || err != nil {
				return
			}
		}
	}
}

// Next returns the next message, or io.EOF at the end of the log (also
// after a truncation; see Truncated). Problems are counted and stepped over;
// the only other errors are read errors of the underlying reader.
func (r *Reader) Next() (Message, error) {
	for r.err == nil {
		body, err := r.readMessage(r.opts.MaxMessageSize)
		if body == nil {
			if err != nil {
				r.err = err
			}
			continue
		}
		if m := r.decode(body[2], body[3:]); m != nil {
			r.last = r.cur
			return m, nil
		}
	}
	return nil, r.err
}

// readMessage reads the next whole message, header included, into r.buf.
// It returns nil with a nil error when it stepped over something (a cut
// message before appended data, an oversized message) and nil with io.EOF
// at the end, recording a truncation.
func (r *Reader) readMessage(limit int) ([]byte, error) {
	start := r.pos
	r.cur = start
	h, err := r.br.Peek(3)
	if len(h) < 3 {
		return nil, r.ended(err, start, 3, len(h))
	}
	size := int(binary.LittleEndian.Uint16(h))
	typ := h[2]
	if len(r.appended) > 0 {
		a := r.appended[0]
		switch {
		case start == a:
			r.appended = r.appended[1:]
		case start > a:
			r.appended = r.appended[1:]
			r.problem(ProblemAppended, typ, "appended data offset %d is behind the reading position: ignored", a)
		case start+3+int64(size) > a:
			r.appended = r.appended[1:]
			r.problem(ProblemAppended, typ, "message of %d bytes cut by appended data at offset %d: discarded", 3+size, a)
			return nil, r.discard(int(a - start))
		}
	}
	if size > limit {
		r.problem(ProblemLimit, typ, "message of %d bytes exceeds MaxMessageSize %d: skipped", size, limit)
		return nil, r.discard(3 + size)
	}
	if cap(r.buf) < 3+size {
		r.buf = make([]byte, 3+size, max(3+size, 512))
	}
	r.buf = r.buf[:3+size]
	if n, err := io.ReadFull(r.br, r.buf); err != nil {
		return nil, r.ended(err, start, 3+size, n)
	}
	r.pos += int64(3 + size)
	return r.buf, nil
}

// discard skips n bytes, recording a truncation if the log ends first.
func (r *Reader) discard(n int) error {
	start := r.pos
	got, err := r.br.Discard(n)
	r.pos += int64(got)
	if err != nil {
		return r.ended(err, start, n, got)
	}
	return nil
}

// ended turns the end of the input into io.EOF, recording a truncation
// when it came inside a message.
func (r *Reader) ended(err error, start int64, want, have int) error {
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("ulog: reading offset %d: %w", start, err)
	}
	if have > 0 {
		r.trunc = &Truncation{Offset: start, Want: want, Have: have}
	}
	return io.EOF
}

// problem counts a problem and keeps its detail while there is room.
func (r *Reader) problem(k ProblemKind, typ byte, format string, args ...any) {
	r.counts[k]++
	if len(r.problems) < r.opts.MaxProblems {
		r.problems = append(r.problems, Problem{Kind: k, Offset: r.cur, Type: typ, Detail: fmt.Sprintf(format, args...)})
	}
}

// decode turns one message body into a Message; nil when it was skipped.
func (r *Reader) decode(typ byte, b []byte) Message {
	short := func(n int) bool {
		if len(b) < n {
			r.problem(ProblemMalformed, typ, "%d bytes, want at least %d: skipped", len(b), n)
			return true
		}
		return false
	}
	switch typ {
	case 'F':
		return r.defineFormat(b)
	case 'I':
		if short(1) || short(1+int(b[0])) {
			return nil
		}
		if info, ok := r.info(typ, b[1:1+int(b[0])], b[1+int(b[0]):]); ok {
			return &info
		}
	case 'M':
		if short(2) || short(2+int(b[1])) {
			return nil
		}
		if info, ok := r.info(typ, b[2:2+int(b[1])], b[2+int(b[1]):]); ok {
			return &MultiInfo{Info: info, IsContinued: b[0] != 0}
		}
	case 'P':
		if short(1) || short(1+int(b[0])) {
			return nil
		}
		if p, ok := r.param(typ, b[1:1+int(b[0])], b[1+int(b[0]):]); ok {
			return &p
		}
	case 'Q':
		if short(2) || short(2+int(b[1])) {
			return nil
		}
		if p, ok := r.param(typ, b[2:2+int(b[1])], b[2+int(b[1]):]); ok {
			return &DefaultParam{Param: p, Types: b[0]}
		}
	case 'A':
		if !short(3) {
			return r.subscribe(b[0], binary.LittleEndian.Uint16(b[1:]), string(b[3:]))
		}
	case 'R':
		if !short(2) {
			id := binary.LittleEndian.Uint16(b)
			delete(r.subs, id)
			return &Unsubscription{MsgID: id}
		}
	case 'D':
		if !short(2) {
			return r.sample(binary.LittleEndian.Uint16(b), b[2:])
		}
	case 'L':
		if !short(9) {
			return &LogString{Level: b[0], Timestamp: binary.LittleEndian.Uint64(b[1:]), Text: string(b[9:])}
		}
	case 'C':
		if !short(11) {
			return &LogString{Level: b[0], Tagged: true, Tag: binary.LittleEndian.Uint16(b[1:]),
				Timestamp: binary.LittleEndian.Uint64(b[3:]), Text: string(b[11:])}
		}
	case 'S':
		if !short(8) {
			if [8]byte(b[:8]) == syncMagic {
				return &Sync{}
			}
			r.problem(ProblemMalformed, typ, "sync magic % x: skipped", b[:8])
		}
	case 'O':
		if !short(2) {
			return &Dropout{DurationMS: binary.LittleEndian.Uint16(b)}
		}
	case 'B':
		r.problem(ProblemMalformed, typ, "flag bits message after the first message: ignored")
	default:
		r.problem(ProblemUnknownType, typ, "unknown message type %s of %d bytes: skipped", typeName(typ), len(b))
	}
	return nil
}

func typeName(t byte) string {
	if t >= '!' && t <= '~' {
		return strconv.QuoteRune(rune(t))
	}
	return fmt.Sprintf("0x%02x", t)
}

func (r *Reader) defineFormat(b []byte) Message {
	f, err := ParseFormat(string(b))
	if err != nil {
		r.problem(ProblemBadFormat, 'F', "%v: ignored", err)
		return nil
	}
	if old, dup := r.formats[f.Name]; dup {
		if old.text != f.text {
			r.problem(ProblemDuplicateFormat, 'F', "second, different definition of %s: ignored", clip(f.Name))
		}
		return nil
	}
	if len(r.formats) >= r.opts.MaxFormats || r.formatText+len(b) > r.opts.MaxFormatBytes {
		r.problem(ProblemLimit, 'F', "format %s beyond MaxFormats or MaxFormatBytes: ignored", clip(f.Name))
		return nil
	}
	r.formats[f.Name] = f
	r.formatText += len(b)
	return f
}

func (r *Reader) info(typ byte, key, value []byte) (Info, bool) {
	t, name, ok := parseKey(string(key))
	if !ok {
		r.problem(ProblemMalformed, typ, "key %s is not \"type name\": skipped", clip(string(key)))
		return Info{}, false
	}
	info := Info{Name: name, Type: t, Raw: bytes.Clone(value)}
	v, err := DecodeValue(t, value)
	if err != nil {
		r.problem(ProblemMalformed, typ, "%s: %v: value kept raw", clip(name), err)
	}
	info.Value = v
	return info, true
}

func (r *Reader) param(typ byte, key, value []byte) (Param, bool) {
	t, name, ok := parseKey(string(key))
	switch {
	case ok && t == "int32_t" && len(value) == 4:
		return Param{Name: name, Int: int32(binary.LittleEndian.Uint32(value))}, true
	case ok && t == "float" && len(value) == 4:
		return Param{Name: name, IsFloat: true, Float: math.Float32frombits(binary.LittleEndian.Uint32(value))}, true
	}
	r.problem(ProblemMalformed, typ, "parameter key %s with %d value bytes is not int32_t or float: skipped", clip(string(key)), len(value))
	return Param{}, false
}

func (r *Reader) subscribe(multi uint8, id uint16, name string) Message {
	if name == "" || len(name) > maxNameLen {
		r.problem(ProblemMalformed, 'A', "subscription name of %d bytes: skipped", len(name))
		return nil
	}
	if old, ok := r.subs[id]; ok {
		if old.Name == name && old.MultiID == multi {
			return nil // a repeat says nothing new
		}
		old.Err = fmt.Errorf("ulog: msg_id %d subscribed as %s/%d and as %s/%d", id, clip(old.Name), old.MultiID, clip(name), multi)
		r.problem(ProblemDuplicateSubscription, 'A', "%v: its data is skipped", old.Err)
		return nil
	}
	if r.nsubs >= r.opts.MaxSubscriptions {
		r.problem(ProblemLimit, 'A', "subscription %s beyond MaxSubscriptions: skipped", clip(name))
		return nil
	}
	r.nsubs++
	s := &Subscription{MsgID: id, MultiID: multi, Name: name}
	s.Format, _ = r.Format(name) // may be defined later; retried at its first sample
	r.subs[id] = s
	return s
}

func (r *Reader) sample(id uint16, b []byte) Message {
	s, ok := r.subs[id]
	if !ok {
		r.problem(ProblemUnknownMsgID, 'D', "data for msg_id %d, which has no subscription: skipped", id)
		return nil
	}
	if s.Format == nil && s.Err == nil {
		if f, ok := r.formats[s.Name]; !ok {
			s.Err = &FormatError{Format: s.Name, Reason: "not defined"}
		} else if err := resolve(f, r.formats, nil); err != nil {
			s.Err = err
		} else {
			s.Format = f
		}
		if s.Err != nil {
			r.problem(ProblemUnresolved, 'D', "subscription %s/%d: %v: its data is skipped", clip(s.Name), s.MultiID, s.Err)
		}
	}
	if s.Err != nil {
		s.Skipped++
		return nil
	}
	if f := s.Format; len(b) < f.minSize || len(b) > f.size {
		s.Skipped++
		r.problem(ProblemDataSize, 'D', "%s/%d sample of %d bytes, format needs %d..%d: skipped", clip(s.Name), s.MultiID, len(b), f.minSize, f.size)
		return nil
	}
	s.Count++
	r.data = Data{Sub: s, Bytes: b}
	return &r.data
}
