package bag

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/foxglove/mcap/go/mcap"
)

// chunkDecoder verifies and decompresses chunk records. Decompression goes
// through an mcap lexer, which owns the zstd and lz4 decoders, fed one chunk
// record at a time.
//
// Two properties of that lexer shape this type. It trusts the chunk's
// framing (a long compression field overruns a fixed buffer), so decode
// checks the framing first. And its zstd decoder reads its input on another
// goroutine, which may still be reading when the lexer has returned the
// chunk's content; the lexer is therefore reused for the next chunk only
// when that input was consumed completely, which a well-formed zstd stream
// always is (frames are checked to tile the chunk exactly), and otherwise
// closed, which waits for that goroutine.
type chunkDecoder struct {
	maxSize int64
	lex     *mcap.Lexer
	feed    *chunkFeed
	rec     []byte // lexer record scratch
}

// chunkFeed presents a 9-byte record header followed by a chunk body as one
// reader, so the body need not be copied. It is locked because the zstd
// decoder reads it from its own goroutine.
type chunkFeed struct {
	mu   sync.Mutex
	hdr  [9]byte
	nhdr int // header bytes not yet read, from the end of hdr
	body []byte
}

func (f *chunkFeed) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nhdr > 0 {
		n := copy(p, f.hdr[len(f.hdr)-f.nhdr:])
		f.nhdr -= n
		return n, nil
	}
	if len(f.body) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.body)
	f.body = f.body[n:]
	return n, nil
}

func (f *chunkFeed) load(body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hdr[0] = byte(mcap.OpChunk)
	binary.LittleEndian.PutUint64(f.hdr[1:], uint64(len(body)))
	f.nhdr = len(f.hdr)
	f.body = body
}

func (f *chunkFeed) drained() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nhdr == 0 && len(f.body) == 0
}

func (d *chunkDecoder) close() {
	if d.lex != nil {
		d.lex.Close()
		d.lex = nil
	}
}

// decode appends the records of a chunk record body to dst, after checking
// its framing, its size against maxSize and its CRC.
func (d *chunkDecoder) decode(body, dst []byte) ([]byte, error) {
	// start time, end time, uncompressed size, CRC, compression, records
	const fixed = 8 + 8 + 8 + 4
	if len(body) < fixed+4+8 {
		return nil, fmt.Errorf("chunk header of %d bytes", len(body))
	}
	size := binary.LittleEndian.Uint64(body[16:])
	crc := binary.LittleEndian.Uint32(body[24:])
	clen := uint64(binary.LittleEndian.Uint32(body[28:]))
	if clen > uint64(len(body)-fixed-4-8) {
		return nil, fmt.Errorf("chunk compression field of %d bytes overruns the record", clen)
	}
	comp := mcap.CompressionFormat(body[fixed+4 : fixed+4+clen])
	rest := body[fixed+4+clen:]
	if n := binary.LittleEndian.Uint64(rest); n != uint64(len(rest)-8) {
		return nil, fmt.Errorf("chunk records length %d, record holds %d", n, len(rest)-8)
	}
	if size > uint64(d.maxSize) {
		return nil, fmt.Errorf("%w: chunk decompresses to %d bytes, limit %d", ErrReaderLimit, size, d.maxSize)
	}
	records := rest[8:]
	switch comp {
	case mcap.CompressionNone:
		// Uncompressed chunks need no lexer and no copy.
		if uint64(len(records)) != size {
			return nil, fmt.Errorf("uncompressed chunk of %d bytes claims %d", len(records), size)
		}
		if got := crc32.ChecksumIEEE(records); crc != 0 && got != crc {
			return nil, fmt.Errorf("chunk CRC mismatch: stored %08x, computed %08x", crc, got)
		}
		return append(dst, records...), nil
	case mcap.CompressionZSTD:
		if err := checkZstdFrames(records, uint64(d.maxSize), max(uint64(d.maxSize), zstdMaxWindow)); err != nil {
			return nil, fmt.Errorf("zstd chunk: %w", err)
		}
	case mcap.CompressionLZ4:
	default:
		return nil, fmt.Errorf("unsupported chunk compression %q", string(comp))
	}
	if size == 0 {
		return dst, nil
	}
	if d.lex != nil && !d.feed.drained() {
		d.close()
	}
	if d.lex == nil {
		feed := &chunkFeed{}
		lex, err := mcap.NewLexer(feed, &mcap.LexerOptions{
			SkipMagic:                true,
			ValidateChunkCRCs:        true,
			MaxDecompressedChunkSize: int(d.maxSize),
			MaxRecordSize:            int(d.maxSize),
		})
		if err != nil {
			return nil, fmt.Errorf("start chunk decoder: %w", err)
		}
		d.lex, d.feed = lex, feed
	}
	d.feed.load(body)
	out := dst
	// Stop exactly at the end of the content: reading on would make the
	// lexer read its input again.
	for consumed := uint64(0); consumed < size; {
		tok, rec, err := d.lex.Next(d.rec)
		if cap(rec) > cap(d.rec) {
			d.rec = rec[:0]
		}
		if err != nil {
			d.close()
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%s chunk: records end after %d of %d bytes", comp, consumed, size)
			}
			return nil, fmt.Errorf("%s chunk: %w", comp, err)
		}
		consumed += 9 + uint64(len(rec))
		if consumed > size {
			d.close()
			return nil, fmt.Errorf("%s chunk: records overrun its %d bytes", comp, size)
		}
		var op mcap.OpCode
		switch tok {
		case mcap.TokenSchema:
			op = mcap.OpSchema
		case mcap.TokenChannel:
			op = mcap.OpChannel
		case mcap.TokenMessage:
			op = mcap.OpMessage
		default:
			continue // nothing else belongs in a chunk
		}
		out = append(out, byte(op))
		out = binary.LittleEndian.AppendUint64(out, uint64(len(rec)))
		out = append(out, rec...)
	}
	return out, nil
}

