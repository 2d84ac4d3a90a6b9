package bag

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
)

// bagMetadataYAML is metadata.yaml as ros2 bag record (Humble, MCAP
// storage) writes it for a recording split in two, shortened to the keys
// around the ones read.
const bagMetadataYAML = `rosbag2_bagfile_information:
  version: 5
  storage_identifier: mcap
  duration:
    nanoseconds: 39950000000
  message_count: 2403
  topics_with_message_count:
    - topic_metadata:
        name: /state/nav
        type: ghost/msg/VehicleState
        serialization_format: cdr
        offered_qos_profiles: ""
      message_count: 801
  compression_format: ""
  compression_mode: ""
  relative_file_paths:
    - splitbag_0.mcap
    - splitbag_1.mcap
  files:
    - path: splitbag_0.mcap
      message_count: 1201
    - path: splitbag_1.mcap
      message_count: 1202
`

func TestParseBagMetadata(t *testing.T) {
	edit := func(old, new string) string { return strings.Replace(bagMetadataYAML, old, new, 1) }
	tests := []struct {
		name string
		yaml string
		want []string
		err  string // in the error; "" for none
	}{
		{"as ros2 bag record writes it", bagMetadataYAML, []string{"splitbag_0.mcap", "splitbag_1.mcap"}, ""},
		{"compression mode in capitals, none", edit(`compression_mode: ""`, `compression_mode: NONE`), []string{"splitbag_0.mcap", "splitbag_1.mcap"}, ""},
		{"a subdirectory", edit("- splitbag_1.mcap", "- part/splitbag_1.mcap"), []string{"splitbag_0.mcap", "part/splitbag_1.mcap"}, ""},
		{"sqlite3 storage", edit("storage_identifier: mcap", "storage_identifier: sqlite3"), nil, `storage_identifier "sqlite3": only MCAP bags`},
		{"no storage named", edit("storage_identifier: mcap", ""), nil, `storage_identifier "": only MCAP bags`},
		{"files compressed whole", edit(`compression_mode: ""`, "compression_mode: FILE"), nil, `compression_mode "FILE"`},
		{"messages compressed", edit(`compression_mode: ""`, "compression_mode: MESSAGE"), nil, `compression_mode "MESSAGE"`},
		{"unknown compression mode", edit(`compression_mode: ""`, "compression_mode: CHUNK"), nil, `compression_mode "CHUNK": unknown`},
		{"no files", edit("    - splitbag_0.mcap\n    - splitbag_1.mcap\n", ""), nil, "relative_file_paths: no files"},
		{"a file outside the bag", edit("- splitbag_1.mcap", "- ../other/x.mcap"), nil, `relative_file_paths[1] "../other/x.mcap": not a file inside`},
		{"an absolute path", edit("- splitbag_0.mcap", "- /etc/passwd"), nil, `relative_file_paths[0] "/etc/passwd"`},
		{"an empty path", edit("- splitbag_0.mcap", `- ""`), nil, `relative_file_paths[0] ""`},
		{"another YAML document", "topics: [a, b]\n", nil, "no rosbag2_bagfile_information"},
		{"not YAML", "rosbag2_bagfile_information: [\n", nil, "not rosbag2 metadata"},
		{"paths of the wrong type", edit("  relative_file_paths:\n", "  relative_file_paths: {a: 1}\n  x:\n"), nil, "not rosbag2 metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBagMetadata([]byte(tt.yaml))
			if tt.err == "" {
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("got %q, %v; want an error saying %q", got, err, tt.err)
			}
		})
	}
}

func TestBagFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := BagFiles(dir); !errors.Is(err, ErrNotBag) {
		t.Fatalf("a directory without metadata: %v, want ErrNotBag", err)
	}
	meta := filepath.Join(dir, BagMetadataFile)
	if err := os.WriteFile(meta, []byte(bagMetadataYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := BagFiles(dir)
	want := []string{filepath.Join(dir, "splitbag_0.mcap"), filepath.Join(dir, "splitbag_1.mcap")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	if err := os.WriteFile(meta, []byte("storage_identifier: mcap\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := BagFiles(dir); err == nil || errors.Is(err, ErrNotBag) || !strings.Contains(err.Error(), meta) {
		t.Fatalf("broken metadata: %v, want an error naming %s", err, meta)
	}
	// A metadata.yaml that is a device (one that never ends) is refused
	// before it is read.
	if _, err := os.Stat("/dev/zero"); err != nil {
		return
	}
	if err := os.Remove(meta); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", meta); err != nil {
		t.Skip(err)
	}
	if _, err := BagFiles(dir); !errors.Is(err, limitedfile.ErrNotRegular) || !strings.Contains(err.Error(), meta) {
		t.Fatalf("endless metadata: %v, want a refusal naming %s", err, meta)
	}
}

// FuzzParseBagMetadata: any metadata.yaml is parsed or refused without a
// panic, and whatever is accepted names files inside the bag directory.
func FuzzParseBagMetadata(f *testing.F) {
	f.Add([]byte(bagMetadataYAML))
	f.Add([]byte("rosbag2_bagfile_information:\n  storage_identifier: mcap\n  relative_file_paths: [a.mcap, ../b]\n"))
	f.Add([]byte("rosbag2_bagfile_information: ~\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := ParseBagMetadata(data)
		if err != nil {
			return
		}
		if len(files) == 0 {
			t.Fatal("accepted with no files")
		}
		for _, p := range files {
			if !filepath.IsLocal(filepath.FromSlash(p)) {
				t.Fatalf("accepted %q", p)
			}
		}
	})
}
