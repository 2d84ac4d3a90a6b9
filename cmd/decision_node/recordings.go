package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/nodeconfig"
	"github.com/ghost-robotics/ghost/pkg/runner"
)

// recording is what verify audits as one: an MCAP file, or a rosbag2 bag
// directory, whose files (several when ros2 bag record split it) are one
// stream of messages.
type recording struct {
	name  string   // as given, or as found below a directory
	files []string // in recording order
	err   error    // why name is not a readable recording (a bag's metadata)
}

// recordingAt is the recording at path: a rosbag2 bag directory's files,
// or path itself. ok is false for a directory that is not a bag.
func recordingAt(path string) (rec recording, ok bool) {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return recording{name: path, files: []string{path}}, true // the audit reports a missing file
	}
	files, err := bag.BagFiles(path)
	switch {
	case errors.Is(err, bag.ErrNotBag):
		return recording{}, false
	case err != nil:
		return recording{name: path, err: err}, true
	}
	return recording{name: path, files: files}, true
}

// expandRecordings replaces each directory that is not a rosbag2 bag by the
// recordings below it, in lexical order: bag directories, and .mcap files
// outside them. Files named explicitly are kept whatever their name.
func expandRecordings(args []string) ([]recording, error) {
	var recs []recording
	for _, a := range args {
		if rec, ok := recordingAt(a); ok {
			recs = append(recs, rec)
			continue
		}
		n := len(recs)
		err := filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if rec, ok := recordingAt(p); ok {
					recs = append(recs, rec)
					return fs.SkipDir
				}
				return nil
			}
			if strings.EqualFold(filepath.Ext(p), ".mcap") {
				recs = append(recs, recording{name: p, files: []string{p}})
			}
			return nil
		})
		if err != nil {
			return nil, fail(exitIO, "%s: %w", a, err)
		}
		if len(recs) == n {
			return nil, fail(exitIO, "%s: no .mcap recordings or rosbag2 bags in this directory", a)
		}
	}
	return recs, nil
}

// openedFiles are the files of one recording, opened for reading as one
// stream.
type openedFiles struct {
	name    string
	names   []string
	readers []*bag.Reader
	total   uint64 // messages, 0 when unknown
}

// openFiles opens rec's files after the first, whose reader is given,
// with open; on failure it closes them all.
func openFiles(rec recording, first *bag.Reader, open func(path string) (*bag.Reader, error)) (*openedFiles, error) {
	o := &openedFiles{name: rec.name, names: rec.files, readers: []*bag.Reader{first}, total: first.MessageCount()}
	for _, f := range rec.files[1:] {
		r, err := open(f)
		if err != nil {
			o.Close()
			return nil, err
		}
		o.readers = append(o.readers, r)
		if n := r.MessageCount(); n == 0 || o.total == 0 {
			o.total = 0 // unknown for one file: unknown
		} else {
			o.total += n
		}
	}
	return o, nil
}

func (o *openedFiles) Close() {
	for _, r := range o.readers {
		r.Close()
	}
}

// source returns the files' messages in log-time order. The files of a
// split bag are read one after the other, as the recorder wrote them,
// merged by log time where two files meet; a file with no index is sorted
// within audit.DefaultReorderWindow as well. The returned func reports,
// after the run, the messages that were too far out of order to be sorted.
func (o *openedFiles) source(stderr io.Writer) (audit.Source, func()) {
	indexed := true
	for _, r := range o.readers {
		indexed = indexed && r.Indexed()
	}
	if len(o.readers) == 1 {
		return inLogTimeOrder(o.readers[0], indexed, o.name, stderr)
	}
	return inLogTimeOrder(&fileChain{readers: o.readers, names: o.names}, indexed, o.name, stderr)
}

// openedAudit is a recording opened for verify: its messages in log-time
// order and what verify is to know of it.
type openedAudit struct {
	*openedFiles
	src    audit.Source
	vopts  audit.VerifyOptions
	format string // what the recording is, for the report
	// reportOrder reports, after the audit, the messages that were too far
	// out of log-time order to be sorted.
	reportOrder func()
}

// openAuditOf opens rec for verify, its files as one stream (see
// openedFiles.source); the first file says what the recording is (the
// inputs, the calibrated channel, the recorder).
func openAuditOf(rec recording, cfg nodeconfig.Config, sopts runner.SessionOptions, stderr io.Writer) (*openedAudit, error) {
	if rec.err != nil {
		return nil, fail(exitIO, "%w", rec.err)
	}
	first, vopts, format, err := openAudit(rec.files[0], cfg, sopts, stderr)
	if err != nil {
		return nil, err
	}
	if len(rec.files) > 1 && strings.HasPrefix(format, formatReference) {
		first.Close()
		return nil, fail(exitIO, "%s: a %s split into %d files: audit its files one by one", rec.name, formatReference, len(rec.files))
	}
	files, err := openFiles(rec, first, func(f string) (*bag.Reader, error) {
		return openInput(f, vopts.Session.Inputs, vopts.DecisionsTopic, vopts.ActionsTopic, stderr, nil)
	})
	if err != nil {
		return nil, err
	}
	if len(rec.files) > 1 {
		format += fmt.Sprintf(", a rosbag2 bag of %d files read as one", len(rec.files))
	}
	o := &openedAudit{openedFiles: files, vopts: vopts, format: format}
	o.src, o.reportOrder = files.source(stderr)
	return o, nil
}

// fileChain reads the files of a split recording as one stream in log-time
// order. An indexed file reads in log-time order, and a recorder splits
// between two messages it wrote in turn, so log times can interleave only
// where two files meet (a message stamped on arrival before another was
// written after it): the chain merges each file with the next by log time,
// holding one message of each, rather than sorting the whole stream. A
// file is closed once read.
type fileChain struct {
	readers []*bag.Reader
	names   []string
	at      int // readers[at] and readers[at+1] are merged
	// head[k] is the next message of readers[at+k] when have[k]; ended[k]
	// once that reader has nothing more, with err[k] if it stopped at
	// damage.
	head  [2]bag.Message
	have  [2]bool
	ended [2]bool
	err   [2]error
}

// Problems returns the channel problems of every file: a channel verify
// cannot read in any one of them is a finding, as in a single file.
func (c *fileChain) Problems() []bag.ChannelProblem {
	var out []bag.ChannelProblem
	for i, r := range c.readers {
		for _, p := range r.Problems() {
			p.Err = fmt.Errorf("%s: %w", filepath.Base(c.names[i]), p.Err)
			out = append(out, p)
		}
	}
	return out
}

// Channels returns the channels of every file, in file order. Two files
// may number the same channel differently, or reuse one's number for
// another topic: a message's channel is the one with its ID and topic in
// the first file that has both.
func (c *fileChain) Channels() []bag.Channel {
	var out []bag.Channel
	for _, r := range c.readers {
		out = append(out, r.Channels()...)
	}
	return out
}

func (c *fileChain) Next() (bag.Message, error) {
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
				c.ended[k], c.err[k] = true, err // it names the file
			}
		}
		if c.ended[0] {
			if c.err[0] != nil {
				// The rest cannot be re-decided without what the damage lost.
				return bag.Message{}, c.err[0]
			}
			c.readers[c.at].Close()
			if c.at+1 == len(c.readers) {
				return bag.Message{}, io.EOF
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
