package bag

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// Errors of the recording reader. Callers branch on them with errors.Is.
var (
	ErrNotMCAP = errors.New("not an MCAP file") // no MCAP magic at the start
	// ErrTruncated is matched by every *TruncatedError.
	ErrTruncated = errors.New("recording truncated or damaged")
	// ErrReaderLimit: a record, chunk or set of overlapping chunks exceeds
	// ReaderOptions' memory bounds.
	ErrReaderLimit = errors.New("exceeds reader limits")
	// ErrInconsistentSummary ends an indexed read whose chunks held other
	// message counts than the summary's statistics.
	ErrInconsistentSummary = errors.New("summary statistics disagree with the chunks")

	// ErrUnsupportedEncoding: a ChannelProblem's encodings are neither
	// ros2msg/cdr nor in ReaderOptions.Encodings.
	ErrUnsupportedEncoding = errors.New("unsupported encoding")
	// ErrUnexpectedSchema: a ChannelProblem's schema is not the expected one.
	ErrUnexpectedSchema = errors.New("unexpected schema")
	// ErrBadChannel: a ChannelProblem's channel is undeclared, redeclared
	// differently or refers to an unknown schema.
	ErrBadChannel = errors.New("malformed channel")
)

// TruncatedError says where reading stopped, after every message before: at
// byte Offset, where Record ("chunk", "footer", ...) was expected, for Err.
//
// Unclosed tells the two causes an operator acts on differently: the file
// ends before its footer and closing magic, as a writer leaves it when it
// is killed, crashes or its disk fills (everything before Complete was
// read), or the file is damaged at Offset with bytes after it.
type TruncatedError struct {
	Offset int64
	Record string
	Err    error
	// Unclosed: the input ended inside or before a record (no footer).
	Unclosed bool
	// Complete is where the last complete chunk of a streamed read ends
	// (0 before the first); DataEnded says the data
	// section was complete and the writer stopped in its summary.
	Complete  int64
	DataEnded bool
}

// Error reads "the writer stopped without closing the file at byte N
// (...)" for an unclosed file, "recording stopped at byte N (record),
// damaged: cause" otherwise.
func (e *TruncatedError) Error() string {
	if !e.Unclosed {
		return fmt.Sprintf("recording stopped at byte %d (%s), damaged: %v", e.Offset, e.Record, e.Err)
	}
	where := fmt.Sprintf("last complete chunk ends at byte %d", e.Complete)
	switch {
	case e.DataEnded:
		where = "after its data section: every chunk is complete"
	case e.Complete <= 0:
		where = "before any complete chunk"
	}
	return fmt.Sprintf("the writer stopped without closing the file at byte %d (%s; %s cut short: %v): "+
		"a killed recorder or a full disk leaves this; all before is checked; keep the file, "+
		"`mcap recover` makes a closed copy", e.Offset, where, e.Record, e.Err)
}

// Is makes errors.Is(err, ErrTruncated) hold.
func (e *TruncatedError) Is(target error) bool { return target == ErrTruncated }

// Unwrap returns the cause.
func (e *TruncatedError) Unwrap() error { return e.Err }

// Defaults of ReaderOptions.
const (
	DefaultMaxChunkSize = 64 << 20  // 64 times the Recorder's default chunk
	DefaultMaxBuffered  = 256 << 20 // for chunks that overlap in log time
)

// ReaderOptions configure a Reader; the zero value reads every topic with
// the default memory bounds.
type ReaderOptions struct {
	// Topics limits reading (and checking) to these topics; nil reads all.
	Topics []string
	// Schemas maps a topic to the schema name expected on it ("pkg/msg/Type"
	// or "pkg/Type"); another schema there is a ChannelProblem.
	Schemas map[string]string
	// CheckSchema, if set, checks each channel's schema name and text (e.g.
	// msg.CheckSchema); an error is a ChannelProblem (ErrUnexpectedSchema).
	CheckSchema func(schemaName, schemaText string) error
	// OnProblem, if set, is called with each ChannelProblem when found.
	OnProblem func(ChannelProblem)
	// MaxChunkSize bounds, in bytes, a record, a decompressed chunk and the
	// schemas and channels held; 0 means DefaultMaxChunkSize.
	MaxChunkSize int64
	// MaxBuffered bounds the decompressed chunks an indexed read holds at
	// once; 0 means DefaultMaxBuffered.
	MaxBuffered int64
	// Stream forces a streaming read in file order even of an indexed file.
	Stream bool
	// Encodings are the (schema, message) encoding pairs accepted besides
	// ("ros2msg", "cdr"), e.g. {"", "json"} for JSON recordings.
	Encodings []Encoding
}

