package bag

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
)

// Chain reads the files of one recording that its recorder split (the
// files of a rosbag2 bag) as one stream of messages in log-time order.
//
// A Reader of an indexed file reads in log-time order, and a recorder
// splits between two messages it wrote in turn, so log times can
// interleave only where two files meet (a message stamped on arrival
// before another was written after it). The chain therefore merges each
// file with the next by log time, holding one message of each, rather than
// sorting the whole stream; a file with no index is read in file order, as
// its Reader reads it. Each file is closed once read. A file that stops at
// damage ends the chain with its error: what follows cannot be used without
// what the damage lost.
type Chain struct {
	readers []*Reader
	names   []string
	at      int // readers[at] and readers[at+1] are merged
	// head[k] is the next message of readers[at+k] when have[k]; ended[k]
	// once that reader has nothing more, with err[k] if it stopped at
	// damage.
	head  [2]Message
	have  [2]bool
	ended [2]bool
	err   [2]error
}

// NewChain returns the chain of readers, one a file in recording order;
// names are their files' paths. Readers from OpenRecording name their file
// in their errors.
func NewChain(readers []*Reader, names []string) *Chain {
	return &Chain{readers: readers, names: names}
}

// Problems returns the channel problems of every file, each error prefixed
// with its file's name: a channel that one file cannot give is a problem of
// the recording, as in a single file.
func (c *Chain) Problems() []ChannelProblem {
	var out []ChannelProblem
	for i, r := range c.readers {
		for _, p := range r.Problems() {
			p.Err = fmt.Errorf("%s: %w", filepath.Base(c.names[i]), p.Err)
			out = append(out, p)
		}
	}
	return out
}

// Channels returns the channels of every file, in file order. Two files
// may number the same channel differently, or give one number to two
// topics: a message's channel is the first with its ID and topic.
func (c *Chain) Channels() []Channel {
	var out []Channel
	for _, r := range c.readers {
		out = append(out, r.Channels()...)
	}
	return out
}

// Next returns the next message in log-time order, io.EOF after the last.
// Its Data is valid until the next call.
func (c *Chain) Next() (Message, error) {
	if len(c.readers) == 0 {
		return Message{}, io.EOF
	}
	for {
		for k := range 2 {
			i := c.at + k
			if i >= len(c.readers) || c.have[k] || c.ended[k] {
				continue
			}
			m, err := c.readers[i].Next()
			switch {
			case err == nil:
				c.head[k], c.have[k] = m, true
			case errors.Is(err, io.EOF):
				c.ended[k] = true
			default:
				c.ended[k], c.err[k] = true, err
			}
		}
		if c.ended[0] {
			if c.err[0] != nil {
				return Message{}, c.err[0]
			}
			c.readers[c.at].Close()
			if c.at+1 >= len(c.readers) {
				return Message{}, io.EOF
			}
			c.at++
			c.head[0], c.have[0], c.ended[0], c.err[0] = c.head[1], c.have[1], c.ended[1], c.err[1]
			c.have[1], c.ended[1], c.err[1] = false, false, nil
			continue
		}
		k := 0
		if c.have[1] && c.head[1].LogTime < c.head[0].LogTime {
			k = 1
		}
		c.have[k] = false
		return c.head[k], nil
	}
}

// Messages iterates with Next; a read error is yielded once and ends it.
func (c *Chain) Messages() iter.Seq2[Message, error] { return messages(c.Next) }
