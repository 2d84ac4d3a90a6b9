package bag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/ghost-robotics/ghost/msg"
	"github.com/ghost-robotics/ghost/pkg/ros2"
)

// Recording format constants of the rosbag2 MCAP storage plugin (and of the
// MCAP "ros2" profile).
const (
	// ProfileROS2 is the MCAP header profile of ROS 2 recordings.
	ProfileROS2 = "ros2"
	// SchemaEncodingROS2Msg is the schema encoding of ROS 2 .msg schemas.
	SchemaEncodingROS2Msg = "ros2msg"
	// MessageEncodingCDR is the message encoding of ROS 2 serialized messages.
	MessageEncodingCDR = "cdr"
	// MetadataOfferedQoS is the channel metadata key holding the publishers'
	// QoS profiles (see ros2.OfferedQoSProfilesYAML).
	MetadataOfferedQoS = "offered_qos_profiles"
)

// Compression selects how a Recorder compresses chunks.
type Compression string

// Chunk compressions.
const (
	// CompressionZstd is zstd at its fastest level: on ghost's messages it
	// compresses about as well as the default level at a fraction of the CPU.
	CompressionZstd Compression = "zstd"
	// CompressionLZ4 is LZ4 frames.
	CompressionLZ4 Compression = "lz4"
	// CompressionNone stores chunks uncompressed (an empty compression field
	// in the file).
	CompressionNone Compression = "none"
)

// Defaults of RecorderOptions.
const (
	// DefaultChunkSize bounds a chunk to 1 MiB of uncompressed records:
	// small enough that a crash loses little and a reader needs little memory,
	// large enough that per-chunk index overhead stays below 0.1 %.
	DefaultChunkSize = 1 << 20
	// DefaultChunkSpan closes a chunk once it covers one second of log time,
	// so that a low-rate topic such as /decisions does not sit in memory for
	// minutes before it reaches the disk.
	DefaultChunkSpan = time.Second
	// DefaultLibrary is the library string written into the MCAP header.
	DefaultLibrary = "ghost"
	// chunkLanes is the number of chunk compressors. Chunk k goes to lane
	// k mod chunkLanes, each with its own mcap.Writer, so the file depends
	// only on the calls made, never on scheduling or the number of CPUs.
	// Two lanes use two cores; each costs a zstd encoder (about 16 MiB).
	chunkLanes = 2
	// maxBatchPrealloc bounds the buffer reserved up front for a chunk.
	maxBatchPrealloc = 4 << 20
)

// Errors of the Recorder. Callers branch on them with errors.Is.
var (
	// ErrRecorderClosed is returned by calls on a closed Recorder.
	ErrRecorderClosed = errors.New("recorder closed")
	// ErrUnknownChannel is returned by Write for a channel the Recorder did
	// not hand out.
	ErrUnknownChannel = errors.New("unknown channel")
	// ErrChannelConflict is returned by AddChannel for a topic that already
	// has a channel with a different schema or QoS.
	ErrChannelConflict = errors.New("topic already recorded with a different schema or QoS")
)

// RecorderOptions configure a Recorder. The zero value is a good default:
// zstd, 1 MiB / 1 s chunks, fsync after every chunk.
type RecorderOptions struct {
	// Compression is the chunk compression; "" means CompressionZstd.
	Compression Compression
	// ChunkSize is the uncompressed size in bytes at which the open chunk is
	// closed; 0 means DefaultChunkSize. A single larger message still makes
	// one (larger) chunk.
	ChunkSize int64
	// ChunkSpan is the log-time span at which the open chunk is closed,
	// checked when a message is written; 0 means DefaultChunkSpan, a negative
	// value disables the bound.
	ChunkSpan time.Duration
	// Library is the header's library field; "" means DefaultLibrary. The
	// MCAP library version is appended either way.
	Library string
	// NoSync, for CreateRecording only, skips the fsync after every written
	// chunk; default false, so a power loss loses no more than a crash.
	// Close always syncs.
	NoSync bool
	// WaitChunks makes a Write that closes a chunk return only once that
	// chunk is written (and, for CreateRecording, synced), so a crash loses
	// at most the open chunk. Default false: Write never waits for the
	// compressors, and a crash may also lose the few closed chunks still
	// being compressed.
	WaitChunks bool
}

