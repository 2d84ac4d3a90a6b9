//go:build unix

package limitedfile

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesWhatIsNotAFile: every kind of file that is not a regular
// one is refused, by what it is, without waiting (a named pipe with no
// writer would block an open for reading forever); a link to a regular
// file is followed.
func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular")
	if err := os.WriteFile(regular, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	link := func(name, to string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, kind string // kind "" for a file that opens
	}{
		{"regular file", regular, ""},
		{"link to a regular file", link("to-regular", regular), ""},
		{"named pipe", fifo, "a named pipe"},
		{"link to a named pipe", link("to-fifo", fifo), "a named pipe"},
		{"socket", sock, "a socket"},
		{"directory", dir, "a directory"},
		{"character device", "/dev/null", "a character device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(tt.path); err != nil {
				t.Skipf("%s: %v", tt.path, err)
			}
			done := make(chan error, 1)
			go func() {
				f, err := Open(tt.path)
				if err == nil {
					f.Close()
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				// Unblock the open so that the test ends, then fail.
				if w, werr := os.OpenFile(tt.path, os.O_WRONLY|syscall.O_NONBLOCK, 0); werr == nil {
					w.Close()
				}
				t.Fatalf("Open(%s) still waiting after a minute", tt.name)
			}
			if tt.kind == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				return
			}
			var nr *NotRegularError
			if !errors.As(err, &nr) || !errors.Is(err, ErrNotRegular) || nr.Kind != tt.kind || !strings.Contains(err.Error(), tt.kind) {
				t.Fatalf("Open: %v, want %s refused", err, tt.kind)
			}
			if _, err := ReadFile(tt.path, 10); !errors.Is(err, ErrNotRegular) {
				t.Fatalf("ReadFile: %v", err)
			}
		})
	}
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}
