package rosbridge

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/ghost-robotics/ghost/msg"
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
	// QoS profiles (see OfferedQoSProfilesYAML).
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
	// DefaultChunkSize bounds the open chunk to 1 MiB of uncompressed records:
	// small enough that a crash loses little and a reader needs little memory,
	// large enough that per-chunk index overhead stays below 0.1 %.
	DefaultChunkSize = 1 << 20
	// DefaultChunkSpan closes a chunk once it covers one second of log time,
	// so that a low-rate topic such as /decisions does not sit in memory for
	// minutes before it reaches the disk.
	DefaultChunkSpan = time.Second
	// DefaultLibrary is the library string written into the MCAP header.
	DefaultLibrary = "ghost"
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
	// ChunkSize is the uncompressed size in bytes after which the open chunk
	// is closed and written; 0 means DefaultChunkSize. A single larger
	// message still makes one (larger) chunk.
	ChunkSize int64
	// ChunkSpan is the log-time span after which the open chunk is closed,
	// checked when a message is written; 0 means DefaultChunkSpan, a negative
	// value disables the bound.
	ChunkSpan time.Duration
	// Library is the header's library field; "" means DefaultLibrary. The
	// MCAP library version is appended either way.
	Library string
	// NoSync, for CreateRecording only, skips the fsync after every closed
	// chunk; default false, so a power loss also loses at most the open
	// chunk. Close always syncs.
	NoSync bool
}

// ChannelID identifies a channel of a Recorder. Zero is never a valid ID.
type ChannelID uint16

// RecorderStats are counters of a Recorder, for diagnostics.
type RecorderStats struct {
	// Messages is the number of messages written.
	Messages uint64
	// Chunks is the number of chunks closed and handed to the output.
	Chunks uint32
	// Bytes is the number of bytes handed to the output so far.
	Bytes uint64
}

type recChannel struct {
	topic      string
	schemaName string
	schemaText string
	qos        string
	seq        uint32
}

// Recorder writes a rosbag2-compatible MCAP recording: profile "ros2",
// ros2msg schemas, CDR messages with offered_qos_profiles metadata, chunked
// and compressed, with message indexes, chunk indexes, statistics, repeated
// schemas and channels and summary offsets in the summary section, and CRCs.
//
// Crash guarantee: records reach the output chunk by chunk; when a chunk is
// closed (ChunkSize or ChunkSpan reached) it is written together with its
// message indexes and, for CreateRecording, flushed and synced. A crash
// therefore loses at most the open chunk, and the file up to the last closed
// chunk reads with OpenRecording (as a stream, since the summary is missing).
// Close writes the summary, so a closed recording is complete and indexed,
// even when no message was written.
//
// A Recorder is safe for concurrent use. After an output error every further
// call fails with that error: MCAP has no way to resume a damaged stream.
type Recorder struct {
	mu        sync.Mutex
	w         *mcap.Writer
	wopts     mcap.WriterOptions // retained by w; see Write
	chunkSize int64
	chunkSpan uint64 // nanoseconds of log time; 0 = unbounded

	buf  *bufio.Writer // nil unless the output was wrapped
	file *os.File      // nil unless CreateRecording
	path string
	sync bool

	schemas  map[schemaKey]uint16
	channels []recChannel // index = ChannelID-1
	topics   map[string]ChannelID

	msg        mcap.Message
	chunks     uint32
	chunkOpen  bool
	chunkFirst uint64 // smallest log time in the open chunk
	chunkLast  uint64 // largest log time in the open chunk

	err      error // sticky output error
	closed   bool
	closeErr error
}

type schemaKey struct{ name, text string }