// Encoding is a pair of schema and message encodings.
type Encoding struct{ Schema, Message string }

// Channel describes a recorded channel, with its schema from the file.
type Channel struct {
	ID                         uint16
	Topic, MessageEncoding     string
	SchemaName, SchemaEncoding string
	SchemaText                 string // complete, as stored
	Metadata                   map[string]string
	// QoS are the offered QoS profiles from the metadata, nil when absent or
	// unparsable (QoSErr, which does not stop the read).
	QoS    []qos.Profile
	QoSErr error
}

// ChannelProblem reports a channel whose messages are skipped (Skipped so
// far) because of Err. An undeclared channel has only Channel.ID set.
type ChannelProblem struct {
	Channel Channel
	Err     error
	Skipped uint64
}

// Message is one recorded message; times are in nanoseconds.
type Message struct {
	Topic, SchemaName string
	ChannelID         uint16
	Sequence          uint32
	LogTime           uint64
	PublishTime       uint64
	// Data is the serialized message, valid until the next message is read.
	Data []byte
}

// Reader reads a ROS 2 MCAP recording in log-time order through its index,
// else in file order up to the damage. It is not safe for concurrent use.
type Reader struct {
	opts             ReaderOptions
	file             *os.File // of OpenRecording
	profile, library string

	schemas   map[uint16]*mcap.Schema
	channels  []*chanState      // by ID, nil where none: a lookup per message
	ignored   map[uint16]string // topics of channels outside opts.Topics
	problems  []*ChannelProblem
	declBytes int64 // declarations held, against MaxChunkSize
	// mu orders the reading goroutine's changes to channels and problems
	// with Channels and Problems called from another goroutine (a consumer
	// of messages read ahead); the reading goroutine reads them unlocked.
	mu sync.Mutex

	rr        recordReader // the stream, or an indexed read's chunk record
	dataEnded bool
	chunkEnd  int64          // where the last complete chunk read ends
	active    []*loadedChunk // in load order; one at most in a stream read
	spare     []*loadedChunk
	buffered  int64 // decompressed bytes in active

	ra        io.ReaderAt // set for an indexed read
	stats     *mcap.Statistics
	chunkIdx  []chunkRef
	nextChunk int
	seen      []uint64 // messages per channel, by ID

	dec chunkDecoder
	msg mcap.Message
	err error // sticky; io.EOF at the end
}

type chanState struct {
	ch      Channel
	problem *ChannelProblem // its messages are not returned
}

// loadedChunk is a decoded chunk with the messages it has left to return.
type loadedChunk struct {
	buf  []byte // the chunk's records, decompressed
	ents []msgEntry
	next int
}

type msgEntry struct {
	logTime  uint64
	off, end int
}

// OpenRecording opens the MCAP file at path; Close closes it. What is not
// a regular file (a named pipe, a device) is refused before it is opened
// (limitedfile.ErrNotRegular).
func OpenRecording(path string, opts ReaderOptions) (*Reader, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "open recording", Path: path, Err: syscall.EISDIR}
	}
	f, err := limitedfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open recording: %w", err)
	}
	r, err := newReader(f, opts)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open recording %s: %w", path, err)
	}
	r.file = f
	return r, nil
}

// NewReader reads src, through its index when src is an io.ReaderAt and io.Seeker.
func NewReader(src io.Reader, opts ReaderOptions) (*Reader, error) {
	r, err := newReader(src, opts)
	if err != nil {
		return nil, fmt.Errorf("read recording: %w", err)
	}
	return r, nil
}

