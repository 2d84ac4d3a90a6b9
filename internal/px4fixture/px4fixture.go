// Package px4fixture reads, for tests, the px4_msgs definitions the
// project keeps as fixtures (pkg/px4/testdata/px4_msgs/<release>), so each
// test package does not locate and read them again. It imports nothing of
// the project, so pkg/px4's own tests use it too. It is for tests only.
package px4fixture

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Dir returns the fixture directory of a px4_msgs release ("1.15").
func Dir(rel string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "pkg", "px4", "testdata", "px4_msgs", rel)
}

// Texts returns the release's .msg texts by message name, failing t when
// there are none.
func Texts(t testing.TB, rel string) map[string]string {
	t.Helper()
	dir := Dir(rel)
	files, err := filepath.Glob(filepath.Join(dir, "*.msg"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no px4_msgs fixtures in %s: %v", dir, err)
	}
	texts := make(map[string]string, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[strings.TrimSuffix(filepath.Base(f), ".msg")] = string(data)
	}
	return texts
}