// ChannelID identifies a channel of a Recorder. Zero is never a valid ID.
type ChannelID uint16

// RecorderStats are counters of a Recorder, for diagnostics.
type RecorderStats struct {
	// Messages is the number of messages accepted by Write.
	Messages uint64
	// Chunks is the number of chunks written to the output.
	Chunks uint32
	// Bytes is the number of bytes written to the output.
	Bytes uint64
}

// Recorder writes a rosbag2-compatible MCAP recording: profile "ros2",
// ros2msg schemas, CDR messages with offered_qos_profiles metadata, chunked
// and compressed, with message indexes, chunk indexes, statistics, repeated
// schemas and channels and summary offsets in the summary section, and CRCs.
//
// Write only appends the message to the open chunk. A closed chunk is
// compressed on one of two goroutines, in parallel with the next one, and
// written to the output in order together with its message indexes, then
// (CreateRecording) synced. So Write neither compresses nor waits for the
// disk unless the compressors fall behind, and an output error surfaces on
// a later call. The file depends only on the calls made.
//
// Crash guarantee: a crash loses the open chunk (at most ChunkSize bytes or
// ChunkSpan of log time) and, unless WaitChunks is set, the closed chunks
// not yet written: at most five, normally none, since compressing a chunk
// takes milliseconds.
// Flush writes everything accepted so far. The file up to the last written
// chunk reads with OpenRecording (as a stream: the summary is missing).
// Close writes the summary, so a closed recording is complete and indexed,
// even when no message was written.
//
// A Recorder is safe for concurrent use; Close releases its goroutines.
// After an output error every further call fails with that error: MCAP has
// no way to resume a damaged stream.
type Recorder struct {
	mu        sync.Mutex
	comp      mcap.CompressionFormat
	chunkSize int64
	chunkSpan uint64 // nanoseconds of log time; 0 = unbounded
	// waitChunks: Write waits for the chunk it closes to be written.
	waitChunks bool

	// caller side, guarded by mu
	schemas   []*mcap.Schema
	schemaIDs map[schemaKey]uint16
	channels  []recChannel // index = ChannelID-1
	topics    map[string]ChannelID
	decls     []decl // schema and channel declarations, append-only
	stats     mcap.Statistics
	open      *batch
	seq       uint64 // batches dispatched
	chanRecs  []*mcap.Channel
	closed    bool
	closeErr  error
	firstSeen bool

	// pipeline
	workers []chan *batch
	queue   chan *batch // batches in dispatch order, for the output goroutine
	free    chan *batch
	done    chan struct{} // closed when the output goroutine ends
	flushMu sync.Mutex
	flushed *sync.Cond // signalled when a batch is written
	written uint64     // batches written or dropped, guarded by flushMu

	// output side, owned by the output goroutine until done
	out      io.Writer
	file     *os.File
	path     string
	sync     bool
	offset   uint64
	crc      uint32
	chunkIdx []*mcap.ChunkIndex

	nChunks atomic.Uint32
	nBytes  atomic.Uint64
	errMu   sync.Mutex
	err     error       // sticky output error
	errSet  atomic.Bool // err != nil, readable without the lock
}

type schemaKey struct{ name, text string }

type recChannel struct {
	topic      string
	schemaName string
	schemaText string
	qos        string
	seq        uint32
	count      uint64 // messages written
}

// decl is a schema or channel record every chunk writer must know before
// it writes messages on the channel.
type decl struct {
	schema  *mcap.Schema
	channel *mcap.Channel
}

// batch is one chunk's worth of messages on its way through the pipeline.
type batch struct {
	decls []decl // snapshot: every declaration up to the dispatch
	recs  []byte // messages as [channel u16][seq u32][log u64][pub u64][len u32][data]
	first uint64 // log-time bounds
	last  uint64
	n     int
	size  int64 // uncompressed record bytes, as MCAP counts them

	out   []byte           // chunk record and message indexes, from a worker
	index *mcap.ChunkIndex // offsets relative to out
	err   error
	ready chan struct{} // signalled by the worker
}