func newReader(src io.Reader, opts ReaderOptions) (*Reader, error) {
	opts.MaxChunkSize = cmp.Or(max(opts.MaxChunkSize, 0), DefaultMaxChunkSize)
	opts.MaxBuffered = cmp.Or(max(opts.MaxBuffered, 0), DefaultMaxBuffered)
	r := &Reader{
		opts:    opts,
		schemas: make(map[uint16]*mcap.Schema),
		ignored: make(map[uint16]string),
		dec:     chunkDecoder{maxSize: opts.MaxChunkSize},
	}
	size := int64(-1)
	ra, isRA := src.(io.ReaderAt)
	if sk, ok := src.(io.Seeker); ok && isRA {
		var err error
		if size, err = sk.Seek(0, io.SeekEnd); err != nil {
			return nil, fmt.Errorf("find size: %w", err)
		}
		src = io.NewSectionReader(ra, 0, size)
	}
	r.rr = recordReader{br: bufio.NewReaderSize(src, 64<<10), max: opts.MaxChunkSize}

	magic := make([]byte, len(mcap.Magic))
	if n, err := io.ReadFull(r.rr.br, magic); err != nil || !bytes.Equal(magic, mcap.Magic) {
		switch {
		case n == 0:
			return nil, fmt.Errorf("%w: empty", ErrNotMCAP)
		case n < len(magic):
			return nil, fmt.Errorf("%w: %d bytes long, shorter than the magic: % x", ErrNotMCAP, n, magic[:n])
		}
		return nil, fmt.Errorf("%w: starts with % x", ErrNotMCAP, magic[:n])
	}
	r.rr.pos = int64(len(mcap.Magic))
	op, body, err := r.rr.next("header")
	var h *mcap.Header
	if err == nil && op != mcap.OpHeader {
		err = fmt.Errorf("first record is %s", op)
	} else if err == nil {
		h, err = mcap.ParseHeader(body)
	}
	if err != nil {
		te := &TruncatedError{Offset: int64(len(mcap.Magic)), Err: err}
		errors.As(err, &te)
		te.Record = "header"
		return nil, te
	}
	r.profile, r.library = h.Profile, h.Library
	if size >= 0 && !opts.Stream {
		r.tryIndex(ra, size)
	}
	return r, nil
}

// Profile returns the header's profile ("ros2" for ROS 2 recordings).
func (r *Reader) Profile() string { return r.profile }

// Library returns the header's library string, naming the writer.
func (r *Reader) Library() string { return r.library }

// Indexed reports whether the file is read through its index.
func (r *Reader) Indexed() bool { return r.ra != nil }

// MessageCount returns how many messages an indexed read will return by the
// statistics, for progress reports; 0 when unknown.
func (r *Reader) MessageCount() uint64 {
	var n uint64
	if r.stats != nil {
		for id, c := range r.stats.ChannelMessageCounts {
			if cs := r.channel(id); cs != nil && cs.problem == nil {
				n += c
			}
		}
	}
	return n
}

// Channels returns the channels read and known so far, by ID. It may be
// called while another goroutine reads messages.
func (r *Reader) Channels() []Channel {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Channel, 0, 8)
	for _, cs := range r.channels {
		if cs != nil {
			out = append(out, cs.ch)
		}
	}
	return out
}

// Problems returns the channel problems found so far, in order. It may be
// called while another goroutine reads messages.
func (r *Reader) Problems() []ChannelProblem {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ChannelProblem, len(r.problems))
	for i, p := range r.problems {
		out[i] = *p
	}
	return out
}

// Close releases the Reader and closes the file opened by OpenRecording.
func (r *Reader) Close() error {
	if r.err == nil {
		r.err = errors.New("reader closed")
	}
	if f := r.file; f != nil {
		r.file = nil
		if err := f.Close(); err != nil {
			return fmt.Errorf("close recording %s: %w", f.Name(), err)
		}
	}
	return nil
}

// Messages iterates with Next; a read error is yielded once and ends it.
func (r *Reader) Messages() iter.Seq2[Message, error] { return messages(r.Next) }

// messages iterates with next until io.EOF; a read error is yielded once
// and ends it.
func messages(next func() (Message, error)) iter.Seq2[Message, error] {
	return func(yield func(Message, error) bool) {
		for {
			m, err := next()
			if err == io.EOF || !yield(m, err) || err != nil {
				return
			}
		}
	}
}

