package node

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/ghost-robotics/ghost/pkg/bag"
)

// maxParts is the most continuation files one run writes: the number has a
// fixed width of three digits so the files sort in the order they were
// written. After the last the recording stays in it.
const maxParts = 999

// splitPath is the name of part k (its bag.MetadataSplit record says so) (k >= 1) of the recording that started
// in first: NAME_001.mcap for NAME.mcap. '_' sorts after '.', and digits
// before 'r', so a run's parts sort after its first file and before the
// next restart's (NAME_restart001.mcap, whose parts are
// NAME_restart001_001.mcap, ...).
func splitPath(first string, k int) string {
	ext := filepath.Ext(first)
	return fmt.Sprintf("%s_%03d%s", strings.TrimSuffix(first, ext), k, ext)
}

// channelDecl is a channel of the recording: how to declare it, and the ID
// it has in every file.
type channelDecl struct {
	add func(*bag.Recorder) (bag.ChannelID, error)
	id  bag.ChannelID
}

// splitting is the recording's state for continuing in new files; its
// zero value never splits. It belongs to the recording and is guarded by
// its mutex, but for what the goroutines closing earlier files report.
type splitting struct {
	create   recorderFactory
	opts     bag.RecorderOptions // of every part, Metadata aside
	first    string              // the run's first file
	maxBytes uint64              // 0: no bound
	maxSpan  uint64              // log-time nanoseconds; 0: no bound
	decls    []channelDecl
	// onSplit is told each new file, or why the recording could not
	// continue in one (it then stays in the current file).
	onSplit func(path string, err error)

	part     int    // of the current file; 0 for first
	start    uint64 // log time of the current file's first message
	started  bool
	disabled bool // after a failure to split
	// before counts the messages of the files already left.
	before uint64

	closing sync.WaitGroup
	mu      sync.Mutex // guards what follows, set by closing goroutines
	bytes   uint64     // written in files closed
	errs    error      // of closing files left
}

// enabled reports whether a bound is set and splitting still possible.
func (sp *splitting) enabled() bool {
	return (sp.maxBytes > 0 || sp.maxSpan > 0) && !sp.disabled && sp.part < maxParts
}

// rotateIfDue continues the recording in its next file when the current
// one holds maxBytes or spans maxSpan before a message logged at t. The
// file left is closed behind the caller, as chunks are written: closing
// syncs, and the node goroutine must not wait for the disk. A failure to
// start the next file leaves the recording in the current one, reported
// once through onSplit: a longer file is better than a lost message.
func (s *recording) rotateIfDue(t uint64) {
	sp := &s.split
	if !sp.enabled() {
		return
	}
	if !sp.started {
		sp.start, sp.started = t, true
		return
	}
	full := sp.maxBytes > 0 && s.rec.Stats().Bytes >= sp.maxBytes
	// Log times are not monotonic (a decision is logged at its input's
	// arrival): only a later time can end the span.
	long := sp.maxSpan > 0 && t > sp.start && t-sp.start >= sp.maxSpan
	if !full && !long {
		return
	}
	next := splitPath(sp.first, sp.part+1)
	rec, err := s.startPart(next)
	if err != nil {
		sp.disabled = true
		if sp.onSplit != nil {
			sp.onSplit(next, err)
		}
		return
	}
	old, oldPath := s.rec, s.path
	sp.before += old.Stats().Messages
	s.rec, s.path = rec, next
	sp.part++
	sp.start = t
	sp.closing.Add(1)
	go func() {
		defer sp.closing.Done()
		err := old.Close()
		st := old.Stats()
		sp.mu.Lock()
		defer sp.mu.Unlock()
		sp.bytes += st.Bytes
		if err != nil {
			sp.errs = errors.Join(sp.errs, fmt.Errorf("close recording %s: %w", oldPath, err))
		}
	}()
	if sp.onSplit != nil {
		sp.onSplit(next, nil)
	}
}

// startPart creates path and declares every channel in it with the IDs they
// have in the first file.
func (s *recording) startPart(path string) (*bag.Recorder, error) {
	sp := &s.split
	opts := sp.opts
	opts.Metadata = map[string]map[string]string{bag.MetadataSplit: {
		"previous": filepath.Base(s.path), "part": strconv.Itoa(sp.part + 1)}}
	rec, err := sp.create(path, opts)
	if err != nil {
		return nil, err
	}
	for _, d := range sp.decls {
		id, err := d.add(rec)
		if err == nil && id != d.id {
			err = fmt.Errorf("channel %d declared as %d", d.id, id)
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("declare channels in %s: %w", path, err), rec.Close())
		}
	}
	return rec, nil
}

// wait waits for the files left to be closed and returns their errors.
func (sp *splitting) wait() error {
	sp.closing.Wait()
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.errs
}

// recordingStats are the counters of the whole recording, every file.
type recordingStats struct {
	messages, bytes uint64
	files           int
	err             error // the current file's output error
}

// stats sums the files: messages accepted, bytes written (a file left
// counts its bytes once closed).
func (s *recording) stats() recordingStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.rec.Stats()
	sp := &s.split
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return recordingStats{messages: sp.before + st.Messages, bytes: sp.bytes + st.Bytes, files: sp.part + 1, err: s.rec.Err()}
}