// NewRecorder starts a recording on w and writes the MCAP header. The
// caller closes w after Close; the Recorder never closes it.
func NewRecorder(w io.Writer, opts RecorderOptions) (*Recorder, error) {
	r := &Recorder{
		schemas: make(map[schemaKey]uint16),
		topics:  make(map[string]ChannelID),
	}
	if err := r.init(w, opts); err != nil {
		return nil, err
	}
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
	r := &Recorder{
		schemas: make(map[schemaKey]uint16),
		topics:  make(map[string]ChannelID),
		buf:     bufio.NewWriterSize(f, 64<<10),
		file:    f,
		path:    path,
		sync:    !opts.NoSync,
	}
	if err := r.init(r.buf, opts); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("create recording %s: %w", path, err)
	}
	// The header goes out at once, so even an interrupted recording is
	// recognisable as MCAP.
	if err := r.flushOutput(); err != nil {
		_ = f.Close()
		return nil, err
	}
	return r, nil
}

func (r *Recorder) init(w io.Writer, opts RecorderOptions) error {
	comp := opts.Compression
	if comp == "" {
		comp = CompressionZstd
	}
	r.wopts = mcap.WriterOptions{
		IncludeCRC:       true,
		Chunked:          true,
		ChunkSize:        opts.ChunkSize,
		CompressionLevel: mcap.CompressionLevelFastest,
		OverrideLibrary:  true,
	}
	switch comp {
	case CompressionZstd:
		r.wopts.Compression = mcap.CompressionZSTD
	case CompressionLZ4:
		r.wopts.Compression = mcap.CompressionLZ4
	case CompressionNone:
		r.wopts.Compression = mcap.CompressionNone
	default:
		return fmt.Errorf("recorder options: compression %q: want zstd, lz4 or none", opts.Compression)
	}
	switch {
	case opts.ChunkSize < 0:
		return fmt.Errorf("recorder options: chunk size %d is negative", opts.ChunkSize)
	case opts.ChunkSize == 0:
		r.wopts.ChunkSize = DefaultChunkSize
	}
	r.chunkSize = r.wopts.ChunkSize
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
	mw, err := mcap.NewWriter(w, &r.wopts)
	if err != nil {
		return fmt.Errorf("start mcap writer: %w", err)
	}
	r.w = mw
	if err := mw.WriteHeader(&mcap.Header{
		Profile: ProfileROS2,
		Library: lib + "; mcap go " + mcap.Version,
	}); err != nil {
		return fmt.Errorf("write mcap header: %w", err)
	}
	return nil
}

// AddChannel declares a topic with its message type and returns the channel
// to Write to. schemaName is the ROS type ("ghost/msg/DecisionRationale",
// "diagnostic_msgs/msg/DiagnosticArray"), schemaText the complete ros2msg
// schema text; each distinct schema is written once however many channels
// share it. qos are the publishers' offered profiles, recorded as rosbag2
// does (none gives "[]"). Adding the same topic again with the same schema
// and QoS returns the existing channel; with another, ErrChannelConflict.
func (r *Recorder) AddChannel(topic, schemaName, schemaText string, qos ...QoSProfile) (ChannelID, error) {
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
	qosText := OfferedQoSProfilesYAML(qos...)

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
	if len(r.channels) >= 0xFFFF {
		return 0, fmt.Errorf("add channel %s: all 65535 channel IDs in use", topic)
	}
	key := schemaKey{schemaName, schemaText}
	schemaID, ok := r.schemas[key]
	if !ok {
		if len(r.schemas) >= 0xFFFF {
			return 0, fmt.Errorf("add channel %s: all 65535 schema IDs in use", topic)
		}
		schemaID = uint16(len(r.schemas) + 1)
		err := r.w.WriteSchema(&mcap.Schema{
			ID:       schemaID,
			Name:     schemaName,
			Encoding: SchemaEncodingROS2Msg,
			Data:     []byte(schemaText),
		})
		if err != nil {
			r.err = fmt.Errorf("%s: write schema %s: %w", r.where(), schemaName, err)
			return 0, r.err
		}
		r.schemas[key] = schemaID
	}
	id := ChannelID(len(r.channels) + 1)
	err := r.w.WriteChannel(&mcap.Channel{
		ID:              uint16(id),
		SchemaID:        schemaID,
		Topic:           topic,
		MessageEncoding: MessageEncodingCDR,
		Metadata:        map[string]string{MetadataOfferedQoS: qosText},
	})
	if err != nil {
		r.err = fmt.Errorf("%s: write channel %s: %w", r.where(), topic, err)
		return 0, r.err
	}
	r.channels = append(r.channels, recChannel{topic: topic, schemaName: schemaName, schemaText: schemaText, qos: qosText})
	r.topics[topic] = id
	return id, nil
}