func (r *Recorder) newBatch() *batch {
	// Reserving the chunk's size up front spares the append doublings.
	return &batch{
		ready: make(chan struct{}, 1),
		recs:  make([]byte, 0, min(r.chunkSize, maxBatchPrealloc)+batchMsgHeader+64),
	}
}

const batchMsgHeader = 2 + 4 + 8 + 8 + 4

// NewRecorder starts a recording on w and writes the MCAP header. The
// caller closes w after Close; the Recorder never closes it.
func NewRecorder(w io.Writer, opts RecorderOptions) (*Recorder, error) {
	r, err := newRecorder(w, opts)
	if err != nil {
		return nil, err
	}
	r.start()
	return r, nil
}

// CreateRecording creates the file path (which must not exist: a recording
// is never overwritten) and starts a recording in it. This bare .mcap file
// is what `ros2 bag info` and `ros2 bag play` read with MCAP storage; no
// metadata.yaml or directory is needed. Close syncs and closes the file.
func CreateRecording(path string, opts RecorderOptions) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create recording: %w", err)
	}
	r, err := newRecorder(f, opts)
	if err == nil {
		// The header is on disk at once, so even an interrupted recording
		// is recognisable as MCAP.
		err = f.Sync()
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("create recording %s: %w", path, err)
	}
	r.file, r.path, r.sync = f, path, !opts.NoSync
	r.start()
	return r, nil
}

func newRecorder(w io.Writer, opts RecorderOptions) (*Recorder, error) {
	r := &Recorder{
		schemaIDs: make(map[schemaKey]uint16),
		topics:    make(map[string]ChannelID),
		out:       w,
	}
	switch opts.Compression {
	case "", CompressionZstd:
		r.comp = mcap.CompressionZSTD
	case CompressionLZ4:
		r.comp = mcap.CompressionLZ4
	case CompressionNone:
		r.comp = mcap.CompressionNone
	default:
		return nil, fmt.Errorf("recorder options: compression %q: want zstd, lz4 or none", opts.Compression)
	}
	switch {
	case opts.ChunkSize < 0:
		return nil, fmt.Errorf("recorder options: chunk size %d is negative", opts.ChunkSize)
	case opts.ChunkSize == 0:
		r.chunkSize = DefaultChunkSize
	default:
		r.chunkSize = opts.ChunkSize
	}
	r.waitChunks = opts.WaitChunks
	switch {
	case opts.ChunkSpan == 0:
		r.chunkSpan = uint64(DefaultChunkSpan)
	case opts.ChunkSpan > 0:
		r.chunkSpan = uint64(opts.ChunkSpan)
	}
	lib := opts.Library
	if lib == "" {
		lib = DefaultLibrary
	}
	var head bytes.Buffer
	hw, err := mcap.NewWriter(&head, &mcap.WriterOptions{OverrideLibrary: true})
	if err == nil {
		err = hw.WriteHeader(&mcap.Header{Profile: ProfileROS2, Library: lib + "; mcap go " + mcap.Version})
	}
	if err == nil {
		err = r.emit(head.Bytes())
	}
	if err != nil {
		return nil, fmt.Errorf("write mcap header: %w", err)
	}
	return r, nil
}

// start launches the compressors and the output goroutine.
func (r *Recorder) start() {
	n := chunkLanes
	r.flushed = sync.NewCond(&r.flushMu)
	r.queue = make(chan *batch, 2*n)
	r.free = make(chan *batch, 3*n+1)
	r.done = make(chan struct{})
	r.workers = make([]chan *batch, n)
	for i := range r.workers {
		in := make(chan *batch, 1)
		r.workers[i] = in
		go r.work(in)
	}
	r.open = r.newBatch()
	go r.output()
}

