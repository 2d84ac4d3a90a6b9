package bag

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/ghost-robotics/ghost/pkg/ros2"
)

// Errors of the recording reader. Callers branch on them with errors.Is.
var (
	// ErrNotMCAP is returned when the input does not start with the MCAP
	// magic bytes.
	ErrNotMCAP = errors.New("not an MCAP file")
	// ErrTruncated is wrapped by every *TruncatedError: the recording cannot
	// be read past some offset (it ends early, or is damaged there). Every
	// message before that point has been returned.
	ErrTruncated = errors.New("recording truncated or damaged")
	// ErrReaderLimit is wrapped when a record, chunk or set of overlapping
	// chunks exceeds ReaderOptions' memory bounds.
	ErrReaderLimit = errors.New("exceeds reader limits")
	// ErrInconsistentSummary is returned at the end of an indexed read when
	// the chunks held other message counts than the summary's statistics.
	ErrInconsistentSummary = errors.New("summary statistics disagree with the chunks")

	// ErrUnsupportedEncoding is wrapped by a ChannelProblem whose schema
	// encoding is not ros2msg or whose message encoding is not cdr.
	ErrUnsupportedEncoding = errors.New("unsupported encoding")
	// ErrUnexpectedSchema is wrapped by a ChannelProblem whose schema is not
	// the one the caller expects on its topic.
	ErrUnexpectedSchema = errors.New("unexpected schema")
	// ErrBadChannel is wrapped by a ChannelProblem for a channel that is
	// undeclared, redeclared differently, or refers to an unknown schema.
	ErrBadChannel = errors.New("malformed channel")
)

// TruncatedError says where reading stopped. It matches ErrTruncated with
// errors.Is and unwraps to its cause.
type TruncatedError struct {
	// Offset is the byte offset of the record that could not be read; for a
	// file that ends early, the file size.
	Offset int64
	// Record names what was expected there ("chunk", "record header",
	// "footer", ...).
	Record string
	// Err is the cause (io.ErrUnexpectedEOF, a CRC or decompression error,
	// ErrReaderLimit, ...).
	Err error
}

// Error reads "recording stopped at byte N (record): cause".
func (e *TruncatedError) Error() string {
	return fmt.Sprintf("recording stopped at byte %d (%s): %v", e.Offset, e.Record, e.Err)
}

// Is makes errors.Is(err, ErrTruncated) hold.
func (e *TruncatedError) Is(target error) bool { return target == ErrTruncated }

// Unwrap returns the cause.
func (e *TruncatedError) Unwrap() error { return e.Err }

// Defaults of ReaderOptions.
const (
	// DefaultMaxChunkSize is the largest decompressed chunk, and the largest
	// record, a Reader accepts: 64 times the Recorder's default chunk size.
	DefaultMaxChunkSize = 64 << 20
	// DefaultMaxBuffered bounds the decompressed chunks an indexed read holds
	// at once to put chunks that overlap in log time into order.
	DefaultMaxBuffered = 256 << 20
)

// ReaderOptions configure a Reader. The zero value reads every topic with
// the default memory bounds.
type ReaderOptions struct {
	// Topics limits reading to these topics; nil reads all. Channels on other
	// topics are neither returned nor checked.
	Topics []string
	// Schemas maps a topic to the schema name expected on it, as
	// "pkg/msg/Type" or "pkg/Type". A channel on a listed topic with another
	// schema is reported as a ChannelProblem and its messages are skipped;
	// unlisted topics accept any schema. Default: nil (no expectations).
	Schemas map[string]string
	// CheckSchema, if set, is called with each channel's schema name and
	// text (e.g. msg.CheckSchema, to insist that a recording's ghost types
	// match the compiled-in definitions); an error is reported as a
	// ChannelProblem wrapping ErrUnexpectedSchema. Default: nil (no check).
	CheckSchema func(schemaName, schemaText string) error
	// OnProblem, if set, is called once per ChannelProblem when it is found,
	// before any later message is returned. Default: nil (see Problems).
	OnProblem func(ChannelProblem)
	// MaxChunkSize is the largest decompressed chunk or record accepted, in
	// bytes, and the most bytes of schemas and channels held; 0 means
	// DefaultMaxChunkSize. Attachments are skipped, never loaded, whatever
	// their size.
	MaxChunkSize int64
	// MaxBuffered bounds the decompressed bytes of chunks an indexed read
	// holds at once; 0 means DefaultMaxBuffered. Files written in log-time
	// order (rosbag2, Recorder) never hold more than one chunk.
	MaxBuffered int64
	// Stream forces a streaming read in file order even of an indexed file.
	// Default false.
	Stream bool
}

