package bag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// compressor is one lane's; a call per chunk costs less than streaming.
type compressor struct {
	zstd, zstdSmall *zstd.Encoder // for chunks from and below zstdSmallWindow
	lz4             *lz4.Writer
}

// zstdSmallWindow: a shorter chunk compresses to the same bytes as with the
// default 8 MiB window, whose encoder holds 16 MiB for the whole recording.
const zstdSmallWindow = 2 << 20

// compress returns src compressed (appended to dst; src itself for none) and its CRC.
func (c *compressor) compress(comp mcap.CompressionFormat, src, dst []byte) ([]byte, uint32, error) {
	crc := crc32.ChecksumIEEE(src)
	var err error
	switch comp {
	case mcap.CompressionZSTD:
		enc, opts := &c.zstd, []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1)}
		if len(src) < zstdSmallWindow {
			enc, opts = &c.zstdSmall, append(opts, zstd.WithWindowSize(zstdSmallWindow))
		}
		if *enc == nil {
			*enc, err = zstd.NewWriter(nil, opts...)
		}
		if err != nil {
			return nil, 0, err
		}
		return (*enc).EncodeAll(src, dst), crc, nil
	case mcap.CompressionLZ4:
		if c.lz4 == nil {
			c.lz4 = lz4.NewWriter(nil) // at its fastest level
		}
		out := bytes.NewBuffer(dst)
		c.lz4.Reset(out)
		if _, err = c.lz4.Write(src); err == nil {
			err = c.lz4.Close()
		}
		return out.Bytes(), crc, err
	}
	return src, crc, nil
}

// chunkDecoder verifies and decompresses chunk records, each to at most
// min(declared size, maxSize) bytes whatever its payload claims.
type chunkDecoder struct {
	maxSize         int64
	zstd, zstdNoSum *zstd.Decoder // the second skips frame checksums, for chunks with a CRC
	lz4             *lz4.Reader
	src             bytes.Reader
}

// decode returns the checked records of a chunk record body, in buf if big enough.
func (d *chunkDecoder) decode(body, buf []byte) ([]byte, error) {
	// The mcap library's parser and lexer trust the framing: a long
	// compression field makes them slice out of range. Layout: start and
	// end time, uncompressed size, CRC, compression, records length, records.
	const fixed = 8 + 8 + 8 + 4
	le := binary.LittleEndian
	if len(body) < fixed+4+8 {
		return nil, fmt.Errorf("chunk header of %d bytes", len(body))
	}
	size, crc := le.Uint64(body[16:]), le.Uint32(body[24:])
	clen := uint64(le.Uint32(body[28:]))
	if clen > uint64(len(body)-fixed-4-8) {
		return nil, fmt.Errorf("chunk compression field of %d bytes overruns the record", clen)
	}
	comp := mcap.CompressionFormat(body[fixed+4 : fixed+4+clen])
	rest := body[fixed+4+clen:]
	if n := le.Uint64(rest); n != uint64(len(rest)-8) {
		return nil, fmt.Errorf("chunk records length %d, record holds %d", n, len(rest)-8)
	}
	records := rest[8:]
	if size > uint64(d.maxSize) {
		return nil, fmt.Errorf("%w: chunk declares %d decompressed bytes, limit %d", ErrReaderLimit, size, d.maxSize)
	}
	if uint64(cap(buf)) < size {
		buf = make([]byte, 0, size)
	}
	out := buf[:0:size] // the cap is the zstd bound
	var err error
	switch {
	case comp == mcap.CompressionNone:
		if uint64(len(records)) != size {
			return nil, fmt.Errorf("uncompressed chunk of %d bytes declares %d", len(records), size)
		}
		out = append(out, records...)
	case comp != mcap.CompressionZSTD && comp != mcap.CompressionLZ4:
		return nil, fmt.Errorf("unsupported chunk compression %s", clip(string(comp)))
	case size == 0:
	case comp == mcap.CompressionZSTD:
		out, err = d.unzstd(records, out, crc != 0)
	default:
		out, err = d.unlz4(records, out[:size])
	}
	if err != nil {
		return nil, err
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("%s chunk decompresses to %d bytes, declares %d", comp, len(out), size)
	}
	if got := crc32.ChecksumIEEE(out); crc != 0 && got != crc {
		return nil, fmt.Errorf("chunk CRC mismatch: stored %08x, computed %08x", crc, got)
	}
	return out, nil
}

// unzstd decompresses into out's spare capacity (so the window costs no memory) and no further;
// with crc, the chunk's CRC covers the bytes the frame's checksum would.
func (d *chunkDecoder) unzstd(records, out []byte, crc bool) ([]byte, error) {
	dec := &d.zstd
	if crc {
		dec = &d.zstdNoSum
	}
	if *dec == nil {
		z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxMemory(uint64(max(d.maxSize, 1))), zstd.IgnoreChecksum(crc),
			zstd.WithDecoderMaxWindow(uint64(max(d.maxSize, zstd.MinWindowSize))))
		if err != nil {
			return nil, fmt.Errorf("start zstd decoder: %w", err)
		}
		*dec = z
	}
	out, err := (*dec).DecodeAll(records, out)
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
		return nil, fmt.Errorf("zstd chunk exceeds its declared %d bytes: %w", cap(out), err)
	} else if err != nil {
		return nil, fmt.Errorf("zstd chunk: %w", err)
	}
	return out, nil
}

// unlz4 fills out exactly and checks that the frame ends there.
func (d *chunkDecoder) unlz4(records, out []byte) ([]byte, error) {
	d.src.Reset(records)
	if d.lz4 == nil {
		d.lz4 = lz4.NewReader(nil)
	}
	d.lz4.Reset(&d.src)
	if n, err := io.ReadFull(d.lz4, out); err != nil {
		return nil, fmt.Errorf("lz4 chunk: %d of %d bytes: %w", n, len(out), err)
	}
	// One more byte decodes at most one more block: a longer frame is
	// rejected without being decoded to its end.
	switch n, err := io.ReadFull(d.lz4, make([]byte, 1)); {
	case n > 0:
		return nil, fmt.Errorf("lz4 chunk exceeds its declared %d bytes", len(out))
	case err != io.EOF:
		return nil, fmt.Errorf("lz4 chunk: %w", err)
	}
	return out, nil
}

// maxQuoted caps the file-provided strings that errors quote.
const maxQuoted = 64

// clip quotes s for an error message, cut to maxQuoted bytes.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:maxQuoted]) + fmt.Sprintf("... (%d bytes)", len(s))
}
