package bag

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/foxglove/mcap/go/mcap"
)

// MetadataSplit is the name of the MCAP metadata record that starts a file
// continuing a recording its recorder split: "previous" is the base name of
// the file it continues (in the same directory), "part" its number (1 for
// the first continuation). The files are one stream of messages, as a
// split rosbag2 bag's are.
const MetadataSplit = "ghost_split"

// maxLeadBytes bounds how far SplitOf reads: the metadata records a
// recorder writes right after the header are small.
const maxLeadBytes = 1 << 20

// Split is what a continuation file says of the file before it.
type Split struct {
	Previous string // base name
	Part     int    // >= 1
}

// SplitOf reads the metadata records at the start of the MCAP file at path
// (between the header and the first other record, where a Recorder writes
// them) and returns its MetadataSplit record; ok is false when it has none.
// A file that is not MCAP, or whose record is malformed, is an error.
func SplitOf(path string) (s Split, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return Split{}, false, err
	}
	defer f.Close()
	lex, err := mcap.NewLexer(bufio.NewReader(io.LimitReader(f, maxLeadBytes)), &mcap.LexerOptions{EmitChunks: true})
	if err != nil {
		return Split{}, false, fmt.Errorf("%s: %w", path, err)
	}
	defer lex.Close()
	for {
		tok, body, err := lex.Next(nil)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Split{}, false, nil
		}
		if err != nil {
			return Split{}, false, fmt.Errorf("%s: %w", path, err)
		}
		switch tok {
		case mcap.TokenHeader:
			continue
		case mcap.TokenMetadata:
		default:
			return Split{}, false, nil
		}
		m, err := mcap.ParseMetadata(body)
		if err != nil {
			return Split{}, false, fmt.Errorf("%s: metadata: %w", path, err)
		}
		if m.Name != MetadataSplit {
			continue
		}
		prev := m.Metadata["previous"]
		part, err := strconv.Atoi(m.Metadata["part"])
		if prev == "" || err != nil || part < 1 {
			return Split{}, false, fmt.Errorf("%s: metadata %s: previous %s, part %s: want a file name and a number >= 1",
				path, MetadataSplit, clip(prev), clip(m.Metadata["part"]))
		}
		return Split{Previous: prev, Part: part}, true, nil
	}
}