// AddChannel declares a topic with its message type and returns the channel
// to Write to. schemaName is the ROS type ("ghost/msg/DecisionRationale",
// "diagnostic_msgs/msg/DiagnosticArray"), schemaText the complete ros2msg
// schema text. Each distinct schema gets one schema record however many
// channels share it (in the data section once per compression lane, since
// each lane's writer must know it; in the summary once). qos are the
// publishers' offered profiles, recorded as rosbag2 does (none gives "[]").
// Adding the same topic again with the same schema and QoS returns the
// existing channel; with another, ErrChannelConflict.
func (r *Recorder) AddChannel(topic, schemaName, schemaText string, qos ...ros2.QoSProfile) (ChannelID, error) {
	switch {
	case topic == "":
		return 0, errors.New("add channel: empty topic")
	case schemaName == "":
		return 0, fmt.Errorf("add channel %s: empty schema name", topic)
	}
	for i, p := range qos {
		if err := p.Validate(); err != nil {
			return 0, fmt.Errorf("add channel %s: qos[%d]: %w", topic, i, err)
		}
	}
	qosText := ros2.OfferedQoSProfilesYAML(qos...)

	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usable(); err != nil {
		return 0, fmt.Errorf("add channel %s: %w", topic, err)
	}
	if id, ok := r.topics[topic]; ok {
		c := r.channels[id-1]
		if c.schemaName == schemaName && c.schemaText == schemaText && c.qos == qosText {
			return id, nil
		}
		return 0, fmt.Errorf("add channel %s (%s): %w: channel %d has %s", topic, schemaName, ErrChannelConflict, id, c.schemaName)
	}
	if len(r.channels) >= math.MaxUint16 {
		return 0, fmt.Errorf("add channel %s: all 65535 channel IDs in use", topic)
	}
	key := schemaKey{schemaName, schemaText}
	schemaID, ok := r.schemaIDs[key]
	if !ok {
		if len(r.schemas) >= math.MaxUint16 {
			return 0, fmt.Errorf("add channel %s: all 65535 schema IDs in use", topic)
		}
		s := &mcap.Schema{
			ID:       uint16(len(r.schemas) + 1),
			Name:     schemaName,
			Encoding: SchemaEncodingROS2Msg,
			Data:     []byte(schemaText),
		}
		r.schemas = append(r.schemas, s)
		r.schemaIDs[key] = s.ID
		r.decls = append(r.decls, decl{schema: s})
		schemaID = s.ID
	}
	id := ChannelID(len(r.channels) + 1)
	c := &mcap.Channel{
		ID:              uint16(id),
		SchemaID:        schemaID,
		Topic:           topic,
		MessageEncoding: MessageEncodingCDR,
		Metadata:        map[string]string{MetadataOfferedQoS: qosText},
	}
	r.chanRecs = append(r.chanRecs, c)
	r.decls = append(r.decls, decl{channel: c})
	r.channels = append(r.channels, recChannel{
		topic: topic, schemaName: schemaName, schemaText: schemaText, qos: qosText,
	})
	r.topics[topic] = id
	return id, nil
}

// AddMessageChannel is AddChannel for a ghost message type, named "Decision",
// "ghost/Decision" or "ghost/msg/Decision": the schema name and text come
// from package msg.
func (r *Recorder) AddMessageChannel(topic, msgType string, qos ...ros2.QoSProfile) (ChannelID, error) {
	text, err := msg.SchemaText(msgType)
	if err != nil {
		return 0, fmt.Errorf("add channel %s: schema of %q: %w", topic, msgType, err)
	}
	return r.AddChannel(topic, msg.SchemaName(msgType), text, qos...)
}