// Next returns the next message, or io.EOF after the last one; any other
// error (a *TruncatedError says where) ends the read.
func (r *Reader) Next() (Message, error) {
	for r.err == nil {
		ok, err := r.step()
		if ok {
			m, ch := &r.msg, &r.channels[r.msg.ChannelID].ch
			return Message{Topic: ch.Topic, SchemaName: ch.SchemaName, ChannelID: m.ChannelID, Sequence: m.Sequence,
				LogTime: m.LogTime, PublishTime: m.PublishTime, Data: m.Data}, nil
		}
		r.err = err
		if r.file != nil && err != nil && err != io.EOF {
			r.err = fmt.Errorf("recording %s: %w", r.file.Name(), err)
		}
	}
	return Message{}, r.err
}

// step reports true when r.msg holds the next message: the earliest loaded,
// unless the next indexed chunk may hold an earlier one.
func (r *Reader) step() (bool, error) {
	var c *loadedChunk
	for _, a := range r.active {
		if c == nil || a.ents[a.next].logTime < c.ents[c.next].logTime {
			c = a
		}
	}
	switch {
	case r.nextChunk < len(r.chunkIdx) && (c == nil || r.chunkIdx[r.nextChunk].start <= c.ents[c.next].logTime):
		r.nextChunk++
		return false, r.loadIndexed(r.chunkIdx[r.nextChunk-1])
	case c != nil:
		e := c.ents[c.next]
		if c.next++; c.next == len(c.ents) {
			// Its buffer is reused only by a later step.
			r.buffered -= int64(len(c.buf))
			r.active = slices.DeleteFunc(r.active, func(a *loadedChunk) bool { return a == c })
			r.spare = append(r.spare, c)
		}
		// A channel found bad since the chunk was loaded is not returned.
		return r.msg.PopulateFrom(c.buf[e.off:e.end], false) == nil && r.channels[r.msg.ChannelID].problem == nil, nil
	case r.ra != nil:
		return false, r.checkStatistics()
	}
	return r.streamRecord()
}

// streamRecord reads the next record of a stream read.
func (r *Reader) streamRecord() (bool, error) {
	start := r.rr.pos
	// A file ending at a record boundary comes from a crashed writer.
	atEnd := "data end or footer"
	if r.dataEnded {
		atEnd = "footer"
	}
	op, body, err := r.rr.next(atEnd)
	if err != nil {
		var te *TruncatedError
		if errors.As(err, &te) && te.Unclosed {
			te.Complete, te.DataEnded = r.chunkEnd, r.dataEnded
		}
		return false, err
	}
	deliver := false
	switch {
	case op == mcap.OpSchema || op == mcap.OpChannel:
		// Of the summary, channels without messages matter.
		err = r.declare(op, body)
	case r.dataEnded && op != mcap.OpFooter:
	case op == mcap.OpMessage:
		deliver, err = r.account(body)
	case op == mcap.OpChunk:
		if err := r.load(start, body); err != nil {
			return false, err
		}
		r.chunkEnd = r.rr.pos
		return false, nil
	case op == mcap.OpDataEnd:
		r.dataEnded = true
	case op == mcap.OpFooter:
		return false, r.expectEnd()
	case op == mcap.OpHeader:
		err = errors.New("second header record")
	}
	if err != nil {
		return false, &TruncatedError{Offset: start, Record: op.String(), Err: err}
	}
	return deliver, nil
}

// expectEnd checks the closing magic after the footer.
func (r *Reader) expectEnd() error {
	magic := make([]byte, len(mcap.Magic))
	n, err := io.ReadFull(r.rr.br, magic)
	switch {
	case err == nil && bytes.Equal(magic, mcap.Magic):
		return io.EOF
	case err == nil:
		err = fmt.Errorf("found % x", magic[:n])
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return &TruncatedError{Offset: r.rr.pos, Record: "closing magic", Err: io.ErrUnexpectedEOF,
			Unclosed: true, Complete: r.chunkEnd, DataEnded: true}
	}
	return &TruncatedError{Offset: r.rr.pos, Record: "closing magic", Err: err}
}

// recordReader reads bounded top-level records, skipping attachments.
type recordReader struct {
	br  *bufio.Reader
	pos int64 // offset of the next record
	max int64
	buf []byte
}

