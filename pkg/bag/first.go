package bag

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
)

// FirstMessage returns the first message on topic in the MCAP file at
// path, ok false when the file holds none. opts configures the read as for
// OpenRecording (its Topics are replaced by topic); a channel of topic with
// a problem gives no message.
//
// A file with a chunk index is not read whole: its statistics answer that
// the topic has no message, its message indexes name the chunks that hold
// one, and only those are loaded, in log-time order, until the earliest is
// known. A file without an index (unclosed, or its summary damaged) is read
// from the start and the read stops at the first message on topic, in file
// order; damage before it is returned as the read error (a
// *TruncatedError).
func FirstMessage(path, topic string, opts ReaderOptions) (m Message, ok bool, err error) {
	opts.Topics = []string{topic}
	r, err := OpenRecording(path, opts)
	if err != nil {
		return Message{}, false, err
	}
	defer r.Close()
	return r.first()
}

// first returns the first message the Reader returns, reading as little as
// its index allows. It must be called before Next.
func (r *Reader) first() (Message, bool, error) {
	if r.ra != nil {
		if r.stats != nil && len(r.stats.ChannelMessageCounts) > 0 && !r.countsAnyRead() {
			return Message{}, false, nil
		}
		// The skipped chunks leave the statistics unchecked: they count
		// every channel's messages.
		r.chunkIdx = slices.DeleteFunc(r.chunkIdx, func(c chunkRef) bool { return !c.read })
		r.stats = nil
	}
	m, err := r.Next()
	switch {
	case errors.Is(err, io.EOF):
		return Message{}, false, nil
	case err != nil:
		return Message{}, false, fmt.Errorf("first message: %w", err)
	}
	m.Data = bytes.Clone(m.Data) // the Reader's buffer goes with it
	return m, true, nil
}

// countsAnyRead reports whether the statistics count a message on a
// channel the Reader may return.
func (r *Reader) countsAnyRead() bool {
	for id, n := range r.stats.ChannelMessageCounts {
		if n > 0 && r.mayReturn(id) {
			return true
		}
	}
	return false
}