// Write records one serialized (CDR) message on channel ch. logTime is the
// receive time and publishTime the send time, both in nanoseconds; each
// channel numbers its messages 1, 2, ... in the sequence field. Write copies
// data and does not retain it. It allocates nothing per message in steady
// state; it blocks only when the workers fall behind. An error from writing
// an earlier chunk is returned here.
func (r *Recorder) Write(ch ChannelID, logTime, publishTime uint64, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usable(); err != nil {
		return fmt.Errorf("write on channel %d: %w", ch, err)
	}
	if ch == 0 || int(ch) > len(r.channels) {
		return fmt.Errorf("write: %w: %d (have %d channels)", ErrUnknownChannel, ch, len(r.channels))
	}
	if uint64(len(data)) > math.MaxUint32 {
		return fmt.Errorf("write on %s: message of %d bytes", r.channels[ch-1].topic, len(data))
	}
	c := &r.channels[ch-1]
	c.seq++

	b := r.open
	if b.n == 0 {
		b.first, b.last = logTime, logTime
	} else {
		b.first, b.last = min(b.first, logTime), max(b.last, logTime)
	}
	b.n++
	b.size += 9 + batchMsgHeader - 4 + int64(len(data))
	b.recs = binary.LittleEndian.AppendUint16(b.recs, uint16(ch))
	b.recs = binary.LittleEndian.AppendUint32(b.recs, c.seq)
	b.recs = binary.LittleEndian.AppendUint64(b.recs, logTime)
	b.recs = binary.LittleEndian.AppendUint64(b.recs, publishTime)
	b.recs = binary.LittleEndian.AppendUint32(b.recs, uint32(len(data)))
	b.recs = append(b.recs, data...)

	s := &r.stats
	if !r.firstSeen {
		r.firstSeen = true
		s.MessageStartTime, s.MessageEndTime = logTime, logTime
	}
	s.MessageStartTime, s.MessageEndTime = min(s.MessageStartTime, logTime), max(s.MessageEndTime, logTime)
	s.MessageCount++
	c.count++

	if b.size >= r.chunkSize || (r.chunkSpan > 0 && b.last-b.first >= r.chunkSpan) {
		r.dispatch()
		if r.waitChunks {
			target := r.seq
			r.mu.Unlock()
			r.waitWritten(target)
			r.mu.Lock()
			if err := r.failed(); err != nil {
				return fmt.Errorf("write on %s: %w", c.topic, err)
			}
		}
	}
	return nil
}

// dispatch hands the open chunk to the next worker, round robin so that
// the file does not depend on scheduling, and queues it for the output in
// the same order. It blocks while the pipeline is full. Called with mu held.
// With mu held and lanes fed in order, lane k mod chunkLanes always sees
// the same batches, whatever the scheduling.
func (r *Recorder) dispatch() {
	b := r.open
	if b.n == 0 {
		return
	}
	// Declarations are append-only: the worker reads this prefix only.
	b.decls = r.decls[:len(r.decls):len(r.decls)]
	r.queue <- b
	r.workers[r.seq%uint64(len(r.workers))] <- b
	r.seq++
	select {
	case r.open = <-r.free:
	default:
		r.open = r.newBatch()
	}
}

// work compresses batches into chunk records with its own mcap.Writer, so
// workers share no compressor state.
func (r *Recorder) work(in chan *batch) {
	var sink sliceWriter
	opts := mcap.WriterOptions{
		SkipMagic:        true,
		Chunked:          true,
		ChunkSize:        math.MaxInt64,
		Compression:      r.comp,
		CompressionLevel: mcap.CompressionLevelFastest,
		IncludeCRC:       true,
		OverrideLibrary:  true,
	}
	w, err := mcap.NewWriter(&sink, &opts)
	applied := 0
	var m mcap.Message
	for b := range in {
		b.err = err
		if err == nil {
			b.err = r.compress(w, &opts, &sink, &applied, &m, b)
		}
		b.ready <- struct{}{}
	}
}

// compress writes b's declarations not yet known to w and its messages,
// and closes the chunk after the last one.
func (r *Recorder) compress(w *mcap.Writer, opts *mcap.WriterOptions, sink *sliceWriter, applied *int, m *mcap.Message, b *batch) error {
	for ; *applied < len(b.decls); *applied++ {
		d := b.decls[*applied]
		var err error
		if d.schema != nil {
			err = w.WriteSchema(d.schema)
		} else {
			err = w.WriteChannel(d.channel)
		}
		if err != nil {
			return err
		}
	}
	base := w.Offset()
	sink.b = b.out[:0]
	p := b.recs
	for i := range b.n {
		n := int(binary.LittleEndian.Uint32(p[batchMsgHeader-4:]))
		*m = mcap.Message{
			ChannelID:   binary.LittleEndian.Uint16(p),
			Sequence:    binary.LittleEndian.Uint32(p[2:]),
			LogTime:     binary.LittleEndian.Uint64(p[6:]),
			PublishTime: binary.LittleEndian.Uint64(p[14:]),
			Data:        p[batchMsgHeader : batchMsgHeader+n],
		}
		p = p[batchMsgHeader+n:]
		// mcap.Writer closes a chunk only when a message takes it past
		// ChunkSize. It keeps the options pointer it was given, so dropping
		// the threshold for the last message closes the chunk right after
		// it. TestRecordingRoundTrip and TestRecorderChunkSpan guard this.
		if i == b.n-1 {
			opts.ChunkSize = -1
		}
		err := w.WriteMessage(m)
		opts.ChunkSize = math.MaxInt64
		if err != nil {
			return err
		}
	}
	m.Data = nil
	if len(w.ChunkIndexes) != 1 {
		return fmt.Errorf("chunk writer holds %d chunks, want 1", len(w.ChunkIndexes))
	}
	idx := w.ChunkIndexes[0]
	w.ChunkIndexes = w.ChunkIndexes[:0]
	idx.ChunkStartOffset -= base
	for k := range idx.MessageIndexOffsets {
		idx.MessageIndexOffsets[k] -= base
	}
	b.out, b.index = sink.b, idx
	return nil
}