// AddMessageChannel is AddChannel for a ghost message type, named "Decision",
// "ghost/Decision" or "ghost/msg/Decision": the schema name and text come
// from package msg.
func (r *Recorder) AddMessageChannel(topic, msgType string, qos ...QoSProfile) (ChannelID, error) {
	text, err := msg.SchemaText(msgType)
	if err != nil {
		return 0, fmt.Errorf("add channel %s: schema of %q: %w", topic, msgType, err)
	}
	return r.AddChannel(topic, msg.SchemaName(msgType), text, qos...)
}

// Write records one serialized (CDR) message on channel ch. logTime is the
// receive time and publishTime the send time, both in nanoseconds; each
// channel numbers its messages 1, 2, ... in the sequence field. Write does
// not retain data. It allocates nothing per message in steady state.
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

	if !r.chunkOpen {
		r.chunkOpen, r.chunkFirst, r.chunkLast = true, logTime, logTime
	} else {
		r.chunkFirst, r.chunkLast = min(r.chunkFirst, logTime), max(r.chunkLast, logTime)
	}
	// mcap.Writer closes a chunk when its size exceeds ChunkSize after a
	// message and offers no other way to close one. It keeps the options
	// pointer it was given, so dropping the threshold for this one message
	// closes the chunk right after it. TestRecorderChunkSpan guards this.
	closeChunk := r.chunkSpan > 0 && r.chunkLast-r.chunkFirst >= r.chunkSpan
	if closeChunk {
		r.wopts.ChunkSize = -1
	}
	c.seq++
	r.msg = mcap.Message{
		ChannelID:   uint16(ch),
		Sequence:    c.seq,
		LogTime:     logTime,
		PublishTime: publishTime,
		Data:        data,
	}
	err := r.w.WriteMessage(&r.msg)
	r.msg.Data = nil
	r.wopts.ChunkSize = r.chunkSize
	if err != nil {
		r.err = fmt.Errorf("%s: write message on %s: %w", r.where(), c.topic, err)
		return r.err
	}
	if n := r.w.Statistics.ChunkCount; n != r.chunks {
		r.chunks = n
		r.chunkOpen = false
		if err := r.flushOutput(); err != nil {
			r.err = err
			return err
		}
	}
	return nil
}

// Stats returns the Recorder's counters.
func (r *Recorder) Stats() RecorderStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := RecorderStats{Chunks: r.chunks, Bytes: r.w.Offset()}
	if r.w.Statistics != nil {
		s.Messages = r.w.Statistics.MessageCount
	}
	return s
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
	err := r.err
	if err == nil {
		if cerr := r.w.Close(); cerr != nil {
			err = fmt.Errorf("%s: finish recording: %w", r.where(), cerr)
		} else {
			r.chunks = r.w.Statistics.ChunkCount
			err = r.flushOutput()
		}
	}
	if r.file != nil {
		if cerr := r.file.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close recording %s: %w", r.path, cerr)
		}
	}
	r.closeErr = err
	return err
}

// usable reports why the Recorder cannot take records, if it cannot.
func (r *Recorder) usable() error {
	if r.closed {
		return ErrRecorderClosed
	}
	return r.err
}

// flushOutput pushes everything written so far to the file and, unless
// NoSync, to stable storage. Without a file it does nothing: an io.Writer
// passed to NewRecorder receives every record directly.
func (r *Recorder) flushOutput() error {
	if r.buf == nil {
		return nil
	}
	if err := r.buf.Flush(); err != nil {
		return fmt.Errorf("recording %s: flush: %w", r.path, err)
	}
	if r.sync || r.closed {
		if err := r.file.Sync(); err != nil {
			return fmt.Errorf("recording %s: sync: %w", r.path, err)
		}
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
