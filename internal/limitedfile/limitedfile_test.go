package limitedfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		path    string
		limit   int64
		want    int   // bytes read, when no error
		wantErr error // matched with errors.Is
	}{
		{"empty", write("empty", 0), 10, 0, nil},
		{"under", write("under", 9), 10, 9, nil},
		{"at the limit", write("at", 10), 10, 10, nil},
		{"one byte over", write("over", 11), 10, 0, ErrTooLarge},
		{"far over", write("far", 1<<16), 10, 0, ErrTooLarge},
		{"missing", filepath.Join(dir, "missing"), 10, 0, fs.ErrNotExist},
		{"zero limit", write("one", 1), 0, 0, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := ReadFile(tt.path, tt.limit)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(data) != tt.want {
				t.Fatalf("%d bytes, %v; want %d", len(data), err, tt.want)
			}
		})
	}
}

// A device that never ends is refused before it is read, and the message
// names the file and what it is.
func TestReadFileThatNeverEnds(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadFile("/dev/zero", 1<<20)
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Path != "/dev/zero" || !errors.Is(err, ErrNotRegular) {
		t.Fatalf("err %v", err)
	}
	for _, s := range []string{"/dev/zero", "a character device"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not say %q", err, s)
		}
	}
}

func TestReadDirectory(t *testing.T) {
	if _, err := ReadFile(t.TempDir(), 10); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("a directory: %v", err)
	}
}

func TestReadFS(t *testing.T) {
	fsys := fstest.MapFS{"a.msg": {Data: []byte("int32 x\n")}, "big.msg": {Data: bytes.Repeat([]byte("#"), 100)}}
	if data, err := ReadFS(fsys, "a.msg", 10); err != nil || string(data) != "int32 x\n" {
		t.Fatalf("%q, %v", data, err)
	}
	if _, err := ReadFS(fsys, "big.msg", 10); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v", err)
	}
	if _, err := ReadFS(fsys, "none.msg", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1000: "1000 bytes", 1024: "1 KiB", 1 << 20: "1 MiB", 16 << 20: "16 MiB", 1<<20 + 1: "1048577 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
