// Package limitedfile reads the small files a user names (rule policies and
// their cases, ROS 2 parameters files, a rosbag2 bag's metadata.yaml,
// message definitions) under a size limit enforced while reading: at most
// limit+1 bytes are read, so a file that never ends (/dev/zero) or a huge
// one costs no more memory or time than the limit. It must not be used for
// recordings or flight logs, which are streamed, never held whole.
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

// ReadFile reads the file at path whole, or fails with a *TooLargeError
// as soon as it holds more than limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, limit)
}

// ReadFS is ReadFile of name in fsys.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
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