// next reads the next record; its body is valid until the next call.
// atEnd names what is missing when the input ends where a record starts.
func (rr *recordReader) next(atEnd string) (mcap.OpCode, []byte, error) {
	for {
		start := rr.pos
		var hdr [9]byte
		n, err := io.ReadFull(rr.br, hdr[:])
		if err != nil {
			if n > 0 {
				atEnd = "record header"
			}
			return 0, nil, &TruncatedError{Offset: start, Record: atEnd, Err: io.ErrUnexpectedEOF, Unclosed: true}
		}
		rr.pos += 9
		op, length := mcap.OpCode(hdr[0]), binary.LittleEndian.Uint64(hdr[1:])
		fail := func(err error) error { return &TruncatedError{Offset: start, Record: op.String(), Err: err} }
		cut := func(err error) error {
			return &TruncatedError{Offset: start, Record: op.String(), Err: err, Unclosed: true}
		}
		if op == mcap.OpAttachment {
			var n int64
			if length <= 1<<62 {
				n, err = io.CopyN(io.Discard, rr.br, int64(length))
			}
			if rr.pos += n; err != nil || length > 1<<62 {
				return 0, nil, cut(fmt.Errorf("%w: %d of %d bytes", io.ErrUnexpectedEOF, n, length))
			}
			continue
		}
		if length > uint64(rr.max) {
			return 0, nil, fail(fmt.Errorf("%w: record of %d bytes, limit %d", ErrReaderLimit, length, rr.max))
		}
		if uint64(cap(rr.buf)) < length {
			rr.buf = make([]byte, length)
		}
		n, err = io.ReadFull(rr.br, rr.buf[:length])
		if rr.pos += int64(n); err != nil {
			return 0, nil, cut(fmt.Errorf("%w: %d of %d bytes", io.ErrUnexpectedEOF, n, length))
		}
		return op, rr.buf[:length], nil
	}
}

// load decodes the chunk record at offset at into a chunk of r.active, its
// messages sorted by log time for an indexed read.
func (r *Reader) load(at int64, body []byte) error {
	c := &loadedChunk{}
	if n := len(r.spare); n > 0 {
		c, r.spare = r.spare[n-1], r.spare[:n-1]
	}
	c.ents, c.next = c.ents[:0], 0
	if err := r.decodeChunk(body, c); err != nil {
		return &TruncatedError{Offset: at, Record: "chunk", Err: err}
	}
	if len(c.ents) == 0 {
		r.spare = append(r.spare, c)
		return nil
	}
	if r.ra != nil && !slices.IsSortedFunc(c.ents, cmpEntry) {
		slices.SortStableFunc(c.ents, cmpEntry)
	}
	r.buffered += int64(len(c.buf))
	r.active = append(r.active, c)
	return nil
}

func cmpEntry(a, b msgEntry) int { return cmp.Compare(a.logTime, b.logTime) }

