package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ghost-robotics/ghost/pkg/audit"
	"github.com/ghost-robotics/ghost/pkg/bag"
	"github.com/ghost-robotics/ghost/pkg/ros2/config"
	"github.com/ghost-robotics/ghost/pkg/session"
)

// recording is what verify audits as one: an MCAP file, or a rosbag2 bag
// directory, whose files (several when ros2 bag record split it) are one
// stream of messages.
type recording struct {
	name  string   // as given, or as found below a directory
	files []string // in recording order
	err   error    // why name is not a readable recording (a bag's metadata)
}

// kind says what several files of one recording are: a rosbag2 bag
// directory's, or the parts of a recording its recorder split (joinSplits).
func (rec recording) kind() string {
	if len(rec.files) > 0 && rec.name == rec.files[0] {
		return fmt.Sprintf("a recording split into %d files", len(rec.files))
	}
	return fmt.Sprintf("a rosbag2 bag of %d files", len(rec.files))
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
	return expandWith(args, []string{".mcap"}, "no .mcap recordings or rosbag2 bags in this directory")
}

// expandWith is expandRecordings for files whose extension is one of exts
// (compared without case); none says what a directory without any lacks.
func expandWith(args, exts []string, none string) ([]recording, error) {
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
			if slices.ContainsFunc(exts, func(e string) bool { return strings.EqualFold(filepath.Ext(p), e) }) {
				recs = append(recs, recording{name: p, files: []string{p}})
			}
			return nil
		})
		if err != nil {
			return nil, fail(exitIO, "%s: %w", a, err)
		}
		if len(recs) == n {
			return nil, fail(exitIO, "%s: %s", a, none)
		}
	}
	return joinSplits(recs), nil
}

// joinSplits appends each file that continues a recording its recorder
// split (the node's NAME_001.mcap after NAME.mcap: its bag.MetadataSplit
// record names the file before and its part number) to that recording,
// when the file it continues is the one just before it, in the same
// directory: the files are then one stream, as a split bag's are, and a
// decision whose inputs are in the file before is checked against them.
// A file named alone, or out of order, stays a recording of its own.
func joinSplits(recs []recording) []recording {
	var out []recording
	for _, rec := range recs {
		if n := len(out); n > 0 && continues(rec, out[n-1]) {
			out[n-1].files = append(out[n-1].files, rec.files[0])
			continue
		}
		out = append(out, rec)
	}
	return out
}

// continues reports whether rec, one MCAP file, is the next part of prev,
// MCAP files that are not a bag directory.
func continues(rec, prev recording) bool {
	if rec.err != nil || prev.err != nil || len(rec.files) != 1 || rec.name != rec.files[0] ||
		len(prev.files) == 0 || prev.name != prev.files[0] || !strings.EqualFold(filepath.Ext(rec.name), ".mcap") {
		return false
	}
	last := prev.files[len(prev.files)-1]
	s, ok, err := bag.SplitOf(rec.name)
	return err == nil && ok && s.Part == len(prev.files) && s.Previous == filepath.Base(last) &&
		filepath.Dir(last) == filepath.Dir(rec.name)
}

// openedFiles are the files of one recording, opened for reading as one
// stream.
type openedFiles struct {
	rec     recording
	readers []*bag.Reader // of rec.files
	total   uint64        // messages, 0 when unknown
}

// openFiles opens rec's files after the first, whose reader is given,
// with open; on failure it closes them all.
func openFiles(rec recording, first *bag.Reader, open func(path string) (*bag.Reader, error)) (*openedFiles, error) {
	o := &openedFiles{rec: rec, readers: []*bag.Reader{first}, total: first.MessageCount()}
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
		return inLogTimeOrder(o.readers[0], indexed, o.rec.name, stderr)
	}
	return inLogTimeOrder(bag.NewChain(o.readers, o.rec.files), indexed, o.rec.name, stderr)
}

// channels returns the channels of every file, in file order (see
// bag.Chain.Channels).
func (o *openedFiles) channels() []bag.Channel {
	if len(o.readers) == 1 {
		return o.readers[0].Channels()
	}
	return bag.NewChain(o.readers, o.rec.files).Channels()
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
// inputs, the calibrated channel, the recorder). The action trail of a
// ghost recording is checked against the vehicle target picks for it.
func openAuditOf(rec recording, cfg config.Config, sopts session.SessionOptions, target targetChoice, stderr io.Writer) (*openedAudit, error) {
	if rec.err != nil {
		return nil, fail(exitIO, "%w", rec.err)
	}
	first, vopts, format, err := openAudit(rec.files[0], cfg, sopts, stderr)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(format, formatReference) {
		if len(rec.files) > 1 {
			first.Close()
			return nil, fail(exitIO, "%s: a %s split into %d files: audit its files one by one", rec.name, formatReference, len(rec.files))
		}
	}
	files, err := openFiles(rec, first, func(f string) (*bag.Reader, error) {
		var extra []string
		if vopts.Seals != nil {
			extra = append(extra, vopts.Seals.Topic)
		}
		return openInput(f, vopts.Session.Inputs, vopts.DecisionsTopic, vopts.ActionsTopic, stderr, nil, extra...)
	})
	if err != nil {
		return nil, err
	}
	if len(rec.files) > 1 {
		format += ", " + rec.kind() + " read as one"
	}
	if len(vopts.Session.Executors) > 0 {
		// Without an executor no receipt can be traced: the vehicle is
		// not looked for.
		t, err := target.of(rec, vopts.ActionsTopic)
		if err != nil {
			files.Close()
			return nil, err
		}
		vopts.Session.TargetVehicle, vopts.TargetFrom = t.Vehicle, t.From
	}
	o := &openedAudit{openedFiles: files, vopts: vopts, format: format}
	o.src, o.reportOrder = files.source(stderr)
	return o, nil
}
