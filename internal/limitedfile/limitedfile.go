// Package limitedfile opens the files a user names for reading, and reads
// the small ones whole under a size limit.
//
// Open takes regular files only, and refuses anything else (a named pipe,
// a device, a socket, a directory) before opening it: opening a pipe for
// reading waits for a writer, forever if none comes, and a device may never
// end. Every file a user names (keys, recordings, flight logs, policies,
// parameters files) is opened through it.
//
// ReadFile reads a small file (rule policies and their cases, ROS 2
// parameters files, a rosbag2 bag's metadata.yaml, message definitions)
// under a size limit enforced while reading: at most limit+1 bytes are
// read, so a huge file costs no more memory or time than the limit. It must
// not be used for recordings or flight logs, which are streamed, never held
// whole.
package limitedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrTooLarge is matched by every *TooLargeError.
var ErrTooLarge = errors.New("file larger than its limit")

// TooLargeError reports a file holding more than the limit it was read
// with.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than the limit of %s, refused", e.Path, Size(e.Limit))
}

// Is matches ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// ErrNotRegular is matched by every *NotRegularError.
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError reports a path that names something other than a regular
// file where a file is read.
type NotRegularError struct {
	Path string
	// Kind says what the path is instead ("a named pipe", "a directory").
	Kind string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: refused (name a file)", e.Path, e.Kind)
}

// Is matches ErrNotRegular.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// Kind names what a file of mode m is, for messages: "a regular file", "a
// directory", "a named pipe", ...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file (mode " + m.String() + ")"
}

// Open opens the regular file at path (following symbolic links) for
// reading. Anything else is refused with a *NotRegularError before it is
// opened; the open itself does not wait (a file swapped for a pipe between
// the check and the open is refused after it).
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		if err != nil {
			return nil, err
		}
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	return f, nil
}

// ReadFile reads the regular file at path (see Open) whole, or fails with a
// *TooLargeError as soon as it holds more than limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, limit)
}

// ReadFS is ReadFile of name in fsys: what is not a regular file is
// refused before it is opened.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: name, Kind: Kind(st.Mode())}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, name, limit)
}

func read(r io.Reader, path string, limit int64) ([]byte, error) {
	if limit < 0 {
		limit = 0
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}

// Size writes a byte count as people read it: "1 MiB" when it is a whole
// number of KiB or MiB, else in bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