// Channel describes a recorded channel, with its schema taken from the file.
type Channel struct {
	// ID is the channel ID in the file.
	ID uint16
	// Topic is the ROS topic name.
	Topic string
	// MessageEncoding is the message encoding ("cdr" for ROS 2).
	MessageEncoding string
	// SchemaName is the message type, e.g. "ghost/msg/VehicleState".
	SchemaName string
	// SchemaEncoding is the schema encoding ("ros2msg" for ROS 2).
	SchemaEncoding string
	// SchemaText is the complete schema text as stored.
	SchemaText string
	// Metadata is the channel's metadata map.
	Metadata map[string]string
	// QoS are the offered QoS profiles from the metadata; nil when absent,
	// empty or unparsable (see QoSErr).
	QoS []ros2.QoSProfile
	// QoSErr is the error parsing offered_qos_profiles, if any. It does not
	// stop the channel from being read.
	QoSErr error
}

// ChannelProblem reports a channel whose messages the Reader does not
// return. Err wraps ErrUnsupportedEncoding, ErrUnexpectedSchema or
// ErrBadChannel.
type ChannelProblem struct {
	// Channel is the channel as declared (only ID is set for a message on an
	// undeclared channel).
	Channel Channel
	// Err says what is wrong, naming the offending value.
	Err error
	// Skipped counts the channel's messages not returned so far.
	Skipped uint64
}

// Message is one recorded message.
type Message struct {
	// Topic is the channel's topic.
	Topic string
	// SchemaName is the channel's message type.
	SchemaName string
	// ChannelID is the channel's ID in the file.
	ChannelID uint16
	// Sequence is the record's sequence number.
	Sequence uint32
	// LogTime is the receive time in nanoseconds.
	LogTime uint64
	// PublishTime is the send time in nanoseconds.
	PublishTime uint64
	// Data is the serialized message. It is valid until the next call of
	// Next (or the next iteration of Messages); copy it to keep it.
	Data []byte
}

// Reader reads a ROS 2 MCAP recording message by message. Its memory is
// bounded by ReaderOptions' limits, not by the file's length; only an
// indexed read also keeps the file's chunk index (some 100 bytes a chunk).
//
// A file with a summary holding chunk indexes is read through its index, in
// log-time order (ties in file order), and its statistics are checked at the
// end. Any other file (no summary, unchunked, truncated, written by a
// process that crashed) is read as a stream in file order, which is
// log-time order for files written by rosbag2 or Recorder; a stream read
// returns every message before the point where the file ends or is damaged
// and then a *TruncatedError. Chunk CRCs are verified; a chunk is returned
// entirely or not at all.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	opts   ReaderOptions
	topics map[string]bool
	path   string
	file   *os.File

	profile, library string
	indexed          bool

	schemas  map[uint16]*mcap.Schema
	channels map[uint16]*chanState
	ignored  map[uint16]bool // channels outside opts.Topics
	problems []*ChannelProblem
	// declBytes counts declarations against MaxChunkSize
	declBytes int64

	// stream mode
	br          *bufio.Reader
	pos         int64
	dataEnded   bool
	cur         *loadedChunk // chunk being returned, stream mode
	streamChunk loadedChunk

	// indexed mode
	ra         io.ReaderAt
	stats      *mcap.Statistics
	chunkIdx   []*mcap.ChunkIndex
	nextChunk  int
	active     []*loadedChunk
	spare      []*loadedChunk
	buffered   int64
	loads      int
	seen       map[uint16]uint64
	compressed []byte

	dec chunkDecoder
	rec []byte
	msg mcap.Message
	err error // sticky; io.EOF at the end
}

type chanState struct {
	ch      Channel
	deliver bool
	problem *ChannelProblem
}

type loadedChunk struct {
	offset int64
	buf    []byte // the chunk's records, decompressed
	ents   []msgEntry
	next   int
	seq    int // load order, breaks log-time ties
}

type msgEntry struct {
	logTime  uint64
	off, end int
}

// OpenRecording opens the MCAP file at path for reading. A file that is not
// MCAP gives an error wrapping ErrNotMCAP. Close closes the file.
func OpenRecording(path string, opts ReaderOptions) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open recording: %w", err)
	}
	r, err := newReader(f, opts)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open recording %s: %w", path, err)
	}
	r.file, r.path = f, path
	return r, nil
}

