package bag

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/foxglove/mcap/go/mcap"
)

// chunkRef is what an indexed read keeps of a chunk index record.
type chunkRef struct {
	start, offset, length, size uint64 // message start time, chunk offset, record length, uncompressed size
}

// tryIndex switches to indexed reading when the summary holds chunk indexes
// (or says there are no messages). Otherwise the stream read meets the same
// damage and says where.
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
	var stats *mcap.Statistics
	for err == nil && sum.pos < footerAt {
		var op mcap.OpCode
		var body []byte
		if op, body, err = sum.next("summary record"); err != nil {
			break
		}
		switch op {
		case mcap.OpSchema, mcap.OpChannel:
			err = r.declare(op, body)
		case mcap.OpChunkIndex:
			var ci *mcap.ChunkIndex
			if ci, err = mcap.ParseChunkIndex(body); err == nil && (ci.ChunkStartOffset < uint64(r.rr.pos) ||
				ci.ChunkLength > uint64(footerAt) || ci.ChunkStartOffset > uint64(footerAt)-ci.ChunkLength) {
				err = errors.New("chunk index out of range")
			}
			if err == nil {
				chunks = append(chunks, chunkRef{ci.MessageStartTime, ci.ChunkStartOffset, ci.ChunkLength, ci.UncompressedSize})
			}
		case mcap.OpStatistics:
			stats, err = mcap.ParseStatistics(body)
		}
	}
	if err != nil || len(chunks) == 0 && (stats == nil || stats.MessageCount > 0) {
		// Messages outside chunks, or a damaged summary: forget what it
		// declared and let the stream read find them.
		clear(r.schemas)
		clear(r.channels)
		clear(r.ignored)
		r.problems, r.declBytes = nil, 0
		return
	}
	slices.SortStableFunc(chunks, func(a, b chunkRef) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.offset, b.offset))
	})
	r.ra, r.stats, r.chunkIdx = ra, stats, chunks
}

// loadIndexed reads and loads the chunk ci points at.
func (r *Reader) loadIndexed(ci chunkRef) error {
	at := int64(ci.offset)
	if r.buffered+int64(ci.size) > r.opts.MaxBuffered {
		return &TruncatedError{Offset: at, Record: "chunk",
			Err: fmt.Errorf("%w: chunks overlapping in log time need more than %d bytes", ErrReaderLimit, r.opts.MaxBuffered)}
	}
	r.rr.br.Reset(io.NewSectionReader(r.ra, at, int64(ci.length)))
	r.rr.pos = at
	op, body, err := r.rr.next("chunk")
	if err == nil && op != mcap.OpChunk {
		err = &TruncatedError{Offset: at, Record: "chunk", Err: fmt.Errorf("chunk index points at a %s record", op)}
	}
	if err != nil {
		return err
	}
	return r.load(at, body)
}

// checkStatistics compares the messages found in the chunks with the
// summary's per-channel counts at the end of an indexed read.
func (r *Reader) checkStatistics() error {
	if r.stats == nil || len(r.stats.ChannelMessageCounts) == 0 {
		return io.EOF
	}
	counts := r.stats.ChannelMessageCounts
	ids := slices.Concat(slices.Collect(maps.Keys(counts)), slices.Collect(maps.Keys(r.seen)))
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		if want, got := counts[id], r.seen[id]; want != got {
			return fmt.Errorf("%w: channel %d: statistics say %d messages, chunks hold %d",
				ErrInconsistentSummary, id, want, got)
		}
	}
	return io.EOF
}
