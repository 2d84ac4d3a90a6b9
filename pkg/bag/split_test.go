package bag

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitOf(t *testing.T) {
	tests := []struct {
		name string
		meta map[string]map[string]string
		want Split
		ok   bool
		err  string
	}{
		{"a first file", nil, Split{}, false, ""},
		{"other metadata only", map[string]map[string]string{"ghost_restart": {"previous": "a.mcap"}}, Split{}, false, ""},
		{"a continuation", map[string]map[string]string{"ghost_restart": {"previous": "x.mcap"},
			MetadataSplit: {"previous": "a.mcap", "part": "2"}}, Split{Previous: "a.mcap", Part: 2}, true, ""},
		{"part zero", map[string]map[string]string{MetadataSplit: {"previous": "a.mcap", "part": "0"}}, Split{}, false, `part "0"`},
		{"no previous", map[string]map[string]string{MetadataSplit: {"part": "1"}}, Split{}, false, `previous ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.mcap")
			r, err := CreateRecording(path, RecorderOptions{Metadata: tt.meta})
			if err != nil {
				t.Fatal(err)
			}
			ch, err := r.AddChannel("/a", "std_msgs/msg/String", "string data\n")
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Write(ch, 1, 1, []byte{0, 1, 0, 0, 1, 0, 0, 0, 0}); err != nil {
				t.Fatal(err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			got, ok, err := SplitOf(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || ok != tt.ok || got != tt.want {
				t.Fatalf("SplitOf = %+v, %v, %v; want %+v, %v", got, ok, err, tt.want, tt.ok)
			}
		})
	}
	notMCAP := filepath.Join(t.TempDir(), "n.mcap")
	if err := os.WriteFile(notMCAP, []byte("not a recording"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := SplitOf(notMCAP); err == nil {
		t.Error("a file that is not MCAP gave no error")
	}
}

func FuzzSplitOf(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.mcap")
	r, err := CreateRecording(path, RecorderOptions{Metadata: map[string]map[string]string{MetadataSplit: {"previous": "a.mcap", "part": "1"}}})
	if err != nil {
		f.Fatal(err)
	}
	if err := r.Close(); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.mcap")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, ok, err := SplitOf(p)
		if ok && (err != nil || s.Previous == "" || s.Part < 1) {
			t.Fatalf("ok with %+v, %v", s, err)
		}
	})
}