// sliceWriter appends to a byte slice that its owner swaps per chunk.
type sliceWriter struct{ b []byte }

func (s *sliceWriter) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

// output writes compressed chunks in dispatch order and keeps their
// indexes, with file offsets, for the summary.
func (r *Recorder) output() {
	defer close(r.done)
	for b := range r.queue {
		<-b.ready
		if r.failed() == nil {
			r.writeChunk(b)
		}
		b.recs, b.n, b.size, b.decls, b.index, b.err = b.recs[:0], 0, 0, nil, nil, nil
		select {
		case r.free <- b:
		default:
		}
		r.flushMu.Lock()
		r.written++
		r.flushed.Broadcast()
		r.flushMu.Unlock()
	}
}

func (r *Recorder) writeChunk(b *batch) {
	if b.err != nil {
		r.fail(fmt.Errorf("%s: compress chunk: %w", r.where(), b.err))
		return
	}
	start := r.offset
	if err := r.emit(b.out); err != nil {
		r.fail(fmt.Errorf("%s: write chunk at byte %d: %w", r.where(), start, err))
		return
	}
	idx := b.index
	idx.ChunkStartOffset += start
	for k := range idx.MessageIndexOffsets {
		idx.MessageIndexOffsets[k] += start
	}
	r.chunkIdx = append(r.chunkIdx, idx)
	r.nChunks.Add(1)
	if r.file != nil && r.sync {
		if err := r.file.Sync(); err != nil {
			r.fail(fmt.Errorf("%s: sync: %w", r.where(), err))
		}
	}
}

// emit writes p to the output, keeping the offset and the data CRC.
func (r *Recorder) emit(p []byte) error {
	n, err := r.out.Write(p)
	r.crc = crc32.Update(r.crc, crc32.IEEETable, p[:n])
	r.offset += uint64(n)
	r.nBytes.Add(uint64(n))
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	return err
}

func (r *Recorder) fail(err error) {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if r.err == nil {
		r.err = err
		r.errSet.Store(true)
	}
}

func (r *Recorder) failed() error {
	if !r.errSet.Load() {
		return nil
	}
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err
}

// usable reports why the Recorder cannot take records, if it cannot.
// Called with mu held.
func (r *Recorder) usable() error {
	if r.closed {
		return ErrRecorderClosed
	}
	return r.failed()
}

// Flush closes the open chunk and waits until every chunk is written to
// the output (and, for CreateRecording, synced). It returns the first
// output error, if any. A host may call it on a timer to bound, in wall
// time, what a crash can lose.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrRecorderClosed
	}
	r.dispatch()
	target := r.seq
	r.mu.Unlock()
	r.waitWritten(target)
	return r.failed()
}

// waitWritten waits until the first n dispatched chunks are written.
func (r *Recorder) waitWritten(n uint64) {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	for r.written < n {
		r.flushed.Wait()
	}
}

// Stats returns the Recorder's counters.
func (r *Recorder) Stats() RecorderStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RecorderStats{Messages: r.stats.MessageCount, Chunks: r.nChunks.Load(), Bytes: r.nBytes.Load()}
}