// zstd frame format constants (RFC 8878).
const (
	// zstdMaxWindow is the largest window accepted whatever the chunk
	// limit: streaming encoders declare their window, not the content
	// size (the Recorder's 1 MiB chunks declare 4 MiB), and the decoder
	// allocates twice the window.
	zstdMaxWindow = 8 << 20

	zstdMagic          = 0xFD2FB528
	zstdSkippableMask  = 0xFFFFFFF0
	zstdSkippableMagic = 0x184D2A50
)

// checkZstdFrames walks the frames and blocks of a zstd stream without
// decoding them. It rejects a stream that does not consist of whole frames
// exactly, and frames whose declared content exceeds maxContent or whose
// window exceeds maxWindow: the decoder sizes its buffers from those
// headers before producing a byte.
func checkZstdFrames(data []byte, maxContent, maxWindow uint64) error {
	if len(data) == 0 {
		return errors.New("no frame")
	}
	for off := 0; off < len(data); {
		p := data[off:]
		if len(p) < 4 {
			return fmt.Errorf("frame at byte %d: %d bytes left", off, len(p))
		}
		magic := binary.LittleEndian.Uint32(p)
		if magic&zstdSkippableMask == zstdSkippableMagic {
			if len(p) < 8 || uint64(binary.LittleEndian.Uint32(p[4:])) > uint64(len(p)-8) {
				return fmt.Errorf("skippable frame at byte %d overruns the data", off)
			}
			off += 8 + int(binary.LittleEndian.Uint32(p[4:]))
			continue
		}
		if magic != zstdMagic {
			return fmt.Errorf("frame at byte %d: magic %08x", off, magic)
		}
		n, err := zstdFrameLen(p, maxContent, maxWindow)
		if err != nil {
			return fmt.Errorf("frame at byte %d: %w", off, err)
		}
		off += n
	}
	return nil
}

// zstdFrameLen returns the length of the frame at the start of p.
func zstdFrameLen(p []byte, maxContent, maxWindow uint64) (int, error) {
	short := errors.New("cut short")
	i := 4
	if len(p) < i+1 {
		return 0, short
	}
	fhd := p[i]
	i++
	if fhd&0x08 != 0 {
		return 0, errors.New("reserved header bit set")
	}
	single := fhd&0x20 != 0
	var window uint64
	if !single {
		if len(p) < i+1 {
			return 0, short
		}
		wd := p[i]
		i++
		base := uint64(1) << (10 + wd>>3)
		window = base + base/8*uint64(wd&7)
	}
	i += [4]int{0, 1, 2, 4}[fhd&3] // dictionary ID
	fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
	if fcsLen == 0 && single {
		fcsLen = 1
	}
	if len(p) < i+fcsLen {
		return 0, short
	}
	var fcs uint64
	switch fcsLen {
	case 1:
		fcs = uint64(p[i])
	case 2:
		fcs = uint64(binary.LittleEndian.Uint16(p[i:])) + 256
	case 4:
		fcs = uint64(binary.LittleEndian.Uint32(p[i:]))
	case 8:
		fcs = binary.LittleEndian.Uint64(p[i:])
	}
	i += fcsLen
	if single {
		window = fcs
	}
	if fcs > maxContent || window > maxWindow {
		return 0, fmt.Errorf("%w: frame content size %d (limit %d), window %d (limit %d)",
			ErrReaderLimit, fcs, maxContent, window, maxWindow)
	}
	for {
		if len(p) < i+3 {
			return 0, short
		}
		bh := uint32(p[i]) | uint32(p[i+1])<<8 | uint32(p[i+2])<<16
		i += 3
		size := int(bh >> 3)
		switch (bh >> 1) & 3 {
		case 1: // RLE: one byte repeated size times
			size = 1
		case 3:
			return 0, errors.New("reserved block type")
		}
		if len(p)-i < size {
			return 0, short
		}
		i += size
		if bh&1 != 0 {
			break
		}
	}
	if fhd&0x04 != 0 { // content checksum
		if len(p) < i+4 {
			return 0, short
		}
		i += 4
	}
	return i, nil
}
