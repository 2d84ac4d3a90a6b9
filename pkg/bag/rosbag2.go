package bag

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ghost-robotics/ghost/internal/limitedfile"
	"go.yaml.in/yaml/v3"
)

// A rosbag2 bag is a directory: ros2 bag record writes its storage files
// there and, when it closes, metadata.yaml naming the storage plugin and
// the files in the order they were written. A recording split by
// --max-bag-size or --max-bag-duration is one recording in several files:
// a decision near the start of one file was made on inputs at the end of
// the one before, so the files must be read as one stream.

// BagMetadataFile is the name of a rosbag2 bag's metadata in its directory.
const BagMetadataFile = "metadata.yaml"

// maxBagMetadataBytes bounds what is read of metadata.yaml: ros2 bag record
// writes some hundred bytes per topic and per file.
const maxBagMetadataBytes = 16 << 20

// ErrNotBag is returned by BagFiles for a directory without metadata.yaml.
var ErrNotBag = errors.New("not a rosbag2 bag directory (no " + BagMetadataFile + ")")

// BagFiles returns the storage files of the rosbag2 bag in dir, in the
// order ros2 bag record wrote them; ErrNotBag when dir holds no
// metadata.yaml.
func BagFiles(dir string) ([]string, error) {
	data, err := limitedfile.ReadFile(filepath.Join(dir, BagMetadataFile), maxBagMetadataBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotBag)
	}
	if err != nil {
		return nil, err
	}
	names, err := ParseBagMetadata(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, BagMetadataFile), err)
	}
	files := make([]string, len(names))
	for i, n := range names {
		files[i] = filepath.Join(dir, filepath.FromSlash(n))
	}
	return files, nil
}

// bagMetadata is the part of metadata.yaml a reader needs; the keys are
// the same in every version rosbag2 has written (1 to 9).
type bagMetadata struct {
	Info *struct {
		StorageIdentifier string   `yaml:"storage_identifier"`
		RelativeFilePaths []string `yaml:"relative_file_paths"`
		CompressionFormat string   `yaml:"compression_format"`
		CompressionMode   string   `yaml:"compression_mode"`
	} `yaml:"rosbag2_bagfile_information"`
}

// ParseBagMetadata returns the storage files a rosbag2 metadata.yaml names,
// relative to the bag's directory (slash-separated, as written), after
// checking that they are MCAP files this package reads: storage mcap, no
// whole-file compression, each path inside the directory.
func ParseBagMetadata(data []byte) ([]string, error) {
	var m bagMetadata
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not rosbag2 metadata: %w", err)
	}
	if m.Info == nil {
		return nil, errors.New("not rosbag2 metadata: no rosbag2_bagfile_information")
	}
	info := m.Info
	if info.StorageIdentifier != "mcap" {
		return nil, fmt.Errorf("storage_identifier %q: only MCAP bags are read (record with -s mcap, or ros2 bag convert)",
			info.StorageIdentifier)
	}
	// rosbag2 writes "FILE" or "MESSAGE" and reads them in any case.
	switch strings.ToLower(info.CompressionMode) {
	case "", "none":
	case "file":
		return nil, fmt.Errorf("compression_mode %q (compression_format %q): each file is compressed whole; decompress the files first, or record without --compression-mode (MCAP compresses its chunks itself)",
			info.CompressionMode, info.CompressionFormat)
	case "message":
		return nil, fmt.Errorf("compression_mode %q (compression_format %q): each message's data is compressed on its own; record without --compression-mode (MCAP compresses its chunks itself)",
			info.CompressionMode, info.CompressionFormat)
	default:
		return nil, fmt.Errorf("compression_mode %q: unknown", info.CompressionMode)
	}
	if len(info.RelativeFilePaths) == 0 {
		return nil, errors.New("relative_file_paths: no files")
	}
	for i, p := range info.RelativeFilePaths {
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return nil, fmt.Errorf("relative_file_paths[%d] %q: not a file inside the bag directory", i, p)
		}
	}
	return info.RelativeFilePaths, nil
}