func (r *Reader) decodeChunk(body []byte, c *loadedChunk) error {
	records, err := r.dec.decode(body, c.buf)
	if err != nil {
		return err
	}
	c.buf = records
	for off := 0; off < len(records); {
		if len(records)-off < 9 {
			return fmt.Errorf("record header cut short at chunk byte %d", off)
		}
		op, length := mcap.OpCode(records[off]), binary.LittleEndian.Uint64(records[off+1:])
		if length > uint64(len(records)-off-9) {
			return fmt.Errorf("%s record at chunk byte %d claims %d bytes, %d left", op, off, length, len(records)-off-9)
		}
		rec := records[off+9 : off+9+int(length)]
		off += 9 + int(length)
		switch op {
		case mcap.OpSchema, mcap.OpChannel:
			err = r.declare(op, rec)
		case mcap.OpMessage:
			var deliver bool
			if deliver, err = r.account(rec); deliver {
				c.ents = append(c.ents, msgEntry{logTime: r.msg.LogTime, off: off - int(length), end: off})
			}
		case mcap.OpChunk:
			err = errors.New("nested chunk")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// account parses a message into r.msg, counts it, and reports whether it is returned.
func (r *Reader) account(body []byte) (bool, error) {
	if err := r.msg.PopulateFrom(body, false); err != nil {
		return false, err
	}
	id := r.msg.ChannelID
	r.seen = grown(r.seen, id)
	r.seen[id]++
	cs := r.channel(id)
	if cs == nil {
		if _, ign := r.ignored[id]; ign {
			return false, nil
		}
		cs = r.addState(Channel{ID: id})
		r.report(cs, fmt.Errorf("%w: message on undeclared channel %d", ErrBadChannel, id))
	}
	if cs.problem != nil {
		r.mu.Lock()
		cs.problem.Skipped++
		r.mu.Unlock()
		return false, nil
	}
	return true, nil
}

// declare handles a schema or channel record, bounded by MaxChunkSize.
func (r *Reader) declare(op mcap.OpCode, body []byte) error {
	var n int
	var err error
	if op == mcap.OpSchema {
		n, err = r.addSchema(body)
	} else {
		n, err = r.addChannel(body)
	}
	if r.declBytes += int64(n); err == nil && r.declBytes > r.opts.MaxChunkSize {
		err = fmt.Errorf("%w: schemas and channels exceed %d bytes", ErrReaderLimit, r.opts.MaxChunkSize)
	}
	return err
}

// addSchema returns the bytes it holds anew.
func (r *Reader) addSchema(body []byte) (int, error) {
	s, err := mcap.ParseSchema(body)
	switch {
	case err != nil:
		return 0, err
	case s.ID == 0:
		return 0, errors.New("schema with ID 0")
	case r.schemas[s.ID] == nil:
		r.schemas[s.ID] = s
		return len(s.Name) + len(s.Encoding) + len(s.Data), nil
	}
	if old := r.schemas[s.ID]; old.Name != s.Name || old.Encoding != s.Encoding || !bytes.Equal(old.Data, s.Data) {
		return 0, fmt.Errorf("schema %d redeclared as %s (was %s)", s.ID, clip(s.Name), clip(old.Name))
	}
	return 0, nil
}

// addChannel returns the bytes it holds anew. A channel ID redeclared
// differently is reported, never remapped, whether or not either is read.
func (r *Reader) addChannel(body []byte) (int, error) {
	c, err := mcap.ParseChannel(body)
	if err != nil {
		return 0, err
	}
	ch := Channel{ID: c.ID, Topic: c.Topic, MessageEncoding: c.MessageEncoding, Metadata: c.Metadata}
	s := r.schemas[c.SchemaID]
	if s != nil {
		ch.SchemaName, ch.SchemaEncoding, ch.SchemaText = s.Name, s.Encoding, string(s.Data)
	}
	redeclared := func(was string) error {
		return fmt.Errorf("%w: channel %d redeclared as %s (%s), was %s",
			ErrBadChannel, c.ID, clip(ch.Topic), clip(ch.SchemaName), was)
	}
	if old := r.channel(c.ID); old != nil {
		o := old.ch
		if old.problem == nil && (o.Topic != ch.Topic || o.SchemaName != ch.SchemaName ||
			o.MessageEncoding != ch.MessageEncoding || o.SchemaText != ch.SchemaText) {
			r.report(old, redeclared(clip(o.Topic)+" ("+clip(o.SchemaName)+")"))
		}
		return 0, nil
	}
	wanted := r.opts.Topics == nil || slices.Contains(r.opts.Topics, c.Topic)
	if topic, ok := r.ignored[c.ID]; ok {
		if topic != c.Topic && wanted {
			r.report(r.addState(ch), redeclared(clip(topic)))
		}
		return 0, nil
	}
	n := len(ch.Topic) + len(ch.MessageEncoding) + len(ch.SchemaText)
	for k, v := range ch.Metadata {
		n += len(k) + len(v)
	}
	if !wanted {
		r.ignored[c.ID] = c.Topic
		return n, nil
	}
	if q, ok := c.Metadata[MetadataOfferedQoS]; ok {
		ch.QoS, ch.QoSErr = qos.ParseOfferedProfiles(q)
	}
	cs := r.addState(ch)
	if err := r.check(c, s); err != nil {
		r.report(cs, err)
	}
	return n, nil
}

func (r *Reader) addState(ch Channel) *chanState {
	cs := &chanState{ch: ch}
	r.mu.Lock()
	r.channels = grown(r.channels, ch.ID)
	r.channels[ch.ID] = cs
	r.mu.Unlock()
	return cs
}

func (r *Reader) channel(id uint16) *chanState {
	if int(id) < len(r.channels) {
		return r.channels[id]
	}
	return nil
}

// grown returns s long enough to index with id.
func grown[T any](s []T, id uint16) []T {
	if int(id) < len(s) {
		return s
	}
	return append(s, make([]T, int(id)+1-len(s))...)
}

// check applies the ROS 2 profile rules and the caller's expectations.
func (r *Reader) check(c *mcap.Channel, s *mcap.Schema) error {
	where := fmt.Sprintf("channel %d (%s)", c.ID, clip(c.Topic))
	switch {
	case c.SchemaID == 0:
		return fmt.Errorf("%w: %s has no schema", ErrBadChannel, where)
	case s == nil:
		return fmt.Errorf("%w: %s refers to undeclared schema %d", ErrBadChannel, where, c.SchemaID)
	case slices.Contains(r.opts.Encodings, Encoding{s.Encoding, c.MessageEncoding}):
	case s.Encoding != SchemaEncodingROS2Msg:
		return fmt.Errorf("%w: %s: schema encoding %s, want %q", ErrUnsupportedEncoding, where, clip(s.Encoding), SchemaEncodingROS2Msg)
	case c.MessageEncoding != MessageEncodingCDR:
		return fmt.Errorf("%w: %s: message encoding %s, want %q", ErrUnsupportedEncoding, where, clip(c.MessageEncoding), MessageEncodingCDR)
	}
	if want, ok := r.opts.Schemas[c.Topic]; ok && !SameMessageType(want, s.Name) {
		return fmt.Errorf("%w: %s has schema %s, want %s", ErrUnexpectedSchema, where, clip(s.Name), clip(want))
	}
	if r.opts.CheckSchema != nil {
		if err := r.opts.CheckSchema(s.Name, string(s.Data)); err != nil {
			return fmt.Errorf("%w: %s, schema %s: %w", ErrUnexpectedSchema, where, clip(s.Name), err)
		}
	}
	return nil
}

func (r *Reader) report(cs *chanState, err error) {
	r.mu.Lock()
	cs.problem = &ChannelProblem{Channel: cs.ch, Err: err}
	r.problems = append(r.problems, cs.problem)
	r.mu.Unlock()
	if r.opts.OnProblem != nil {
		r.opts.OnProblem(*cs.problem)
	}
}

// SameMessageType reports whether "pkg/msg/Type" or "pkg/Type" names match.
func SameMessageType(a, b string) bool {
	return canonicalType(a) == canonicalType(b)
}

func canonicalType(s string) string {
	pkg, rest, _ := strings.Cut(s, "/")
	if name, ok := strings.CutPrefix(rest, "msg/"); ok && !strings.Contains(name, "/") {
		return pkg + "/" + name
	}
	return s
}

// chunkRef is what an indexed read keeps of a chunk index record.
type chunkRef struct {
	start, offset, length, size uint64 // message start time, chunk offset, record length, uncompressed size
	// read: the chunk may hold a message the Reader returns (its message
	// indexes name a channel that is read, or it has none).
	read bool
}

// tryIndex switches to indexed reading when the summary holds chunk indexes
// (or says there are no messages); else a stream read says where it breaks.
func (r *Reader) tryIndex(ra io.ReaderAt, size int64) {
	const tail = 9 + 20 + 8 // footer record + closing magic
	footerAt := size - tail
	buf := make([]byte, tail)
	if footerAt < r.rr.pos {
		return
	}
	if _, err := ra.ReadAt(buf, footerAt); err != nil || mcap.OpCode(buf[0]) != mcap.OpFooter ||
		binary.LittleEndian.Uint64(buf[1:9]) != 20 || !bytes.Equal(buf[29:], mcap.Magic) {
		return
	}
	footer, err := mcap.ParseFooter(buf[9:29])
	if err != nil {
		return
	}
	start := int64(footer.SummaryStart)
	if start == 0 || start >= footerAt || start < r.rr.pos {
		return
	}
	sum := recordReader{br: bufio.NewReader(io.NewSectionReader(ra, start, footerAt-start)), pos: start, max: r.opts.MaxChunkSize}
	var chunks []chunkRef
	var chunkChannels [][]uint16 // of chunks: the channels their message indexes name
	var stats *mcap.Statistics
	for err == nil && sum.pos < footerAt {
		var op mcap.OpCode
		var body []byte
		op, body, err = sum.next("summary record")
		switch op { // 0 on an error
		case mcap.OpSchema, mcap.OpChannel:
			err = r.declare(op, body)
		case mcap.OpChunkIndex:
			var ci *mcap.ChunkIndex
			if ci, err = mcap.ParseChunkIndex(body); err == nil && (ci.ChunkStartOffset < uint64(r.rr.pos) ||
				ci.ChunkLength > uint64(footerAt) || ci.ChunkStartOffset > uint64(footerAt)-ci.ChunkLength) {
				err = errors.New("chunk index out of range")
			}
			if err == nil {
				chunks = append(chunks, chunkRef{start: ci.MessageStartTime, offset: ci.ChunkStartOffset, length: ci.ChunkLength, size: ci.UncompressedSize})
				chunkChannels = append(chunkChannels, slices.Collect(maps.Keys(ci.MessageIndexOffsets)))
			}
		case mcap.OpStatistics:
			stats, err = mcap.ParseStatistics(body)
		}
	}
	if err != nil || len(chunks) == 0 && (stats == nil || stats.MessageCount > 0) {
		// Unchunked messages or a damaged summary: the stream read redeclares.
		clear(r.schemas)
		r.mu.Lock()
		clear(r.channels)
		r.problems = nil
		r.mu.Unlock()
		clear(r.ignored)
		r.declBytes = 0
		return
	}
	// Every channel of the summary is declared by now, whatever the order
	// of its records.
	for i := range chunks {
		chunks[i].read = len(chunkChannels[i]) == 0 || slices.ContainsFunc(chunkChannels[i], r.mayReturn)
	}
	slices.SortStableFunc(chunks, func(a, b chunkRef) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.offset, b.offset))
	})
	r.ra, r.stats, r.chunkIdx = ra, stats, chunks
}