// NewReader reads a recording from src. It uses the index when src is an
// io.ReaderAt and io.Seeker (an *os.File, a *bytes.Reader) and streams
// otherwise. The Reader does not close src.
func NewReader(src io.Reader, opts ReaderOptions) (*Reader, error) {
	r, err := newReader(src, opts)
	if err != nil {
		return nil, fmt.Errorf("read recording: %w", err)
	}
	return r, nil
}

func newReader(src io.Reader, opts ReaderOptions) (*Reader, error) {
	if opts.MaxChunkSize <= 0 {
		opts.MaxChunkSize = DefaultMaxChunkSize
	}
	if opts.MaxBuffered <= 0 {
		opts.MaxBuffered = DefaultMaxBuffered
	}
	r := &Reader{
		opts:     opts,
		schemas:  make(map[uint16]*mcap.Schema),
		channels: make(map[uint16]*chanState),
		ignored:  make(map[uint16]bool),
	}
	if opts.Topics != nil {
		r.topics = make(map[string]bool, len(opts.Topics))
		for _, t := range opts.Topics {
			r.topics[t] = true
		}
	}
	r.dec.maxSize = opts.MaxChunkSize
	size := int64(-1)
	ra, isRA := src.(io.ReaderAt)
	if sk, ok := src.(io.Seeker); ok && isRA {
		end, err := sk.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, fmt.Errorf("find size: %w", err)
		}
		size = end
		src = io.NewSectionReader(ra, 0, size)
	}
	r.br = bufio.NewReaderSize(src, 64<<10)

	magic := make([]byte, len(mcap.Magic))
	if n, err := io.ReadFull(r.br, magic); err != nil || !bytes.Equal(magic, mcap.Magic) {
		r.dec.close()
		return nil, fmt.Errorf("%w: starts with % x", ErrNotMCAP, magic[:n])
	}
	r.pos = int64(len(mcap.Magic))
	if err := r.readHeader(); err != nil {
		r.dec.close()
		return nil, err
	}
	if size >= 0 && !opts.Stream {
		r.tryIndex(ra, size)
	}
	return r, nil
}

func (r *Reader) readHeader() error {
	op, body, err := r.readRecord()
	if te := (*TruncatedError)(nil); errors.As(err, &te) {
		te.Record = "header"
	}
	if err == nil && op != mcap.OpHeader {
		err = &TruncatedError{Offset: r.pos - 9 - int64(len(body)), Record: "header", Err: fmt.Errorf("first record is %s", op)}
	}
	if err != nil {
		return err
	}
	h, err := mcap.ParseHeader(body)
	if err != nil {
		return &TruncatedError{Offset: int64(len(mcap.Magic)), Record: "header", Err: err}
	}
	r.profile, r.library = h.Profile, h.Library
	return nil
}

// Profile returns the header's profile ("ros2" for ROS 2 recordings).
func (r *Reader) Profile() string { return r.profile }

// Library returns the header's library string, naming the writer.
func (r *Reader) Library() string { return r.library }

// Indexed reports whether the file is read through its index (log-time
// order) rather than as a stream (file order).
func (r *Reader) Indexed() bool { return r.indexed }

// MessageCount returns how many messages the read will return, from the
// file's statistics (for progress reports): the messages of the channels
// read, those outside ReaderOptions.Topics and those with a reported
// problem left out. It is 0 when unknown (a stream read).
func (r *Reader) MessageCount() uint64 {
	if r.stats == nil {
		return 0
	}
	var n uint64
	for id, c := range r.stats.ChannelMessageCounts {
		if cs, ok := r.channels[id]; ok && cs.deliver && cs.problem == nil {
			n += c
		}
	}
	return n
}

// Channels returns the channels known so far, by ID: all of them for an
// indexed read, those met so far for a stream read. Channels outside
// ReaderOptions.Topics are left out.
func (r *Reader) Channels() []Channel {
	out := make([]Channel, 0, len(r.channels))
	for _, id := range slices.Sorted(maps.Keys(r.channels)) {
		out = append(out, r.channels[id].ch)
	}
	return out
}

// Problems returns the channel problems found so far, in the order found,
// with their current skip counts.
func (r *Reader) Problems() []ChannelProblem {
	out := make([]ChannelProblem, len(r.problems))
	for i, p := range r.problems {
		out[i] = *p
	}
	return out
}

// Close releases the Reader and closes the file opened by OpenRecording.
func (r *Reader) Close() error {
	r.dec.close()
	if r.err == nil {
		r.err = errors.New("reader closed")
	}
	if r.file != nil {
		f := r.file
		r.file = nil
		if err := f.Close(); err != nil {
			return fmt.Errorf("close recording %s: %w", r.path, err)
		}
	}
	return nil
}

