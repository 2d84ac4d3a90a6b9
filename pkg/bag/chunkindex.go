package bag

import "github.com/foxglove/mcap/go/mcap"

// The mcap writer keeps every written chunk's index entry until Close
// writes the summary: a struct, a pointer and a map of message index
// offsets per chunk, about 300 bytes, and the one part of a Recorder's
// memory that grows with the recording (3 MB for a 10,000-second replay, a
// chunk a second). The Recorder moves each entry here once its chunk is
// written, in about a third of that, and gives the writer its entries back
// only to write the summary, when the Recorder's buffers are free.

// chunkIndexes holds written chunks' index entries, in writing order.
type chunkIndexes struct {
	entries []chunkIndexEntry
	// channels and offsets hold the entries' message index offsets, entry
	// after entry (entries[i].indexes of them each).
	channels []uint16
	offsets  []uint64
}

type chunkIndexEntry struct {
	start, end, offset, length, indexLength, compressed, uncompressed uint64
	compression                                                       mcap.CompressionFormat
	indexes                                                           int
}

func (x *chunkIndexes) add(ci *mcap.ChunkIndex) {
	x.entries = append(x.entries, chunkIndexEntry{
		start: ci.MessageStartTime, end: ci.MessageEndTime, offset: ci.ChunkStartOffset, length: ci.ChunkLength,
		indexLength: ci.MessageIndexLength, compressed: ci.CompressedSize, uncompressed: ci.UncompressedSize,
		compression: ci.Compression, indexes: len(ci.MessageIndexOffsets),
	})
	// The writer writes a map's offsets in its channels' order, whatever
	// the map's: the order kept here does not matter.
	for id, off := range ci.MessageIndexOffsets {
		x.channels = append(x.channels, id)
		x.offsets = append(x.offsets, off)
	}
}

// writerIndexes returns the entries as the mcap writer keeps them.
func (x *chunkIndexes) writerIndexes() []*mcap.ChunkIndex {
	cis := make([]mcap.ChunkIndex, len(x.entries))
	out := make([]*mcap.ChunkIndex, len(x.entries))
	k := 0
	for i, e := range x.entries {
		m := make(map[uint16]uint64, e.indexes)
		for range e.indexes {
			m[x.channels[k]] = x.offsets[k]
			k++
		}
		cis[i] = mcap.ChunkIndex{MessageStartTime: e.start, MessageEndTime: e.end, ChunkStartOffset: e.offset,
			ChunkLength: e.length, MessageIndexOffsets: m, MessageIndexLength: e.indexLength,
			Compression: e.compression, CompressedSize: e.compressed, UncompressedSize: e.uncompressed}
		out[i] = &cis[i]
	}
	return out
}
