package px4

import (
	"errors"
	"fmt"
	"strings"
)

// Release is a PX4 release whose message layouts ghost knows, written
// "1.14", "1.15" or "1.16".
type Release string

// The supported releases. Patch releases share their minor release's
// px4_msgs layouts.
const (
	Release114 Release = "1.14"
	Release115 Release = "1.15"
	Release116 Release = "1.16"
)

// releases in order; indexes of the per-release tables.
var releases = [...]Release{Release114, Release115, Release116}

// ErrUnknownRelease is wrapped by errors about a release ghost does not know.
var ErrUnknownRelease = errors.New("unknown PX4 release")

// Releases returns the supported releases, oldest first.
func Releases() []Release { return append([]Release(nil), releases[:]...) }

// index returns the release's position in the per-release tables, or -1.
func (r Release) index() int {
	for i, x := range releases {
		if x == r {
			return i
		}
	}
	return -1
}

// Valid reports whether r is a supported release.
func (r Release) Valid() bool { return r.index() >= 0 }

// ParseRelease reads "1.15", "v1.15" or a patch release such as "v1.15.4".
func ParseRelease(s string) (Release, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(t, ".")
	if len(parts) == 2 || len(parts) == 3 {
		if r := Release(parts[0] + "." + parts[1]); r.Valid() {
			return r, nil
		}
	}
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return "", fmt.Errorf("px4: %w %q: want one of 1.14, 1.15, 1.16", ErrUnknownRelease, s)
}