// Messages iterates over the messages with Next. A read error is yielded
// once, with a zero Message, and ends the iteration; the end of the
// recording is not an error.
func (r *Reader) Messages() iter.Seq2[Message, error] {
	return func(yield func(Message, error) bool) {
		for {
			m, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(Message{}, err)
				return
			}
			if !yield(m, nil) {
				return
			}
		}
	}
}

// Next returns the next message, or io.EOF after the last one. Any other
// error ends the read: a *TruncatedError (ErrTruncated) says where, after
// every message before that point was returned. Messages on channels with a
// ChannelProblem are skipped and counted, not returned.
func (r *Reader) Next() (Message, error) {
	if r.err != nil {
		return Message{}, r.err
	}
	var m Message
	var err error
	if r.indexed {
		m, err = r.nextIndexed()
	} else {
		m, err = r.nextStream()
	}
	if err != nil {
		r.err = err
		if r.path != "" && err != io.EOF {
			r.err = fmt.Errorf("recording %s: %w", r.path, err)
		}
		return Message{}, r.err
	}
	return m, nil
}

// message converts a message record body into a Message, or reports false
// for a channel that is not returned.
func (r *Reader) message(body []byte) (Message, bool) {
	if err := r.msg.PopulateFrom(body, false); err != nil {
		return Message{}, false
	}
	cs := r.channels[r.msg.ChannelID]
	if cs == nil || !cs.deliver {
		return Message{}, false
	}
	return Message{
		Topic:       cs.ch.Topic,
		SchemaName:  cs.ch.SchemaName,
		ChannelID:   r.msg.ChannelID,
		Sequence:    r.msg.Sequence,
		LogTime:     r.msg.LogTime,
		PublishTime: r.msg.PublishTime,
		Data:        r.msg.Data,
	}, true
}

// --- stream mode ---

func (r *Reader) nextStream() (Message, error) {
	for {
		if c := r.cur; c != nil {
			if c.next < len(c.ents) {
				e := c.ents[c.next]
				c.next++
				if m, ok := r.message(c.buf[e.off:e.end]); ok {
					return m, nil
				}
				continue
			}
			r.cur = nil
		}
		start := r.pos
		op, body, err := r.readRecord()
		if err != nil {
			return Message{}, err
		}
		if r.dataEnded && op != mcap.OpFooter && op != mcap.OpSchema && op != mcap.OpChannel {
			// Of the summary, only declarations matter to a stream read:
			// channels without messages appear nowhere else.
			continue
		}
		switch op {
		case mcap.OpSchema, mcap.OpChannel:
			if err := r.declare(op, body); err != nil {
				return Message{}, &TruncatedError{Offset: start, Record: op.String(), Err: err}
			}
		case mcap.OpMessage:
			if err := r.account(body); err != nil {
				return Message{}, &TruncatedError{Offset: start, Record: "message", Err: err}
			}
			if m, ok := r.message(body); ok {
				return m, nil
			}
		case mcap.OpChunk:
			c := &r.streamChunk
			c.ents, c.next = c.ents[:0], 0
			if err := r.decodeChunk(body, c); err != nil {
				return Message{}, &TruncatedError{Offset: start, Record: "chunk", Err: err}
			}
			c.offset = start
			r.cur = c
		case mcap.OpDataEnd:
			r.dataEnded = true
		case mcap.OpFooter:
			return Message{}, r.expectEnd()
		case mcap.OpHeader:
			return Message{}, &TruncatedError{Offset: start, Record: "header", Err: errors.New("second header record")}
		}
	}
}

// expectEnd checks the closing magic after the footer.
func (r *Reader) expectEnd() error {
	magic := make([]byte, len(mcap.Magic))
	n, err := io.ReadFull(r.br, magic)
	if err != nil || !bytes.Equal(magic, mcap.Magic) {
		switch err {
		case nil:
			err = fmt.Errorf("found % x", magic[:n])
		case io.EOF:
			err = io.ErrUnexpectedEOF
		}
		return &TruncatedError{Offset: r.pos, Record: "closing magic", Err: err}
	}
	r.pos += int64(n)
	return io.EOF
}