// mayReturn reports whether the messages of channel id may be returned:
// it is read without a problem, or it is not declared yet.
func (r *Reader) mayReturn(id uint16) bool {
	if cs := r.channel(id); cs != nil {
		return cs.problem == nil
	}
	_, ignored := r.ignored[id]
	return !ignored
}

// loadIndexed reads and loads the chunk ci points at.
func (r *Reader) loadIndexed(ci chunkRef) error {
	at := int64(ci.offset)
	if r.buffered+int64(ci.size) > r.opts.MaxBuffered {
		return &TruncatedError{Offset: at, Record: "chunk", Err: fmt.Errorf("%w: chunks overlapping in log time need more than %d bytes", ErrReaderLimit, r.opts.MaxBuffered)}
	}
	r.rr.br.Reset(io.NewSectionReader(r.ra, at, int64(ci.length)))
	r.rr.pos = at
	switch op, body, err := r.rr.next("chunk"); {
	case err != nil:
		// The file has a footer: a chunk its index cuts short is damage.
		var te *TruncatedError
		if errors.As(err, &te) {
			te.Unclosed = false
		}
		return err
	case op != mcap.OpChunk:
		return &TruncatedError{Offset: at, Record: "chunk", Err: fmt.Errorf("chunk index points at a %s record", op)}
	default:
		return r.load(at, body)
	}
}

// checkStatistics compares the chunks' message counts with the summary's.
func (r *Reader) checkStatistics() error {
	if r.stats == nil || len(r.stats.ChannelMessageCounts) == 0 {
		return io.EOF
	}
	counts := r.stats.ChannelMessageCounts
	r.seen = grown(r.seen, slices.Max(slices.Collect(maps.Keys(counts))))
	for id, got := range r.seen {
		if want := counts[uint16(id)]; want != got {
			return fmt.Errorf("%w: channel %d: statistics say %d messages, chunks hold %d",
				ErrInconsistentSummary, id, want, got)
		}
	}
	return io.EOF
}
