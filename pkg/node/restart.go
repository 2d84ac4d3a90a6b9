package node

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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
// there, else the next restart file after the newest one, with the newest
// existing recording as previous. A recording is never overwritten nor
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
	last, previous := 0, path
	for _, e := range entries {
		name := e.Name()
		num, ok := strings.CutPrefix(name, stem+restartSuffix)
		if !ok || !strings.HasSuffix(num, ext) {
			continue
		}
		num = strings.TrimSuffix(num, ext)
		k, err := strconv.Atoi(num)
		if err != nil || len(num) != 3 || k < 1 {
			continue
		}
		if k > last {
			last, previous = k, filepath.Join(dir, name)
		}
	}
	if last >= maxRestarts {
		return "", "", fmt.Errorf("recording.path %s: %d restart recordings exist beside it, the most the naming sorts; move them away",
			path, maxRestarts)
	}
	return filepath.Join(dir, fmt.Sprintf("%s%s%03d%s", stem, restartSuffix, last+1, ext)), previous, nil
}