// readRecord reads the next top-level record into r.rec, skipping
// attachments without loading them.
func (r *Reader) readRecord() (mcap.OpCode, []byte, error) {
	for {
		start := r.pos
		var hdr [9]byte
		n, err := io.ReadFull(r.br, hdr[:])
		if err != nil {
			what := "record header"
			if n == 0 {
				// The file ends at a record boundary: a writer that never
				// finished (crash, full disk) or a copy cut short.
				what = "footer"
				if !r.dataEnded {
					what = "data end or footer"
				}
			}
			return 0, nil, &TruncatedError{Offset: start, Record: what, Err: io.ErrUnexpectedEOF}
		}
		r.pos += 9
		op := mcap.OpCode(hdr[0])
		length := binary.LittleEndian.Uint64(hdr[1:])
		if op == mcap.OpAttachment {
			if length > uint64(1<<62) {
				return 0, nil, &TruncatedError{Offset: start, Record: "attachment", Err: fmt.Errorf("length %d", length)}
			}
			n, err := io.CopyN(io.Discard, r.br, int64(length))
			r.pos += n
			if err != nil {
				return 0, nil, &TruncatedError{Offset: start, Record: "attachment", Err: io.ErrUnexpectedEOF}
			}
			continue
		}
		if length > uint64(r.opts.MaxChunkSize) {
			return 0, nil, &TruncatedError{Offset: start, Record: op.String(),
				Err: fmt.Errorf("%w: record of %d bytes, limit %d", ErrReaderLimit, length, r.opts.MaxChunkSize)}
		}
		if uint64(cap(r.rec)) < length {
			r.rec = make([]byte, length)
		}
		body := r.rec[:length]
		n, err = io.ReadFull(r.br, body)
		r.pos += int64(n)
		if err != nil {
			return 0, nil, &TruncatedError{Offset: start, Record: op.String(),
				Err: fmt.Errorf("%w: %d of %d bytes", io.ErrUnexpectedEOF, n, length)}
		}
		return op, body, nil
	}
}

// --- indexed mode ---

// tryIndex switches to indexed reading when the file ends with a footer
// whose summary holds chunk indexes (or says there are no messages). A
// missing or unreadable summary leaves the Reader streaming.
func (r *Reader) tryIndex(ra io.ReaderAt, size int64) {
	const tail = 9 + 20 + 8 // footer record + closing magic
	if size < int64(len(mcap.Magic))+tail {
		return
	}
	buf := make([]byte, tail)
	if _, err := ra.ReadAt(buf, size-tail); err != nil {
		return
	}
	if mcap.OpCode(buf[0]) != mcap.OpFooter || binary.LittleEndian.Uint64(buf[1:9]) != 20 ||
		!bytes.Equal(buf[29:], mcap.Magic) {
		return
	}
	footer, err := mcap.ParseFooter(buf[9:29])
	footerAt := size - tail
	if err != nil || footer.SummaryStart == 0 || footer.SummaryStart >= uint64(footerAt) ||
		footer.SummaryStart < uint64(r.pos) {
		return
	}
	sum := &Reader{opts: r.opts, schemas: make(map[uint16]*mcap.Schema)}
	sum.br = bufio.NewReader(io.NewSectionReader(ra, int64(footer.SummaryStart), footerAt-int64(footer.SummaryStart)))
	sum.pos = int64(footer.SummaryStart)
	var chunks []*mcap.ChunkIndex
	var stats *mcap.Statistics
	var schemas []*mcap.Schema
	var channels []*mcap.Channel
	for sum.pos < footerAt {
		op, body, err := sum.readRecord()
		if err != nil {
			return
		}
		switch op {
		case mcap.OpSchema:
			s, err := mcap.ParseSchema(body)
			if err != nil {
				return
			}
			schemas = append(schemas, s)
		case mcap.OpChannel:
			c, err := mcap.ParseChannel(body)
			if err != nil {
				return
			}
			channels = append(channels, c)
		case mcap.OpChunkIndex:
			ci, err := mcap.ParseChunkIndex(body)
			if err != nil || ci.ChunkStartOffset < uint64(r.pos) ||
				ci.ChunkLength > uint64(footerAt) || ci.ChunkStartOffset > uint64(footerAt)-ci.ChunkLength {
				return
			}
			chunks = append(chunks, ci)
		case mcap.OpStatistics:
			if stats, err = mcap.ParseStatistics(body); err != nil {
				return
			}
		}
	}
	if len(chunks) == 0 && (stats == nil || stats.MessageCount > 0) {
		return // messages outside chunks: only a stream read finds them
	}
	for _, s := range schemas {
		if r.addSchema(s) != nil {
			r.reset()
			return // a stream read meets the same record and says where
		}
	}
	for _, c := range channels {
		if r.addChannel(c) != nil {
			r.reset()
			return
		}
	}
	slices.SortStableFunc(chunks, func(a, b *mcap.ChunkIndex) int {
		return cmp.Or(cmp.Compare(a.MessageStartTime, b.MessageStartTime),
			cmp.Compare(a.ChunkStartOffset, b.ChunkStartOffset))
	})
	r.indexed = true
	r.ra = ra
	r.stats = stats
	r.chunkIdx = chunks
	r.seen = make(map[uint16]uint64)
	r.br = nil
}

