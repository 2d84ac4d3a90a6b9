package node

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// restartSuffix marks the recordings of a node restarted while an earlier
// recording existed at recording.path: node.mcap, then node_restart001.mcap,
// node_restart002.mcap, ... '_' sorts after '.', and the number has a fixed
// width, so the files sort in the order they were written (byte order, as
// `ls` in the C locale and Go sort them).
const (
	restartSuffix = "_restart"
	maxRestarts   = 999
)

// MetadataRestart is the name of the MCAP metadata record a restarted
// node's recording starts with; its keys are "previous" (the newest
// recording found at start) and "configured" (recording.path).
const MetadataRestart = "ghost_restart"

// recordingTarget returns the file to record to: path when nothing is
// there, else the next restart file, with the newest existing file of the
// recording (a restart's, or a part a split recording continued in) as
// previous. A recording is never overwritten nor
// appended to: the killed node's file is the evidence of what it did.
func recordingTarget(path string) (target, previous string, err error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return path, "", nil
	} else if err != nil {
		return "", "", fmt.Errorf("recording.path %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	entries, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return "", "", fmt.Errorf("recording.path %s exists; listing its directory for restart files: %w", path, err)
	}
	// previous is the newest file: the last in sort order of the
	// configured one, its parts, the restart files and their parts.
	last, previous := 0, path
	for _, e := range entries {
		name := e.Name()
		k, ok := restartNumber(name, stem, ext)
		if !ok {
			continue
		}
		last = max(last, k)
		if name > filepath.Base(previous) {
			previous = filepath.Join(dir, name)
		}
	}
	if last >= maxRestarts {
		return "", "", fmt.Errorf("recording.path %s: %d restart recordings exist beside it, the most the naming sorts; move them away",
			path, maxRestarts)
	}
	return filepath.Join(dir, fmt.Sprintf("%s%s%03d%s", stem, restartSuffix, last+1, ext)), previous, nil
}

// restartNumber parses a file of the recording stem+ext: k is 0 for the
// first run's files (stem.ext and its parts stem_001.ext, ...), the restart
// number for a restart's (stem_restart001.ext, its parts
// stem_restart001_001.ext, ...). ok is false for any other name.
func restartNumber(name, stem, ext string) (k int, ok bool) {
	rest, ok := strings.CutPrefix(name, stem)
	if !ok || !strings.HasSuffix(rest, ext) {
		return 0, false
	}
	rest = strings.TrimSuffix(rest, ext)
	if num, ok := strings.CutPrefix(rest, restartSuffix); ok {
		num, part, split := strings.Cut(num, "_")
		k, ok := threeDigits(num)
		if !ok || k < 1 || (split && !validPart(part)) {
			return 0, false
		}
		return k, true
	}
	if rest == "" {
		return 0, true
	}
	part, ok := strings.CutPrefix(rest, "_")
	return 0, ok && validPart(part)
}

// validPart reports whether s numbers a part: 001 to 999.
func validPart(s string) bool {
	k, ok := threeDigits(s)
	return ok && k >= 1
}

// threeDigits parses exactly three decimal digits.
func threeDigits(s string) (int, bool) {
	if len(s) != 3 {
		return 0, false
	}
	k := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		k = 10*k + int(c-'0')
	}
	return k, true
}