// Close writes the open chunk and the summary section and, for
// CreateRecording, syncs and closes the file. It is idempotent: later calls
// return the first call's result. After an output error Close still closes
// the file and returns that error; the file then ends at the last complete
// chunk.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.closeErr
	}
	r.closed = true
	r.dispatch()
	close(r.queue)
	for _, w := range r.workers {
		close(w)
	}
	<-r.done
	err := r.failed()
	if err == nil {
		err = r.finish()
	}
	if r.file != nil {
		if err == nil {
			if serr := r.file.Sync(); serr != nil {
				err = fmt.Errorf("%s: sync: %w", r.where(), serr)
			}
		}
		if cerr := r.file.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close recording %s: %w", r.path, cerr)
		}
	}
	r.closeErr = err
	return err
}

// finish writes the data end record, the summary section (schemas,
// channels, statistics, chunk indexes, summary offsets), the footer and
// the closing magic.
func (r *Recorder) finish() error {
	var end bytes.Buffer
	ew, err := mcap.NewWriter(&end, &mcap.WriterOptions{SkipMagic: true})
	if err != nil {
		return fmt.Errorf("%s: finish: %w", r.where(), err)
	}
	if err := ew.WriteDataEnd(&mcap.DataEnd{DataSectionCRC: r.crc}); err != nil {
		return fmt.Errorf("%s: finish: %w", r.where(), err)
	}
	if err := r.emit(end.Bytes()); err != nil {
		return fmt.Errorf("%s: write data end: %w", r.where(), err)
	}

	start := r.offset
	var sum bytes.Buffer
	// The footer's CRC is this writer's: it saw exactly the summary.
	sw, err := mcap.NewWriter(&sum, &mcap.WriterOptions{SkipMagic: true, IncludeCRC: true})
	if err != nil {
		return fmt.Errorf("%s: finish: %w", r.where(), err)
	}
	var offsets []*mcap.SummaryOffset
	group := func(op mcap.OpCode, n int, write func(i int) error) error {
		if n == 0 {
			return nil
		}
		at := sw.Offset()
		for i := range n {
			if err := write(i); err != nil {
				return err
			}
		}
		offsets = append(offsets, &mcap.SummaryOffset{GroupOpcode: op, GroupStart: start + at, GroupLength: sw.Offset() - at})
		return nil
	}
	stats := r.stats
	stats.ChannelMessageCounts = make(map[uint16]uint64, len(r.channels))
	for i, c := range r.channels {
		if c.count > 0 {
			stats.ChannelMessageCounts[uint16(i+1)] = c.count
		}
	}
	stats.SchemaCount = uint16(len(r.schemas))
	stats.ChannelCount = uint32(len(r.chanRecs))
	stats.ChunkCount = uint32(len(r.chunkIdx))
	err = errors.Join(
		group(mcap.OpSchema, len(r.schemas), func(i int) error { return sw.WriteSchema(r.schemas[i]) }),
		group(mcap.OpChannel, len(r.chanRecs), func(i int) error { return sw.WriteChannel(r.chanRecs[i]) }),
		group(mcap.OpStatistics, 1, func(int) error { return sw.WriteStatistics(&stats) }),
		group(mcap.OpChunkIndex, len(r.chunkIdx), func(i int) error { return sw.WriteChunkIndex(r.chunkIdx[i]) }),
	)
	if err != nil {
		return fmt.Errorf("%s: summary: %w", r.where(), err)
	}
	offsetStart := start + sw.Offset()
	for _, o := range offsets {
		if err := sw.WriteSummaryOffset(o); err != nil {
			return fmt.Errorf("%s: summary offsets: %w", r.where(), err)
		}
	}
	if err := sw.WriteFooter(&mcap.Footer{SummaryStart: start, SummaryOffsetStart: offsetStart}); err != nil {
		return fmt.Errorf("%s: footer: %w", r.where(), err)
	}
	sum.Write(mcap.Magic)
	if err := r.emit(sum.Bytes()); err != nil {
		return fmt.Errorf("%s: write summary at byte %d: %w", r.where(), start, err)
	}
	return nil
}

// where names the output in errors.
func (r *Recorder) where() string {
	if r.path != "" {
		return "recording " + r.path
	}
	return "recording"
}