func (r *Reader) nextIndexed() (Message, error) {
	for {
		var best *loadedChunk
		for _, c := range r.active {
			if c.next >= len(c.ents) {
				continue
			}
			if best == nil || c.ents[c.next].logTime < best.ents[best.next].logTime ||
				(c.ents[c.next].logTime == best.ents[best.next].logTime && c.seq < best.seq) {
				best = c
			}
		}
		if r.nextChunk < len(r.chunkIdx) &&
			(best == nil || r.chunkIdx[r.nextChunk].MessageStartTime <= best.ents[best.next].logTime) {
			if err := r.loadIndexedChunk(r.chunkIdx[r.nextChunk]); err != nil {
				return Message{}, err
			}
			r.nextChunk++
			continue
		}
		if best == nil {
			return Message{}, r.checkStatistics()
		}
		e := best.ents[best.next]
		best.next++
		m, ok := r.message(best.buf[e.off:e.end])
		if best.next == len(best.ents) {
			r.retire(best)
		}
		if ok {
			return m, nil
		}
	}
}

func (r *Reader) loadIndexedChunk(ci *mcap.ChunkIndex) error {
	off := int64(ci.ChunkStartOffset)
	fail := func(err error) error { return &TruncatedError{Offset: off, Record: "chunk", Err: err} }
	if ci.UncompressedSize > uint64(r.opts.MaxChunkSize) || ci.ChunkLength > uint64(r.opts.MaxChunkSize)+9 {
		return fail(fmt.Errorf("%w: chunk of %d bytes (%d decompressed), limit %d",
			ErrReaderLimit, ci.ChunkLength, ci.UncompressedSize, r.opts.MaxChunkSize))
	}
	if r.buffered+int64(ci.UncompressedSize) > r.opts.MaxBuffered {
		return fail(fmt.Errorf("%w: chunks overlapping in log time need more than %d bytes", ErrReaderLimit, r.opts.MaxBuffered))
	}
	if ci.ChunkLength < 9 {
		return fail(fmt.Errorf("chunk index gives length %d", ci.ChunkLength))
	}
	if uint64(cap(r.compressed)) < ci.ChunkLength {
		r.compressed = make([]byte, ci.ChunkLength)
	}
	raw := r.compressed[:ci.ChunkLength]
	if _, err := r.ra.ReadAt(raw, off); err != nil {
		return fail(err)
	}
	if mcap.OpCode(raw[0]) != mcap.OpChunk || binary.LittleEndian.Uint64(raw[1:9]) != ci.ChunkLength-9 {
		return fail(errors.New("chunk index does not point at a chunk record"))
	}
	c := r.spareChunk()
	if err := r.decodeChunk(raw[9:], c); err != nil {
		r.spare = append(r.spare, c)
		return fail(err)
	}
	c.offset = off
	c.seq = r.loads
	r.loads++
	if len(c.ents) == 0 {
		r.spare = append(r.spare, c)
		return nil
	}
	r.buffered += int64(len(c.buf))
	r.active = append(r.active, c)
	return nil
}

func (r *Reader) retire(c *loadedChunk) {
	r.buffered -= int64(len(c.buf))
	r.active = slices.DeleteFunc(r.active, func(a *loadedChunk) bool { return a == c })
	r.spare = append(r.spare, c)
}

func (r *Reader) spareChunk() *loadedChunk {
	if n := len(r.spare); n > 0 {
		c := r.spare[n-1]
		r.spare = r.spare[:n-1]
		c.ents, c.next = c.ents[:0], 0
		return c
	}
	return &loadedChunk{}
}

