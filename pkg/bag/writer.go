package bag

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/wire/qos"
)

// Format constants of rosbag2's MCAP storage: header profile, schema and
// message encodings, and the metadata key of the offered QoS profiles.
const (
	ProfileROS2           = "ros2"
	SchemaEncodingROS2Msg = "ros2msg"
	MessageEncodingCDR    = "cdr"
	MetadataOfferedQoS    = "offered_qos_profiles"
)

// Compression selects how a Recorder compresses chunks.
type Compression string

// Chunk compressions. Zstd runs at its fastest level: on ghost's messages
// it compresses about as well as the default level at a fraction of the CPU.
const (
	CompressionZstd Compression = "zstd"
	CompressionLZ4  Compression = "lz4"  // LZ4 frames
	CompressionNone Compression = "none" // an empty compression field
)

// Defaults of RecorderOptions.
const (
	// DefaultChunkSize (uncompressed) loses little in a crash and costs
	// readers little memory, with under 0.1 % of index overhead.
	DefaultChunkSize = 1 << 20
	// DefaultChunkSpan keeps a low-rate topic (/decisions) off the disk for
	// no more than a second.
	DefaultChunkSpan = time.Second
	DefaultLibrary   = "ghost" // the MCAP header's library string
	// Chunks are written in dispatch order whatever the lanes' timing.
	chunkLanes       = 2
	maxBatchPrealloc = 4 << 20 // bounds the buffer reserved up front for a chunk
	// msgRecordHeader: opcode, length, channel ID, sequence, log and publish time.
	msgRecordHeader = 1 + 8 + 2 + 4 + 8 + 8
)

// Errors of the Recorder. Callers branch on them with errors.Is.
var (
	ErrRecorderClosed  = errors.New("recorder closed") // Close was called
	ErrUnknownChannel  = errors.New("unknown channel") // not handed out by this Recorder
	ErrChannelConflict = errors.New("topic already recorded with a different schema or QoS")
)

// RecorderOptions configure a Recorder; the zero value is a good default.
type RecorderOptions struct {
	// Compression is the chunk compression; "" means CompressionZstd.
	Compression Compression
	// ChunkSize is the uncompressed size at which the open chunk is closed;
	// 0 means DefaultChunkSize. A single larger message makes one chunk.
	ChunkSize int64
	// ChunkSpan is the log-time span at which the open chunk is closed; 0
	// means DefaultChunkSpan, a negative value disables the bound.
	ChunkSpan time.Duration
	// NoSync skips CreateRecording's fsync after every chunk; Close syncs.
	NoSync bool
	// WaitChunks makes a Write that closes a chunk return once it is written
	// (and synced): a crash then loses the open chunk only.
	WaitChunks bool
	// Metadata are MCAP metadata records (name, then key-value pairs)
	// written right after the header, in name order: what a reader should
	// know before the first message, such as a restart.
	Metadata map[string]map[string]string
	// Buffers, if set, are shared with the other Recorders given them,
	// such as the files of one split recording; nil: the Recorder's own.
	Buffers *Buffers
}

// ChannelID identifies a channel of a Recorder. Zero is never a valid ID.
type ChannelID uint16

// RecorderStats count the messages Write accepted and the chunks and bytes written.
type RecorderStats struct {
	Messages uint64
	Chunks   uint32
	Bytes    uint64
}

// Recorder writes a rosbag2-compatible MCAP recording; it is safe for
// concurrent use. After an output error every call fails with it: MCAP has
// no way to resume a damaged stream.
type Recorder struct {
	mu         sync.Mutex // guards the caller side
	comp       mcap.CompressionFormat
	chunkSize  int64
	chunkSpan  uint64 // nanoseconds of log time; 0 = unbounded
	waitChunks bool
	schemaIDs  map[schemaKey]uint16
	channels   []recChannel // index = ChannelID-1
	topics     map[string]ChannelID
	decls      []decl // append-only
	messages   uint64
	open       *batch
	seq        uint64 // batches dispatched
	closed     bool
	closeErr   error

	lanes chan *batch   // to the lanes' compressors, in any order
	queue chan *batch   // batches in dispatch order, for the output goroutine
	bufs  *Buffers      // where batches and compressors come from and go back to
	done  chan struct{} // closed when the output goroutine ends

	// the output goroutine's until done, then Close's
	w        *mcap.Writer
	file     *os.File
	name     string // of the output, in errors
	sync     bool
	declared int          // decls written
	index    chunkIndexes // the written chunks' entries, until the summary

	progMu   sync.Mutex
	progress *sync.Cond // signalled when a batch is written
	written  uint64     // batches written or dropped
	chunks   uint32
	bytes    uint64
	err      atomic.Pointer[error] // sticky output error
}

