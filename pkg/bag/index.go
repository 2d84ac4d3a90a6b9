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

// Indexed mode: the summary's chunk index, read chunk by chunk in log-time
// order, merging chunks that overlap within ReaderOptions.MaxBuffered.

// chunkRef is what an indexed read keeps of a chunk index record.
type chunkRef struct {
	start, offset, length, size uint64 // message start time, chunk offset, record length, uncompressed size
}

// tryIndex switches to indexed reading when the file ends with a footer
// whose summary holds chunk indexes (or says there are no messages). A
// missing or unreadable summary leaves the Reader streaming: a stream read
// meets the same damage and says where.
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
		footer.SummaryStart < uint64(r.rr.pos) {
		return
	}
	start := int64(footer.SummaryStart)
	sum := recordReader{br: bufio.NewReader(io.NewSectionReader(ra, start, footerAt-start)), pos: start, max: r.opts.MaxChunkSize}
	var chunks []chunkRef
	var stats *mcap.Statistics
	ok := true
	for ok && sum.pos < footerAt {
		op, body, err := sum.next("summary record")
		if err != nil {
			ok = false
			break
		}
		switch op {
		case mcap.OpSchema, mcap.OpChannel:
			ok = r.declare(op, body) == nil
		case mcap.OpChunkIndex:
			ci, err := mcap.ParseChunkIndex(body)
			ok = err == nil && ci.ChunkStartOffset >= uint64(r.rr.pos) &&
				ci.ChunkLength <= uint64(footerAt) && ci.ChunkStartOffset <= uint64(footerAt)-ci.ChunkLength
			if ok {
				chunks = append(chunks, chunkRef{ci.MessageStartTime, ci.ChunkStartOffset, ci.ChunkLength, ci.UncompressedSize})
			}
		case mcap.OpStatistics:
			stats, err = mcap.ParseStatistics(body)
			ok = err == nil
		}
	}
	if !ok || len(chunks) == 0 && (stats == nil || stats.MessageCount > 0) {
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
	r.indexed = true
	r.ra = ra
	r.stats = stats
	r.chunkIdx = chunks
	r.seen = make(map[uint16]uint64)
	r.rr = recordReader{}
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
			(best == nil || r.chunkIdx[r.nextChunk].start <= best.ents[best.next].logTime) {
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

func (r *Reader) loadIndexedChunk(ci chunkRef) error {
	off := int64(ci.offset)
	fail := func(err error) error { return &TruncatedError{Offset: off, Record: "chunk", Err: err} }
	if ci.size > uint64(r.opts.MaxChunkSize) || ci.length > uint64(r.opts.MaxChunkSize)+9 {
		return fail(fmt.Errorf("%w: chunk of %d bytes (%d decompressed), limit %d",
			ErrReaderLimit, ci.length, ci.size, r.opts.MaxChunkSize))
	}
	if r.buffered+int64(ci.size) > r.opts.MaxBuffered {
		return fail(fmt.Errorf("%w: chunks overlapping in log time need more than %d bytes", ErrReaderLimit, r.opts.MaxBuffered))
	}
	if ci.length < 9 {
		return fail(fmt.Errorf("chunk index gives length %d", ci.length))
	}
	if uint64(cap(r.compressed)) < ci.length {
		r.compressed = make([]byte, ci.length)
	}
	raw := r.compressed[:ci.length]
	if _, err := r.ra.ReadAt(raw, off); err != nil {
		return fail(err)
	}
	if mcap.OpCode(raw[0]) != mcap.OpChunk || binary.LittleEndian.Uint64(raw[1:9]) != ci.length-9 {
		return fail(errors.New("chunk index does not point at a chunk record"))
	}
	var c *loadedChunk
	if n := len(r.spare); n > 0 {
		c, r.spare = r.spare[n-1], r.spare[:n-1]
		c.ents, c.next = c.ents[:0], 0
	} else {
		c = &loadedChunk{}
	}
	if err := r.decodeChunk(raw[9:], c); err != nil {
		r.spare = append(r.spare, c)
		return fail(err)
	}
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
