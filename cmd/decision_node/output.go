package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
)

// Outputs (recordings, JSON reports) are written to a temporary file beside
// the target and renamed into place only after a successful close and sync,
// so a full disk, a crash or a kill leaves the previous file (or none), never
// a partial one. Only regular files are replaced: a device node, a pipe, a
// directory or a symbolic link at the output path is refused, and so is
// every input of the command (inputs.go), with or without --force. A
// command with several outputs commits them together (commitAll): a
// failure leaves none of them behind.
//
// A run killed with SIGKILL (or a crash of the machine) cannot remove its
// temporary file, .TARGET.partial-*: the next run that writes the same
// target removes it. A run holds a lock on its temporary file while it
// writes, so the temporary file of a run still going is never taken for a
// leftover.

// checkOutput says whether path may be written: it must not be one of
// the inputs ins (see inputs.sameAs), and must not exist, or be a regular
// file when replace is set.
func checkOutput(flag, path string, ins inputs, replace bool) error {
	if path == "" {
		return fail(exitUsage, "%s is empty: name a file", flag)
	}
	if err := checkNotInput(flag, path, ins); err != nil {
		return err
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fail(exitIO, "%s %s: %w", flag, path, err)
	}
	if !st.Mode().IsRegular() {
		return fail(exitIO, "%s %s is %s, not a regular file: refusing to replace it", flag, path, fileKind(st.Mode()))
	}
	if !replace {
		return fail(exitIO, "%s exists: choose another %s, or pass --force to replace it", path, flag)
	}
	return nil
}

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string { return limitedfile.Kind(m) }

// atomicFile is an output being written to a temporary file beside its
// target. Commit renames it into place; Abort removes it.
type atomicFile struct {
	*os.File
	flag, target string
	ins          inputs
	replace      bool
	done         bool
	unlock       func() // releases the lock on the temporary file
}

// partialPrefix is how the names of target's temporary files start.
func partialPrefix(target string) string { return "." + filepath.Base(target) + ".partial-" }

// createAtomic checks the target (see checkOutput), removes the temporary
// files earlier runs left beside it, and creates its own, locked, in the
// same directory so that the rename is atomic.
func createAtomic(flag, target string, ins inputs, replace bool) (*atomicFile, error) {
	if err := checkOutput(flag, target, ins, replace); err != nil {
		return nil, err
	}
	removeLeftovers(target)
	f, err := os.CreateTemp(filepath.Dir(target), partialPrefix(target)+"*")
	if err != nil {
		return nil, fail(exitIO, "%s %s: %w", flag, target, err)
	}
	// Without a lock (a file system that has none) the file is still
	// written; only a concurrent run writing the same target could then
	// take it for a leftover.
	unlock, _ := lockPartial(f.Name())
	if err := f.Chmod(0o644); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		unlock()
		return nil, fail(exitIO, "%s %s: %w", flag, target, err)
	}
	return &atomicFile{File: f, flag: flag, target: target, ins: ins, replace: replace, unlock: unlock}, nil
}

// removeLeftovers removes target's temporary files that no running
// process holds: those of runs that were killed before they could.
func removeLeftovers(target string) {
	dir := filepath.Dir(target)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // creating the temporary file reports why
	}
	prefix := partialPrefix(target)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			removeUnlocked(filepath.Join(dir, e.Name()))
		}
	}
}

// Commit syncs and closes the temporary file, checks the target again (it
// may have changed while the output was written) and renames the file into
// place. On failure the temporary file is removed and the target is as it
// was.
func (a *atomicFile) Commit() error { return commitAll(a) }

// commitAll commits files together: each is synced, closed and checked
// before any is renamed into place, so that a failure of one (a full disk,
// a target that became an input) leaves every target as it was.
func commitAll(files ...*atomicFile) error {
	var err error
	for _, a := range files {
		if err = a.finish(); err != nil {
			break
		}
	}
	for _, a := range files {
		if err == nil && !a.done {
			if rerr := os.Rename(a.Name(), a.target); rerr != nil {
				err = fail(exitIO, "write %s: %w", a.target, rerr)
			}
		}
	}
	for _, a := range files {
		if !a.done {
			a.done = true
			if err != nil {
				_ = a.Close() // a no-op error when finish closed it
				_ = os.Remove(a.Name())
			}
			// The lock is held until the file has its final name.
			a.unlock()
		}
	}
	if err != nil {
		return err
	}
	// The renames are durable once the directories are synced; not every
	// file system can sync a directory, and the data itself is already
	// safe.
	for _, a := range files {
		if d, derr := os.Open(filepath.Dir(a.target)); derr == nil {
			_ = d.Sync()
			_ = d.Close()
		}
	}
	return nil
}

// finish syncs and closes the temporary file and checks the target again,
// as Commit does before the rename.
func (a *atomicFile) finish() error {
	if a.done {
		return nil
	}
	err := a.Sync()
	if cerr := a.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(exitIO, "write %s: %w", a.target, err)
	}
	return checkOutput(a.flag, a.target, a.ins, a.replace)
}

// Abort discards the temporary file; the target is untouched.
func (a *atomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	_ = a.Close()
	_ = os.Remove(a.Name())
	a.unlock()
}

// writeFileAtomic writes data to path through a temporary file.
func writeFileAtomic(flag, path string, ins inputs, data []byte) error {
	f, err := createAtomic(flag, path, ins, true)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fail(exitIO, "write %s: %w", path, err)
	}
	return f.Commit()
}