type schemaKey struct{ name, text string }

type recChannel struct {
	topic, schemaName, schemaText, qos string
	count                              uint64 // messages written; the sequence field wraps
}

// decl writes a schema or a channel record.
type decl func(*mcap.Writer) error

// batch is one chunk on its way through the pipeline.
type batch struct {
	decls       []decl // snapshot: every declaration up to the dispatch
	recs        []byte // the chunk's message records, uncompressed
	first, last uint64 // log-time bounds

	chunk mcap.Chunk           // from the lane, Records pointing into out or recs
	out   []byte               // compressed records
	index []*mcap.MessageIndex // by channel ID, reused; the Writer skips the empty ones
	err   error
	ready chan struct{} // signalled by the lane
}

// NewRecorder starts a recording on w; the caller closes w after Close.
func NewRecorder(w io.Writer, opts RecorderOptions) (*Recorder, error) {
	return newRecorder(w, nil, opts)
}

// CreateRecording starts a recording in a new file path (a recording is
// never overwritten) that `ros2 bag info` and `ros2 bag play` read.
func CreateRecording(path string, opts RecorderOptions) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create recording: %w", err)
	}
	r, err := newRecorder(f, f, opts)
	if err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("create recording %s: %w", path, err)
	}
	return r, nil
}

// newRecorder writes the header and starts the pipeline; file, if set, is out.
func newRecorder(out io.Writer, file *os.File, opts RecorderOptions) (*Recorder, error) {
	r := &Recorder{schemaIDs: make(map[schemaKey]uint16), topics: make(map[string]ChannelID), name: "recording",
		chunkSize: cmp.Or(opts.ChunkSize, DefaultChunkSize), waitChunks: opts.WaitChunks}
	comp, ok := map[Compression]mcap.CompressionFormat{"": mcap.CompressionZSTD, CompressionZstd: mcap.CompressionZSTD,
		CompressionLZ4: mcap.CompressionLZ4, CompressionNone: mcap.CompressionNone}[opts.Compression]
	if !ok {
		return nil, fmt.Errorf("recorder options: compression %s: want zstd, lz4 or none", clip(string(opts.Compression)))
	}
	r.comp = comp
	if opts.ChunkSize < 0 {
		return nil, fmt.Errorf("recorder options: chunk size %d is negative", opts.ChunkSize)
	}
	if opts.ChunkSpan >= 0 {
		r.chunkSpan = uint64(cmp.Or(opts.ChunkSpan, DefaultChunkSpan))
	}
	// Not Chunked: chunks come whole from the lanes.
	w, err := mcap.NewWriter(out, &mcap.WriterOptions{IncludeCRC: true, OverrideLibrary: true})
	if err == nil {
		err = w.WriteHeader(&mcap.Header{Profile: ProfileROS2, Library: DefaultLibrary + "; mcap go " + mcap.Version})
	}
	if err != nil {
		return nil, fmt.Errorf("write mcap header: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Metadata)) {
		if err := w.WriteMetadata(&mcap.Metadata{Name: name, Metadata: opts.Metadata[name]}); err != nil {
			return nil, fmt.Errorf("write mcap metadata %s: %w", clip(name), err)
		}
	}
	if file != nil {
		// An interrupted recording is still recognisable as MCAP.
		if err := file.Sync(); err != nil {
			return nil, err
		}
		r.file, r.name, r.sync = file, "recording "+file.Name(), !opts.NoSync
	}
	r.w, r.bytes = w, w.Offset()
	r.progress = sync.NewCond(&r.progMu)
	r.queue = make(chan *batch, 2*chunkLanes)
	r.bufs = opts.Buffers
	if r.bufs == nil {
		r.bufs = NewBuffers()
	}
	r.done = make(chan struct{})
	r.lanes = make(chan *batch, chunkLanes)
	for range chunkLanes {
		go func() {
			for b := range r.lanes {
				// One per chunk, not per lane: Recorders sharing the
				// Buffers then need only as many as compress at once.
				c := r.bufs.compressor()
				b.err = r.seal(c, b)
				r.bufs.putCompressor(c)
				b.ready <- struct{}{}
			}
		}()
	}
	r.open = r.bufs.batch(r.chunkSize)
	go r.output()
	return r, nil
}

// AddChannel declares a topic with its ROS type ("pkg/msg/Type"), ros2msg
// schema text and offered QoS profiles. The same topic again returns its
// channel, or ErrChannelConflict if the schema or QoS differ.
func (r *Recorder) AddChannel(topic, schemaName, schemaText string, profiles ...qos.Profile) (ChannelID, error) {
	switch {
	case topic == "":
		return 0, errors.New("add channel: empty topic")
	case schemaName == "":
		return 0, fmt.Errorf("add channel %s: empty schema name", clip(topic))
	}
	for i, p := range profiles {
		if err := p.Validate(); err != nil {
			return 0, fmt.Errorf("add channel %s: qos[%d]: %w", clip(topic), i, err)
		}
	}
	qosText := qos.OfferedProfilesYAML(profiles...)

	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usable(); err != nil {
		return 0, fmt.Errorf("add channel %s: %w", clip(topic), err)
	}
	if id, ok := r.topics[topic]; ok {
		c := r.channels[id-1]
		if c.schemaName == schemaName && c.schemaText == schemaText && c.qos == qosText {
			return id, nil
		}
		return 0, fmt.Errorf("add channel %s (%s): %w: channel %d has %s",
			clip(topic), clip(schemaName), ErrChannelConflict, id, clip(c.schemaName))
	}
	if len(r.channels) >= math.MaxUint16 {
		return 0, fmt.Errorf("add channel %s: all 65535 channel IDs in use", clip(topic))
	}
	key := schemaKey{schemaName, schemaText}
	schemaID, ok := r.schemaIDs[key]
	if !ok { // a schema per channel at most: the channel bound covers its ID
		schemaID = uint16(len(r.schemaIDs) + 1)
		r.schemaIDs[key] = schemaID
		s := &mcap.Schema{ID: schemaID, Name: schemaName, Encoding: SchemaEncodingROS2Msg, Data: []byte(schemaText)}
		r.decls = append(r.decls, func(w *mcap.Writer) error { return w.WriteSchema(s) })
	}
	id := ChannelID(len(r.channels) + 1)
	c := &mcap.Channel{ID: uint16(id), SchemaID: schemaID, Topic: topic,
		MessageEncoding: MessageEncodingCDR, Metadata: map[string]string{MetadataOfferedQoS: qosText}}
	r.decls = append(r.decls, func(w *mcap.Writer) error { return w.WriteChannel(c) })
	r.channels = append(r.channels, recChannel{topic: topic, schemaName: schemaName, schemaText: schemaText, qos: qosText})
	r.topics[topic] = id
	return id, nil
}

// AddMessageChannel is AddChannel for a ghost message type ("Decision",
// "ghost/Decision" or "ghost/msg/Decision"), its schema from package msg.
func (r *Recorder) AddMessageChannel(topic, msgType string, profiles ...qos.Profile) (ChannelID, error) {
	text, err := msg.SchemaText(msgType)
	if err != nil {
		return 0, fmt.Errorf("add channel %s: schema of %s: %w", clip(topic), clip(msgType), err)
	}
	return r.AddChannel(topic, msg.SchemaName(msgType), text, profiles...)
}

// Write records a copy of one CDR message on channel ch with its receive
// (log) and send (publish) times in nanoseconds. It allocates nothing in
// steady state and returns an error from writing an earlier chunk.
func (r *Recorder) Write(ch ChannelID, logTime, publishTime uint64, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usable(); err != nil {
		return fmt.Errorf("write on channel %d: %w", ch, err)
	}
	if ch == 0 || int(ch) > len(r.channels) {
		return fmt.Errorf("write: %w: %d (have %d channels)", ErrUnknownChannel, ch, len(r.channels))
	}
	c := &r.channels[ch-1]
	if uint64(len(data)) > math.MaxUint32 {
		return fmt.Errorf("write on %s: message of %d bytes", clip(c.topic), len(data))
	}
	c.count++
	r.messages++
	b := r.open
	if len(b.recs) == 0 {
		b.first, b.last = logTime, logTime
	}
	b.first, b.last = min(b.first, logTime), max(b.last, logTime)
	le := binary.LittleEndian
	b.recs = append(b.recs, byte(mcap.OpMessage))
	b.recs = le.AppendUint64(b.recs, uint64(msgRecordHeader-9+len(data)))
	b.recs = le.AppendUint16(b.recs, uint16(ch))
	b.recs = le.AppendUint32(b.recs, uint32(c.count))
	b.recs = le.AppendUint64(b.recs, logTime)
	b.recs = le.AppendUint64(b.recs, publishTime)
	b.recs = append(b.recs, data...)

	if int64(len(b.recs)) < r.chunkSize && (r.chunkSpan == 0 || b.last-b.first < r.chunkSpan) {
		return nil
	}
	if !r.waitChunks {
		r.dispatch()
	} else if err := r.flushLocked(); err != nil {
		return fmt.Errorf("write on %s: %w", clip(c.topic), err)
	}
	return nil
}

// dispatch queues the open chunk for a lane and the output and, unless the
// Recorder is closing, opens the next; it blocks while the pipeline is full.
func (r *Recorder) dispatch() {
	b := r.open
	if len(b.recs) == 0 {
		return
	}
	b.decls = r.decls[:len(r.decls):len(r.decls)] // append-only: a stable prefix
	r.queue <- b
	r.lanes <- b
	r.seq++
	r.open = nil
	if !r.closed {
		r.open = r.bufs.batch(r.chunkSize)
	}
}

// seal builds b's message indexes and its compressed chunk.
func (r *Recorder) seal(c *compressor, b *batch) error {
	le := binary.LittleEndian
	for off := 0; off < len(b.recs); {
		id := int(le.Uint16(b.recs[off+9:]))
		for len(b.index) <= id {
			b.index = append(b.index, &mcap.MessageIndex{ChannelID: uint16(len(b.index))})
		}
		b.index[id].Add(le.Uint64(b.recs[off+15:]), uint64(off))
		off += 9 + int(le.Uint64(b.recs[off+1:]))
	}
	records, crc, err := c.compress(r.comp, b.recs, b.out[:0])
	if err != nil {
		return err
	}
	if r.comp != mcap.CompressionNone {
		b.out = records
	}
	b.chunk = mcap.Chunk{MessageStartTime: b.first, MessageEndTime: b.last, UncompressedSize: uint64(len(b.recs)),
		UncompressedCRC: crc, Compression: string(r.comp), Records: records}
	return nil
}

// output writes chunks in dispatch order.
func (r *Recorder) output() {
	defer close(r.done)
	for b := range r.queue {
		<-b.ready
		if r.failed() == nil {
			if err := r.writeChunk(b); err != nil {
				r.fail(err)
			}
		}
		for _, idx := range b.index {
			idx.Reset()
		}
		b.recs, b.decls, b.err, b.chunk = b.recs[:0], nil, nil, mcap.Chunk{}
		r.bufs.putBatch(b)
		r.progMu.Lock()
		r.written++
		r.chunks, r.bytes = r.w.Statistics.ChunkCount, r.w.Offset()
		r.progress.Broadcast()
		r.progMu.Unlock()
	}
}

// writeChunk writes the declarations made before b was dispatched, then b.
func (r *Recorder) writeChunk(b *batch) error {
	if b.err != nil {
		return fmt.Errorf("%s: compress chunk: %w", r.name, b.err)
	}
	if err := r.declare(b.decls); err != nil {
		return err
	}
	at, n := r.w.Offset(), len(r.w.ChunkIndexes)
	if err := r.w.WriteChunkWithIndexes(&b.chunk, b.index); err != nil {
		return fmt.Errorf("%s: write chunk at byte %d: %w", r.name, at, err)
	}
	if len(r.w.ChunkIndexes) > n {
		r.index.add(r.w.ChunkIndexes[n])
		r.w.ChunkIndexes[n] = nil
		r.w.ChunkIndexes = r.w.ChunkIndexes[:n]
	}
	if r.file != nil && r.sync {
		if err := r.file.Sync(); err != nil {
			return fmt.Errorf("%s: sync: %w", r.name, err)
		}
	}
	return nil
}

// declare writes the schema and channel records of decls not yet written.
func (r *Recorder) declare(decls []decl) error {
	for ; r.declared < len(decls); r.declared++ {
		if err := decls[r.declared](r.w); err != nil {
			return fmt.Errorf("%s: write declarations at byte %d: %w", r.name, r.w.Offset(), err)
		}
	}
	return nil
}

func (r *Recorder) fail(err error) { r.err.CompareAndSwap(nil, &err) }

func (r *Recorder) failed() error {
	if p := r.err.Load(); p != nil {
		return *p
	}
	return nil
}

// usable reports why the Recorder cannot take records. Called with mu held.
func (r *Recorder) usable() error {
	if r.closed {
		return ErrRecorderClosed
	}
	return r.failed()
}

// Err returns the output error that stopped the recording, or nil: after
// it every call fails, and the file holds what was written before.
func (r *Recorder) Err() error { return r.failed() }

// Flush writes (and syncs) every chunk, returning the first output error:
// on a timer, it bounds in wall time what a crash can lose.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrRecorderClosed
	}
	return r.flushLocked()
}