// checkStatistics compares the messages found in the chunks with the
// summary's per-channel counts at the end of an indexed read.
func (r *Reader) checkStatistics() error {
	if r.stats == nil {
		return io.EOF
	}
	for _, id := range slices.Sorted(maps.Keys(r.stats.ChannelMessageCounts)) {
		if want, got := r.stats.ChannelMessageCounts[id], r.seen[id]; want != got {
			return fmt.Errorf("%w: channel %d: statistics say %d messages, chunks hold %d",
				ErrInconsistentSummary, id, want, got)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(r.seen)) {
		if _, ok := r.stats.ChannelMessageCounts[id]; !ok && len(r.stats.ChannelMessageCounts) > 0 {
			return fmt.Errorf("%w: channel %d: chunks hold %d messages, statistics none",
				ErrInconsistentSummary, id, r.seen[id])
		}
	}
	return io.EOF
}

// --- chunks ---

// decodeChunk verifies and decompresses a chunk record body into c:
// declarations take effect at once, messages of returned channels are kept
// (sorted by log time for an indexed read).
func (r *Reader) decodeChunk(body []byte, c *loadedChunk) error {
	records, err := r.dec.decode(body, c.buf[:0])
	if err != nil {
		return err
	}
	// Entries point into the chunk's own buffer: valid until the chunk is
	// decoded into again, after its last message was returned.
	c.buf = records
	for off := 0; off < len(records); {
		if len(records)-off < 9 {
			return fmt.Errorf("record header cut short at chunk byte %d", off)
		}
		op := mcap.OpCode(records[off])
		length := binary.LittleEndian.Uint64(records[off+1:])
		if length > uint64(len(records)-off-9) {
			return fmt.Errorf("%s record at chunk byte %d claims %d bytes, %d left", op, off, length, len(records)-off-9)
		}
		rec := records[off+9 : off+9+int(length)]
		off += 9 + int(length)
		switch op {
		case mcap.OpSchema, mcap.OpChannel:
			if err := r.declare(op, rec); err != nil {
				return err
			}
		case mcap.OpMessage:
			if err := r.account(rec); err != nil {
				return err
			}
			if cs := r.channels[r.msg.ChannelID]; cs == nil || !cs.deliver {
				continue
			}
			c.ents = append(c.ents, msgEntry{logTime: r.msg.LogTime, off: off - int(length), end: off})
		case mcap.OpChunk:
			return errors.New("nested chunk")
		}
	}
	if r.indexed && !slices.IsSortedFunc(c.ents, cmpEntry) {
		slices.SortStableFunc(c.ents, cmpEntry)
	}
	return nil
}

func cmpEntry(a, b msgEntry) int { return cmp.Compare(a.logTime, b.logTime) }

// account parses a message record into r.msg, counts it per channel and
// counts it as skipped on a problem channel.
func (r *Reader) account(body []byte) error {
	if err := r.msg.PopulateFrom(body, false); err != nil {
		return err
	}
	id := r.msg.ChannelID
	if r.seen != nil {
		r.seen[id]++
	}
	cs, ok := r.channels[id]
	if !ok && r.ignored[id] {
		return nil
	}
	if !ok {
		cs = &chanState{ch: Channel{ID: id}}
		r.channels[id] = cs
		r.report(cs, fmt.Errorf("%w: message on undeclared channel %d", ErrBadChannel, id))
	}
	if cs.problem != nil {
		cs.problem.Skipped++
	}
	return nil
}

// declare handles a schema or channel record met while reading.
func (r *Reader) declare(op mcap.OpCode, body []byte) error {
	if op == mcap.OpSchema {
		s, err := mcap.ParseSchema(body)
		if err != nil {
			return err
		}
		return r.addSchema(s)
	}
	c, err := mcap.ParseChannel(body)
	if err != nil {
		return err
	}
	return r.addChannel(c)
}

// reset forgets the declarations taken from a summary that is not used.
func (r *Reader) reset() {
	clear(r.schemas)
	clear(r.channels)
	clear(r.ignored)
	r.problems = nil
	r.declBytes = 0
}

// budget counts declaration bytes against MaxChunkSize, so that a file
// cannot make the reader hold unbounded schemas and channels.
func (r *Reader) budget(n int) error {
	r.declBytes += int64(n)
	if r.declBytes > r.opts.MaxChunkSize {
		return fmt.Errorf("%w: schemas and channels exceed %d bytes", ErrReaderLimit, r.opts.MaxChunkSize)
	}
	return nil
}

func (r *Reader) addSchema(s *mcap.Schema) error {
	if s.ID == 0 {
		return errors.New("schema with ID 0")
	}
	if old, ok := r.schemas[s.ID]; ok {
		if old.Name != s.Name || old.Encoding != s.Encoding || !bytes.Equal(old.Data, s.Data) {
			return fmt.Errorf("schema %d redeclared as %q (was %q)", s.ID, s.Name, old.Name)
		}
		return nil
	}
	if err := r.budget(len(s.Name) + len(s.Encoding) + len(s.Data)); err != nil {
		return err
	}
	// Schemas parsed from a reused buffer would change under us.
	s.Data = bytes.Clone(s.Data)
	r.schemas[s.ID] = s
	return nil
}

func (r *Reader) addChannel(c *mcap.Channel) error {
	if r.topics != nil && !r.topics[c.Topic] {
		r.ignored[c.ID] = true
		return nil
	}
	ch := Channel{
		ID:              c.ID,
		Topic:           c.Topic,
		MessageEncoding: c.MessageEncoding,
		Metadata:        c.Metadata,
	}
	s := r.schemas[c.SchemaID]
	if s != nil {
		ch.SchemaName, ch.SchemaEncoding, ch.SchemaText = s.Name, s.Encoding, string(s.Data)
	}
	if q, ok := c.Metadata[MetadataOfferedQoS]; ok {
		ch.QoS, ch.QoSErr = ros2.ParseOfferedQoSProfiles(q)
	}
	if old, ok := r.channels[c.ID]; ok {
		o := old.ch
		if old.problem == nil && (o.Topic != ch.Topic || o.SchemaName != ch.SchemaName ||
			o.MessageEncoding != ch.MessageEncoding || o.SchemaText != ch.SchemaText) {
			r.report(old, fmt.Errorf("%w: channel %d redeclared as %s (%s), was %s (%s)",
				ErrBadChannel, c.ID, ch.Topic, ch.SchemaName, o.Topic, o.SchemaName))
		}
		return nil
	}
	n := len(ch.Topic) + len(ch.MessageEncoding) + len(ch.SchemaText)
	for k, v := range ch.Metadata {
		n += len(k) + len(v)
	}
	if err := r.budget(n); err != nil {
		return err
	}
	cs := &chanState{ch: ch, deliver: true}
	r.channels[c.ID] = cs
	if err := r.check(c, s); err != nil {
		r.report(cs, err)
	}
	return nil
}

// check applies the ROS 2 profile rules and the caller's expectations.
func (r *Reader) check(c *mcap.Channel, s *mcap.Schema) error {
	switch {
	case c.SchemaID == 0:
		return fmt.Errorf("%w: channel %d (%s) has no schema", ErrBadChannel, c.ID, c.Topic)
	case s == nil:
		return fmt.Errorf("%w: channel %d (%s) refers to undeclared schema %d", ErrBadChannel, c.ID, c.Topic, c.SchemaID)
	case s.Encoding != SchemaEncodingROS2Msg:
		return fmt.Errorf("%w: channel %d (%s): schema encoding %q, want %q",
			ErrUnsupportedEncoding, c.ID, c.Topic, s.Encoding, SchemaEncodingROS2Msg)
	case c.MessageEncoding != MessageEncodingCDR:
		return fmt.Errorf("%w: channel %d (%s): message encoding %q, want %q",
			ErrUnsupportedEncoding, c.ID, c.Topic, c.MessageEncoding, MessageEncodingCDR)
	}
	if want, ok := r.opts.Schemas[c.Topic]; ok && !SameMessageType(want, s.Name) {
		return fmt.Errorf("%w: channel %d (%s) has schema %q, want %q", ErrUnexpectedSchema, c.ID, c.Topic, s.Name, want)
	}
	if r.opts.CheckSchema != nil {
		if err := r.opts.CheckSchema(s.Name, string(s.Data)); err != nil {
			return fmt.Errorf("%w: channel %d (%s), schema %q: %w", ErrUnexpectedSchema, c.ID, c.Topic, s.Name, err)
		}
	}
	return nil
}

func (r *Reader) report(cs *chanState, err error) {
	cs.deliver = false
	cs.problem = &ChannelProblem{Channel: cs.ch, Err: err}
	r.problems = append(r.problems, cs.problem)
	if r.opts.OnProblem != nil {
		r.opts.OnProblem(*cs.problem)
	}
}

// SameMessageType reports whether two ROS message type names denote the
// same type, accepting both "pkg/msg/Type" and "pkg/Type".
func SameMessageType(a, b string) bool {
	return canonicalType(a) == canonicalType(b)
}

func canonicalType(s string) string {
	if pkg, rest, ok := strings.Cut(s, "/"); ok {
		if name, ok := strings.CutPrefix(rest, "msg/"); ok && !strings.Contains(name, "/") {
			return pkg + "/" + name
		}
	}
	return s
}