// flushLocked dispatches the open chunk and waits, unlocked, until it is written.
func (r *Recorder) flushLocked() error {
	r.dispatch()
	target := r.seq
	r.mu.Unlock()
	r.progMu.Lock()
	for r.written < target {
		r.progress.Wait()
	}
	r.progMu.Unlock()
	r.mu.Lock()
	return r.failed()
}

// Compression returns how r compresses its chunks (zstd for "").
func (r *Recorder) Compression() Compression {
	switch r.comp {
	case mcap.CompressionZSTD:
		return CompressionZstd
	case mcap.CompressionLZ4:
		return CompressionLZ4
	}
	return CompressionNone
}

// Stats returns the Recorder's counters.
func (r *Recorder) Stats() RecorderStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progMu.Lock()
	defer r.progMu.Unlock()
	return RecorderStats{Messages: r.messages, Chunks: r.chunks, Bytes: r.bytes}
}

// Close writes the open chunk and the summary, then syncs and closes the file
// of CreateRecording; later calls return the first call's result.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.closeErr
	}
	r.closed = true
	r.dispatch()
	close(r.queue)
	close(r.lanes)
	<-r.done
	// The chunk buffers go back for the Recorders sharing them, or with
	// the Recorder's own set to the collector, before the summary's index
	// entries need memory.
	if r.open != nil {
		r.bufs.putBatch(r.open)
	}
	r.open, r.bufs = nil, nil
	err := r.failed()
	if err == nil {
		err = r.finish()
	}
	if r.file != nil {
		if err == nil {
			if serr := r.file.Sync(); serr != nil {
				err = fmt.Errorf("%s: sync: %w", r.name, serr)
			}
		}
		if cerr := r.file.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", r.name, cerr)
		}
	}
	r.closeErr = err
	return err
}

// finish declares the channels no chunk needed and writes the summary.
func (r *Recorder) finish() error {
	if err := r.declare(r.decls); err != nil {
		return err
	}
	// The Writer takes a zero start time for unset.
	st := r.w.Statistics
	st.MessageCount = r.messages
	for i, e := range r.index.entries {
		if i == 0 || e.start < st.MessageStartTime {
			st.MessageStartTime = e.start
		}
	}
	for i, c := range r.channels {
		if c.count > 0 {
			st.ChannelMessageCounts[uint16(i+1)] = c.count
		}
	}
	r.w.ChunkIndexes, r.index = r.index.writerIndexes(), chunkIndexes{}
	err := r.w.Close()
	r.progMu.Lock()
	r.bytes = r.w.Offset()
	r.progMu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: summary: %w", r.name, err)
	}
	return nil
}
